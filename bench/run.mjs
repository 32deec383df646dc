// `npm run bench`: the bulk targets, measured in one run against a local sandbox, as ratios
// against baselines measured in the same run (never absolute times: machines differ).
//
//  (a) 2,000 ISBN lookups by one `book get --isbn-file` vs a loop of one `bookdist book get`
//      process per ISBN and vs a loop of one curl per ISBN (signed with openssl); both loops are
//      timed on a sample of 100 and compared per item. Targets: 50x and 10x cheaper per item.
//  (b) 10,000 codes by one `codes generate` vs ten sequential `--count 1000` runs. Target 1.5x.
//  (c) peak memory (max RSS) of a 100,000-code run. Target under 150 MB.
//  (e), (f) start-up ratios, CPU profile summaries and peak RSS of long runs: bench/startup.mjs.
//  (g)-(i) the bulk job engine: 1,000,000-row CSV jobs and 1,000,000 codes (bench/bulk.mjs;
//      BENCH_SKIP_BULK=1 leaves them out).
//  (j) `sandbox catalogue load` of 100,000 ONIX products: peak memory under 200 MB, at most 3x
//      the CPU of a bare saxes parse of the same file (bench/catalogue.mjs).
//  (k) an id completion at TAB in bash, zsh and fish with 10,000 cached ids of each kind: the
//      95th percentile at most 0.5x `node -e 0` (bench/completion.mjs).
//  (l) the request journal's cost: the signed lookup under load with the journal on keeps at
//      least 0.95 of its throughput without it (bench/journal.mjs).
//  (m) `sandbox fixtures apply` of a 1,000-step fixture on the embedded sandbox: under 5 s
//      (bench/fixtures.mjs).
//  (n) the ledger's cost, CPU with it over CPU with --no-ledger: 100,000 codes at most 1.03x,
//      10,000 orders from CSV at most 1.05x, one single write at most 1.1x (bench/ledger.mjs).
//
// Needs only what the project installs plus curl, openssl and bash on the machine.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSandbox, startupBench } from './startup.mjs';
import { createHash } from 'node:crypto';

const root = fileURLToPath(new URL('..', import.meta.url));

// The whole bench runs in a home of its own, removed at the end: every row's commands wrote their
// id completion cache (176 MB after some runs), compile cache and, with a row's own env, anything
// else into the runner's real ~/.cache and ~/.local. Rows that pass HOME pass this one; the XDG
// variables point inside it (a runner's own XDG_* would otherwise still win).
const benchHome = mkdtempSync(join(tmpdir(), 'bookdist-bench-home-'));
process.env.HOME = benchHome;
for (const [k, sub] of [
  ['XDG_CACHE_HOME', '.cache'],
  ['XDG_CONFIG_HOME', '.config'],
  ['XDG_DATA_HOME', '.local/share'],
  ['XDG_STATE_HOME', '.local/state'],
])
  process.env[k] = join(benchHome, sub);
process.on('exit', () => rmSync(benchHome, { recursive: true, force: true, maxRetries: 5 }));
const BIN = join(root, 'bin', 'bookdist');
const NODE = process.execPath;
const results = [];
let failed = false;

function have(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).status === 0;
}

function time(fn) {
  const t = process.hrtime.bigint();
  const r = fn();
  return { ms: Number(process.hrtime.bigint() - t) / 1e6, r };
}

function run(args, env, opts = {}) {
  const r = spawnSync(NODE, [BIN, ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    ...opts,
  });
  if (r.status !== 0 && !opts.allowFail) throw new Error(`bookdist ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r;
}

function target(name, value, cmp, goal, unit = 'x', detail = '') {
  const ok = cmp === '>=' ? value >= goal : cmp === '<=' ? value <= goal : value < goal;
  if (!ok) failed = true;
  const line = `${ok ? 'PASS' : 'FAIL'}  ${name}: ${value.toFixed(unit === 'x' ? 2 : 0)}${unit} (target ${cmp === '>=' ? '≥' : cmp === '<=' ? '≤' : '<'} ${goal}${unit})${detail ? `  ${detail}` : ''}`;
  results.push(line);
  console.log(line);
}

/** A valid ISBN-13 from 12 digits. */
function isbn13(first12) {
  const sum = [...first12].reduce((s, d, i) => s + Number(d) * (i % 2 ? 3 : 1), 0);
  return first12 + ((10 - (sum % 10)) % 10);
}

const fmt = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)}s` : `${ms.toFixed(1)}ms`);

const dir = mkdtempSync(join(tmpdir(), 'bookdist-bench-run-'));
const sb = await spawnSandbox();
const env = sb.env;
try {
  console.log(`bookdist bench — node ${process.versions.node}, sandbox ${sb.url}\n`);
  const baseline = time(() => spawnSync(NODE, ['-e', '0']));
  console.log(`baseline: node -e 0 takes ${fmt(baseline.ms)} on this machine\n`);

  // ---------------------------------------------------------------- (a) lookups
  // One record per line (--json prints the whole response, its rows under `results`).
  const all = run(['book', 'list', '--all', '-o', 'ndjson'], env)
    .stdout.split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  const real = all.map((b) => b.identifiers.isbn13);
  const isbns = [...real];
  for (let i = 0; isbns.length < 2000; i++) isbns.push(isbn13('979' + String(100000000 + i * 7919).slice(-9)));
  const listFile = join(dir, 'isbns.txt');
  writeFileSync(listFile, isbns.join('\n') + '\n');
  // The loops' sample: the first 100 of the list, so it holds every ISBN that exists (found and
  // not-found lookups both make one request each).
  const sample = isbns.slice(0, 100);

  run(['book', 'get', '--isbn-file', listFile, '-o', 'ndjson'], env, { allowFail: true }); // warm caches
  const batch = time(() => run(['book', 'get', '--isbn-file', listFile, '-o', 'ndjson'], env, { allowFail: true }));
  const lines = batch.r.stdout.trim().split('\n');
  if (lines.length !== 2000) throw new Error(`batch lookup printed ${lines.length} records, not 2000`);
  const found = lines.filter((l) => JSON.parse(l).status === 'found').length;
  const perBatch = batch.ms / 2000;
  console.log(`(a) 2,000 ISBNs in one batch lookup: ${fmt(batch.ms)} (${found} found), ${fmt(perBatch)} per ISBN`);

  const loop = time(() => {
    for (const i of sample) run(['book', 'get', '--isbn', i, '--json'], env, { allowFail: true });
  });
  const perProcess = loop.ms / sample.length;
  console.log(
    `    loop of one bookdist process per ISBN (sample of 100): ${fmt(loop.ms)}, ${fmt(perProcess)} per ISBN`,
  );

  let perCurl;
  if (have('curl') && have('openssl') && have('bash')) {
    const user = env.BOOKDIST_USERNAME;
    const key = env.BOOKDIST_KEY_FILE;
    // GET requests sign the username (wire.md); the loop signs every request as a script would.
    const script = `
      set -e
      while read -r isbn; do
        sig=$(printf '%s' "$USERNAME" | openssl dgst -sha256 -sign "$KEY" | openssl base64 -A)
        curl -s -o /dev/null -w '%{http_code}\\n' \\
          -H "signature: $sig" -H "api-user: $USERNAME" -H "user: $USERNAME" -H "version: v1" -H "authorization: CryptoAuth" \\
          "$BASE/v1/book/isbn/$isbn/"
      done < "$LIST"`;
    const sampleFile = join(dir, 'sample.txt');
    writeFileSync(sampleFile, sample.join('\n') + '\n');
    const curlEnv = { PATH: process.env.PATH, USERNAME: user, KEY: key, BASE: sb.url, LIST: sampleFile };
    const curl = time(() => spawnSync('bash', ['-c', script], { env: curlEnv, encoding: 'utf8' }));
    const codes = curl.r.stdout.trim().split('\n');
    const ok = codes.filter((c) => c === '200' || c === '404').length;
    if (curl.r.status !== 0 || ok !== sample.length)
      throw new Error(`curl loop failed (${curl.r.status}): ${curl.r.stderr} ${codes.slice(0, 5)}`);
    perCurl = curl.ms / sample.length;
    console.log(
      `    loop of one curl per ISBN, signed with openssl (sample of 100): ${fmt(curl.ms)}, ${fmt(perCurl)} per ISBN (${codes.filter((c) => c === '200').length} found)`,
    );
  } else {
    console.log('    curl, openssl or bash missing: the curl loop cannot run');
  }
  target('(a) batch lookup vs one process per ISBN, per item', perProcess / perBatch, '>=', 50);
  if (perCurl !== undefined) target('(a) batch lookup vs one curl per ISBN, per item', perCurl / perBatch, '>=', 10);
  else target('(a) batch lookup vs one curl per ISBN, per item', 0, '>=', 10, 'x', '(curl/openssl missing)');
  console.log();

  // ---------------------------------------------------------------- (b) 10,000 codes
  const H = all[0].hash_id;
  const one = time(() =>
    run(
      ['codes', 'generate', '--hash-id', H, '--org', 'bench', '--count', '10000', '--out', join(dir, 'one.csv')],
      env,
    ),
  );
  const ten = time(() => {
    for (let i = 0; i < 10; i++)
      run(
        ['codes', 'generate', '--hash-id', H, '--org', 'bench', '--count', '1000', '--out', join(dir, `seq-${i}.csv`)],
        env,
      );
  });
  const rows = readFileSync(join(dir, 'one.csv'), 'utf8').trim().split('\n').length - 1;
  console.log(
    `(b) 10,000 codes in one run: ${fmt(one.ms)} (${rows} codes); ten sequential --count 1000 runs: ${fmt(ten.ms)}`,
  );
  target('(b) one 10,000-code run vs ten sequential 1,000-code runs', ten.ms / one.ms, '>=', 1.5);
  console.log();

  // ---------------------------------------------------------------- (c) peak memory
  // The CLI's main() in a process of its own that reports its max RSS when it is done.
  const peakScript = `
    const { main } = await import(${JSON.stringify(join(root, 'dist', 'main.js'))});
    const code = await main(process.argv.slice(1));
    process.stderr.write('\\nMAXRSS_KB=' + process.resourceUsage().maxRSS + '\\n');
    process.exitCode = code;`;
  const peak = (count, out) => {
    const r = spawnSync(
      NODE,
      [
        '--input-type=module',
        '-e',
        peakScript,
        'codes',
        'generate',
        '--hash-id',
        H,
        '--org',
        'bench',
        '--count',
        String(count),
        '--out',
        out,
      ],
      {
        env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
        encoding: 'utf8',
      },
    );
    const m = /MAXRSS_KB=(\d+)/.exec(r.stderr);
    if (r.status !== 0 || !m) throw new Error(`peak run failed (${r.status}): ${r.stderr}`);
    return Number(m[1]) / 1024;
  };
  const mb10k = peak(10_000, join(dir, 'peak10k.csv'));
  const t100k = time(() => peak(100_000, join(dir, 'peak100k.csv')));
  const mb100k = t100k.r;
  const n100k = readFileSync(join(dir, 'peak100k.csv'), 'utf8').trim().split('\n').length - 1;
  console.log(
    `(c) 100,000 codes: ${fmt(t100k.ms)}, ${n100k} codes, peak RSS ${mb100k.toFixed(1)} MB (10,000 codes: ${mb10k.toFixed(1)} MB; live heap stays ~10-20 MB, the rest is V8's young generation growing with the allocation rate)`,
  );
  target('(c) peak memory of a 100,000-code run', mb100k, '<', 150, ' MB');

  // ---------------------------------------------------------------- (e), (f) start-up and memory
  // bench/startup.mjs: start-up ratios, CPU profile summaries, peak RSS of long runs (issue 10).
  await startupBench({ sb, target });

  // ---------------------------------------------------------------- (g)-(i) bulk job engine (bench/bulk.mjs)
  if (!process.env.BENCH_SKIP_BULK) {
    const { bulkBench } = await import('./bulk.mjs');
    const users = [createHash('sha1').update('bookdist-sandbox-user-1').digest('hex').slice(0, 30)];
    await bulkBench({ root, NODE, env, dir, H, users, target, fmt });
  }
} finally {
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
}

// (j) sandbox catalogue load of 100,000 ONIX products: bench/catalogue.mjs (BENCH_SKIP_CATALOGUE=1 leaves it out).
if (!process.env.BENCH_SKIP_CATALOGUE) {
  const { catalogueBench } = await import('./catalogue.mjs');
  await catalogueBench({ root, NODE, target, fmt });
}

// (k) completion of ids at TAB through bash, zsh and fish: bench/completion.mjs.
await (await import('./completion.mjs')).completionBench({ root, NODE, target });

// (e) sandbox throughput and the 50,000-book list: bench/sandbox-throughput.mjs.
for (const r of await (await import('./sandbox-throughput.mjs')).sandboxThroughput()) {
  results.push(r.line);
  if (!r.ok) failed = true;
}

// (l) the request journal's cost on the signed lookup: bench/journal.mjs.
for (const r of await (await import('./journal.mjs')).journalBench()) {
  results.push(r.line);
  if (!r.ok) failed = true;
}

// (m) a 1,000-step fixture: bench/fixtures.mjs.
for (const r of (await import('./fixtures.mjs')).fixtureBench()) {
  results.push(r.line);
  if (!r.ok) failed = true;
}
// (o) a snapshot load and workspace creation at 100,000 books: bench/snapshots.mjs.
for (const r of await (await import('./snapshots.mjs')).snapshotBench()) {
  results.push(r.line);
  if (!r.ok) failed = true;
}
// (n) the ledger's cost: bench/ledger.mjs.
await (await import('./ledger.mjs')).ledgerBench({ target });

console.log(`\n${failed ? 'Some targets were missed.' : 'All targets met.'}`);
process.exitCode = failed ? 1 : 0;
