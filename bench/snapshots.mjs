// (o) A snapshot of a 100,000-book database loads in under 1 s (issue 30, item 4): a database
// seeded by the CLI and grown to 100,000 books (bench/grow-db.mjs), saved as a snapshot, then
// `bookdist sandbox snapshot load` timed as a user runs it (the whole command, node's start-up
// included). The save is timed too, for information.
//
// The workspaces of that snapshot (issue 30, item 5): a sandbox serving the database, the first
// workspace made with `bookdist sandbox workspace create --from` (the whole command), 19 more
// through its control route (the server's time alone); then the disk of the 20 (their files,
// the shared base counted once), against the database's own size.
//
// `node bench/snapshots.mjs` runs it alone (after `npm run build`); bench/run.mjs runs it too.
import { spawn, spawnSync } from 'node:child_process';
import { lstatSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { growSandboxDb } from './grow-db.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const BOOKS = 100_000;

export async function snapshotBench({ log = console.log } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'bookdist-bench-snapshot-'));
  try {
    const db = join(dir, 'sandbox.db');
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      BOOKDIST_DATA_DIR: join(dir, 'data'),
      BOOKDIST_CONFIG_DIR: join(dir, 'config'),
    };
    const cli = (...args) => {
      const t0 = process.hrtime.bigint();
      const r = spawnSync(process.execPath, [join(root, 'bin', 'bookdist'), ...args, '--db', db], {
        env,
        encoding: 'utf8',
      });
      if (r.status !== 0) throw new Error(`bookdist ${args.join(' ')} exited ${r.status}: ${r.stderr.slice(0, 500)}`);
      return Number(process.hrtime.bigint() - t0) / 1e9;
    };
    cli('sandbox', 'clock', 'show'); // seeds the database
    const seeded = spawnSync(
      process.execPath,
      [
        '-e',
        `const { DatabaseSync } = require('node:sqlite'); const d = new DatabaseSync(${JSON.stringify(db)}); process.stdout.write(String(d.prepare('SELECT count(*) AS n FROM books').get().n)); d.close();`,
      ],
      { encoding: 'utf8' },
    );
    const grow = BOOKS - Number(seeded.stdout);
    growSandboxDb(db, { books: grow, users: 5_000, orders: 5_000, codes: 5_000, imports: 5_000, outbox: 5_000 });
    const save = cli('sandbox', 'snapshot', 'save', 'bench');
    const bytes = statSync(join(`${db}.snapshots`, 'bench.db')).size;
    cli('sandbox', 'clock', 'advance', '1d'); // a change, so that the load has something to undo
    const load = cli('sandbox', 'snapshot', 'load', 'bench');
    const ok = load < 1;
    const line =
      `${ok ? 'PASS' : 'FAIL'}  (o) sandbox snapshot load of a ${BOOKS.toLocaleString('en')}-book database (${(bytes / 1e6).toFixed(0)} MB, the whole command): ` +
      `${load.toFixed(2)}s (target < 1s); save ${save.toFixed(2)}s  ${cpus().length} CPUs, load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`;
    log(line);
    return [{ ok, line }, ...(await workspaceBench({ db, env, bytes, cli, log }))];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const WORKSPACES = 20;

/** Bytes the files under `dir` take on disk (a file with several links counted once). */
function diskUse(dir) {
  const seen = new Set();
  let total = 0;
  const walk = (d) => {
    for (const f of readdirSync(d)) {
      const st = lstatSync(join(d, f));
      if (st.isDirectory()) walk(join(d, f));
      else if (!seen.has(st.ino)) {
        seen.add(st.ino);
        total += st.blocks * 512;
      }
    }
  };
  walk(dir);
  return total;
}

async function workspaceBench({ db, env, bytes, cli, log }) {
  const serve = spawn(
    process.execPath,
    [join(root, 'bin', 'bookdist'), 'sandbox', 'serve', '--db', db, '--port', '0'],
    {
      env,
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  try {
    const url = await new Promise((resolve, reject) => {
      let out = '';
      serve.stdout.setEncoding('utf8').on('data', (d) => {
        out += d;
        const m = /^(http:\/\/\S+)$/m.exec(out);
        if (m) resolve(m[1]);
      });
      serve.on('exit', (code) => reject(new Error(`sandbox serve exited ${code} before serving`)));
    });
    const { DatabaseSync } = await import('node:sqlite');
    const d = new DatabaseSync(db, { readOnly: true });
    const secret = d.prepare("SELECT value FROM meta WHERE key = 'control_secret'").get().value;
    d.close();
    // The first workspace of a snapshot also copies the snapshot's own rows into the template
    // the next ones copy: both timed as a user runs them.
    const first = cli('sandbox', 'workspace', 'create', 'job-0', '--from', 'bench', '--url', url);
    const command = cli('sandbox', 'workspace', 'create', 'job-1', '--from', 'bench', '--url', url);
    const times = [];
    for (let i = 2; i < WORKSPACES; i++) {
      const t0 = process.hrtime.bigint();
      const r = await fetch(`${url}/_sandbox/workspaces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-sandbox-secret': secret },
        body: JSON.stringify({ name: `job-${i}`, from: 'bench' }),
      });
      const text = await r.text();
      if (r.status !== 200) throw new Error(`workspace job-${i}: ${r.status} ${text.slice(0, 300)}`);
      times.push(Number(process.hrtime.bigint() - t0) / 1e9);
    }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)];
    const disk = diskUse(`${db}.workspaces`);
    const ratio = disk / bytes;
    const load = `${cpus().length} CPUs, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`;
    const created = first < 1 && command < 1 && median < 1;
    const createLine =
      `${created ? 'PASS' : 'FAIL'}  (o) sandbox workspace create --from a ${BOOKS.toLocaleString('en')}-book snapshot: ` +
      `${first.toFixed(2)}s the first (the whole command), ${command.toFixed(2)}s the second; the server's part of the next ` +
      `${times.length} ${median.toFixed(2)}s median, ${times.at(-1).toFixed(2)}s max (target < 1s)  ${load}`;
    const small = ratio < 2;
    const diskLine =
      `${small ? 'PASS' : 'FAIL'}  (o) ${WORKSPACES} workspaces of that snapshot take ${(disk / 1e6).toFixed(1)} MB with their shared base, ` +
      `${ratio.toFixed(2)}x the database's ${(bytes / 1e6).toFixed(1)} MB (target < 2x)`;
    log(createLine);
    log(diskLine);
    return [
      { ok: created, line: createLine },
      { ok: small, line: diskLine },
    ];
  } finally {
    await new Promise((resolve) => {
      if (serve.exitCode !== null) return resolve();
      serve.once('exit', resolve);
      serve.kill('SIGINT');
    });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = (await snapshotBench()).every((l) => l.ok) ? 0 : 1;
}
