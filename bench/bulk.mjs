// Bulk job engine rows of `npm run bench` (called from bench/run.mjs):
//
//  (g) a 1,000,000-row `access allow --from-csv` (the first row valid, the rest refused as invalid
//      before any request, so the engine and not the sandbox is measured): peak RSS under 200 MB,
//      and its first result (which follows the first request) within 1 s of the start.
//  (h) the same run with --results FILE takes at most 1.5x the time of the run to stdout
//      (results are fsynced per batch, not per line).
//  (i) 1,000,000 codes to --out FILE: peak RSS under 150 MB (flat in the number of codes).
import { spawn } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';

/** Run the CLI's main() in a process of its own that reports its max RSS; resolves with timings. */
function measured(ctx, args, { stdoutLines = false } = {}) {
  const script = `
    const { main } = await import(${JSON.stringify(join(ctx.root, 'dist', 'main.js'))});
    const code = await main(process.argv.slice(1));
    process.stderr.write('\\nMAXRSS_KB=' + process.resourceUsage().maxRSS + '\\n');
    process.exitCode = code;`;
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    // With the V8 flag bin/bookdist runs Node with (a small young generation), as users run it.
    const child = spawn(ctx.NODE, ['--max-semi-space-size=1', '--input-type=module', '-e', script, ...args], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...ctx.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let firstMs;
    let lines = 0;
    let stderr = '';
    child.stdout.on('data', (d) => {
      if (firstMs === undefined) firstMs = Number(process.hrtime.bigint() - t0) / 1e6;
      if (stdoutLines) for (let i = d.indexOf(10); i >= 0; i = d.indexOf(10, i + 1)) lines++;
    });
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      const m = /MAXRSS_KB=(\d+)/.exec(stderr);
      if (!m) return reject(new Error(`bookdist ${args.join(' ')} exited ${code}: ${stderr.slice(-2000)}`));
      resolve({ code, ms, firstMs, lines, mb: Number(m[1]) / 1024, stderr });
    });
  });
}

async function writeRows(path, n, first, row) {
  const out = createWriteStream(path);
  out.write(first);
  let chunk = '';
  for (let i = 0; i < n; i++) {
    chunk += row(i);
    if (chunk.length > 1 << 16) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'finish');
}

export async function bulkBench(ctx) {
  const { target, fmt, dir, H, users } = ctx;
  const N = 1_000_000;
  console.log();

  // ---------------------------------------------------------------- (g) 1M-row CSV, to stdout
  const csv = join(dir, 'grants-1m.csv');
  // Row 2 is a valid grant (one request); every other row has a bad price: refused before sending.
  await writeRows(
    csv,
    N - 1,
    `hash_id,username,price\n${H},${users[0]},1.00\n`,
    (i) => `${H},${users[i % users.length]},x${i}\n`,
  );
  const toStdout = await measured(ctx, ['access', 'allow', '--from-csv', csv, '-o', 'ndjson', '--concurrency', '4'], {
    stdoutLines: true,
  });
  if (toStdout.lines !== N)
    throw new Error(`the 1M-row run printed ${toStdout.lines} results, not ${N}: ${toStdout.stderr.slice(-500)}`);
  console.log(
    `(g) 1,000,000-row access allow --from-csv to stdout: ${fmt(toStdout.ms)}, first result after ${fmt(toStdout.firstMs)}, peak RSS ${toStdout.mb.toFixed(1)} MB`,
  );
  target('(g) peak memory of a 1,000,000-row access allow --from-csv', toStdout.mb, '<', 200, ' MB');
  target(
    '(g) first result (after the first request) of a 1,000,000-row job, seconds',
    toStdout.firstMs / 1000,
    '<',
    1,
    ' s',
  );

  // ---------------------------------------------------------------- (h) the same with --results
  const results = join(dir, 'grants-1m.results.ndjson');
  const toFile = await measured(ctx, [
    'access',
    'allow',
    '--from-csv',
    csv,
    '--results',
    results,
    '--concurrency',
    '4',
  ]);
  const written = readFileSync(results, 'utf8').split('\n').length - 1;
  if (written !== N) throw new Error(`--results holds ${written} results, not ${N}`);
  console.log(
    `(h) the same with --results FILE: ${fmt(toFile.ms)} (${(toFile.ms / toStdout.ms).toFixed(2)}x the stdout run), peak RSS ${toFile.mb.toFixed(1)} MB`,
  );
  target('(h) 1,000,000 rows with --results vs to stdout, time', toFile.ms / toStdout.ms, '<', 1.5, 'x');

  // ---------------------------------------------------------------- (i) 1M codes
  const codes = join(dir, 'codes-1m.csv');
  const gen = await measured(ctx, [
    'codes',
    'generate',
    '--hash-id',
    H,
    '--org',
    'bench',
    '--count',
    String(N),
    '--concurrency',
    '4',
    '--out',
    codes,
  ]);
  if (gen.code !== 0) throw new Error(`1M codes exited ${gen.code}: ${gen.stderr.slice(-1000)}`);
  console.log(`(i) 1,000,000 codes to --out: ${fmt(gen.ms)}, peak RSS ${gen.mb.toFixed(1)} MB`);
  target('(i) peak memory of a 1,000,000-code run', gen.mb, '<', 150, ' MB');
}

// `node bench/bulk.mjs` (after `npm run build`): the bulk rows alone, against a sandbox of their own.
if (import.meta.url === (await import('node:url')).pathToFileURL(process.argv[1] ?? '').href) {
  const { spawnSync } = await import('node:child_process');
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { fileURLToPath } = await import('node:url');
  const { createHash } = await import('node:crypto');
  const { spawnSandbox } = await import('./startup.mjs');
  const root = fileURLToPath(new URL('..', import.meta.url));
  const NODE = process.execPath;
  const dir = mkdtempSync(join(tmpdir(), 'bookdist-bench-bulk-'));
  const sb = await spawnSandbox();
  let failed = false;
  const target = (name, value, cmp, goal, unit = 'x') => {
    const ok = cmp === '<=' ? value <= goal : value < goal;
    if (!ok) failed = true;
    console.log(
      `${ok ? 'PASS' : 'FAIL'}  ${name}: ${value.toFixed(unit === 'x' ? 2 : 0)}${unit} (target ${cmp === '<=' ? '≤' : '<'} ${goal}${unit})`,
    );
  };
  const fmt = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)}s` : `${ms.toFixed(1)}ms`);
  try {
    const list = spawnSync(NODE, [join(root, 'bin', 'bookdist'), 'book', 'list', '--limit', '1', '--json'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...sb.env },
      encoding: 'utf8',
    });
    if (list.status !== 0) throw new Error(`book list failed: ${list.stderr}`);
    const first = JSON.parse(list.stdout);
    const H = (Array.isArray(first) ? first[0] : (first.results?.[0] ?? first.books?.[0])).hash_id;
    const users = [createHash('sha1').update('bookdist-sandbox-user-1').digest('hex').slice(0, 30)];
    await bulkBench({ root, NODE, env: sb.env, dir, H, users, target, fmt });
  } finally {
    await sb.close();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\n${failed ? 'Some targets were missed.' : 'All targets met.'}`);
  process.exitCode = failed ? 1 : 0;
}
