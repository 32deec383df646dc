// The compile cache end to end (issue 31): through bin/bookdist against a real sandbox, every
// cache a faster path cannot use — stale (another Node, another bookdist, another build of
// dist/), truncated, corrupt, unreadable, read-only, a link or a FIFO planted in it — gives the
// output of a run without any cache (the fallback), with nothing more on stderr, and never a hang.
// Only code is cached: runs with other environments, working directories, terminal widths and
// clocks each see their own, and a signal still stops a bulk job gracefully.
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
import { fileURLToPath } from 'node:url';
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
 * The modules a request takes from a warm cache, at least: main.js, the run chunk, the bundler's
 * runtime, the command group and its verb (scripts/build.mjs; the launcher's dist/version.js is
 * loaded before the cache is on).
 */
const CACHED = 5;
/** A cache home of its own for one case. */
const home = () => join(dir, `home-${++n}`);
/** `book get --isbn` as JSON against the sandbox, with this environment. */
function get(env: Record<string, string>): Promise<CliResult> {
  return runCli(['book', 'get', '--isbn', ISBN, '--json'], {
    env: { ...sb.env, BOOKDIST_CACHE: 'off', ...env },
    timeoutMs: 20_000,
  });
}
/** Node's version directory in a cache home, and its files (what the cache holds). */
function nodeFiles(cacheHome: string): { tag: string; files: string[] } {
  const keyDir = join(cacheHome, 'bookdist', 'compile-cache', KEY);
  const tags = existsSync(keyDir) ? readdirSync(keyDir) : [];
  if (tags.length !== 1) return { tag: '', files: [] };
  const tag = join(keyDir, tags[0]);
  return { tag, files: readdirSync(tag).map((f) => join(tag, f)) };
}
/** A cache home with a cache of this bookdist and Node in it, made by a run. */
async function warm(): Promise<{ cacheHome: string; tag: string; files: string[] }> {
  const cacheHome = home();
  const r = await get({ XDG_CACHE_HOME: cacheHome });
  expect(r).toEqual(reference);
  const { tag, files } = nodeFiles(cacheHome);
  expect(files.length).toBeGreaterThanOrEqual(CACHED);
  return { cacheHome, tag, files };
}
/** The run that reads the cache: the fallback's output exactly (stdout, stderr, exit code). */
async function sameAsFallback(cacheHome: string, env: Record<string, string> = {}): Promise<CliResult> {
  const r = await get({ XDG_CACHE_HOME: cacheHome, ...env });
  expect(r).toEqual(reference);
  return r;
}
/** Does this run take its code from the cache? Node's own account (NODE_DEBUG_NATIVE). */
async function accepted(cacheHome: string): Promise<number> {
  const r = await get({ XDG_CACHE_HOME: cacheHome, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' });
  expect(r.code).toBe(0);
  expect(r.stdout).toBe(reference.stdout);
  return (r.stderr.match(/was accepted/g) ?? []).length;
}

describe('a cache that can be used', () => {
  it('the second run takes its modules from the cache, with the same output; files 0600 in 0700 directories', async () => {
    const { cacheHome, tag, files } = await warm();
    expect(await accepted(cacheHome)).toBeGreaterThanOrEqual(CACHED);
    await sameAsFallback(cacheHome);
    for (const f of files) expect(statSync(f).mode & 0o777, f).toBe(0o600);
    for (const d of [
      join(cacheHome, 'bookdist'),
      join(cacheHome, 'bookdist', 'compile-cache'),
      join(cacheHome, 'bookdist', 'compile-cache', KEY),
      tag,
    ]) {
      expect(statSync(d).mode & 0o777, d).toBe(0o700);
    }
    // control: with the cache turned off, nothing is taken from it
    expect(
      (await get({ XDG_CACHE_HOME: cacheHome, BOOKDIST_COMPILE_CACHE: 'off', NODE_DEBUG_NATIVE: 'COMPILE_CACHE' }))
        .stderr,
    ).not.toMatch(/compile cache/);
  });

  it('the root help goes without it: its few small modules compile faster than the cache is checked', async () => {
    const cacheHome = home();
    for (const args of [['--help'], ['-h'], []]) {
      const r = await runCli(args, { env: { XDG_CACHE_HOME: cacheHome, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' } });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^Usage: bookdist/);
      expect(r.stderr).not.toMatch(/compile cache/);
    }
    expect(existsSync(join(cacheHome, 'bookdist'))).toBe(false);
    // control: a group's help uses it
    expect(
      (await runCli(['book', '--help'], { env: { XDG_CACHE_HOME: cacheHome, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' } }))
        .stderr,
    ).toMatch(/compile cache/);
  });
});

/** Node's account of an entry it reads: the module, then [.., source size, cache size, ..]. */
const READING = /reading cache from \S+ for ESM (\S+)\.\.\.\[\d+ (\d+) (\d+) /g;

/** The sources a chunk of dist/ holds, from its source map (by the chunk's file URL). */
function sourcesOf(url: string): string[] {
  const map = `${fileURLToPath(url)}.map`;
  return existsSync(map) ? (JSON.parse(readFileSync(map, 'utf8')) as { sources: string[] }).sources : [];
}

describe("the cache holds bookdist's functions whole (src/cache/eager-compile.ts)", () => {
  it("a chunk's entry holds its functions, not only its top level: the run chunk's entry is larger than its source", async () => {
    const { cacheHome } = await warm();
    const r = await get({ XDG_CACHE_HOME: cacheHome, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' });
    // Node's account names each module with [.. source size, cache size, ..] when it reads its entry.
    const sizes = [...r.stderr.matchAll(READING)].map((m) => ({
      url: m[1],
      source: Number(m[2]),
      cache: Number(m[3]),
    }));
    const run = sizes.reduce((a, b) => (b.source > a.source ? b : a));
    expect(run.url).toMatch(/\/dist\/chunks\/run-/);
    expect(run.cache).toBeGreaterThan(run.source);
    // control: made without the eager compile (a lazy V8 flag of the user's turns it off), the entry holds the top level only
    const lazyHome = home();
    // (the sandbox answers from this process: the run must not block it)
    const lazyRun = (debug: string) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, ['--max-lazy', BIN, 'book', 'get', '--isbn', ISBN, '--json'], {
          env: {
            PATH: process.env.PATH,
            HOME: process.env.HOME,
            TMPDIR: process.env.TMPDIR,
            NO_COLOR: '1',
            ...sb.env,
            BOOKDIST_CACHE: 'off',
            XDG_CACHE_HOME: lazyHome,
            NODE_DEBUG_NATIVE: debug,
          },
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
        child.on('close', (code) => resolve({ code, stderr }));
      });
    const first = await lazyRun('');
    expect(first.code, first.stderr).toBe(0);
    const entry = [...(await lazyRun('COMPILE_CACHE')).stderr.matchAll(READING)].find((m) => m[1] === run.url);
    expect(Number(entry![3])).toBeLessThan(run.source);
  });

  it("but the embedded sandbox's chunk lazily, on every path: an embedded request and the sandbox commands that take it at their top level", async () => {
    const cacheHome = home();
    // The built-in profile: no config, a data directory of its own.
    const env = {
      BOOKDIST_CONFIG_DIR: join(dir, `no-config-${n}`),
      BOOKDIST_DATA_DIR: join(dir, `data-${n}`),
      BOOKDIST_CACHE: 'off',
      XDG_CACHE_HOME: cacheHome,
    };
    const embeddedGet = ['book', 'get', '--isbn', ISBN, '--json'];
    const snapshots = ['sandbox', 'snapshot', 'list'];
    for (const args of [embeddedGet, snapshots, embeddedGet]) {
      const r = await runCli(args, { env, timeoutMs: 20_000 });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    }
    for (const args of [snapshots, embeddedGet]) {
      const r = await runCli(args, { env: { ...env, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' }, timeoutMs: 20_000 });
      expect(r.code).toBe(0);
      expect((r.stderr.match(/was accepted/g) ?? []).length, args.join(' ')).toBeGreaterThanOrEqual(CACHED);
      expect(r.stderr, args.join(' ')).not.toMatch(/writing cache for/);
      // The sandbox's chunk (the one whose source map holds src/sandbox/embedded.ts; not the largest
      // an embedded command loads since its seed moved out): its entry holds its top level only.
      const entries = [...r.stderr.matchAll(READING)].map((m) => ({
        url: m[1],
        source: Number(m[2]),
        cache: Number(m[3]),
      }));
      const sandbox = entries.filter((e) => sourcesOf(e.url).some((s) => s.endsWith('src/sandbox/embedded.ts')));
      expect(sandbox.length, args.join(' ')).toBe(1);
      expect(sandbox[0].cache, args.join(' ')).toBeLessThan(sandbox[0].source);
      // control: the run chunk it builds on is eager (its entry larger than its source)
      const run = entries.find((e) => sourcesOf(e.url).some((s) => s.endsWith('src/cli/run.ts')));
      expect(run!.cache, args.join(' ')).toBeGreaterThan(run!.source);
    }
  });

  it('runs of other commands leave it as it is: every path compiles each chunk the same way, so none is refused and written again', async () => {
    const { cacheHome } = await warm();
    const env = { ...sb.env, BOOKDIST_CACHE: 'off', XDG_CACHE_HOME: cacheHome };
    for (const args of [
      ['book', 'list', '--limit', '1'],
      ['profile', 'list'],
      ['book', '--help'],
      ['help', 'book', 'get'],
    ]) {
      expect((await runCli(args, { env })).code, args.join(' ')).toBe(0);
    }
    for (const args of [
      ['book', 'get', '--isbn', ISBN, '--json'],
      ['book', 'list', '--limit', '1'],
    ]) {
      const r = await runCli(args, { env: { ...env, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' } });
      expect(r.code).toBe(0);
      expect((r.stderr.match(/was accepted/g) ?? []).length, args.join(' ')).toBeGreaterThanOrEqual(CACHED);
      expect(r.stderr, args.join(' ')).not.toMatch(/writing cache for/);
    }
  });
});

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

  it("stale: entries of another build of dist/ (each module given another module's cache): refused by Node, written again", async () => {
    const { cacheHome, files } = await warm();
    const bytes = files.map((f) => readFileSync(f));
    files.forEach((f, i) => writeFileSync(f, bytes[(i + 1) % files.length]));
    expect(await accepted(cacheHome)).toBe(0);
    expect(await accepted(cacheHome)).toBeGreaterThanOrEqual(CACHED);
  });

  it('truncated: every file cut in half', async () => {
    const { cacheHome, files } = await warm();
    for (const f of files) truncateSync(f, Math.floor(statSync(f).size / 2));
    await sameAsFallback(cacheHome);
    expect(await accepted(cacheHome)).toBeGreaterThanOrEqual(CACHED);
  });

  it('corrupt: bytes changed in every file', async () => {
    const { cacheHome, files } = await warm();
    for (const f of files) {
      const b = readFileSync(f);
      for (let i = 16; i < b.length; i += 5) b[i] ^= 0x5a;
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
    expect(nodeFiles(cacheHome).files.every((f) => !statSync(f).isDirectory())).toBe(true);
  });

  it('a FIFO planted among the files: no hang, removed', async () => {
    const { cacheHome, files } = await warm();
    rmSync(files[0]);
    expect(spawnSync('mkfifo', [files[0]]).status).toBe(0);
    await sameAsFallback(cacheHome);
    expect(existsSync(files[0]) && statSync(files[0]).isFIFO()).toBe(false);
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
    const keyDir = join(cacheHome, 'bookdist', 'compile-cache', KEY);
    let r: CliResult;
    if (process.getuid?.() === 0) {
      // root writes through file modes: a read-only bind mount, in a mount namespace of its own.
      const script = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" "$1" && shift && exec "$@"';
      const env = {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        NO_COLOR: '1',
        ...sb.env,
        BOOKDIST_CACHE: 'off',
        XDG_CACHE_HOME: cacheHome,
      };
      r = await new Promise<CliResult>((resolve) => {
        const child = spawn(
          'unshare',
          ['-m', 'sh', '-c', script, 'sh', keyDir, process.execPath, BIN, 'book', 'get', '--isbn', ISBN, '--json'],
          { env },
        );
        let stdout = '';
        let stderr = '';
        child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
        child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
        child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
      });
    } else {
      const { tag } = nodeFiles(cacheHome);
      chmodSync(tag, 0o500);
      r = await get({ XDG_CACHE_HOME: cacheHome });
      chmodSync(tag, 0o700);
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
    expect(nodeFiles(cacheHome).files.length).toBeGreaterThanOrEqual(CACHED);
  });
});
