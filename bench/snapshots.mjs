// (o) A snapshot of a 100,000-book database loads in under 1 s (issue 30, item 4): a database
// seeded by the CLI and grown to 100,000 books (bench/grow-db.mjs), saved as a snapshot, then
// `bookdist sandbox snapshot load` timed as a user runs it (the whole command, node's start-up
// included). The save is timed too, for information.
//
// `node bench/snapshots.mjs` runs it alone (after `npm run build`); bench/run.mjs runs it too.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { growSandboxDb } from './grow-db.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const BOOKS = 100_000;

export function snapshotBench({ log = console.log } = {}) {
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
    return [{ ok, line }];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = snapshotBench().every((l) => l.ok) ? 0 : 1;
}
