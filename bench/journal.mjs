// (l) The request journal's cost (issue 30, item 6): the signed GET by ISBN under load (autocannon,
// 16 connections each) against a sandbox with its journal on and one with it off (`--no-journal`),
// each on a database of its own grown past the seed. Target: with the journal, at least 0.95 of
// the throughput without it.
//
// Both sandboxes are loaded AT ONCE, for the same seconds, by this one process, pinned together to
// one core (the load generator to another, `taskset`, on 2 cores or more): a sandbox's throughput
// on a core of its own is 1 / its CPU per request, every thread of its process counted (/proc:
// the checkpointer, V8's GC threads), and measured over the same
// seconds, a change of the machine's load (6 helpers on 2 cores) touches both alike. The row's
// figure is the ratio of the two processes' CPU per request over all BENCH_JOURNAL_ROUNDS rounds
// together (default 8, BENCH_SECONDS each, default 3): a GC cycle, a batch commit or a checkpoint
// counts where it fell, none dropped as an outlier. Each round's ratio, their median, the event
// loop's own ratio and the req/s ratio are printed beside it (req/s at once is the scheduler's
// share of the core, not the cost). Without /proc the row is the median req/s ratio. Before the
// measured rounds, BENCH_JOURNAL_WARMUP rounds (default 3) of the same load are not counted: what
// a sandbox does once (JIT, the checkpointer's thread started) is not a cost per request.
//
// Why not one sandbox after the other (the row's earlier form, 3-second turns): on this shared
// machine the same sandbox's CPU per request moved 63-120 µs from one turn to the next (other
// tenants on its core, the load generator's pace: fewer requests per turn of the event loop cost
// more each, and the journal's fixed cost per batch, FLUSH_MS of rows, is shared by fewer), and
// V8's major GCs fall in one turn and not the other: per-round ratios 0.59-1.13 in one run.
//
// `node bench/journal.mjs` runs it alone (the pinned node_modules/.bin/node: node:sqlite);
// bench/run.mjs runs it as part of `npm run bench`. Each sandbox runs in a process of its own
// (bench/sandbox.mjs).
import autocannon from 'autocannon';
import { spawn, spawnSync } from 'node:child_process';
import { createPrivateKey, createSign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Math.max(1, Math.floor(Number(process.env.BENCH_JOURNAL_ROUNDS ?? 8)));
const CONNECTIONS = 16;
/** Rounds of load before the measured ones (see the warm-up below); BENCH_JOURNAL_WARMUP. */
const WARMUP_ROUNDS = Math.max(1, Math.floor(Number(process.env.BENCH_JOURNAL_WARMUP ?? 3)));
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
 * One round: both sandboxes under load at the same time, for the same seconds, from this one
 * load generator (CONNECTIONS each). Per sandbox: requests/s, and per request (µs) the CPU of its
 * event-loop thread and of its whole process (the journal's writer and checkpoint threads
 * included).
 */
async function round(targets) {
  const m0 = targets.map((t) => cpuMicros(t.pid, true));
  const c0 = targets.map((t) => cpuMicros(t.pid));
  const results = await Promise.all(
    targets.map((t) =>
      autocannon({ url: t.url, connections: CONNECTIONS, duration: SECONDS, pipelining: 1, headers: t.headers }),
    ),
  );
  const c1 = targets.map((t) => cpuMicros(t.pid));
  const m1 = targets.map((t) => cpuMicros(t.pid, true));
  return results.map((r, i) => {
    const bad = r.errors + r.timeouts + r.non2xx;
    if (bad > 0) throw new Error(`${targets[i].url}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`);
    const per = (a, b) =>
      a !== undefined && b !== undefined && r.requests.total ? (b - a) / r.requests.total : undefined;
    return { rps: r.requests.average, requests: r.requests.total, main: per(m0[i], m1[i]), cpu: per(c0[i], c1[i]) };
  });
}

export async function journalBench({ log = console.log } = {}) {
  log(
    `\n(l) request journal cost — node ${process.versions.node}, ${cpus().length} CPUs, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; ${ROUNDS} rounds of ${SECONDS}s, both sandboxes at once, ${CONNECTIONS} connections each`,
  );
  const pin = pinning();
  log(
    pin
      ? `    sandboxes pinned together to core ${pin.server}, the load generator to core ${pin.load} (taskset)`
      : '    no taskset (or one core): sandboxes and load generator share the cores',
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
    const targets = [await target(on), await target(off)];
    // Warm-up: what a sandbox does once, not per request, is behind both before the measured
    // rounds (JIT, caches). Until stop 47 it was also the checkpointer's worker thread, which a
    // connection starts after 100 commits and which the journal's flushes (a commit every
    // FLUSH_MS of lookups) started some 5 s into the load: with one round of warm-up that start
    // fell in the first measured round: 0.836 and 0.861, and 0.919 and 0.910 with the worker never
    // started; with three rounds 0.911 and 0.911 (load 8-12, nproc 2). The flushes are light
    // commits now (Turn.tx), which never start it: see journal.ts.
    for (let i = 0; i < WARMUP_ROUNDS; i++) await round(targets);
    const ratios = [];
    const reqs = [];
    const loop = [];
    const detail = [];
    // Sums over the rounds, per sandbox: requests, and CPU µs of the whole process and of its event loop.
    const sum = [0, 1].map(() => ({ requests: 0, cpu: 0, main: 0 }));
    let cpuKnown = true;
    for (let i = 0; i < ROUNDS; i++) {
      const [x, y] = await round(targets);
      [x, y].forEach((r, k) => {
        if (r.cpu === undefined || r.main === undefined) cpuKnown = false;
        else {
          sum[k].requests += r.requests;
          sum[k].cpu += r.cpu * r.requests;
          sum[k].main += r.main * r.requests;
        }
      });
      ratios.push(x.cpu === undefined || y.cpu === undefined ? x.rps / y.rps : y.cpu / x.cpu);
      reqs.push(x.rps / y.rps);
      if (x.main !== undefined && y.main !== undefined) loop.push(y.main / x.main);
      const us = (v) => (v === undefined ? '?' : Math.round(v));
      detail.push(
        `${Math.round(x.rps)}/${Math.round(y.rps)} req/s, event loop ${us(x.main)}/${us(y.main)} µs, process ${us(x.cpu)}/${us(y.cpu)} µs`,
      );
    }
    const median = (list) => [...list].sort((p, q) => p - q)[Math.floor(list.length / 2)];
    // The row's figure: 1 / the whole process's CPU per request over every round together (each
    // GC, batch commit and checkpoint counted where it fell, none dropped as an outlier); the
    // median of the rounds' ratios is printed beside it. Without /proc: the median req/s ratio.
    const per = (k, what) => sum[k][what] / sum[k].requests;
    const m = cpuKnown ? per(1, 'cpu') / per(0, 'cpu') : median(reqs);
    const ok = m >= 0.95;
    const l = cpuKnown ? `; event loop alone ${(per(1, 'main') / per(0, 'main')).toFixed(3)}` : '';
    const measure = cpuKnown ? '1/CPU per request, whole process, all rounds' : 'req/s';
    const line = `${ok ? 'PASS' : 'FAIL'}  (l) signed GET by ISBN @${CONNECTIONS}, journal on vs off at once (${measure}): ${m.toFixed(3)} (target ≥ 0.95)${l}; median of rounds ${median(ratios).toFixed(3)}, req/s ratio ${median(reqs).toFixed(3)}  on/off per round: ${detail.join('; ')}; ratios ${ratios.map((r) => r.toFixed(3)).join('/')}; load after ${loadavg()
      .map((v) => v.toFixed(2))
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
