// Sandbox throughput (issue 11, item 5), as ratios to a bare node:http hello-world served by
// the same Node binary and loaded by the same generator (autocannon) in the same run:
//
//   signed GET by ISBN            >= 0.35 of hello-world, at 16 and 50 connections
//   signed book search (title)    >= 0.25
//   order creation (signed POST)  >= 0.15 in each of three rounds, and no slowdown across them
//                                 (the CPU per order of the last round <= 1/0.85 x the first's;
//                                 without /proc, the last round's ratio >= 0.85 x the first's),
//                                 measured after a warm-up of ORDER_WARMUP orders (below)
//   `book list --all -o ndjson` of 50,000 books streams >= 5,000 rows/s
//
// The sandbox runs in a process of its own on a database grown far past the seed (50,000 books,
// 20,000 users, orders, codes, imports: bench/grow-db.mjs). Signed requests are precomputed:
// a GET signs the username and a POST its `request` text, so the same bytes are valid every time.
//
// `node bench/sandbox-throughput.mjs` runs it alone (after `npm run build`); bench/run.mjs runs it
// as part of `npm run bench`. Env: BENCH_SECONDS (per measurement, default 3), BENCH_REPEAT
// (measurements per lookup and search row, default 3), BENCH_THROUGHPUT_ROWS (the rows to run, of
// isbn,search,order,list; default all), BENCH_ORDER_WARMUP (orders of the warm-up, default
// 40,000). Each measurement sits between two hello-world runs and is divided by their mean; a
// lookup or search row is the median of its measurements (single runs on a shared 2-vCPU VM
// swing by 0.05-0.1 either way).
//
// The order rounds come after a warm-up of ORDER_WARMUP orders, counted, not timed: a fresh
// process compiles its code as it runs it (V8's Maglev and TurboFan tiers, by how often each
// function has run), a cost every real server pays once, not per order. Without the warm-up the
// first round cost 101-115 µs of CPU an order, the third 66-68 (three runs, load 0.7-12, nproc 2):
// a one-time ~0.75 s of CPU whatever the round's length, ~0.37 s of it on V8's compiler threads
// and the rest on the main thread running code not yet optimised. It is the JIT: with
// `--no-opt --no-maglev` the rounds cost alike but for at most ~0.15 s of one-time CPU in the
// first (199/182/185, 201/196/216 and 234/198/187 µs, 3,800-12,000 orders a round: the WAL
// checkpointer's thread starting and checkpointing the grown rows, ~50 ms, and bytecode made on
// first calls), while a WAL grown beforehand (600 MB, so that no round extends the file) left
// the first round as dear as before (156 and 109 µs, then 73/70 and 68/67). Compiling ends after
// some 30,000 orders: a 1 s warm-up (~6,000 orders) left 82-86 µs then 67-72, 20,000 orders
// 74-77 then 70-72, 40,000 68-75 then 67-72. The warm-up pays those one-time costs too. It
// gives the no-slowdown check back its meaning: it read 1.43-1.62 with a cold first round, so a
// last round up to 1.7x a warm order's CPU would have passed it; now up to 1/0.85 = 1.18x.
import autocannon from 'autocannon';
import { spawn, spawnSync } from 'node:child_process';
import { createPrivateKey, createSign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const NODE = process.execPath;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const REPEAT = Math.max(1, Math.floor(Number(process.env.BENCH_REPEAT ?? 3)));
const ROWS = new Set((process.env.BENCH_THROUGHPUT_ROWS ?? 'isbn,search,order,list').split(','));
const ORDER_WARMUP = Math.max(0, Math.floor(Number(process.env.BENCH_ORDER_WARMUP ?? 40_000)));
const GROW = { books: 50_000, users: 20_000, orders: 20_000, codes: 20_000, imports: 20_000, outbox: 20_000 };

/** Start a child process and wait for `marker` on its stdout; returns the child and its output so far. */
async function startChild(args, env, marker) {
  const child = spawn(NODE, args, { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  let text = '';
  await new Promise((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (d) => {
      text += d;
      if (text.includes(marker)) resolve();
    });
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code}) before it served`)));
  });
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', resolve);
      child.kill('SIGINT');
    });
  return { child, text, stop };
}

const HELLO = `
const http = require('node:http');
const s = http.createServer({ keepAlive: true }, (req, res) => {
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.end('hello world');
});
s.listen(0, '127.0.0.1', () => console.log('# serving ' + s.address().port));
process.on('SIGINT', () => process.exit(0));`;

/**
 * CPU time (user + system) a process has used, in µs, from /proc (Linux; undefined elsewhere).
 * Clock ticks of 10 ms (USER_HZ = 100, as on every Linux the CI runs).
 */
function cpuMicros(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return undefined;
  }
}

/**
 * Requests/s of a run with no errors and no non-2xx answers (else it throws), and the serving
 * process's CPU time per request (`cpu`, µs) when `pid` is given: a figure that, unlike req/s,
 * does not depend on how much of the machine the load generator leaves over.
 */
async function load(url, opts, connections, seconds = SECONDS, pid) {
  const c0 = pid && cpuMicros(pid);
  const r = await autocannon({ url, connections, duration: seconds, pipelining: 1, ...opts });
  const c1 = pid && cpuMicros(pid);
  const bad = r.errors + r.timeouts + r.non2xx;
  if (bad > 0)
    throw new Error(
      `${opts.title ?? url}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts (of ${r.requests.total})`,
    );
  const cpu = c0 !== undefined && c1 !== undefined && r.requests.total > 0 ? (c1 - c0) / r.requests.total : undefined;
  return { rps: r.requests.average, total: r.requests.total, p99: r.latency.p99, cpu };
}

export async function sandboxThroughput({ log = console.log } = {}) {
  const lines = [];
  const row = (name, value, goal, detail) => {
    const ok = value >= goal;
    const line = `${ok ? 'PASS' : 'FAIL'}  ${name}: ${value.toFixed(2)} (target ≥ ${goal})${detail ? `  ${detail}` : ''}`;
    lines.push({ ok, line });
    log(line);
  };

  log(
    `\n(e) sandbox throughput — node ${process.versions.node}, autocannon, ${SECONDS}s per measurement; growing a sandbox database to ${GROW.books.toLocaleString('en')} books…`,
  );
  const hello = await startChild(['-e', HELLO], {}, '# serving');
  const helloUrl = `http://127.0.0.1:${/# serving (\d+)/.exec(hello.text)[1]}/`;
  const t0 = Date.now();
  const sb = await startChild([join(root, 'bench', 'sandbox.mjs')], { BENCH_GROW: JSON.stringify(GROW) }, '# serving');
  log(`    sandbox with a grown database ready in ${((Date.now() - t0) / 1000).toFixed(1)}s`);
  const env = {};
  for (const m of sb.text.matchAll(/^export (\w+)=(.*)$/gm)) env[m[1]] = m[2];
  try {
    const base = env.BOOKDIST_BASE_URL;
    const user = env.BOOKDIST_USERNAME;
    const key = createPrivateKey(readFileSync(env.BOOKDIST_KEY_FILE, 'utf8'));
    const sign = (text) => createSign('RSA-SHA256').update(text, 'utf8').sign(key, 'base64');
    const auth = (text) => ({
      signature: sign(text),
      'api-user': user,
      user,
      version: 'v1',
      authorization: 'CryptoAuth',
    });
    const post = (requestText) => ({
      method: 'POST',
      headers: { ...auth(requestText), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ request: requestText }).toString(),
    });

    // A seeded book (publisher 1, two prices) and a seeded user: the same targets as the README.
    const get = (path) =>
      fetch(base + path, { headers: auth(user) }).then(async (r) => ({ status: r.status, body: await r.json() }));
    const probe = await get('/v1/book/index/?limit=1');
    if (probe.status !== 200) throw new Error(`signed probe failed: ${probe.status} ${JSON.stringify(probe.body)}`);
    const grownBooks = probe.body.count;
    // The partner's first book is the seed's first (the README's lookup).
    const isbn = probe.body.results[0].identifiers.isbn13;
    const book = (await get(`/v1/book/isbn/${isbn}/`)).body.book;
    const userRow = await (
      await fetch(base + '/v1/user/email/avery.reader@example.com/', { headers: auth(user) })
    ).json();
    const username = userRow.user.username;

    const cases = {
      isbn: { title: 'signed GET by ISBN', url: `${base}/v1/book/isbn/${isbn}/`, opts: { headers: auth(user) } },
      search: {
        title: 'signed book search by title',
        url: `${base}/v1/book/search/`,
        opts: post(JSON.stringify({ title: book.title.split(' ').sort((a, b) => b.length - a.length)[0], limit: 10 })),
      },
      order: {
        title: 'order creation',
        url: `${base}/v1/order/external/`,
        opts: post(
          JSON.stringify({
            username,
            digital_pricing: [book.digital_pricing[0].id],
            billing_address: { full_name: 'Bench Buyer', postal_code: '04101', country: 'US' },
            order_type: 'TestPlan',
            org: 'bench',
            send_email: false,
          }),
        ),
      },
    };
    // Each case answers 2xx before it is measured (a wrong signature would measure 401s).
    for (const c of Object.values(cases)) {
      const r = await fetch(c.url, { method: c.opts.method ?? 'GET', headers: c.opts.headers, body: c.opts.body });
      if (r.status >= 300) throw new Error(`${c.title}: ${r.status} ${await r.text()}`);
      await r.arrayBuffer().catch(() => {});
    }
    log(
      `    ${grownBooks.toLocaleString('en')} books in the partner's list; lookup ISBN ${isbn}; search "${JSON.parse(new URLSearchParams(cases.search.opts.body).get('request')).title}"`,
    );

    // Every measurement sits between two hello-world runs at the same connection count, and is
    // compared with their mean: the machine's load drifts (other processes share the cores), and a
    // baseline measured minutes earlier would turn that drift into the ratio.
    const ratioOf = async (c, conns) => {
      const before = await load(helloUrl, { title: 'hello' }, conns, SECONDS, hello.child.pid);
      const r = await load(c.url, { ...c.opts, title: c.title }, conns, SECONDS, sb.child.pid);
      const after = await load(helloUrl, { title: 'hello' }, conns, SECONDS, hello.child.pid);
      const base = (before.rps + after.rps) / 2;
      const baseCpu = before.cpu !== undefined && after.cpu !== undefined ? (before.cpu + after.cpu) / 2 : undefined;
      return { ...r, base, baseCpu, ratio: r.rps / base };
    };
    // CPU per request of the sandbox against hello-world's: what the ratio of req/s stands for.
    const cpuNote = (rs) =>
      rs.every((r) => r.cpu !== undefined && r.baseCpu !== undefined)
        ? `, CPU/request ${rs.map((r) => Math.round(r.cpu)).join('/')} µs vs ${rs.map((r) => Math.round(r.baseCpu)).join('/')} µs`
        : '';
    let orderWarm = false;
    for (const conns of [16, 50]) {
      await load(helloUrl, { title: 'warm-up' }, conns, 1);
      for (const name of ['isbn', 'search']) {
        if (!ROWS.has(name)) continue;
        const c = cases[name];
        await load(c.url, { ...c.opts, title: c.title }, conns, 1);
        const runs = [];
        for (let i = 0; i < REPEAT; i++) runs.push(await ratioOf(c, conns));
        const r = [...runs].sort((a, b) => a.ratio - b.ratio)[Math.floor(runs.length / 2)];
        const all = runs.length > 1 ? ` (median of ${runs.map((x) => x.ratio.toFixed(2)).join('/')})` : '';
        row(
          `(e) ${c.title} @${conns} vs hello-world`,
          r.ratio,
          name === 'isbn' ? 0.35 : 0.25,
          `${Math.round(r.rps)} req/s vs ${Math.round(r.base)}${all}, p99 ${r.p99} ms${cpuNote([r])}`,
        );
      }
      if (!ROWS.has('order')) continue;
      const o = cases.order;
      // Once per process (see the header): the first connection count's rounds start warm.
      if (!orderWarm && ORDER_WARMUP > 0) {
        orderWarm = true;
        const w = await load(o.url, { ...o.opts, title: o.title, amount: ORDER_WARMUP }, conns, SECONDS, sb.child.pid);
        log(
          `    order warm-up: ${w.total.toLocaleString('en')} orders${w.cpu === undefined ? '' : `, ${Math.round(w.cpu)} µs of CPU each`}`,
        );
      }
      const rounds = [];
      for (let i = 0; i < 3; i++) rounds.push(await ratioOf(o, conns));
      const detail = `rounds ${rounds.map((r) => `${Math.round(r.rps)}/${Math.round(r.base)}`).join(' → ')} req/s (order/hello), p99 ${rounds.map((r) => r.p99).join('/')} ms${cpuNote(rounds)}`;
      row(`(e) ${o.title} @${conns} vs hello-world`, Math.min(...rounds.map((r) => r.ratio)), 0.15, detail);
      // No slowdown: the sandbox's CPU per order in the first round against the last (a sandbox
      // that slows as its orders pile up spends more per order), each in units of hello-world's
      // CPU per request around it, so that the machine's own drift between rounds cancels out
      // (one run: 136 -> 167 µs per order while hello-world went 23 -> 29 µs, 5.9 -> 5.8 of it);
      // where /proc is missing, the last round's ratio against the first's. Not the ratio where
      // CPU is known: hello-world's own req/s drifts by a third between rounds on a shared machine.
      const created = `${rounds.map((r) => r.total).reduce((a, b) => a + b)} orders created`;
      if (rounds.every((r) => r.cpu !== undefined && r.baseCpu !== undefined)) {
        const rel = (r) => r.cpu / r.baseCpu;
        row(
          `(e) ${o.title} @${conns}: CPU per order in hello-world requests, first round vs last (no slowdown)`,
          rel(rounds[0]) / rel(rounds[2]),
          0.85,
          `${rel(rounds[0]).toFixed(1)} → ${rel(rounds[2]).toFixed(1)} (${Math.round(rounds[0].cpu)} → ${Math.round(rounds[2].cpu)} µs), ${created}`,
        );
      } else {
        row(
          `(e) ${o.title} @${conns}: last round vs first (no slowdown)`,
          rounds[2].ratio / rounds[0].ratio,
          0.85,
          created,
        );
      }
    }

    // The whole list, streamed by the CLI as NDJSON: rows per second.
    if (!ROWS.has('list')) return lines;
    const t = Date.now();
    const r = spawnSync(NODE, [join(root, 'bin', 'bookdist'), 'book', 'list', '--all', '-o', 'ndjson'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      encoding: 'utf8',
      maxBuffer: 1 << 30,
    });
    const secs = (Date.now() - t) / 1000;
    if (r.status !== 0) throw new Error(`book list --all exited ${r.status}: ${r.stderr.slice(0, 500)}`);
    const rows = r.stdout.split('\n').filter(Boolean).length;
    if (rows !== grownBooks) throw new Error(`book list --all printed ${rows} rows, the service counts ${grownBooks}`);
    const perSec = rows / secs;
    const ok = perSec >= 5000;
    const line = `${ok ? 'PASS' : 'FAIL'}  (e) book list --all -o ndjson of ${rows.toLocaleString('en')} books: ${Math.round(perSec)} rows/s (target ≥ 5000)  ${secs.toFixed(1)}s`;
    lines.push({ ok, line });
    log(line);
  } finally {
    await sb.stop();
    await hello.stop();
  }
  return lines;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const lines = await sandboxThroughput();
  process.exitCode = lines.every((l) => l.ok) ? 0 : 1;
}
