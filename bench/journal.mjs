// (l) The request journal's cost (issue 30, item 6): the signed GET by ISBN under load (autocannon,
// 16 connections) against a sandbox with its journal on and one with it off (`--no-journal`),
// each on a database of its own grown past the seed, measured alternately in the same run.
// Target: with the journal, at least 0.95 of the throughput without it (the median of the
// per-round ratios; BENCH_JOURNAL_ROUNDS rounds, default 5, BENCH_SECONDS per measurement).
// Throughput is read as 1 / the CPU the event-loop thread spends per request (one thread serves
// every request, so it bounds the throughput; a loaded machine disturbs this least); the whole
// process's CPU per request (the journal's writer thread included) is printed beside it.
//
// `node bench/journal.mjs` runs it alone (after `npm run build`); bench/run.mjs runs it as part
// of `npm run bench`. Each sandbox runs in a process of its own (bench/sandbox.mjs).
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { createPrivateKey, createSign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Math.max(1, Math.floor(Number(process.env.BENCH_JOURNAL_ROUNDS ?? 5)));
const CONNECTIONS = 16;
const GROW = { books: 20_000, users: 5_000, orders: 5_000, codes: 5_000, imports: 5_000, outbox: 5_000 };

async function startSandbox(journal) {
  const child = spawn(process.execPath, [join(root, 'bench', 'sandbox.mjs')], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, BENCH_GROW: JSON.stringify(GROW), BENCH_JOURNAL: journal ? 'on' : 'off' },
  });
  let text = '';
  await new Promise((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (d) => {
      text += d;
      if (text.includes('# serving')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`bench/sandbox.mjs exited (${code}) before it served`)));
  });
  const env = {};
  for (const m of text.matchAll(/^export (\w+)=(.*)$/gm)) env[m[1]] = m[2];
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', resolve);
      child.kill('SIGINT');
    });
  return { env, stop, pid: child.pid };
}

/**
 * CPU time (user + system, µs) a process has used, all its threads (`/proc/<pid>/stat`), or its
 * main thread alone, the one running the event loop (`/proc/<pid>/task/<pid>/stat`); Linux only,
 * undefined elsewhere.
 */
function cpuMicros(pid, mainThread = false) {
  try {
    const fields = readFileSync(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8')
      .split(') ')[1]
      .split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return undefined;
  }
}

/**
 * Requests/s, and per request (µs) the CPU of the serving process's event-loop thread (what
 * bounds its throughput: one thread serves every request) and of the whole process (the journal
 * writer and checkpoint threads included): the figures a loaded machine disturbs least.
 */
async function rps(t) {
  const m0 = cpuMicros(t.pid, true);
  const c0 = cpuMicros(t.pid);
  const r = await autocannon({
    url: t.url,
    connections: CONNECTIONS,
    duration: SECONDS,
    pipelining: 1,
    headers: t.headers,
  });
  const c1 = cpuMicros(t.pid);
  const m1 = cpuMicros(t.pid, true);
  const bad = r.errors + r.timeouts + r.non2xx;
  if (bad > 0) throw new Error(`${t.url}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`);
  const per = (a, b) =>
    a !== undefined && b !== undefined && r.requests.total ? (b - a) / r.requests.total : undefined;
  return { rps: r.requests.average, main: per(m0, m1), cpu: per(c0, c1) };
}

export async function journalBench({ log = console.log } = {}) {
  log(
    `\n(l) request journal cost — node ${process.versions.node}, ${cpus().length} CPUs, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; ${ROUNDS} rounds of ${SECONDS}s at ${CONNECTIONS} connections`,
  );
  const on = await startSandbox(true);
  const off = await startSandbox(false).catch(async (e) => {
    await on.stop();
    throw e;
  });
  try {
    const target = async (sb) => {
      const user = sb.env.BOOKDIST_USERNAME;
      const key = createPrivateKey(readFileSync(sb.env.BOOKDIST_KEY_FILE, 'utf8'));
      const headers = {
        signature: createSign('RSA-SHA256').update(user, 'utf8').sign(key, 'base64'),
        'api-user': user,
        user,
        version: 'v1',
        authorization: 'CryptoAuth',
      };
      const index = await (await fetch(`${sb.env.BOOKDIST_BASE_URL}/v1/book/index/?limit=1`, { headers })).json();
      const url = `${sb.env.BOOKDIST_BASE_URL}/v1/book/isbn/${index.results[0].identifiers.isbn13}/`;
      const probe = await fetch(url, { headers });
      if (probe.status !== 200) throw new Error(`signed lookup probe: ${probe.status}`);
      await probe.arrayBuffer();
      return { url, headers, pid: sb.pid };
    };
    const a = await target(on);
    const b = await target(off);
    await rps(a); // warm-up, both
    await rps(b);
    const ratios = [];
    const whole = [];
    const detail = [];
    for (let i = 0; i < ROUNDS; i++) {
      // Alternate which goes first, so that a drift of the machine's load favours neither.
      let x, y;
      if (i % 2) (y = await rps(b)), (x = await rps(a));
      else (x = await rps(a)), (y = await rps(b));
      // Throughput at saturation goes as 1 / the event loop's CPU per request; req/s where /proc is missing.
      ratios.push(x.main !== undefined && y.main !== undefined ? y.main / x.main : x.rps / y.rps);
      if (x.cpu !== undefined && y.cpu !== undefined) whole.push(y.cpu / x.cpu);
      const us = (v) => (v === undefined ? '?' : Math.round(v));
      detail.push(
        `${Math.round(x.rps)}/${Math.round(y.rps)} req/s, event loop ${us(x.main)}/${us(y.main)} µs, process ${us(x.cpu)}/${us(y.cpu)} µs`,
      );
    }
    const median = (list) => [...list].sort((p, q) => p - q)[Math.floor(list.length / 2)];
    const m = median(ratios);
    const ok = m >= 0.95;
    const w = whole.length ? `; whole process (writer threads included) ${median(whole).toFixed(3)}` : '';
    const line = `${ok ? 'PASS' : 'FAIL'}  (l) signed GET by ISBN @${CONNECTIONS}, journal on vs off (throughput as 1/event-loop CPU per request): ${m.toFixed(3)} (target ≥ 0.95)${w}  on/off per round: ${detail.join('; ')}; ratios ${ratios.map((r) => r.toFixed(3)).join('/')}; load after ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`;
    log(line);
    return [{ ok, line }];
  } finally {
    await on.stop();
    await off.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const lines = await journalBench();
  process.exitCode = lines.every((l) => l.ok) ? 0 : 1;
}
