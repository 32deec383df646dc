// vitest globalSetup: the suite's temporary files and home directory are its own, and it must leave
// nothing behind.
// Before any test runs, TMPDIR points at a fresh directory (os.tmpdir() of every test file, and of
// every process a test starts with TMPDIR in its environment), and HOME at another, so a command
// run with the defaults writes its profiles, sandbox database and keys there rather than into
// the user's own directories. After the last test:
// - the temporary directory must be empty: whatever a test made there and did not remove is
//   listed, and the run fails;
// - no private key (*.pem) may be left under the suite's home: a test that starts a sandbox
//   keeps its database and keys in a temporary directory of its own;
// then both are removed. Set BOOKDIST_KEEP_TEST_TMP=1 to keep them for a look.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

function walk(dir: string, out: string[] = []): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of names) {
    const p = join(dir, name);
    out.push(p);
    try {
      if (statSync(p).isDirectory()) walk(p, out);
    } catch {}
  }
  return out;
}

/** Whether process `pid` is alive (one of another user's answers EPERM: alive too). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export default function setup(): () => void {
  // A run killed before its teardown leaves its folder (Stryker ends a worker that hangs on a mutant,
  // and each of its workers runs this setup): the folders of runs whose process is gone are removed.
  for (const name of readdirSync(tmpdir())) {
    const pid = Number(/^bookdist-suite-(\d+)-/.exec(name)?.[1]);
    if (pid && !alive(pid)) rmSync(join(tmpdir(), name), { recursive: true, force: true });
  }
  const root = mkdtempSync(join(tmpdir(), `bookdist-suite-${process.pid}-`));
  const tmp = join(root, 'tmp');
  const home = join(root, 'home');
  mkdirSync(tmp);
  mkdirSync(home);
  const saved = { TMPDIR: process.env.TMPDIR, HOME: process.env.HOME };
  // npm and the pinned Node keep using the user's npm cache (the package test installs offline from it).
  process.env.npm_config_cache ??= join(saved.HOME ?? home, '.npm');
  // The user's cache directory, where scripts/prepare-tests.sh unpacks the oldest Node for the package test.
  process.env.BOOKDIST_TEST_USER_CACHE ??= process.env.XDG_CACHE_HOME || join(saved.HOME ?? home, '.cache');
  // Tools the tests run (npm) turn on Node's compile cache in the temporary directory by default.
  // No compile cache in the test run at all: pointed elsewhere, every Node process would write it
  // when it exits, the workers of this run too, after the directory is removed.
  process.env.NODE_DISABLE_COMPILE_CACHE = '1';
  process.env.TMPDIR = tmp;
  process.env.HOME = home;
  return () => {
    process.env.TMPDIR = saved.TMPDIR;
    process.env.HOME = saved.HOME;
    // A test sandbox's directory names the test that started it (test/helpers/sandbox.ts).
    const left = readdirSync(tmp)
      .sort()
      .map((name) => {
        const owner = join(tmp, name, '.created-by');
        return existsSync(owner) ? `${name} (started by ${readFileSync(owner, 'utf8').trim()})` : name;
      });
    const keys = walk(home)
      .filter((p) => p.endsWith('.pem'))
      .map((p) => relative(home, p));
    // Removed again until gone: Node's rmSync stops early, silently, when an entry vanishes between
    // its listing and its unlink (SQLite deleting a -wal file as a late child process closes), as
    // bench/sandbox.mjs found for its folders (removeDir).
    if (!process.env.BOOKDIST_KEEP_TEST_TMP)
      for (let i = 0; i < 20 && existsSync(root); i++) rmSync(root, { recursive: true, force: true, maxRetries: 5 });
    const problems: string[] = [];
    if (left.length)
      problems.push(
        `the tests left ${left.length} entr${left.length === 1 ? 'y' : 'ies'} in the temporary directory: ${left.join(', ')}`,
      );
    if (keys.length)
      problems.push(
        `private keys were written outside a test's own temporary directory (under HOME): ${keys.join(', ')}`,
      );
    if (problems.length)
      throw new Error(`${problems.join('; ')} (test/helpers/temp-guard.ts; BOOKDIST_KEEP_TEST_TMP=1 keeps ${root})`);
  };
}
