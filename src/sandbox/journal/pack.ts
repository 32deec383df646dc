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

/** True where a Float64Array's bytes are already the pack's (little-endian doubles): its bytes are written as they are. */
const LITTLE_ENDIAN = new Uint8Array(new Float64Array([1]).buffer)[7] === 0x3f;

/**
 * The requests kept in memory until they are written, as runs: consecutive requests equal but for
 * their times (a row's values 0, 1 and 6: at, sandbox_at, duration_ms) are one run, of at most
 * PACK_MAX requests. A request that repeats the last one (`repeat`) costs three numbers written
 * into one buffer that every run shares and that is used again after each write: no row, no
 * object, nothing for the garbage collector; the run's `pack` is a view of that buffer's bytes.
 */
export class PendingRuns {
  /** Each run: its first request's row, how many requests, and where its times start in `times` (a request's index). */
  runs: Array<{ row: PendingRow; n: number; first: number }> = [];
  /** Requests kept (over every run). */
  requests = 0;
  /** [at, sandbox_at, duration_ms] of each request kept, in order; `used` of them. */
  private times = new Float64Array(3 * 512);
  private used = 0;

  /** The row of the last run, when one more request can still join it. */
  last(): PendingRow | undefined {
    const run = this.runs[this.runs.length - 1];
    return run !== undefined && run.n < PACK_MAX ? run.row : undefined;
  }

  /** A request that starts a run of its own. */
  add(row: PendingRow): void {
    this.runs.push({ row, n: 1, first: this.used });
    this.time(row[0], row[1], row[6]);
  }

  /** A request equal to the last run's but for its times (`last()` said it may join). */
  repeat(at: number, sandboxAt: number, durationMs: number): void {
    this.runs[this.runs.length - 1].n++;
    this.time(at, sandboxAt, durationMs);
  }

  private time(at: number, sandboxAt: number, durationMs: number): void {
    if (3 * (this.used + 1) > this.times.length) {
      const grown = new Float64Array(this.times.length * 2);
      grown.set(this.times);
      this.times = grown;
    }
    const i = 3 * this.used++;
    this.times[i] = at;
    this.times[i + 1] = sandboxAt;
    this.times[i + 2] = durationMs;
    this.requests++;
  }

  /**
   * The runs to write, each with its `pack` (null for one request): valid until the next change
   * of this object (a pack shares the buffer's bytes).
   */
  packed(): PackedRun[] {
    return this.runs.map(({ row, n, first }) => ({ row, n, times: n > 1 ? this.bytes(first, n) : null }));
  }

  private bytes(first: number, n: number): Uint8Array {
    if (LITTLE_ENDIAN) return new Uint8Array(this.times.buffer, first * 24, n * 24);
    const out = new Uint8Array(n * 24);
    const view = new DataView(out.buffer);
    for (let i = 0; i < 3 * n; i++) view.setFloat64(i * 8, this.times[3 * first + i], true);
    return out;
  }

  /** Forget every request kept. */
  clear(): void {
    this.runs = [];
    this.requests = 0;
    this.used = 0;
  }

  /** Keep the newest `max` requests at most (a run cut at its start keeps its newest times). */
  keepNewest(max: number): void {
    let drop = this.requests - max;
    if (drop <= 0) return;
    while (drop > 0 && this.runs[0].n <= drop) {
      drop -= this.runs[0].n;
      this.requests -= this.runs.shift()!.n;
    }
    if (drop > 0) {
      const run = this.runs[0];
      run.first += drop;
      run.n -= drop;
      this.requests -= drop;
      const i = 3 * run.first;
      const row = [...run.row] as PendingRow;
      row[0] = this.times[i];
      row[1] = this.times[i + 1];
      row[6] = this.times[i + 2];
      run.row = row;
    }
    // What is kept moves to the buffer's start (it does not grow while the database stays busy).
    const base = this.runs.length ? this.runs[0].first : this.used;
    this.times.copyWithin(0, 3 * base, 3 * this.used);
    this.used -= base;
    for (const run of this.runs) run.first -= base;
  }
}

/** A run of requests written as one row: the first's row, how many, and each one's times (`pack`; null for one request). */
export interface PackedRun {
  row: PendingRow;
  n: number;
  times: Uint8Array | null;
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
