// Requests that differ only in their time are kept in one journal row (issue 30, item 6). A
// lookup asked again and again (a partner's CI, a load test) gives rows that are the same but for
// when it came, its sandbox time and its duration: one SQLite row per request cost the journal
// most of its price (about 7 µs of CPU each, batched; the lookup itself costs 70–80 µs). A run of
// such requests, one after the other in a batch, is written as one row: its columns are the
// first request's, `n` says how many requests it holds (ids id .. id + n - 1: the table's
// AUTOINCREMENT sequence is moved past them), and `pack` holds each request's at, sandbox_at and
// duration_ms, the first included: 24 bytes a request, three little-endian doubles (the same
// numbers exactly, without a text form to make per request). query.ts unpacks them: every
// request is listed, shown and counted as before, with its own id and times.
//
// The journal's tables are made here too.
import type { Store } from '../db/store.js';
import type { PendingRow } from './redact.js';

const DDL = `CREATE TABLE IF NOT EXISTS journal (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at INTEGER NOT NULL,
  sandbox_at INTEGER NOT NULL,
  method TEXT NOT NULL,
  path TEXT NOT NULL,
  query TEXT NOT NULL,
  auth TEXT NOT NULL,
  account TEXT,
  status INTEGER NOT NULL,
  duration_ms REAL NOT NULL,
  endpoint TEXT,
  headers TEXT,
  request TEXT,
  response TEXT,
  changes TEXT,
  emails TEXT,
  response_body INTEGER,
  n INTEGER,
  pack BLOB
)`;

/**
 * Answers that many rows share (a lookup asked again and again): kept once, and a row whose
 * `response` is NULL names its body in `response_body`. `last_id` is the newest row naming it: a
 * body goes when the rows up to it are dropped. Only the journal's writer thread of earlier
 * versions wrote such rows (it was removed); a database it wrote is still read and pruned.
 */
const BODIES_DDL = `CREATE TABLE IF NOT EXISTS journal_bodies (id INTEGER PRIMARY KEY, text TEXT NOT NULL, last_id INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS journal_bodies_by_last ON journal_bodies(last_id)`;

/** A row: a pending row's first ten values, its text, its shared body (or null), then how many requests it holds and their times (pack.ts). */
export const INSERT =
  'INSERT INTO journal(at, sandbox_at, method, auth, account, status, duration_ms, endpoint, changes, emails, path, query, headers, request, response, response_body, n, pack) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)';

/** After a packed row: the ids of the requests it holds are taken (AUTOINCREMENT goes on after them). */
export const TAKE_IDS = "UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = 'journal'";

/** Create the journal's tables when the database has none (idempotent); an earlier version's journal gains the columns. */
export function ensureJournalTable(store: Store): void {
  const cols = store.db.prepare('PRAGMA table_info(journal)').all() as Array<{ name: string }>;
  if (cols.some((c) => c.name === 'pack') && store.hasTable('journal_bodies')) return;
  store.tx(() => {
    if (!cols.length) store.db.exec(DDL);
    for (const [name, type] of [
      ['response_body', 'INTEGER'],
      ['n', 'INTEGER'],
      ['pack', 'BLOB'],
    ])
      if (cols.length && !cols.some((c) => c.name === name))
        store.db.exec(`ALTER TABLE journal ADD COLUMN ${name} ${type}`);
    store.db.exec(BODIES_DDL);
  });
}

/** Requests in one packed row at most (query.ts looks this far back for a request's row). */
export const PACK_MAX = 1000;

/** A run of requests written as one row: the first's row, how many, and each one's times (`pack`; null for one request). */
export interface PackedRun {
  row: PendingRow;
  n: number;
  times: Uint8Array | null;
}

/**
 * The runs of `rows` (in order): consecutive rows equal but for their times (values 0, 1 and 6:
 * at, sandbox_at, duration_ms) make one run, of at most `max` requests.
 */
export function packRows(rows: PendingRow[], max: number): PackedRun[] {
  const runs: Array<PackedRun & { flat?: number[] }> = [];
  let cur: (PackedRun & { flat?: number[] }) | undefined;
  for (const row of rows) {
    if (cur && cur.n < max && sameButTimes(cur.row, row)) {
      (cur.flat ??= [cur.row[0], cur.row[1], cur.row[6]]).push(row[0], row[1], row[6]);
      cur.n++;
    } else runs.push((cur = { row, n: 1, times: null }));
  }
  for (const run of runs) {
    if (!run.flat) continue;
    const bytes = new Uint8Array(run.flat.length * 8);
    const view = new DataView(bytes.buffer);
    for (let i = 0; i < run.flat.length; i++) view.setFloat64(i * 8, run.flat[i], true);
    run.times = bytes;
    delete run.flat;
  }
  return runs;

  function sameButTimes(a: PendingRow, b: PendingRow): boolean {
    for (let i = 2; i < a.length; i++) if (i !== 6 && a[i] !== b[i]) return false;
    return true;
  }
}

/** The times a `pack` holds: [at, sandbox_at, duration_ms] of each request, in order. */
export function unpackTimes(pack: Uint8Array): number[][] {
  const view = new DataView(pack.buffer, pack.byteOffset, pack.byteLength);
  const out: number[][] = [];
  for (let off = 0; off + 24 <= pack.byteLength; off += 24)
    out.push([view.getFloat64(off, true), view.getFloat64(off + 8, true), view.getFloat64(off + 16, true)]);
  return out;
}

/** What `pruneJournal` runs its statements with (a Store). */
export interface JournalSql {
  run(sql: string, ...params: Array<number | string | null | Uint8Array>): unknown;
  get(sql: string, ...params: Array<number | string | null>): Record<string, unknown> | undefined;
}

/**
 * Drop the requests up to id `cut` and the shared answers only they named. A packed row that
 * holds requests on both sides of `cut` loses its older ones: the journal keeps exactly the
 * requests after `cut`.
 */
export function pruneJournal(sql: JournalSql, cut: number, max: number): void {
  sql.run('DELETE FROM journal WHERE id <= ? AND id + coalesce(n, 1) - 1 <= ?', cut, cut);
  const r = sql.get(
    'SELECT id, n, pack FROM journal WHERE id <= ? AND id > ? ORDER BY id DESC LIMIT 1',
    cut,
    cut - max,
  );
  if (r && r.pack instanceof Uint8Array) {
    const pack = r.pack.slice((cut + 1 - Number(r.id)) * 24);
    const view = new DataView(pack.buffer, pack.byteOffset, pack.byteLength);
    const n = pack.byteLength / 24;
    sql.run(
      'UPDATE journal SET id = ?, n = ?, pack = ?, at = ?, sandbox_at = ?, duration_ms = ? WHERE id = ?',
      cut + 1,
      n,
      n > 1 ? pack : null,
      view.getFloat64(0, true),
      view.getFloat64(8, true),
      view.getFloat64(16, true),
      Number(r.id),
    );
  }
  sql.run('DELETE FROM journal_bodies WHERE last_id <= ?', cut);
}
