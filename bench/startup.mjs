// Start-up, request-path and memory rows of `npm run bench` (issue 10), called from bench/run.mjs
// or run alone: `node bench/startup.mjs` (after `npm run build`).
//
// Timings are medians of alternating runs (every command once per round, so load on a shared
// machine hits all of them alike), as ratios to a floor measured in the same run: `node -e 0`,
// the signed-request floor (bench/signed-request-floor.cjs: the least any Node client does for
// one request) and the fair TLS floor (issue 31). Each bookdist row says which path it took
// (code cache or not, from bookdist's own account); the cold first run and the fallback path
// (no cache) are rows of their own. `BENCH_STARTUP_ONLY=1 node bench/startup.mjs` runs only these.
// Beside each wall time, the CPU time (user+sys) of the finished process from wait4 (python3's,
// microseconds; GNU time's 10 ms steps made every row 10-60 ms), and the CPU ratios of the targets:
// at a load of 7-12 on two cores, three runs of one build put the request at 1.86x, 1.18x and 1.11x
// the signed-request floor by wall time, and at 1.42x, 1.38x and 1.35x by CPU time.
//
// Where a request's time goes beyond the signed-request floor (issue 31, callgrind of one warm
// `book get`, clean environment, b1b7dc3; totals over all threads, +-3M between runs): 228M
// instructions against the floor's 177M (1.29x) and node -e 0's 94M; over HTTPS 300M against the
// fair TLS floor's 211M (1.42x: Node's roots parsed, 43M, in both). Of bookdist's 51M: the module
// loads 21M (ModuleWrap::New: V8 deserialising the 650 KB of code the compile cache holds for the
// seven chunks, half of it functions a book get never calls), module evaluation 7M, the compile
// cache's reads and CRC 5M, node:v8 (the eager compile's flag switch) about 4M, Node's ESM loader
// about 5M. CPU time says more than the instructions (1.42-1.48x against 1.29x): the deserialised
// code is 4.5 MB more memory touched (1,550 more page faults; peak RSS 55.2 against 50.7 MB).
// Tried and measured (callgrind medians of 5-7 alternating runs, load 5-11, nproc 2):
// - a CommonJS build (rolldown format cjs, dist/package.json type commonjs, a CJS launcher) with
//   Node's compile cache as now: 232.8M -> 227.8M (no ESM loader);
// - the same with each chunk compiled by vm.Script and the V8 code cache made at exit, after the
//   run (createCachedData then holds the functions that ran, lazily compiled, and nothing else:
//   316 KB for the run chunk against 543 KB): 228.0M -> 214.1M, CPU 0.93x (farm pairs, n 25). V8
//   checks a code cache's header and length but not its payload in a release build: a payload
//   with 64 bytes flipped aborted Node (exit 133), so such a cache needs a checksum of its own:
//   with SHA-1 (node:crypto) the gain fell to 5.8M, with zlib.crc32 it was 232.5M -> 221.1M.
//   That is the path taken now (src/cache/code-cache.ts; the entries keep the functions of every
//   command that ran, each added once). Callgrind net of V8's hash-seed set-up, warm, 3-5
//   alternating pairs at load 4-8, nproc 2, against the ESM build with Node's compile cache and the
//   eager compile: a request 221.2M -> 216.0M, the embedded default 270.7M -> 247.9M, --version
//   83.0M -> 81.7M, --help 101.1M -> 102.0M (no cache on that path either way); this bench at load
//   9-12: request CPU 58.7 -> 52.2 ms (1.40x -> 1.27x the floor), embedded 71.8 -> 65.9 ms, cold
//   first run 76.5 -> 70.2 ms, fallback 67.7 -> 60.8 ms, peak RSS 55 MB both. The entries'
//   checksum then moved from zlib.crc32 (6M a run, 5M of it loading node:zlib) to a 64-bit word
//   hash in WebAssembly (about 2M): a request 216.1M -> 212.1M, the embedded default
//   249.7M -> 244.8M, book --help 135.2M -> 131.4M;
// - V8 flags (--no-sparkplug, --no-opt, --no-maglev): every Node built-in's code cache is then
//   refused (a flag hash of its own), 314-325M; lazy compilation with the cache kept (no eager
//   chunks): 260M; process.exit() right after main() (no heap teardown): CPU 1.00x; the young
//   generation at 1 MB as V8 starts it: CPU 1.04x (slower), the same page faults.
// Over HTTPS, Node parses its 121 bundled roots (43M, on a thread it starts when node:tls loads,
// so CPU time counts it and wall time mostly not) whatever the context: tls.createSecureContext
// with `ca` alone and tls.setDefaultCACertificates([ca]) parse them as well, so a first attempt
// trusting only the CA is no way around them (callgrind of each, Node 24.21.0).
// The HTTPS row's gap is not HTTPS work of bookdist's (second helper of issue 31, callgrind net of
// V8's hash-seed set-up, which varies 5-19M a run): bookdist over HTTPS 290.0M, the signed-request
// floor over HTTPS with the CA 230.8M, the fair TLS floor 206.6M; plain, bookdist 222.8M against
// its floor's 165.2M. bookdist is 59.2M above its floor over HTTPS and 57.6M plain: HTTPS adds
// ~1.6M of its own (one CA read, 122 certificates parsed as in both floors, no X509Certificate,
// no proxy module without a proxy). The fair TLS floor neither signs nor speaks HTTP (24M by
// itself), so the 1.25x target leaves bookdist ~27M of its own where the plain row's 1.3x leaves
// ~50M: it moves only with the general start-up overhead, twice as far. The one HTTPS-only lever
// found is the roots' parse: NODE_OPTIONS=--use-openssl-ca takes the fair floor 209.2M -> 164.9M
// and bookdist 290.0M -> 246.2M (1.19x the fair floor), but trusts the system's store instead of
// Node's roots: a change of what is trusted, not of speed, left undecided.
// Where the HTTPS row's instructions go (third helper of issue 31, on d511a82; callgrind of one
// warm book get over HTTPS with --ca-file, net of the hash-seed set-up, medians of 3-5 runs, load
// 4-8, nproc 2; runs cut short with process.reallyExit at each step): bookdist 276.0M against the
// fair TLS floor's 206.6M (1.34x). node -e 0 80.0M; the launcher up to the cache in place 84.5M
// (dist/version.js compiled, 3M of it); main.js loaded 88.3M; main()'s set-up 96.2M (7.7M of it
// process.stdout and stderr: Node's stream modules, which TLS loads anyway); the run chunk 118.6M
// (8M of it V8 deserialising its 325 KB entry, 1.2M the entries' checksum, then 0.6M); the command
// tree 122.5M; the request and its answer 269.0M (TLS as in the floor, RSA signing 11.7M, 4.5M of
// it OpenSSL's blinding and 3.3M its Montgomery set-up, the key decoded 2.7M, node:http over TLS at
// most 6.5M: a bare signed GET through node:https against the same written on tls.connect); then
// the exit 275.6M. The sh launcher itself is 0.4M (dash, no fork). No HTTPS work beyond the
// floor's: one secure context (the floor makes two), the CA file read once, no proxy module; the
// transport's own description of the certificate (getPeerCertificate, 0.35M) is now made only when
// profile check reads it. Tried and dropped: the launcher's own module through the cache (a first
// module kept small, reading the rest's entry): 275.8M -> 276.3M, the entry reading it must compile
// is most of what it runs; the chunks read as latin1, entries read straight into the checksum's
// memory, V8's compile hint comment: no change; the manifest chunk in main.js (one file fewer a
// command): -0.4M. The levers left are not in the loading: a GET's signature covers the username
// alone (PKCS#1 v1.5: the same bytes every run), so a signature kept between runs (a secret at
// rest, as the key file is) would spare a GET 14.4M (the key not decoded either: 261.5M, 1.27x);
// node:http's stack 6.5M at most.
// Fourth helper of issue 31 (callgrind net of the hash-seed set-up, warm, medians of 3 runs, load
// 1-4, nproc 2; runs cut short with process.reallyExit at each step, as above): over HTTPS node -e 0
// 80.0M; the launcher up to the code cache's hook 82.8M (WebAssembly's checksum made 84.3M); main.js
// read through the cache 87.4M, main() called 89.9M; process.stdout and stderr 97.7M; the run chunk
// 114.6M (of its 1.9 ms of wall: 1.9 ms V8 deserialising its entry, 0.36 ms reading its source, 0.24
// ms its entry, 0.2 ms the checksum, 0.26 ms running its top level, all sixty modules' top levels
// 0.7 ms); the command tree 120.7M; the request until emit() 265.2M; the output 267.7M; the exit
// 273.2M. The exit: Node frees the whole environment when the loop is idle (the heap, every
// handle's object, its 121 roots: 2.3M over TLS) before exit() runs OPENSSL_cleanup (2M, whatever
// the way out). The launcher now ends the process with process.exit() at 'beforeExit' (the loop
// idle: every write, socket and worker done; exit listeners run as before; not when anything else
// listens for 'beforeExit'): HTTPS 273.4M -> 269.2M, plain 206.9M -> 205.7M, embedded 234.7M ->
// 233.4M, --version 81.8M -> 81.1M, --help 102.7M -> 101.6M (farm pairs, n 25, load 3-4: CPU
// 0.986x the build before). process.exit() right after main() returned, before the loop's last
// turns: 0.85M less again (4 runs each), not taken: it would cut short whatever main() left running.
// Against the signed-request floor over HTTPS (229.8M), bookdist's request and answer (emit() at
// 265.2M less the tree at 120.7M: 144.5M) cost what the floor's whole run less its start-up does:
// what is left is before the request (40.8M above node -e 0), the output (2.5M) and the exit. By
// kind (exclusive costs against the floor): V8's object model (maps, descriptors, property
// definitions, string hashing; no one item above 1.4M) +16M, code-cache deserialising +6.5M,
// bytecode execution +5.8M, lazy compiles +6M (V8 parsing Node's own functions first called by the
// launcher: node:vm about 1M, fs, Buffer, AbortController 0.4-1M), Sparkplug on worker threads
// +4.7M. Tried and dropped (callgrind, medians of 3): process.stdout and stderr made when first
// written, not in main()'s set-up: no change over HTTPS (268.8M against 268.7M: node:tls loads the
// stream modules anyway, and the output and the TEST MODE notice make both streams), nor with
// neither ever made (the output and the notice written to fd 1 and 2 with fs.writeSync): 268.5M
// against 268.3M, the 7.7M of main()'s set-up are Node's stream modules, which TLS loads; the chunks
// built without whitespace (the run chunk 273 -> 229 KB): 268.5M against 268.8M, and with local
// names mangled as well (199 KB): 268.2M, within the runs' spread; require() of a dist/ file
// already loaded answered from Module._cache by the code cache's loader (5 of a request's 10
// requires): no change (Node's own relative-resolve cache answers them as cheaply).
// Running the request's steps beside each other instead of in turn (another helper of issue 31,
// on 2d684f8; load 1.7-3.3, nproc 2): the wall time is this thread's work, not waits. V8 CPU
// profiles of the warm HTTPS request (6 runs, 100 us samples) find the main thread idle about
// 1 ms a run in all: ~0.85 ms for the server's handshake flight, 0.2-3 ms for the answer. The
// server's share of those waits, from a bare tls.connect to the TLS sandbox (21 runs each): the
// handshake took 1.46-1.54 ms from ClientHello with the client idle, and still 2.2 ms after the
// client kept busy 4 ms first (its own work, not the server's); the answer 1.44-1.48 ms idle
// against 0.90-0.98 ms after 4 ms busy (the server ~0.5 ms). So:
// - signing on libuv's thread pool (crypto.sign with a callback): the first call starts the pool's
//   four threads and waits for each to run, 0.3-3.6 ms, and the signature comes back 2.6-7 ms
//   later, against 1.0-1.2 ms signing on the main thread; the first request signed there while its
//   connection opened: connect() to exit +2.3 ms, CPU +5.3 ms (40 alternating rounds). Dropped;
// - the first request's connection opened early (once the request is signed and checked, so that
//   --dry-run and a refused request never connect; one turn of the event loop to send the TCP and
//   TLS first steps, then the ledger's record and the request built on it; an unused one
//   unreferenced and closed with the client, its failure handed to the request as its own):
//   whole-process pairs run in turn, 100 each way: HTTPS wall after/before 1.003x, before/after
//   0.992x; plain 0.994x and 0.991x; CPU +0.5%; this bench 4-5 runs each: HTTPS 1.33-1.39x
//   before, 1.31-1.36x after, plain 1.24-1.30x and 1.24-1.29x. Within the noise: not kept (branch
//   conn-48-preconnect, tests included);
// - the key and CA files are read in 0.06 ms each, synchronously; node:https is loaded before the
//   secure context is made already, so the wait for Node's roots (~0.5 ms) is the last step left.
// What is left idle is ~2 ms a request; what the HTTPS row needs (~3.5 ms) is this thread's own
// work: node:https and its request (~2 ms, the fair floor loads neither), the signature (1 ms),
// the key decoded (0.5 ms), the completion cache's scope hash (0.3 ms on first use).
// Every bookdist run goes through bin/bookdist as a shell runs it (the sh launcher execs Node).
// Memory rows report peak RSS through the launcher, and a CPU profile summary shows where the
// time of `--version` and of one request goes.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { SourceMap } from 'node:module';
import { availableParallelism, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(root, 'bin', 'bookdist');
const NODE = process.execPath;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);

/** A sandbox in a process of its own (the bench's spawnSync calls block this one). */
export async function spawnSandbox({ tls = false } = {}) {
  const child = spawn(NODE, [join(root, 'bench', 'sandbox.mjs')], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, BENCH_TLS: tls ? '1' : '' },
  });
  let text = '';
  await new Promise((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (d) => {
      text += d;
      if (text.includes('# serving')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`the sandbox exited (${code}) before serving`)));
  });
  const env = {};
  for (const m of text.matchAll(/^export (\w+)=(.*)$/gm)) env[m[1]] = m[2];
  return {
    env,
    url: env.BOOKDIST_BASE_URL,
    /** The sandbox's database file (bench/sandbox.mjs keeps it next to the config dir). */
    dbPath: join(env.BOOKDIST_CONFIG_DIR, '..', 'sandbox.db'),
    close: () =>
      new Promise((resolve) => {
        child.once('exit', resolve);
        child.kill('SIGINT');
      }),
  };
}

const fmt = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)}s` : `${ms.toFixed(1)}ms`);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Run argv[2:] as a child and write to argv[1] its wall time (ns, from just before the fork to
 * its end) and CPU time (user and system, microseconds, from wait4): `python3 -c WAIT4 FILE CMD...`.
 * Exits with the child's status.
 */
export const WAIT4 = [
  'import os, sys, time',
  't = time.perf_counter_ns()',
  'pid = os.fork()',
  'if pid == 0: os.execvp(sys.argv[2], sys.argv[2:])',
  '_, status, ru = os.wait4(pid, 0)',
  'ns = time.perf_counter_ns() - t',
  "open(sys.argv[1], 'w').write(f'{ns} {round(ru.ru_utime * 1e6)} {round(ru.ru_stime * 1e6)}')",
  'sys.exit(os.waitstatus_to_exitcode(status) & 255)',
].join('\n');

/** A node older than 22 on the machine's PATH (outside node_modules), if there is one. */
function olderNodeOnPath() {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir || dir.includes('node_modules')) continue;
    const node = join(dir, 'node');
    if (!existsSync(node)) continue;
    const r = spawnSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' });
    if (r.status === 0 && Number(r.stdout.split('.')[0]) < 22) return { dir, version: r.stdout.trim() };
  }
  return undefined;
}

/** Peak RSS of a run through the launcher: a preloaded hook reports it at exit. */
function peakRss(dir, args, env, stdoutFile) {
  const hook = join(dir, 'maxrss.mjs');
  writeFileSync(
    hook,
    "process.on('exit', () => process.stderr.write(`\\nMAXRSS_KB=${process.resourceUsage().maxRSS}\\n`));\n",
  );
  const t = performance.now();
  const r = spawnSync(BIN, args, {
    env: { ...env, NODE_OPTIONS: `--import=${pathToFileURL(hook).href}` },
    encoding: 'utf8',
    stdio: ['ignore', stdoutFile ? 'ignore' : 'ignore', 'pipe'],
    maxBuffer: 1 << 26,
  });
  const ms = performance.now() - t;
  const m = /MAXRSS_KB=(\d+)/.exec(r.stderr);
  if (r.status !== 0 || !m) throw new Error(`bookdist ${args.join(' ')} exited ${r.status}: ${r.stderr.slice(-2000)}`);
  return { mb: Number(m[1]) / 1024, ms };
}

/** Grow the sandbox's catalogue to `total` books of the partner's publisher (copies of one seed book). */
async function growCatalogue(dbPath, total) {
  const { DatabaseSync } = await import('node:sqlite');
  const db = new DatabaseSync(dbPath);
  try {
    db.exec('PRAGMA busy_timeout = 10000');
    const partner = db.prepare("SELECT id FROM accounts WHERE role = 'partner'").get();
    const template = db
      .prepare(
        'SELECT * FROM books WHERE publisher_id IN (SELECT publisher_id FROM account_publishers WHERE account_id = ?) ORDER BY id LIMIT 1',
      )
      .get(partner.id);
    const have = db
      .prepare(
        'SELECT count(*) AS n FROM books WHERE publisher_id IN (SELECT publisher_id FROM account_publishers WHERE account_id = ?)',
      )
      .get(partner.id).n;
    const cols = Object.keys(template).filter((c) => c !== 'id');
    const insert = db.prepare(`INSERT INTO books (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`);
    db.exec('BEGIN IMMEDIATE');
    for (let i = 0; i < total - have; i++) {
      const row = { ...template };
      row.hash_id = createHash('sha1').update(`bench-${i}`).digest('hex');
      row.isbn13 = `bench-${i}`;
      row.sku = `BENCH-${i}`;
      row.title = `${template.title} (${i})`;
      insert.run(...cols.map((c) => row[c]));
    }
    db.exec('COMMIT');
  } finally {
    db.close();
  }
}

/** Self time of a CPU profile by where the code came from (dist chunks mapped through their source maps). */
function profileSummary(file, top = 8) {
  const prof = JSON.parse(readFileSync(file, 'utf8'));
  const self = new Map();
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  for (let i = 0; i < prof.samples.length; i++) {
    const n = byId.get(prof.samples[i]);
    self.set(n, (self.get(n) ?? 0) + (prof.timeDeltas[i] ?? 0) / 1000);
  }
  const maps = new Map();
  const mapFor = (path) => {
    if (!maps.has(path))
      maps.set(path, existsSync(path + '.map') ? new SourceMap(JSON.parse(readFileSync(path + '.map', 'utf8'))) : null);
    return maps.get(path);
  };
  const label = (cf) => {
    const url = cf.url;
    if (!url)
      return cf.functionName === '(garbage collector)'
        ? 'V8: garbage collector'
        : cf.functionName === '(program)'
          ? 'V8/Node: native (program)'
          : cf.functionName;
    if (url.startsWith('node:internal/modules')) return 'Node: module loader';
    if (url.startsWith('node:internal/bootstrap') || url.startsWith('node:internal/main')) return 'Node: bootstrap';
    if (url.startsWith('node:'))
      return `Node: ${
        url
          .slice(5)
          .replace(/^internal\//, '')
          .split('/')[0]
      }`;
    if (!url.startsWith('file:')) return url;
    const path = fileURLToPath(url);
    if (path === BIN) return 'bin/bookdist';
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path);
    if (pkg) return pkg[1];
    const map = path.includes('/dist/') ? mapFor(path) : null;
    if (map) {
      const e = map.findEntry(cf.lineNumber, cf.columnNumber);
      const src = e?.originalSource ?? '';
      const p = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(src);
      if (p) return p[1];
      const s = /src\/(.*)$/.exec(src);
      if (s) return `bookdist src/${s[1].split('/').slice(0, -1).join('/') || s[1]}`;
    }
    return path.replace(root, '');
  };
  const totals = new Map();
  for (const [n, ms] of self) {
    if (n.callFrame.functionName === '(idle)' || n.callFrame.functionName === '(root)') continue;
    const l = label(n.callFrame);
    totals.set(l, (totals.get(l) ?? 0) + ms);
  }
  const all = [...totals.values()].reduce((a, b) => a + b, 0);
  return { all, rows: [...totals].sort((a, b) => b[1] - a[1]).slice(0, top) };
}

/**
 * Which path a run took, from bookdist's account of its code cache (NODE_DEBUG=bookdist,
 * src/cache/code-cache.ts): how many of the files it loaded from dist/ came from the cache, or no cache at all.
 */
export function cachePath(stderr, launcherOnly) {
  const read = (stderr.match(/code cache: \S+: (entry accepted|no entry used)/g) ?? []).length;
  const accepted = (stderr.match(/code cache: \S+: entry accepted/g) ?? []).length;
  const written = (stderr.match(/code cache: \S+: entry written/g) ?? []).length;
  if (!read) return launcherOnly ? 'no cache needed: dist/version.js alone' : 'no code cache';
  return `code cache: ${accepted} of ${read} files from the cache${written ? `, ${written} written at exit` : ''}`;
}

function cpuProfile(dir, name, args, env) {
  const out = join(dir, `prof-${name}`);
  mkdirSync(out, { recursive: true });
  // Twice: the code cache keeps entries per set of Node flags (NODE_OPTIONS among them), so the
  // first run with --cpu-prof is a cold one; the profile is the second's.
  let r;
  for (let i = 0; i < 2; i++) {
    rmSync(out, { recursive: true, force: true });
    r = spawnSync(BIN, args, {
      env: { ...env, NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${out}` },
      encoding: 'utf8',
    });
  }
  if (r.status !== 0) throw new Error(`profiling ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  const file = readdirSync(out).find((f) => f.endsWith('.cpuprofile'));
  return profileSummary(join(out, file));
}

/**
 * The rows. `sb` is a running sandbox (url, env); `target(name, value, cmp, goal, unit, detail)`
 * records PASS/FAIL as bench/run.mjs does.
 */
export async function startupBench({ sb, target, log = console.log }) {
  const dir = mkdtempSync(join(tmpdir(), 'bookdist-bench-startup-'));
  const base = { PATH: process.env.PATH, HOME: dir, NO_COLOR: '1' };
  const closers = [];
  try {
    // A stored profile for the remote rows (read without loading the config library).
    const cfg = join(dir, 'config');
    mkdirSync(cfg, { recursive: true, mode: 0o700 });
    writeFileSync(
      join(cfg, 'config.json'),
      JSON.stringify({
        current: 'bench',
        profiles: { bench: { baseUrl: sb.url, username: sb.env.BOOKDIST_USERNAME, keyFile: sb.env.BOOKDIST_KEY_FILE } },
      }),
      { mode: 0o600 },
    );
    const remoteEnv = { ...base, BOOKDIST_CONFIG_DIR: cfg, BOOKDIST_DATA_DIR: join(dir, 'unused-data') };
    const embeddedEnv = { ...base, BOOKDIST_CONFIG_DIR: join(dir, 'no-config'), BOOKDIST_DATA_DIR: join(dir, 'data') };
    const isbn = JSON.parse(
      spawnSync(BIN, ['book', 'list', '--limit', '1', '--json'], { env: remoteEnv, encoding: 'utf8' }).stdout,
    ).results[0].identifiers.isbn13;
    const older = olderNodeOnPath();

    // HTTPS: the same request to a sandbox serving TLS with its own CA (a stored profile with
    // ca_file), against the fair TLS floor: a bare Node process that only opens one TLS connection
    // to it, trusting Node's roots and the same CA, and closes it. It trusts them as bookdist does,
    // the cheapest way (the CA added to a default secure context; `ca: [...rootCertificates, pem]`
    // would parse every root again and flatter the ratio).
    const tlsSb = await spawnSandbox({ tls: true });
    closers.push(() => tlsSb.close());
    // A profile of its own name, as a user has one per service: under the same name as the plain
    // one, each run of either row would point the completion cache's profile link at its own
    // service again (a file written and synced twice, on every run of both rows).
    const tlsCfg = join(dir, 'config-tls');
    mkdirSync(tlsCfg, { recursive: true, mode: 0o700 });
    writeFileSync(
      join(tlsCfg, 'config.json'),
      JSON.stringify({
        current: 'bench-tls',
        profiles: {
          'bench-tls': {
            baseUrl: tlsSb.url,
            username: tlsSb.env.BOOKDIST_USERNAME,
            keyFile: tlsSb.env.BOOKDIST_KEY_FILE,
            caFile: tlsSb.env.BOOKDIST_CA_FILE,
          },
        },
      }),
      { mode: 0o600 },
    );
    const httpsEnv = { ...base, BOOKDIST_CONFIG_DIR: tlsCfg, BOOKDIST_DATA_DIR: join(dir, 'unused-data') };
    const tlsPort = new URL(tlsSb.url).port;
    const bareTls =
      `const tls=require('node:tls');const c=tls.createSecureContext();c.context.addCACert(require('node:fs').readFileSync(${JSON.stringify(tlsSb.env.BOOKDIST_CA_FILE)},'utf8'));` +
      `const s=tls.connect({host:'127.0.0.1',port:${tlsPort},servername:'localhost',secureContext:c},()=>s.end());s.on('error',e=>{console.error(e);process.exit(1)})`;
    // The signed-request floor: a bare script that signs and sends the same request and prints the body.
    const FLOOR = join(root, 'bench', 'signed-request-floor.cjs');
    const floorArgs = [FLOOR, sb.url, sb.env.BOOKDIST_USERNAME, sb.env.BOOKDIST_KEY_FILE, isbn];

    // The cold first run (as in CI: an empty cache each time) and the fallback path (a link planted
    // where the cache goes: bookdist runs without it, as it did before the cache).
    const coldHome = join(dir, 'cold-cache');
    const fallbackHome = join(dir, 'fallback-cache');
    mkdirSync(join(fallbackHome, 'bookdist'), { recursive: true, mode: 0o700 });
    mkdirSync(join(dir, 'elsewhere'), { mode: 0o700 });
    symlinkSync(join(dir, 'elsewhere'), join(fallbackHome, 'bookdist', 'compile-cache'));
    const get = ['book', 'get', '--isbn', isbn];
    const cases = [
      { key: 'node', cmd: NODE, args: ['-e', '0'], env: base },
      { key: 'floor', cmd: NODE, args: floorArgs, env: base },
      { key: 'tlsfloor', cmd: NODE, args: ['-e', bareTls], env: base },
      { key: 'https', cmd: BIN, args: get, env: httpsEnv },
      { key: 'version', cmd: BIN, args: ['--version'], env: base },
      { key: 'help', cmd: BIN, args: ['--help'], env: base },
      { key: 'remote', cmd: BIN, args: get, env: remoteEnv },
      { key: 'embedded', cmd: BIN, args: get, env: embeddedEnv },
      {
        key: 'cold',
        cmd: BIN,
        args: get,
        env: { ...remoteEnv, XDG_CACHE_HOME: coldHome },
        before: () => rmSync(coldHome, { recursive: true, force: true }),
      },
      { key: 'fallback', cmd: BIN, args: get, env: { ...remoteEnv, XDG_CACHE_HOME: fallbackHome } },
    ];
    if (older) {
      // The machine's older node first on PATH, no node_modules/.bin: the launcher execs the pinned one.
      const path = [
        older.dir,
        ...(process.env.PATH ?? '').split(delimiter).filter((p) => p && !p.includes('node_modules')),
      ].join(delimiter);
      cases.push({ key: 'node20', cmd: BIN, args: ['--version'], env: { ...base, PATH: path } });
    }
    const paths = {};
    for (const c of cases) {
      // Warm up (and seed the embedded database once, as a first run does), then one more run that
      // says which path it took: bookdist's account of its code cache (NODE_DEBUG=bookdist).
      c.before?.();
      const r = spawnSync(c.cmd, c.args, { env: c.env, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`${c.key}: ${c.args.join(' ')} exited ${r.status}: ${r.stderr}`);
      if (c.cmd !== BIN) continue;
      c.before?.();
      const probe = spawnSync(c.cmd, c.args, {
        env: { ...c.env, NODE_DEBUG: 'bookdist' },
        encoding: 'utf8',
      });
      if (probe.status !== 0) throw new Error(`${c.key}: the probe run exited ${probe.status}: ${probe.stderr}`);
      paths[c.key] = cachePath(probe.stderr, c.args[0] === '--version');
      // The rows' stdout is /dev/null (not a terminal): the root help and --version are written
      // straight to fd 1, without process.stdout's stream (src/cli/direct-out.ts).
      if (['--help', '--version'].includes(c.args[0])) paths[c.key] += '; written straight to fd 1';
    }
    if (!cases.every((c) => c.cmd !== BIN || paths[c.key])) throw new Error('a row has no path');
    // The rows must take the paths they are named for.
    if (!/^code cache: (\d+) of \1 files from the cache$/.test(paths.remote))
      throw new Error(`the warm request did not run from the cache: ${paths.remote}`);
    if (!/^code cache: 0 of /.test(paths.cold)) throw new Error(`the cold run found a cache: ${paths.cold}`);
    if (paths.fallback !== 'no code cache') throw new Error(`the fallback row used a cache: ${paths.fallback}`);

    // Wall-clock medians decide PASS/FAIL. On a shared, loaded machine they swing with the load
    // (the same build read 1.22x and 1.78x the signed-request floor an hour apart at load 9, nproc 2),
    // so the CPU time each run used is reported beside them: from the operating system's account of
    // the finished process (wait4's rusage, in microseconds), through python3 when the machine has
    // it, which also takes the wall time around the fork and exec; else GNU time (to 10 ms only,
    // finer than nothing), else the wall time alone.
    const wait4 = spawnSync('python3', ['-c', 'import os; os.wait4']).status === 0;
    const gnuTime =
      !wait4 && spawnSync('/usr/bin/time', ['-f', '%U', '-o', join(dir, 'probe'), 'true']).status === 0
        ? '/usr/bin/time'
        : undefined;
    const times = Object.fromEntries(cases.map((c) => [c.key, []]));
    const cpu = Object.fromEntries(cases.map((c) => [c.key, []]));
    const cpuFile = join(dir, 'cpu.txt');
    const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    const loadBefore = existsSync('/proc/loadavg') ? load() : '?';
    for (let round = 0; round < ROUNDS; round++) {
      for (const c of round % 2 ? [...cases].reverse() : cases) {
        c.before?.();
        const [cmd, args] = wait4
          ? ['python3', ['-c', WAIT4, cpuFile, c.cmd, ...c.args]]
          : gnuTime
            ? [gnuTime, ['-f', '%U %S', '-o', cpuFile, c.cmd, ...c.args]]
            : [c.cmd, c.args];
        const t = performance.now();
        const r = spawnSync(cmd, args, { env: c.env, stdio: 'ignore' });
        const wall = performance.now() - t;
        if (r.status !== 0) throw new Error(`${c.key} exited ${r.status}`);
        if (wait4) {
          const [ns, user, sys] = readFileSync(cpuFile, 'utf8').trim().split(' ').map(Number);
          times[c.key].push(ns / 1e6);
          cpu[c.key].push((user + sys) / 1000);
        } else {
          times[c.key].push(wall);
          if (gnuTime)
            cpu[c.key].push(
              readFileSync(cpuFile, 'utf8')
                .trim()
                .split(/\s+/)
                .slice(-2)
                .reduce((a, b) => a + Number(b) * 1000, 0),
            );
        }
      }
    }
    const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
    const mc = Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, v.length ? median(v) : NaN]));
    log(
      `\n(e) start-up, medians of ${ROUNDS} alternating runs through bin/bookdist (node ${process.versions.node}, ` +
        `nproc ${availableParallelism()}, load ${loadBefore} before, ${existsSync('/proc/loadavg') ? load() : '?'} after):`,
    );
    const rows = [
      ['node', 'node -e 0'],
      ['floor', 'signed-request floor (bare script: sign, GET, print the body)'],
      ['tlsfloor', "fair TLS floor (bare TLS connect, Node's roots + the CA)"],
      ['version', '--version'],
      ['help', '--help'],
      ['remote', 'book get --isbn, running sandbox + stored profile'],
      ['https', 'the same over HTTPS (--ca-file in the profile)'],
      ['embedded', 'embedded default'],
      ['cold', 'book get --isbn, cold first run (empty cache)'],
      ['fallback', 'book get --isbn, fallback path (a link planted at the cache)'],
      ...(older ? [['node20', `--version with Node ${older.version} first on PATH`]] : []),
    ];
    for (const [k, label] of rows) {
      log(
        `    ${label.padEnd(64)} ${fmt(m[k]).padStart(8)} ${(m[k] / m.node).toFixed(2)}x` +
          (wait4 || gnuTime ? `   CPU ${fmt(mc[k]).padStart(8)} ${(mc[k] / mc.node).toFixed(2)}x` : '') +
          (paths[k] ? `   [${paths[k]}]` : ''),
      );
    }
    target(
      '(e) book get --isbn against a running sandbox vs the signed-request floor',
      m.remote / m.floor,
      '<=',
      1.3,
      'x',
    );
    target('(e) book get --isbn over HTTPS (--ca-file) vs the fair TLS floor', m.https / m.tlsfloor, '<=', 1.25, 'x');
    target('(e) book get --isbn on the embedded default vs node -e 0', m.embedded / m.node, '<=', 2.5, 'x');
    target('(e) bookdist --help vs node -e 0', m.help / m.node, '<=', 1.3, 'x');
    target('(e) bookdist --version vs node -e 0', m.version / m.node, '<=', 1.2, 'x');
    log(
      `    for comparison: request ${(m.remote / m.node).toFixed(2)}x node -e 0 (f05a85c: 3.16x); cold first run ${(m.cold / m.remote).toFixed(2)}x ` +
        `and fallback ${(m.fallback / m.remote).toFixed(2)}x the warm request; embedded ${(m.embedded / m.remote).toFixed(2)}x the remote request`,
    );
    if (wait4)
      log(
        `    CPU time (user+sys, medians): request ${(mc.remote / mc.floor).toFixed(2)}x the signed-request floor, ` +
          `HTTPS ${(mc.https / mc.tlsfloor).toFixed(2)}x the fair TLS floor, --help ${(mc.help / mc.node).toFixed(2)}x ` +
          `and --version ${(mc.version / mc.node).toFixed(2)}x node -e 0`,
      );
    if (older)
      target(
        `(e) --version with Node ${older.version} on PATH (launcher execs the pinned Node) vs node -e 0`,
        m.node20 / m.node,
        '<=',
        1.4,
        'x',
      );
    else log('    (no Node older than 22 on PATH: the launcher row for it cannot run here)');
    // Peak RSS of one request (warm cache), against what it was before the compile cache was checked
    // and the request path changed (f05a85c: 58.2 MB, measured the same way: Node 24.21.0, x64).
    const rss = [1, 2, 3, 4, 5].map(() => peakRss(dir, get, remoteEnv).mb);
    target(
      '(e) peak RSS of one request (book get --isbn, warm cache) vs 58.2 MB + 5 MB',
      median(rss),
      '<=',
      58.2 + 5,
      ' MB',
    );

    // ------------------------------------------------------------------ CPU profiles
    for (const [name, args, env] of [
      ['--version', ['--version'], base],
      ['book get --isbn (running sandbox, stored profile)', ['book', 'get', '--isbn', isbn], remoteEnv],
    ]) {
      const p = cpuProfile(dir, name.replace(/\W+/g, '-'), args, env);
      log(`    CPU profile of ${name}: ${fmt(p.all)} sampled; top self time:`);
      for (const [l, ms] of p.rows) log(`      ${ms.toFixed(1).padStart(7)} ms  ${l}`);
    }

    // ------------------------------------------------------------------ memory
    // BENCH_STARTUP_ONLY=1: the start-up rows alone (the memory rows take minutes).
    if (process.env.BENCH_STARTUP_ONLY) return;
    const book = spawnSync(BIN, ['book', 'get', '--isbn', isbn, '--json'], { env: remoteEnv, encoding: 'utf8' });
    const hash = JSON.parse(book.stdout).book?.hash_id ?? JSON.parse(book.stdout).hash_id;
    const codesOut = join(dir, 'million.csv');
    const million = peakRss(
      dir,
      ['codes', 'generate', '--hash-id', hash, '--org', 'bench-memory', '--count', '1000000', '--out', codesOut, '-q'],
      remoteEnv,
    );
    const lines = readFileSync(codesOut, 'utf8').split('\n').length - 2;
    rmSync(codesOut, { force: true });
    log(
      `\n(f) memory through the launcher: 1,000,000 codes in ${fmt(million.ms)} (${lines} codes written), peak RSS ${million.mb.toFixed(1)} MB`,
    );
    if (lines !== 1_000_000) throw new Error(`the 1,000,000-code run wrote ${lines} codes`);
    target('(f) peak RSS of 1,000,000 codes', million.mb, '<', 150, ' MB');

    const big = await spawnSandbox();
    try {
      await growCatalogue(big.dbPath, 50_000);
      const listEnv = { ...base, ...big.env, BOOKDIST_CONFIG_DIR: join(dir, 'no-config') };
      const listing = peakRss(dir, ['book', 'list', '--all', '-o', 'ndjson'], listEnv);
      const count = spawnSync(BIN, ['book', 'list', '--all', '-o', 'ndjson'], {
        env: listEnv,
        encoding: 'utf8',
        maxBuffer: 1 << 30,
      })
        .stdout.trim()
        .split('\n').length;
      log(`    book list --all of ${count} books in ${fmt(listing.ms)}, peak RSS ${listing.mb.toFixed(1)} MB`);
      if (count !== 50_000) throw new Error(`the listing printed ${count} rows, not 50,000`);
      target('(f) peak RSS of a 50,000-row book list --all', listing.mb, '<', 150, ' MB');
    } finally {
      await big.close();
    }
  } finally {
    for (const close of closers) await close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  let failed = false;
  const target = (name, value, cmp, goal, unit = 'x') => {
    const ok = cmp === '<=' ? value <= goal : cmp === '>=' ? value >= goal : value < goal;
    if (!ok) failed = true;
    console.log(
      `${ok ? 'PASS' : 'FAIL'}  ${name}: ${value.toFixed(unit === 'x' ? 2 : 0)}${unit} (target ${cmp === '<=' ? '≤' : cmp === '>=' ? '≥' : '<'} ${goal}${unit})`,
    );
  };
  const sb = await spawnSandbox();
  try {
    await startupBench({ sb, target });
  } finally {
    await sb.close();
  }
  process.exitCode = failed ? 1 : 0;
}
