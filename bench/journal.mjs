// (l) The request journal's cost (issue 30, item 6): the signed GET by ISBN under load (autocannon,
// 16 connections) against a sandbox with its journal on and one with it off (`--no-journal`),
// each on a database of its own grown past the seed, measured alternately in the same run.
// Target: with the journal, at least 0.95 of the throughput without it (the median of the
// per-round ratios; BENCH_JOURNAL_ROUNDS rounds, default 5, BENCH_SECONDS per measurement).
//
// Throughput is the raw req/s, with the two sandboxes pinned to one core and this process (the
// load generator) to another (`taskset`, on a machine of 2 cores or more): everything the
// journal costs, on any of its threads (the writer thread that inserts its rows, checkpoints),
// then comes out of the requests the sandbox's core serves. Unpinned, the writer thread would
// run on a core the load generator leaves over, and the ratio would not see it. Where taskset is
// missing (or on one core), the ratio is that of the whole process's CPU per request, all its
// threads (/proc), which sees the same; the event-loop thread's CPU per request is printed too.
//
// `node bench/journal.mjs` runs it alone (after `npm run build`); bench/run.mjs runs it as part
// of `npm run bench`. Each sandbox runs in a process of its own (bench/sandbox.mjs).
import autocannon from 'autocannon';
import { spawn, spawnSync } from 'node:child_process';
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

/**
 * The cores to pin to where taskset can: the sandboxes (and every thread they start) on the last
 * core, this process (autocannon's load) on the first; `restore()` gives this process back the
 * cores it had (bench/run.mjs runs other rows after this one). Undefined on one core or without
 * taskset.
 */
function pinning() {
  const n = cpus().length;
  if (n < 2 || process.platform !== 'linux') return undefined;
  const pid = String(process.pid);
  const had = /:\s*(\S+)\s*$/.exec(spawnSync('taskset', ['-c', '-p', pid], { encoding: 'utf8' }).stdout ?? '')?.[1];
  if (!had || spawnSync('taskset', ['-a', '-c', '-p', '0', pid], { stdio: 'ignore' }).status !== 0) return undefined;
  return {
    server: String(n - 1),
    load: '0',
    restore: () => spawnSync('taskset', ['-a', '-c', '-p', had, pid], { stdio: 'ignore' }),
  };
}

async function startSandbox(journal, pin) {
  const args = [join(root, 'bench', 'sandbox.mjs')];
  const child = spawn(pin ? 'taskset' : process.execPath, pin ? ['-c', pin.server, process.execPath, ...args] : args, {
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
  const pin = pinning();
  log(
    pin
      ? `    sandboxes pinned to core ${pin.server}, the load generator to core ${pin.load} (taskset): throughput is req/s`
      : '    no taskset (or one core): throughput is 1 / the whole process CPU per request',
  );
  const on = await startSandbox(true, pin).catch((e) => {
    pin?.restore();
    throw e;
  });
  const off = await startSandbox(false, pin).catch(async (e) => {
    pin?.restore();
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
    const loop = [];
    const detail = [];
    for (let i = 0; i < ROUNDS; i++) {
      // Alternate which goes first, so that a drift of the machine's load favours neither.
      let x, y;
      if (i % 2) (y = await rps(b)), (x = await rps(a));
      else (x = await rps(a)), (y = await rps(b));
      // Pinned: req/s, the journal's every thread on the served core. Else 1 / the whole process's
      // CPU per request (req/s where /proc is missing).
      ratios.push(pin || x.cpu === undefined || y.cpu === undefined ? x.rps / y.rps : y.cpu / x.cpu);
      if (x.cpu !== undefined && y.cpu !== undefined) whole.push(y.cpu / x.cpu);
      if (x.main !== undefined && y.main !== undefined) loop.push(y.main / x.main);
      const us = (v) => (v === undefined ? '?' : Math.round(v));
      detail.push(
        `${Math.round(x.rps)}/${Math.round(y.rps)} req/s, event loop ${us(x.main)}/${us(y.main)} µs, process ${us(x.cpu)}/${us(y.cpu)} µs`,
      );
    }
    const median = (list) => [...list].sort((p, q) => p - q)[Math.floor(list.length / 2)];
    const m = median(ratios);
    const ok = m >= 0.95;
    const w = whole.length ? `; 1/CPU per request, whole process ${median(whole).toFixed(3)}` : '';
    const l = loop.length ? `, event loop alone ${median(loop).toFixed(3)}` : '';
    const measure = pin ? 'req/s, sandbox and load pinned apart' : 'throughput as 1/whole-process CPU per request';
    const line = `${ok ? 'PASS' : 'FAIL'}  (l) signed GET by ISBN @${CONNECTIONS}, journal on vs off (${measure}): ${m.toFixed(3)} (target ≥ 0.95)${w}${l}  on/off per round: ${detail.join('; ')}; ratios ${ratios.map((r) => r.toFixed(3)).join('/')}; load after ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`;
    log(line);
    return [{ ok, line }];
  } finally {
    pin?.restore();
    await on.stop();
    await off.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const lines = await journalBench();
  process.exitCode = lines.every((l) => l.ok) ? 0 : 1;
}
