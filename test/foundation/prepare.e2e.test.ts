// The README's test command and CI prepare the machine through one script
// (scripts/prepare-tests.sh): it installs the system packages the tests use with apt-get when it
// can, and otherwise stops before any test with one line naming what is missing and how to install
// it. Run here against a PATH of stand-ins (a fake `id`, a fake `apt-get`), so nothing on this
// machine is installed or removed.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { tempDir } from './helpers.js';

const root = resolve(BIN, '..', '..');
const SCRIPT = join(root, 'scripts', 'prepare-tests.sh');
const PACKAGES = ['tinyproxy', 'mandoc', 'man-db', 'shellcheck', 'zsh', 'fish', 'chromium', 'faketime', 'util-linux', 'mount'];
const TOOLS = ['tinyproxy', 'mandoc', 'man', 'shellcheck', 'zsh', 'fish', 'chromium', 'faketime', 'unshare', 'mount'];
const t = tempDir('bookdist-prepare-');
afterAll(() => t.cleanup());

let n = 0;
/** A directory for PATH holding only what the script needs besides the tools it looks for. */
function fakeBin(opts: { uid: number; apt?: 'installs' | 'fails' }, present: string[] = []): { dir: string; aptLog: string } {
  const dir = join(t.dir, `bin-${n++}`);
  mkdirSync(dir);
  for (const tool of ['mktemp', 'tail', 'rm', 'chmod']) symlinkSync(['/usr/bin', '/bin'].map((d) => join(d, tool)).find(existsSync)!, join(dir, tool));
  const script = (name: string, body: string) => {
    writeFileSync(join(dir, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(dir, name), 0o755);
  };
  script('id', `echo ${opts.uid}`);
  for (const tool of present) script(tool, 'exit 0');
  const aptLog = join(dir, 'apt.log');
  // The stand-in apt-get records its arguments; "installs" makes each tool appear in this PATH.
  if (opts.apt === 'installs') script('apt-get', `echo "$*" >> ${aptLog}\n[ "$1" = install ] && for t in ${TOOLS.join(' ')}; do printf '#!/bin/sh\\n' > ${dir}/$t; chmod +x ${dir}/$t; done\nexit 0`);
  if (opts.apt === 'fails') script('apt-get', `echo "$*" >> ${aptLog}\necho "E: Unable to locate package tinyproxy" >&2\nexit 100`);
  return { dir, aptLog };
}

function prepare(dir: string) {
  return spawnSync('/bin/sh', [SCRIPT], { env: { PATH: dir, TMPDIR: process.env.TMPDIR }, encoding: 'utf8' });
}

describe('scripts/prepare-tests.sh', () => {
  it('is what the README\'s test command and .ci/run both run first; CI installs nothing of its own and never edits /etc/hosts', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(pkg.scripts.test).toMatch(/^sh scripts\/prepare-tests\.sh && /);
    expect(pkg.scripts['test:e2e']).toMatch(/^sh scripts\/prepare-tests\.sh && /);
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(readme.split('\n').slice(0, 6).join('\n')).toMatch(/^# bookdist\n\n```sh\n.+\nnpm test\n```$/);
    const ci = readFileSync(join(root, '.ci', 'run'), 'utf8');
    const code = ci.split('\n').filter((l) => !/^\s*#/.test(l)).join('\n');
    expect(code).toMatch(/^if ! sh scripts\/prepare-tests\.sh; then$/m);
    expect(code.indexOf('sh scripts/prepare-tests.sh')).toBeLessThan(code.indexOf('npm ci'));
    expect(code).toMatch(/^npm test$/m);
    expect(code).not.toMatch(/apt-get|\/etc\/hosts/);
  });

  it('with everything present: says nothing, exit 0, apt-get not run', () => {
    const { dir, aptLog } = fakeBin({ uid: 0, apt: 'fails' }, TOOLS);
    const r = prepare(dir);
    expect([r.status, r.stdout, r.stderr]).toEqual([0, '', '']);
    expect(existsSync(aptLog)).toBe(false);
  });

  it('not root: stops at once with one line naming what is missing and the command that installs it; apt-get not run', () => {
    const { dir, aptLog } = fakeBin({ uid: 1000, apt: 'installs' }, TOOLS.filter((x) => x !== 'tinyproxy' && x !== 'chromium'));
    const r = prepare(dir);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'prepare-tests: the tests need these system packages, missing here (not root, so not installed): tinyproxy chromium; ' +
        'install them with: sudo apt-get install -y --no-install-recommends tinyproxy chromium\n',
    );
    expect(existsSync(aptLog)).toBe(false);
  });

  it('root without apt-get: the same one line, naming every missing package', () => {
    const { dir } = fakeBin({ uid: 0 });
    const r = prepare(dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `prepare-tests: the tests need these system packages, missing here (no apt-get, so not installed): ${PACKAGES.join(' ')}; ` +
        `install them with: sudo apt-get install -y --no-install-recommends ${PACKAGES.join(' ')}\n`,
    );
  });

  it('root with apt-get: installs what is missing with one apt-get install, then exit 0', () => {
    const { dir, aptLog } = fakeBin({ uid: 0, apt: 'installs' }, ['zsh']);
    const r = prepare(dir);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const wanted = PACKAGES.filter((p) => p !== 'zsh').join(' ');
    expect(r.stdout).toBe(`prepare-tests: installing ${wanted} (apt-get)\n`);
    expect(readFileSync(aptLog, 'utf8')).toBe(`install -y --no-install-recommends ${wanted}\n`);
  });

  it('root, apt-get fails: one line with apt-get\'s last word and the command, exit 1', () => {
    const { dir, aptLog } = fakeBin({ uid: 0, apt: 'fails' }, TOOLS.filter((x) => x !== 'faketime'));
    const r = prepare(dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('prepare-tests: apt-get could not install faketime: E: Unable to locate package tinyproxy; install them with: apt-get install -y --no-install-recommends faketime\n');
    // The first try, then `apt-get update`, which fails too: the install is not tried a third time.
    expect(readFileSync(aptLog, 'utf8')).toBe('install -y --no-install-recommends faketime\nupdate\n');
  });
});
