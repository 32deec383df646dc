// The README's test command and CI prepare the machine through one script
// (scripts/prepare-tests.sh): it installs the system packages the tests use with apt-get when it
// can, and otherwise stops before any test with one line naming what is missing and how to install
// it; and it unpacks the oldest Node engines.node allows from the npm registry into the user's
// cache once. Run here against a PATH of stand-ins (a fake `id`, a fake `apt-get`, a fake `npm`)
// and a cache of its own, so nothing on this machine is installed, fetched or removed.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { oldestNodeVersion, tempDir } from './helpers.js';

const root = resolve(BIN, '..', '..');
const SCRIPT = join(root, 'scripts', 'prepare-tests.sh');
const PACKAGES = [
  'tinyproxy',
  'mandoc',
  'man-db',
  'shellcheck',
  'zsh',
  'fish',
  'chromium',
  'faketime',
  'util-linux',
  'mount',
];
const TOOLS = ['tinyproxy', 'mandoc', 'man', 'shellcheck', 'zsh', 'fish', 'chromium', 'faketime', 'unshare', 'mount'];
const t = tempDir('bookdist-prepare-');
afterAll(() => t.cleanup());

let n = 0;
/** A directory for PATH holding only what the script needs besides the tools it looks for. */
function fakeBin(
  opts: { uid: number; apt?: 'installs' | 'fails' },
  present: string[] = [],
): { dir: string; aptLog: string } {
  const dir = join(t.dir, `bin-${n++}`);
  mkdirSync(dir);
  symlinkSync(process.execPath, join(dir, 'node'));
  for (const tool of ['mktemp', 'tail', 'rm', 'chmod', 'mkdir', 'mv', 'tar', 'gzip', 'cp'])
    symlinkSync(['/usr/bin', '/bin'].map((d) => join(d, tool)).find(existsSync)!, join(dir, tool));
  const script = (name: string, body: string) => {
    writeFileSync(join(dir, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(dir, name), 0o755);
  };
  script('id', `echo ${opts.uid}`);
  for (const tool of present) script(tool, 'exit 0');
  const aptLog = join(dir, 'apt.log');
  // The stand-in apt-get records its arguments; "installs" makes each tool appear in this PATH.
  if (opts.apt === 'installs')
    script(
      'apt-get',
      `echo "$*" >> ${aptLog}\n[ "$1" = install ] && for t in ${TOOLS.join(' ')}; do printf '#!/bin/sh\\n' > ${dir}/$t; chmod +x ${dir}/$t; done\nexit 0`,
    );
  if (opts.apt === 'fails')
    script('apt-get', `echo "$*" >> ${aptLog}\necho "E: Unable to locate package tinyproxy" >&2\nexit 100`);
  return { dir, aptLog };
}

const MIN = oldestNodeVersion(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).engines.node);
const NODE_DIR = `node-${MIN}-${process.platform}-${process.arch}`;

/** A user cache that already holds the oldest Node (a stand-in that answers its version), or an empty one. */
function cache(withNode = true): string {
  const dir = join(t.dir, `cache-${n++}`);
  mkdirSync(join(dir, 'bookdist-tests', NODE_DIR, 'bin'), { recursive: true });
  if (withNode) {
    writeFileSync(join(dir, 'bookdist-tests', NODE_DIR, 'bin', 'node'), `#!/bin/sh\necho v${MIN}\n`);
    chmodSync(join(dir, 'bookdist-tests', NODE_DIR, 'bin', 'node'), 0o755);
  }
  return dir;
}

function prepare(dir: string, cacheDir = cache()) {
  return spawnSync('/bin/sh', [SCRIPT], {
    env: { PATH: dir, TMPDIR: process.env.TMPDIR, XDG_CACHE_HOME: cacheDir },
    encoding: 'utf8',
  });
}

describe('scripts/prepare-tests.sh', () => {
  it("is what the README's test command and .ci/run both run first; CI installs nothing of its own and never edits /etc/hosts", () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(pkg.scripts.test).toMatch(/^sh scripts\/prepare-tests\.sh && /);
    expect(pkg.scripts['test:e2e']).toMatch(/^sh scripts\/prepare-tests\.sh && /);
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(readme.split('\n').slice(0, 6).join('\n')).toMatch(/^# bookdist\n\n```sh\n.+\nnpm test\n```$/);
    const ci = readFileSync(join(root, '.ci', 'run'), 'utf8');
    const code = ci
      .split('\n')
      .filter((l) => !/^\s*#/.test(l))
      .join('\n');
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
    const { dir, aptLog } = fakeBin(
      { uid: 1000, apt: 'installs' },
      TOOLS.filter((x) => x !== 'tinyproxy' && x !== 'chromium'),
    );
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

  it("root, apt-get fails: one line with apt-get's last word and the command, exit 1", () => {
    const { dir, aptLog } = fakeBin(
      { uid: 0, apt: 'fails' },
      TOOLS.filter((x) => x !== 'faketime'),
    );
    const r = prepare(dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      'prepare-tests: apt-get could not install faketime: E: Unable to locate package tinyproxy; install them with: apt-get install -y --no-install-recommends faketime\n',
    );
    // The first try, then `apt-get update`, which fails too: the install is not tried a third time.
    expect(readFileSync(aptLog, 'utf8')).toBe('install -y --no-install-recommends faketime\nupdate\n');
  });

  it('the oldest Node missing from the cache: fetched from the npm registry (npm pack), unpacked there, said in one line', () => {
    const { dir } = fakeBin({ uid: 0, apt: 'fails' }, TOOLS);
    const pkg = join(t.dir, `pkg-${n++}`);
    mkdirSync(join(pkg, 'package', 'bin'), { recursive: true });
    writeFileSync(join(pkg, 'package', 'bin', 'node'), `#!/bin/sh\necho v${MIN}\n`);
    chmodSync(join(pkg, 'package', 'bin', 'node'), 0o755);
    const tgz = join(t.dir, `node-${n++}.tgz`);
    expect(spawnSync('tar', ['czf', tgz, '-C', pkg, 'package']).status).toBe(0);
    // The stand-in npm records its arguments and "packs" that tarball into the current directory.
    writeFileSync(join(dir, 'npm'), `#!/bin/sh\necho "$*" >> ${dir}/npm.log\ncp ${tgz} ./node-pkg.tgz\n`);
    chmodSync(join(dir, 'npm'), 0o755);
    const c = cache(false);
    const r = prepare(dir, c);
    expect([r.status, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toBe(
      `prepare-tests: fetching Node ${MIN} (${process.platform}-${process.arch}) from the npm registry for the package test\n`,
    );
    expect(readFileSync(join(dir, 'npm.log'), 'utf8')).toBe(
      `pack --silent node-${process.platform}-${process.arch}@${MIN}\n`,
    );
    expect(
      spawnSync(join(c, 'bookdist-tests', NODE_DIR, 'bin', 'node'), ['--version'], { encoding: 'utf8' }).stdout,
    ).toBe(`v${MIN}\n`);
    // Once there, it is not fetched again.
    expect(prepare(dir, c)).toMatchObject({ status: 0, stdout: '', stderr: '' });
    expect(readFileSync(join(dir, 'npm.log'), 'utf8').split('\n').filter(Boolean)).toHaveLength(1);
  });

  it("the oldest Node cannot be fetched: one line naming the package and npm's last word, exit 1", () => {
    const { dir } = fakeBin({ uid: 0, apt: 'fails' }, TOOLS);
    writeFileSync(join(dir, 'npm'), '#!/bin/sh\necho "npm error code E404" >&2\nexit 1\n');
    chmodSync(join(dir, 'npm'), 0o755);
    const r = prepare(dir, cache(false));
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `prepare-tests: could not fetch node-${process.platform}-${process.arch}@${MIN} from the npm registry: npm error code E404; check the network or npm's registry setting\n`,
    );
  });
});
