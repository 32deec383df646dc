// The package as users get it: `npm pack` of this clone, installed with `npm install -g` into a
// temporary prefix OFFLINE (the tarball is all there is: dist/ is bundled, so the package has no
// dependency to fetch and nothing runs at install), then the installed `bookdist` runs
// --version, --help and a lookup in the embedded sandbox, and `man -l` renders its installed page.
// The tarball holds bin/, dist/ (no source maps), man/, completions/, docs/, the README and
// package.json, nothing else.
// The install and --version also run on the oldest Node that engines.node allows: the one
// scripts/prepare-tests.sh (run by `npm test` and CI) unpacks from the npm registry into
// $XDG_CACHE_HOME/bookdist-tests/, or the binary BOOKDIST_TEST_NODE_MIN names.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oldestNodeVersion } from './helpers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const NODE_DIR = dirname(process.execPath);

let work: string;
let tarball: string;
let files: string[];

function run(cmd: string, args: string[], env: Record<string, string>, cwd = work) {
  return spawnSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    env: {
      PATH: `${NODE_DIR}:/usr/local/bin:/usr/bin:/bin`,
      HOME: join(work, 'home'),
      TMPDIR: process.env.TMPDIR ?? tmpdir(),
      NODE_DISABLE_COMPILE_CACHE: '1',
      ...env,
    },
    timeout: 120_000,
  });
}

/** Install the tarball into a fresh prefix with the Node in `nodeDir` first on PATH (npm runs on it). */
function install(prefix: string, nodeDir: string) {
  return run(
    'npm',
    ['install', '-g', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', '--no-update-notifier', tarball],
    {
      PATH: `${nodeDir}:/usr/local/bin:/usr/bin:/bin`,
      npm_config_cache: process.env.npm_config_cache ?? join(process.env.HOME ?? work, '.npm'),
    },
  );
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'bookdist-package-'));
  // dist/ is already built (npm test builds first): --ignore-scripts keeps prepack from rebuilding
  // it under the other tests that are running it.
  const packed = spawnSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (packed.status !== 0) throw new Error(`npm pack failed: ${packed.stderr}`);
  const info = JSON.parse(packed.stdout)[0];
  tarball = join(work, info.filename);
  files = info.files.map((f: { path: string }) => f.path).sort();
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the npm package', () => {
  it('holds bin, the built dist/ (no source maps), man, completions and docs, and nothing else', () => {
    const outside = files.filter(
      (f) => !/^(bin|dist|man|completions|docs)\//.test(f) && !['package.json', 'README.md', 'LICENSE'].includes(f),
    );
    expect(outside).toEqual([]);
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    for (const f of [
      'bin/bookdist',
      'dist/main.js',
      'dist/version.js',
      // dist/ is CommonJS in a package of ES modules: without it, Node would read its files as ES modules.
      'dist/package.json',
      'man/bookdist.1',
      'completions/bookdist.bash',
      'completions/_bookdist',
      'completions/bookdist.fish',
      'docs/commands.md',
    ]) {
      expect(files).toContain(f);
    }
  });

  it('runs nothing at install and depends on nothing (dist/ is bundled)', () => {
    const packed = spawnSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' });
    const pkg = JSON.parse(packed.stdout);
    for (const script of ['preinstall', 'install', 'postinstall', 'prepare'])
      expect(pkg.scripts?.[script], script).toBeUndefined();
    expect(pkg.dependencies ?? {}).toEqual({});
    expect(pkg.bin).toEqual({ bookdist: 'bin/bookdist' });
  });

  it('installs offline with no warning, and the installed bookdist runs: --version, --help, a sandbox lookup, man -l', () => {
    const prefix = join(work, 'prefix');
    const r = install(prefix, NODE_DIR);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr.split('\n').filter((l) => /warn|ERR/i.test(l))).toEqual([]);

    const env = {
      PATH: `${prefix}/bin:${NODE_DIR}:/usr/bin:/bin`,
      BOOKDIST_DATA_DIR: join(work, 'data'),
      BOOKDIST_CONFIG_DIR: join(work, 'config'),
      NO_COLOR: '1',
    };
    const version = run('bookdist', ['--version'], env);
    expect(version.status, version.stderr).toBe(0);
    expect(version.stdout).toBe(`${PKG.version}\n`);
    const help = run('bookdist', ['--help'], env);
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toContain('Usage: bookdist [options] [command]');
    const lookup = run(
      'bookdist',
      ['book', 'get', '--isbn', '978-1-61400-137-9', '-o', 'json', '--fields', 'title'],
      env,
    );
    expect(lookup.status, lookup.stderr).toBe(0);
    expect(JSON.parse(lookup.stdout)).toEqual({ title: "The Lighthouse Keeper's Ledger" });

    // npm links the page into the prefix's man directory, as `man bookdist` finds it.
    const page = join(prefix, 'share', 'man', 'man1', 'bookdist.1');
    expect(existsSync(page)).toBe(true);
    const man = run('man', ['-l', page], { ...env, MANPAGER: 'cat', PAGER: 'cat', MANWIDTH: '80', LANG: 'C.UTF-8' });
    expect(man.status, man.stderr).toBe(0);
    expect(man.stdout).toMatch(/^BOOKDIST\(1\)/);
    expect(man.stdout).toContain('ENVIRONMENT');
    expect(man.stdout).toContain('bookdist profile add');
  });

  it('installs with no warning and runs on the oldest Node that engines.node allows', () => {
    const oldest = oldestNode();
    expect(
      existsSync(oldest),
      `no Node ${minVersion()} at ${oldest}: run \`sh scripts/prepare-tests.sh\` (npm test runs it first), or set BOOKDIST_TEST_NODE_MIN to that node binary`,
    ).toBe(true);
    expect(run(oldest, ['--version'], {}).stdout.trim()).toBe(`v${minVersion()}`);
    const nodeDir = dirname(oldest);
    const prefix = join(work, 'prefix-min');
    const r = install(prefix, nodeDir);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr.split('\n').filter((l) => /warn|ERR/i.test(l))).toEqual([]);
    const version = run('bookdist', ['--version'], { PATH: `${prefix}/bin:${nodeDir}:/usr/bin:/bin` });
    expect(version.status, version.stderr).toBe(0);
    expect(version.stdout).toBe(`${PKG.version}\n`);
  });
});

const minVersion = () => oldestNodeVersion(PKG.engines.node);

/** That Node's binary: BOOKDIST_TEST_NODE_MIN, or where scripts/prepare-tests.sh unpacks it. */
function oldestNode(): string {
  if (process.env.BOOKDIST_TEST_NODE_MIN) return process.env.BOOKDIST_TEST_NODE_MIN;
  // The suite runs with a HOME of its own (test/helpers/temp-guard.ts), which names the user's cache.
  const cache = process.env.BOOKDIST_TEST_USER_CACHE || process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(cache, 'bookdist-tests', `node-${minVersion()}-${process.platform}-${process.arch}`, 'bin', 'node');
}
