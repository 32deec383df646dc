// A process with its own view of host names, the machine's untouched: it runs in a private mount
// namespace (unshare) where a hosts file of the test's own is bind-mounted on /etc/hosts. As root
// `unshare -m`; otherwise `unshare -rm` (an unprivileged user namespace, which Debian allows).
// The network tests start the real tinyproxy this way, so that the proxy resolves the test's host
// name through the system resolver as it would resolve a real one.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const root = process.getuid?.() === 0;
const UNSHARE = root ? ['-m'] : ['-r', '-m'];
// $0 is the hosts file, "$@" the command: bind-mount, then become the command (same pid).
const SCRIPT = 'mount --bind "$0" /etc/hosts && exec "$@"';

let problem: string | undefined | null = null;

/** Why a command cannot run with hosts of its own here, or undefined when it can (checked once). */
export function privateHostsProblem(): string | undefined {
  if (problem !== null) return problem;
  const r = spawnSync('unshare', [...UNSHARE, 'sh', '-c', SCRIPT, '/etc/hosts', 'true'], { encoding: 'utf8' });
  problem =
    r.status === 0
      ? undefined
      : `cannot start a process with its own /etc/hosts (unshare ${UNSHARE.join(' ')}: ${(r.error?.message ?? r.stderr).trim() || `exit ${r.status}`}); ` +
        (root
          ? 'a container needs CAP_SYS_ADMIN for mount namespaces'
          : 'run as root, or allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1)');
  return problem;
}

/** Write `file`: this machine's hosts plus `names` mapped to `address`. */
export function writeHosts(file: string, names: string[], address = '127.0.0.1'): string {
  let base = '';
  try {
    base = readFileSync('/etc/hosts', 'utf8');
  } catch {}
  writeFileSync(file, `${base.replace(/\n?$/, '\n')}${names.map((n) => `${address} ${n}`).join('\n')}\n`, {
    mode: 0o644,
  });
  return file;
}

/** The command and arguments that run `command args` with `hostsFile` as its /etc/hosts. */
export function withHosts(hostsFile: string, command: string, args: string[]): [string, string[]] {
  return ['unshare', [...UNSHARE, 'sh', '-c', SCRIPT, hostsFile, command, ...args]];
}
