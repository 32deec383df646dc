// The code cache end to end (issue 31): through bin/bookdist against a real sandbox, every cache a
// faster path cannot use — stale (another Node, another bookdist, another build of dist/),
// truncated, corrupt, unreadable, read-only, a link or a FIFO planted in it — gives the output of
// a run without any cache (the fallback), with nothing more on stderr, and never a hang. Only code
// is cached: runs with other environments, working directories, terminal widths and clocks each
// see their own, and a signal still stops a bulk job gracefully.
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileCacheKey } from '../../src/cache/compile-cache.js';
import { BIN, runCli, type CliResult } from '../helpers/cli.js';
import { startTestSandbox, WELL_KNOWN, type TestSandbox } from '../helpers/sandbox.js';
import { csvCodes, spawnCli, waitForCodes } from '../bulk/_support.js';

// The key of the built CLI: its version and the build's digest (dist/version.js, src/version.ts).
const { CACHE_VERSION } = (await import(new URL('../../dist/version.js', import.meta.url).href)) as {
  CACHE_VERSION: string;
};
const KEY = compileCacheKey(CACHE_VERSION);
const ISBN = WELL_KNOWN.readme.isbn13 as string;

let sb: TestSandbox;
let dir: string;
let reference: CliResult;
let n = 0;
beforeAll(async () => {
  sb = await startTestSandbox();
  dir = mkdtempSync(join(tmpdir(), 'bookdist-compile-cache-e2e-'));
  reference = await get({ BOOKDIST_COMPILE_CACHE: 'off' });
  expect(reference.code, reference.stderr).toBe(0);
  expect(JSON.parse(reference.stdout).book.identifiers.isbn13).toBe(ISBN);
});
afterAll(async () => {
  await sb?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * The files a request loads from a warm cache, at least: main.js, the run chunk, the bundler's
 * runtime, the command group and its verb (scripts/build.mjs; the launcher's dist/version.js is
 * loaded before the cache is on).
 */
const CACHED = 5;
/** A cache home of its own for one case. */
const home = () => join(dir, `home-${++n}`);
/** `book get --isbn` as JSON against the sandbox, with this environment (and `launch`: what runs bin/bookdist). */
function get(
  env: Record<string, string>,
  args = ['book', 'get', '--isbn', ISBN, '--json'],
  launch?: string[],
): Promise<CliResult> {
  return runCli(args, {
    env: { ...sb.env, BOOKDIST_CACHE: 'off', ...env },
    timeoutMs: 20_000,
    launch,
  });
}
/** The cache's key directory in a cache home, and its entries. */
function entries(cacheHome: string): { keyDir: string; files: string[] } {
  const keyDir = join(cacheHome, 'bookdist', 'compile-cache', KEY);
  return { keyDir, files: existsSync(keyDir) ? readdirSync(keyDir).map((f) => join(keyDir, f)) : [] };
}
/** A cache home with a cache of this bookdist and Node in it, made by a run. */
async function warm(): Promise<{ cacheHome: string; keyDir: string; files: string[] }> {
  const cacheHome = home();
  const r = await get({ XDG_CACHE_HOME: cacheHome });
  expect(r).toEqual(reference);
  const { keyDir, files } = entries(cacheHome);
  expect(files.length).toBeGreaterThanOrEqual(CACHED);
  return { cacheHome, keyDir, files };
}
/** The run that reads the cache: the fallback's output exactly (stdout, stderr, exit code). */
async function sameAsFallback(cacheHome: string, env: Record<string, string> = {}): Promise<CliResult> {
  const r = await get({ XDG_CACHE_HOME: cacheHome, ...env });
  expect(r).toEqual(reference);
  return r;
}
/** A run with the cache's account on stderr (NODE_DEBUG=bookdist): how many entries it used and wrote. */
async function account(cacheHome: string, args?: string[]): Promise<{ accepted: number; written: string[] }> {
  const r = await get({ XDG_CACHE_HOME: cacheHome, NODE_DEBUG: 'bookdist' }, args);
  expect(r.code, r.stderr).toBe(0);
  if (!args) expect(r.stdout).toBe(reference.stdout);
  return {
    accepted: (r.stderr.match(/: entry accepted/g) ?? []).length,
    written: [...r.stderr.matchAll(/code cache: (\S+): entry written/g)].map((m) => m[1]),
  };
}
const accepted = async (cacheHome: string) => (await account(cacheHome)).accepted;

describe('a cache that can be used', () => {
  it('the second run takes its chunks from the cache and writes nothing, with the same output; files 0600 in 0700 directories', async () => {
    const { cacheHome, keyDir, files } = await warm();
    expect(await account(cacheHome)).toEqual({ accepted: expect.any(Number), written: [] });
    expect(await accepted(cacheHome)).toBeGreaterThanOrEqual(CACHED);
    await sameAsFallback(cacheHome);
    for (const f of files) expect(statSync(f).mode & 0o777, f).toBe(0o600);
    for (const d of [join(cacheHome, 'bookdist'), join(cacheHome, 'bookdist', 'compile-cache'), keyDir]) {
      expect(statSync(d).mode & 0o777, d).toBe(0o700);
    }
    // control: with the cache turned off, nothing is taken from it
    const off = await get({ XDG_CACHE_HOME: cacheHome, BOOKDIST_COMPILE_CACHE: 'off', NODE_DEBUG: 'bookdist' });
    expect(off.stderr).toMatch(/code cache: off: BOOKDIST_COMPILE_CACHE is off/);
    expect(off.stderr).not.toMatch(/entry accepted/);
  });

  it('the root help goes without it: its few small modules compile faster than the cache is checked', async () => {
    const cacheHome = home();
    for (const args of [['--help'], ['-h'], []]) {
      const r = await runCli(args, { env: { XDG_CACHE_HOME: cacheHome, NODE_DEBUG: 'bookdist' } });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^Usage: bookdist/);
      expect(r.stderr).not.toMatch(/code cache/);
    }
    expect(existsSync(join(cacheHome, 'bookdist'))).toBe(false);
    // control: a group's help uses it
    expect(
      (await runCli(['book', '--help'], { env: { XDG_CACHE_HOME: cacheHome, NODE_DEBUG: 'bookdist' } })).stderr,
    ).toMatch(/code cache: main.js: /);
  });

  it("an entry gains the functions of each new command that loads its chunk, written once: a chunk's entry grows, then stays", async () => {
    const { cacheHome, keyDir } = await warm();
    const run = () => readdirSync(keyDir).find((f) => /-chunks_run-/.test(f))!;
    const before = statSync(join(keyDir, run())).size;
    const list = ['book', 'list', '--limit', '1'];
    const first = await account(cacheHome, list);
    expect(first.written).toContain(run().replace(/^[^-]+-/, ''));
    const after = statSync(join(keyDir, run())).size;
    expect(after).toBeGreaterThan(before);
    // Each command again: everything taken from the cache, nothing written.
    for (const args of [undefined, list]) {
      const again = await account(cacheHome, args);
      expect(again.written, String(args)).toEqual([]);
      expect(again.accepted, String(args)).toBeGreaterThanOrEqual(CACHED);
    }
    expect(statSync(join(keyDir, run())).size).toBe(after);
  });

  it('the embedded sandbox too: a second embedded request takes every chunk from the cache and writes nothing', async () => {
    const cacheHome = home();
    const embedded = embeddedGet(cacheHome);
    const first = await embedded();
    expect(first.code, first.stderr).toBe(0);
    const again = await embedded();
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(first.stdout);
    expect(again.stderr).not.toMatch(/no entry used|entry written/);
    expect((again.stderr.match(/entry accepted/g) ?? []).length).toBeGreaterThan(CACHED);
  });

  it("an embedded run of a command a remote run cached adds the functions of its own run once (the embedded sandbox's are not compiled again every run)", async () => {
    const { cacheHome } = await warm();
    const embedded = embeddedGet(cacheHome);
    const first = await embedded();
    expect(first.code, first.stderr).toBe(0);
    // The run chunk, loaded by both kinds of run, gains the embedded run's functions.
    expect(first.stderr).toMatch(
      /chunks_run-\S+: entry written \(\d+ bytes, for 'book get', 'book get \(embedded\)'\)/,
    );
    const again = await embedded();
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(first.stdout);
    expect(again.stderr).not.toMatch(/no entry used|entry written/);
    // The remote run still takes its entries and writes nothing.
    expect(await account(cacheHome)).toEqual({ accepted: expect.any(Number), written: [] });
  });

  it('a run under other V8 flags keeps entries of its own: neither refuses nor rewrites the other', async () => {
    const { cacheHome, files } = await warm();
    expect((await withNodeFlags(['--max-lazy'], cacheHome, '')).code).toBe(0);
    const again = await withNodeFlags(['--max-lazy'], cacheHome, 'bookdist');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(reference.stdout);
    expect(again.stderr).not.toMatch(/no entry used|entry written/);
    // the first entries are there as they were, and still taken
    for (const f of files) expect(existsSync(f), f).toBe(true);
    expect(await account(cacheHome)).toEqual({ accepted: expect.any(Number), written: [] });
  });
});

/** `book get --json` on the embedded sandbox (no profile; a data directory of its own) with this cache home and NODE_DEBUG. */
function embeddedGet(cacheHome: string): () => Promise<CliResult> {
  const env = {
    BOOKDIST_CONFIG_DIR: join(dir, `no-config-${n}`),
    BOOKDIST_DATA_DIR: join(dir, `data-${n}`),
    BOOKDIST_CACHE: 'off',
    XDG_CACHE_HOME: cacheHome,
    NODE_DEBUG: 'bookdist',
  };
  return () => runCli(['book', 'get', '--isbn', ISBN, '--json'], { env, timeoutMs: 20_000 });
}

/** `book get` through `node FLAGS bin/bookdist`, with this cache home and NODE_DEBUG (the sandbox answers from this process: not blocked). */
function withNodeFlags(flags: string[], cacheHome: string, debug: string): Promise<CliResult> {
  return get({ XDG_CACHE_HOME: cacheHome, NODE_DEBUG: debug }, undefined, [process.execPath, ...flags]);
}

describe('a cache that cannot be used gives the same output', () => {
  it('stale: made by another Node, another bookdist or another build of it (another key): not read, removed', async () => {
    const { cacheHome } = await warm();
    const root = join(cacheHome, 'bookdist', 'compile-cache');
    const otherNode = compileCacheKey(CACHE_VERSION, { ...process.versions, node: '24.0.0' });
    const otherBookdist = compileCacheKey('0.0.1');
    // Another build of this version (a rebuild): its chunks' entries are not this build's.
    const otherBuild = compileCacheKey(`${CACHE_VERSION.split('+')[0]}+000000000000`);
    renameSync(join(root, KEY), join(root, otherNode));
    spawnSync('cp', ['-r', join(root, otherNode), join(root, otherBookdist)]);
    spawnSync('cp', ['-r', join(root, otherNode), join(root, otherBuild)]);
    await sameAsFallback(cacheHome);
    expect(readdirSync(root)).toEqual([KEY]);
    expect(await accepted(cacheHome)).toBeGreaterThanOrEqual(CACHED);
  });

  it("stale: entries of another build of dist/ (each chunk given another chunk's entry): refused by V8, written again", async () => {
    const { cacheHome, files } = await warm();
    const bytes = files.map((f) => readFileSync(f));
    files.forEach((f, i) => writeFileSync(f, bytes[(i + 1) % files.length]));
    const refused = await get({ XDG_CACHE_HOME: cacheHome, NODE_DEBUG: 'bookdist' });
    expect(refused.stdout).toBe(reference.stdout);
    expect((refused.stderr.match(/no entry used: refused by V8/g) ?? []).length).toBeGreaterThanOrEqual(CACHED);
    expect(await accepted(cacheHome)).toBeGreaterThanOrEqual(CACHED);
  });

  it('truncated: every file cut in half', async () => {
    const { cacheHome, files } = await warm();
    for (const f of files) truncateSync(f, Math.floor(statSync(f).size / 2));
    await sameAsFallback(cacheHome);
    expect(await accepted(cacheHome)).toBeGreaterThanOrEqual(CACHED);
  });

  it('far too large (a sparse file of 65 MB at each entry): not read, written again', async () => {
    const { cacheHome, files } = await warm();
    for (const f of files) truncateSync(f, 65 << 20);
    const r = await get({ XDG_CACHE_HOME: cacheHome, NODE_DEBUG: 'bookdist' });
    expect(r.stdout).toBe(reference.stdout);
    expect((r.stderr.match(/no entry used: too large/g) ?? []).length).toBe(files.length);
    for (const f of files) expect(statSync(f).size, f).toBeLessThan(1 << 20);
    expect(await accepted(cacheHome)).toBeGreaterThanOrEqual(CACHED);
  });

  it('corrupt: bytes changed in every file, in its header or in the code V8 checks nothing of', async () => {
    const { cacheHome, files } = await warm();
    for (const f of files) {
      const b = readFileSync(f);
      for (let i = 16; i < b.length; i += 5) b[i] ^= 0x5a;
      writeFileSync(f, b);
    }
    await sameAsFallback(cacheHome);
    expect(await accepted(cacheHome)).toBeGreaterThanOrEqual(CACHED);
    // V8 checks its own header, but not the code after it (a release build): 64 bytes changed in
    // the middle of each file, given to V8, would crash Node. The entry's checksum keeps them from it.
    for (const f of entries(cacheHome).files) {
      const b = readFileSync(f);
      const mid = Math.floor(b.length / 2);
      for (let i = mid; i < mid + 64 && i < b.length; i++) b[i] ^= 0xff;
      writeFileSync(f, b);
    }
    await sameAsFallback(cacheHome);
    expect(await accepted(cacheHome)).toBeGreaterThanOrEqual(CACHED);
  });

  it('unreadable: a directory where each file was', async () => {
    const { cacheHome, files } = await warm();
    for (const f of files) {
      rmSync(f);
      mkdirSync(f);
    }
    await sameAsFallback(cacheHome);
    expect(entries(cacheHome).files.every((f) => !statSync(f).isDirectory())).toBe(true);
  });

  it('a FIFO planted among the files: no hang, removed', async () => {
    const { cacheHome, files } = await warm();
    rmSync(files[0]);
    expect(spawnSync('mkfifo', [files[0]]).status).toBe(0);
    await sameAsFallback(cacheHome);
    expect(existsSync(files[0]) && statSync(files[0]).isFIFO()).toBe(false);
  });

  it('source maps on (node --enable-source-maps): Node maps only what it compiles itself, so no cache', async () => {
    const { cacheHome } = await warm();
    const r = await withNodeFlags(['--enable-source-maps'], cacheHome, 'bookdist');
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: reference.stdout });
    expect(r.stderr).toMatch(/code cache: off: source maps are on/);
    expect(r.stderr).not.toMatch(/entry accepted/);
  });

  it("a link planted at the cache's path: not followed, nothing written where it points", async () => {
    const cacheHome = home();
    const elsewhere = join(dir, `elsewhere-${n}`);
    mkdirSync(elsewhere);
    mkdirSync(join(cacheHome, 'bookdist'), { recursive: true, mode: 0o700 });
    symlinkSync(elsewhere, join(cacheHome, 'bookdist', 'compile-cache'));
    await sameAsFallback(cacheHome);
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('a read-only cache directory: read, never written, nothing said', async () => {
    const { cacheHome, files } = await warm();
    for (const f of files) truncateSync(f, 10);
    const { keyDir } = entries(cacheHome);
    let r: CliResult;
    if (process.getuid?.() === 0) {
      // root writes through file modes: a read-only bind mount, in a mount namespace of its own.
      const script = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" "$1" && shift && exec "$@"';
      const launch = ['unshare', '-m', 'sh', '-c', script, 'sh', keyDir, process.execPath];
      r = await get({ XDG_CACHE_HOME: cacheHome }, undefined, launch);
    } else {
      chmodSync(keyDir, 0o500);
      r = await get({ XDG_CACHE_HOME: cacheHome });
      chmodSync(keyDir, 0o700);
    }
    expect(r).toEqual(reference);
    // Not written: the truncated files are still there as they were.
    for (const f of files) expect(statSync(f).size).toBe(10);
  });
});

describe('only code is cached: each run reads its own', () => {
  /** Run bookdist (optionally under another program, e.g. faketime) with a warm cache. */
  function bd(
    args: string[],
    env: Record<string, string>,
    opts: { cwd?: string; via?: string[] } = {},
  ): Promise<CliResult> {
    const via = opts.via ?? [];
    return new Promise((resolve) => {
      const child = spawn(
        via[0] ?? process.execPath,
        [...via.slice(1), ...(via.length ? [process.execPath] : []), BIN, ...args],
        {
          env: { PATH: process.env.PATH, NO_COLOR: '1', BOOKDIST_CACHE: 'off', ...env },
          cwd: opts.cwd,
        },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
      child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    });
  }

  it('environment, working directory, terminal width and clock: each run as without the cache, and unlike the other', async () => {
    const { cacheHome } = await warm();
    const env = { ...sb.env, HOME: join(dir, 'no-home'), XDG_CACHE_HOME: cacheHome };
    /** The run from the cache, checked against the same run without it; its stdout. */
    const own = async (
      args: string[],
      more: Record<string, string>,
      opts: { cwd?: string; via?: string[]; base?: Record<string, string> } = {},
    ) => {
      const base = opts.base ?? env;
      const cached = await bd(args, { ...base, ...more }, opts);
      expect(cached.code, cached.stderr).toBe(0);
      // (stdout and the exit code: a bulk job's summary on stderr says how long it took)
      const fallback = await bd(args, { ...base, ...more, BOOKDIST_COMPILE_CACHE: 'off' }, opts);
      expect({ code: cached.code, stdout: cached.stdout }).toEqual({ code: fallback.code, stdout: fallback.stdout });
      return cached.stdout;
    };

    // The environment: the base URL each run was given.
    const urls = ['http://a.example:81', 'http://b.example:82'];
    const curl = await Promise.all(
      urls.map((url) => own(['--dry-run', 'book', 'get', '--isbn', ISBN], { BOOKDIST_BASE_URL: url })),
    );
    urls.forEach((url, i) => expect(curl[i]).toContain(`${url}/v1/book/isbn/${ISBN}/`));

    // The terminal's width: help laid out to each run's COLUMNS.
    const [narrow, wide] = [
      await own(['book', 'get', '--help'], { COLUMNS: '50' }),
      await own(['book', 'get', '--help'], { COLUMNS: '120' }),
    ];
    expect(narrow.split('\n').length).toBeGreaterThan(wide.split('\n').length);

    // The working directory: a relative file read from each run's own.
    const isbns = [WELL_KNOWN.readme.isbn13 as string, WELL_KNOWN.limitedPricing.isbn13 as string];
    for (const [i, isbn] of isbns.entries()) {
      const cwd = join(dir, `cwd-${i}`);
      mkdirSync(cwd);
      writeFileSync(join(cwd, 'isbns.txt'), `${isbn}\n`);
      const out = await own(['book', 'get', '--isbn-file', 'isbns.txt', '-o', 'ndjson'], {}, { cwd });
      expect(out).toContain(isbn);
      expect(out).not.toContain(isbns[1 - i]);
    }

    // The clock: the embedded sandbox dates a rental from each run's now.
    const embedded = {
      HOME: join(dir, 'no-home'),
      XDG_CACHE_HOME: cacheHome,
      BOOKDIST_CONFIG_DIR: join(dir, 'no-config'),
      BOOKDIST_DATA_DIR: join(dir, 'embedded'),
    };
    const rental = (out: string) =>
      JSON.parse(out).book.digital_pricing.find((p: any) => p.is_limited).calculated_expiration_date;
    const today = rental(await own(['book', 'get', '--isbn', ISBN, '--json'], {}, { base: embedded }));
    const later = rental(
      await own(
        ['book', 'get', '--isbn', ISBN, '--json'],
        {},
        { base: embedded, via: ['faketime', '2031-03-01 12:00:00'] },
      ),
    );
    expect(later).toBe('2031-08-28');
    expect(today).not.toBe(later);
  });

  it('a signal still stops a bulk job gracefully (what arrived is kept, the resume command said, death by SIGINT)', async () => {
    const { cacheHome } = await warm();
    const out = join(dir, 'interrupted.csv');
    const args = [
      'codes',
      'generate',
      '--hash-id',
      WELL_KNOWN.readme.hash_id,
      '--org',
      'acme',
      '--count',
      '50000',
      '--batch-size',
      '250',
      '--concurrency',
      '2',
      '--out',
      out,
    ];
    const run = spawnCli(sb, args, { XDG_CACHE_HOME: cacheHome, BOOKDIST_CACHE: 'off' });
    await waitForCodes(out, 500, run.exited);
    run.child.kill('SIGINT');
    const res = await run.exited;
    expect(res, res.stderr).toMatchObject({ code: null, signal: 'SIGINT' });
    expect(res.stderr).toMatch(/--resume/);
    expect(csvCodes(out).length % 250).toBe(0);
    expect(entries(cacheHome).files.length).toBeGreaterThanOrEqual(CACHED);
  });
});
