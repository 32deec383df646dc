// Start-up is a feature: --version and --help must load no HTTP, config, schema, prompt or table
// library. A preloaded hook records every module file Node loads; for the bundle's chunks, their
// source maps say which packages they hold.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from './helpers.js';

const HEAVY = [
  'undici',
  'conf',
  'zod',
  '@inquirer/prompts',
  '@inquirer/core',
  'csv-parse',
  '@jmespath-community/jmespath',
];
const hook = pathToFileURL(fileURLToPath(new URL('./fixtures/trace-loads.mjs', import.meta.url))).href;
const t = tempDir();
afterAll(() => t.cleanup());

/** Packages (under node_modules) whose code a run loaded, directly or bundled into a dist chunk. */
async function packagesLoaded(args: string[], env: Record<string, string> = {}, input?: string) {
  const trace = join(t.dir, `trace-${Math.random().toString(36).slice(2)}.txt`);
  const r = await runCli(args, {
    env: {
      NODE_OPTIONS: `--import=${hook}`,
      BOOKDIST_TRACE_LOADS: trace,
      BOOKDIST_CONFIG_DIR: join(t.dir, 'cfg'),
      ...env,
    },
    input,
  });
  const urls = existsSync(trace) ? readFileSync(trace, 'utf8').trim().split('\n') : [];
  const files = urls.filter((u) => u.startsWith('file:')).map((u) => fileURLToPath(u));
  const sources: string[] = [];
  for (const f of files) {
    sources.push(f);
    if (f.includes(`${'/'}dist${'/'}`) && existsSync(f + '.map'))
      sources.push(...JSON.parse(readFileSync(f + '.map', 'utf8')).sources);
  }
  const pkgs = new Set<string>();
  for (const s of sources) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(s.replace(/\\/g, '/'));
    if (m) pkgs.add(m[1]);
  }
  return { r, files, pkgs, sources };
}

describe('start-up', () => {
  it('the trace sees what a command loads (control: profile add loads conf to write)', async () => {
    const add = await packagesLoaded(
      ['profile', 'add', '--name', 'p', '--base-url', 'http://x.example', '--token-stdin'],
      {},
      'operator-token',
    );
    expect(add.r.code).toBe(0);
    expect(add.files.some((f) => f.endsWith('/dist/main.js'))).toBe(true);
    expect(add.pkgs.has('conf')).toBe(true);
  });

  it('one request loads no HTTP or config library, with a stored profile (node:http via require; config read as JSON)', async () => {
    const add = await packagesLoaded(
      ['profile', 'add', '--name', 'q', '--base-url', 'http://127.0.0.1:9', '--token-stdin'],
      {},
      'operator-token',
    );
    expect(add.r.code).toBe(0);
    const api = await packagesLoaded(['--dry-run', '--profile', 'q', 'api', 'GET', '/v1/codes/summary/'], {
      BOOKDIST_USERNAME: 'u',
      BOOKDIST_SHARED_KEY: 'k',
    });
    expect(api.r.code, api.r.stderr).toBe(0);
    expect(api.r.stdout).toMatch(/^curl -X GET 'http:\/\/127\.0\.0\.1:9\/v1\/codes\/summary\/'/);
    expect(HEAVY.filter((p) => api.pkgs.has(p))).toEqual([]);
    const list = await packagesLoaded(['profile', 'list']);
    expect(list.r.code).toBe(0);
    expect(list.r.stdout).toContain('q');
    expect(list.pkgs.has('conf')).toBe(false);
  });

  it("one request loads none of Node's fs/promises, readline or file watchers (about 3 ms): files it writes go through node:fs", async () => {
    const builtins = join(t.dir, 'builtins.txt');
    const api = await packagesLoaded(
      ['--dry-run', '--base-url', 'http://127.0.0.1:9', 'book', 'get', '--isbn', '9781614001379'],
      {
        BOOKDIST_USERNAME: 'u',
        BOOKDIST_SHARED_KEY: 'k',
        BOOKDIST_TRACE_BUILTINS: builtins,
        XDG_CACHE_HOME: join(t.dir, 'cache'),
      },
    );
    expect(api.r.code, api.r.stderr).toBe(0);
    const loaded = readFileSync(builtins, 'utf8').trim().split('\n');
    expect(
      api.sources.some((s) => /src\/util\/fs-safe\.ts$/.test(s)),
      'the request path imports fs-safe',
    ).toBe(true);
    expect(loaded).toContain('fs');
    expect(
      loaded.filter((m) =>
        /^(fs\/promises|internal\/fs\/promises|internal\/readline\/|internal\/fs\/watchers)/.test(m),
      ),
    ).toEqual([]);
  });

  // Every ESM module costs start-up time of its own (issue 31): what every command run shares is
  // one chunk of dist/ (scripts/build.mjs, RUN_ROOTS), where the bundler left to itself cut a
  // request's path into 38 files.
  it('one request loads its code from at most 8 files of dist/, its verb and group among them', async () => {
    const api = await packagesLoaded(
      ['--dry-run', '--base-url', 'http://127.0.0.1:9', 'book', 'get', '--isbn', '9781614001379'],
      { BOOKDIST_USERNAME: 'u', BOOKDIST_SHARED_KEY: 'k' },
    );
    expect(api.r.code, api.r.stderr).toBe(0);
    const dist = api.files.filter((f) => f.includes(`${'/'}dist${'/'}`));
    expect(dist.length, dist.join('\n')).toBeLessThanOrEqual(8);
    // control: the whole run is there (the trace maps chunks to sources)
    for (const src of [
      /src\/api\/client\.ts$/,
      /src\/connect\.ts$/,
      /src\/commands\/book\/get\.ts$/,
      /src\/output\/table\.ts$/,
    ])
      expect(
        api.sources.some((s) => src.test(s)),
        String(src),
      ).toBe(true);
  });

  // V8 keeps a source with any character beyond ASCII as UTF-16, and Node converts the whole of it
  // to UTF-8 on every run to check it against its compile cache entry (scripts/build.mjs, charset).
  it("dist/ is ASCII: every other character escaped, so that V8 keeps each chunk's source one byte a character", async () => {
    const dist = fileURLToPath(new URL('../../dist/', import.meta.url));
    const files = [join(dist, 'main.js'), join(dist, 'version.js')];
    for (const f of readdirSync(join(dist, 'chunks'))) if (f.endsWith('.js')) files.push(join(dist, 'chunks', f));
    expect(files.filter((f) => /[^\x00-\x7f]/.test(readFileSync(f, 'utf8'))).map((f) => f.slice(dist.length))).toEqual(
      [],
    );
    // control: the messages keep their characters (an ellipsis, escaped in the source)
    const r = await runCli(['book', 'get', '--isbn', 'x'.repeat(300)], {
      env: { BOOKDIST_CONFIG_DIR: join(t.dir, 'cfg') },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/x\u2026 \(\d+ characters\)/);
  });

  it('the embedded sandbox starts from one more file of dist/: a request to it loads at most 10', async () => {
    const run = await packagesLoaded(['book', 'get', '--isbn', '9781614001379', '--json'], {
      BOOKDIST_CONFIG_DIR: join(t.dir, 'no-config'),
      BOOKDIST_DATA_DIR: join(t.dir, 'embedded-data'),
      XDG_CACHE_HOME: join(t.dir, 'cache'),
    });
    expect(run.r.code, run.r.stderr).toBe(0);
    expect(JSON.parse(run.r.stdout).book.identifiers.isbn13).toBe('9781614001379');
    const dist = run.files.filter((f) => f.includes(`${'/'}dist${'/'}`));
    expect(dist.length, dist.join('\n')).toBeLessThanOrEqual(10);
    // control: the sandbox's server, store and seed are there
    for (const src of [/src\/sandbox\/(.+\/)?server\.ts$/, /src\/sandbox\/seed\.ts$/, /src\/sandbox\/embedded\.ts$/])
      expect(
        run.sources.some((s) => src.test(s)),
        String(src),
      ).toBe(true);
  });

  // A database the seed already checked says so in its header (Store.schemaIsCurrent): the next
  // embedded command loads neither the seed nor the surfaces a lookup never reaches (the control
  // routes and the pages load with their first request), issue 31.
  it('a second embedded request loads neither the seed, nor the control routes, nor the pages', async () => {
    const env = {
      BOOKDIST_CONFIG_DIR: join(t.dir, 'no-config'),
      BOOKDIST_DATA_DIR: join(t.dir, 'embedded-again'),
      XDG_CACHE_HOME: join(t.dir, 'cache'),
    };
    const cold = [
      /src\/sandbox\/seed\.ts$/,
      /src\/sandbox\/http\/control-routes\.ts$/,
      /src\/sandbox\/http\/pages\.ts$/,
    ];
    const first = await packagesLoaded(['book', 'get', '--isbn', '9781614001379', '--json'], env);
    expect(first.r.code, first.r.stderr).toBe(0);
    // control: the first run seeds the new database
    expect(first.sources.some((s) => cold[0].test(s))).toBe(true);
    const again = await packagesLoaded(['book', 'get', '--isbn', '9781614001379', '--json'], env);
    expect(again.r.code, again.r.stderr).toBe(0);
    expect(JSON.parse(again.r.stdout).book.identifiers.isbn13).toBe('9781614001379');
    expect(cold.filter((src) => again.sources.some((s) => src.test(s))).map(String)).toEqual([]);
    // control: the sandbox's server is there
    expect(again.sources.some((s) => /src\/sandbox\/http\/server\.ts$/.test(s))).toBe(true);
  });

  // The route table loads an area's handlers with its first request (src/sandbox/domain/index.ts,
  // issue 31): a lookup's embedded sandbox has the book domain only.
  it("an embedded lookup loads the book domain and no other area's handlers, nor the OpenAPI document", async () => {
    const env = {
      BOOKDIST_CONFIG_DIR: join(t.dir, 'no-config'),
      BOOKDIST_DATA_DIR: join(t.dir, 'embedded-areas'),
      XDG_CACHE_HOME: join(t.dir, 'cache'),
    };
    const areas = /src\/(sandbox\/domain\/(general|users|orders|codes|access|imports|storefront)|spec\/openapi)\.ts$/;
    for (const run of ['first', 'again']) {
      const r = await packagesLoaded(['book', 'get', '--isbn', '9781614001379', '--json'], env);
      expect(r.r.code, r.r.stderr).toBe(0);
      expect(JSON.parse(r.r.stdout).book.identifiers.isbn13).toBe('9781614001379');
      expect(
        r.sources.filter((s) => areas.test(s)),
        run,
      ).toEqual([]);
      // control: the book domain is there
      expect(r.sources.some((s) => /src\/sandbox\/domain\/books\.ts$/.test(s))).toBe(true);
    }
    // control: another area's request loads its handlers (a user lookup: the users area)
    const user = await packagesLoaded(['user', 'get', '0'.repeat(30)], env);
    expect(
      user.sources.some((s) => /src\/sandbox\/domain\/users\.ts$/.test(s)),
      user.r.stderr,
    ).toBe(true);
  });

  // The run chunk holds the modules of every command run; a module of Node's that Node does not
  // load at its own start is loaded by the first call into it (scripts/build.mjs), so a group's
  // help does not pay for node:crypto (about a tenth of `node -e 0`). (node:net it loads anyway,
  // for its stdout when that is a pipe, as here.)
  it("a group's help does not load node:crypto; a request does", async () => {
    const builtins = join(t.dir, 'builtins-help.txt');
    const help = await packagesLoaded(['book', '--help'], { BOOKDIST_TRACE_BUILTINS: builtins });
    expect(help.r.code, help.r.stderr).toBe(0);
    expect(
      help.sources.some((s) => /src\/api\/client\.ts$/.test(s)),
      'the run chunk is loaded',
    ).toBe(true);
    const loaded = readFileSync(builtins, 'utf8').trim().split('\n');
    expect(loaded).toContain('fs');
    expect(loaded.filter((m) => m === 'crypto' || m.startsWith('internal/crypto/'))).toEqual([]);
    // control: a request loads it (the embedded sandbox's: it signs)
    const sent = join(t.dir, 'builtins-request.txt');
    const run = await packagesLoaded(['book', 'get', '--isbn', '9781614001379'], {
      BOOKDIST_CONFIG_DIR: join(t.dir, 'no-config'),
      BOOKDIST_DATA_DIR: join(t.dir, 'embedded-data'),
      BOOKDIST_TRACE_BUILTINS: sent,
    });
    expect(run.r.code, run.r.stderr).toBe(0);
    expect(readFileSync(sent, 'utf8').trim().split('\n')).toContain('crypto');
  });

  for (const args of [['--version'], ['--help'], ['profile', '--help'], ['help', 'exit-codes']]) {
    it(`bookdist ${args.join(' ')} loads none of ${HEAVY.join(', ')}`, async () => {
      const { r, files, pkgs } = await packagesLoaded(args);
      expect(r.code).toBe(0);
      expect(r.stdout.length).toBeGreaterThan(0);
      expect(files.length).toBeGreaterThan(0);
      expect(HEAVY.filter((p) => pkgs.has(p))).toEqual([]);
    });
  }

  it('the root help (--help, -h, a bare bookdist) loads no command group and not commander: the root renders it from its own table', async () => {
    for (const args of [['--help'], ['-h'], []]) {
      const { r, sources, pkgs } = await packagesLoaded(args);
      expect(pkgs.has('commander'), args.join(' ')).toBe(false);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout).toMatch(/^ {2}book +look up, search and list books/m);
      expect(
        sources.some((s) => /src\/root-help\.ts$/.test(s)),
        'the trace maps chunks to sources',
      ).toBe(true);
      expect(
        sources.filter((s) => /src\/(program\.ts|commands\/(?!help\/|completion\/model)[^/]+\/)/.test(s)),
        args.join(' '),
      ).toEqual([]);
    }
    // control: a group's help loads that group
    const book = await packagesLoaded(['book', '--help']);
    expect(book.sources.some((s) => /src\/commands\/book\//.test(s))).toBe(true);
    expect(book.pkgs.has('commander')).toBe(true);
  });

  // Every module Node loads costs start-up time and young-generation memory: four more files on the
  // root help's path (the launcher's version chunks, the error report and the context in main.js's
  // imports, one more chunk for the page) made V8 collect once before the help was printed (the
  // launcher's --max-semi-space-size=1), and `--help` slower than Node's start-up allows (bench
  // row (e)). A new module here needs a reason.
  it('the root help loads no part of a command run, in 8 files of dist/; the launcher answers --version from dist/version.js alone', async () => {
    const help = await packagesLoaded(['--help']);
    expect(help.r.code).toBe(0);
    expect(
      help.sources.some((s) => /src\/root-help\.ts$/.test(s)),
      'the trace maps chunks to sources',
    ).toBe(true);
    const run = /src\/(cli\/(run|report|tree)|context|root|util\/duration)\.ts$/;
    expect(help.sources.filter((s) => run.test(s))).toEqual([]);
    expect(help.files.filter((f) => f.includes(`${'/'}dist${'/'}`)).length).toBeLessThanOrEqual(8);
    // control: a command run loads them
    const list = await packagesLoaded(['profile', 'list']);
    expect(list.r.code).toBe(0);
    expect(list.sources.filter((s) => run.test(s)).length).toBeGreaterThanOrEqual(5);

    const version = await packagesLoaded(['--version']);
    expect(version.r.stdout).toMatch(/^\d+\.\d+\.\d+/);
    expect(
      version.files.filter((f) => f.includes(`${'/'}dist${'/'}`)).map((f) => f.replace(/.*[/\\]dist[/\\]/, '')),
    ).toEqual(['version.js']);
  });
});
