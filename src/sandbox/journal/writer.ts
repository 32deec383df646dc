// The journal's writer thread. Inserting a lookup's row (a couple of KB: its answer) costs the
// thread that runs it more than the rest of the journal put together: the statement, the WAL
// pages at COMMIT, the pruning of the oldest rows, and the checkpoints that copy them into the
// file (bench/journal.mjs, row (l)). A server whose lookups keep coming (journal.ts starts it
// after `backgroundAfter` flushes, when that option is given) hands their rows to a worker thread
// with a connection of its own, which redacts them, makes their text (redact.ts) and inserts each
// batch in one transaction while the event loop serves on. Off by default since lookups' runs are
// packed (pack.ts): its commits, another connection's, cost the serving connection its memos and
// page cache at every batch, more than the insert it saved (journal.ts).
//
// The rows cross as bytes in shared memory, two buffers in turn: the event loop appends a row's
// values to one (`append`, a few copies of strings it already has), and `post` hands the full one
// over with a message of a few bytes. A structured clone of the rows (postMessage) cost the
// event loop more than the insert it saved. A row that finds no room (both buffers taken, or
// too large) is refused: the journal writes it itself.
//
// `wait` blocks until every batch handed over is written (the journal routes of this server and
// its close() read or end after it); a writer that fails gives its unwritten batches back, and
// the journal writes them itself from then on.
import { Worker } from 'node:worker_threads';
import { packRows, pruneJournal } from './pack.js';
import { journalTextSource, type PendingRow } from './redact.js';

/** Bytes of each of the two buffers: a batch's rows (FLUSH_MS of lookups) fit many times over. */
const BUFFER_BYTES = 4 * 1024 * 1024;
/** The most `wait` blocks the event loop for a writer that does not answer. */
const WAIT_MS = 5000;
/** A value of a row in the buffer: absent, a number (f64), or text (u32 byte length, UTF-8). */
const NULL = 0;
/** Answers shorter than this are written in their row: a shared body would not save its cost. */
const SHARED_MIN = 256;
/** Answers the writer remembers at once (to share their bodies); beyond this it starts over. */
const SHARED_KEPT = 256;
const NUMBER = 1;
const TEXT = 2;
/** A row the same as the one before it but for its times: this tag, then at, sandbox_at, duration_ms (f64). */
const REPEAT = 3;

/**
 * The rows of `buf[0..len)`, as `append` wrote them. Self-contained (the worker runs its source).
 */
function decodeRows(buf: Buffer, len: number, fields: number): PendingRow[] {
  const rows: PendingRow[] = [];
  // Numbers through a DataView: Buffer's readDoubleLE and readUInt32LE are JavaScript of their own, a call each.
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let off = 0;
  while (off < len) {
    if (buf[off] === 3) {
      // REPEAT: the row before, its strings shared, with times of its own.
      const row = rows[rows.length - 1].slice() as PendingRow;
      row[0] = view.getFloat64(off + 1, true);
      row[1] = view.getFloat64(off + 9, true);
      row[6] = view.getFloat64(off + 17, true);
      rows.push(row);
      off += 25;
      continue;
    }
    const row: Array<string | number | null> = [];
    for (let i = 0; i < fields; i++) {
      const tag = buf[off++];
      if (tag === 1) {
        row.push(view.getFloat64(off, true));
        off += 8;
      } else if (tag === 2) {
        const n = view.getUint32(off, true);
        row.push(buf.toString('utf8', off + 4, off + 4 + n));
        off += 4 + n;
      } else row.push(null);
    }
    rows.push(row as PendingRow);
  }
  return rows;
}

// The worker opens its connection at its first batch. `ctl` (shared memory): [0] the number of
// the last batch it has dealt with (written, or kept for the next one when the database was busy
// or full: at most `max` rows are kept, the oldest dropped, as the journal itself does); [1], [2]
// whether it still reads buffer 0 or 1.
//
// An answer it has seen before (the same text: a lookup asked again) is not written again: the
// row names a shared body (journal_bodies, made at the second sighting) instead, which is most of
// what a lookup's row costs to write. `bodies` maps the answers seen lately to their body; each
// body is checked to be there still (a prune or a clear by another process may have dropped it)
// once per batch, and its `last_id` set to the batch's last row.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { DatabaseSync } = require('node:sqlite');
const { path, insert, takeIds, codes, size, pruneEvery, max, fields, packMax } = workerData;
const ctl = new Int32Array(workerData.ctl);
const bufs = workerData.bufs.map((b) => Buffer.from(b));
const { rowText } = ${journalTextSource()}(codes);
const decodeRows = ${decodeRows.toString()};
const packRows = ${packRows.toString()};
const pruneJournal = ${pruneJournal.toString()};
const textOf = (p) => { try { return rowText(p); } catch { return undefined; } };
const SHARED_MIN = ${SHARED_MIN}, SHARED_KEPT = ${SHARED_KEPT}, NEVER = Number.MAX_SAFE_INTEGER;
let db, stmt, take, sql, body, keep, inserted = 0, held = [];
const bodies = new Map();
/** The body of answer text \`r\` for a row of this batch (undefined: write it in the row). */
const bodyOf = (r, touched) => {
  if (r === null || r.length < SHARED_MIN) return undefined;
  let b = bodies.get(r);
  if (!b) {
    if (bodies.size >= SHARED_KEPT) bodies.clear();
    bodies.set(r, (b = { id: undefined }));
    return undefined;
  }
  if (b.id !== undefined && !touched.has(b) && keep.run(NEVER, b.id).changes === 0) b.id = undefined;
  if (b.id === undefined) b.id = Number(body.run(r, NEVER).lastInsertRowid);
  touched.add(b);
  return b.id;
};
parentPort.on('message', (m) => {
  if (m === 'close') {
    try { db?.close(); } catch {}
    parentPort.close();
    return;
  }
  for (const row of decodeRows(bufs[m.buf], m.len, fields)) held.push(row);
  Atomics.store(ctl, 1 + m.buf, 0);
  const touched = new Set();
  try {
    if (!db) {
      db = new DatabaseSync(path, { timeout: 10000 });
      db.exec('PRAGMA synchronous = NORMAL');
      stmt = db.prepare(insert);
      take = db.prepare(takeIds);
      const cache = new Map();
      const prep = (q) => { let st = cache.get(q); if (!st) cache.set(q, (st = db.prepare(q))); return st; };
      sql = { run: (q, ...p) => prep(q).run(...p), get: (q, ...p) => prep(q).get(...p) };
      body = db.prepare('INSERT INTO journal_bodies(text, last_id) VALUES (?, ?)');
      keep = db.prepare('UPDATE journal_bodies SET last_id = ? WHERE id = ?');
    }
    db.exec('BEGIN IMMEDIATE');
    try {
      let last = 0;
      for (const { row: p, n, times } of packRows(held, packMax)) {
        const text = textOf(p);
        if (!text) continue;
        const b = bodyOf(text[4], touched);
        if (b !== undefined) text[4] = null;
        last = Number(stmt.run(...p.slice(0, 10), ...text, b ?? null, n > 1 ? n : null, times).lastInsertRowid) + n - 1;
        if (n > 1) take.run(last);
      }
      for (const b of touched) keep.run(last, b.id);
      const before = inserted;
      inserted += held.length;
      if (last && (before === 0 || Math.floor(before / pruneEvery) !== Math.floor(inserted / pruneEvery)))
        pruneJournal(sql, last - size, packMax);
      db.exec('COMMIT');
      held = [];
    } catch (err) {
      try { db.exec('ROLLBACK'); } catch {}
      throw err;
    }
  } catch {
    // Rolled back: what the bodies were told of this batch is undone with it.
    for (const b of touched) b.id = undefined;
    if (held.length > max) held.splice(0, held.length - max);
  }
  Atomics.store(ctl, 0, m.seq);
  Atomics.notify(ctl, 0);
});
`;

/** True when two rows differ in their times alone (values 0, 1, 6), the rest the same (strings mostly the same instances: cheap). */
function sameButTimes(a: PendingRow, b: PendingRow): boolean {
  for (let i = 2; i < a.length; i++) if (i !== 6 && a[i] !== b[i]) return false;
  return true;
}

export interface WriterOptions {
  /** The INSERT of one row (journal.ts): a pending row's first ten values, its text, its shared body (or null), its count and times (pack.ts). */
  insert: string;
  /** After a packed row: the statement that moves the ids past its requests (taking the last one's). */
  takeIds: string;
  /** Requests in one packed row at most. */
  packMax: number;
  /** Redact redemption codes too. */
  codes: boolean;
  /** Rows kept, the oldest dropped. */
  size: number;
  /** Rows inserted between two prunes of the oldest. */
  pruneEvery: number;
  /** Rows kept in memory at most when the database cannot be written. */
  max: number;
  /** Values in a pending row. */
  fields: number;
}

export class JournalWriter {
  private readonly worker: Worker;
  private readonly ctl = new Int32Array(new SharedArrayBuffer(12));
  private readonly bufs = [0, 1].map(() => Buffer.from(new SharedArrayBuffer(BUFFER_BYTES)));
  /** The numbers of a row go in through these (Buffer's writeDoubleLE is JavaScript of its own, a call each). */
  private readonly views = this.bufs.map((b) => new DataView(b.buffer, b.byteOffset, b.byteLength));
  private readonly fields: number;
  /** The buffer rows are appended to, how far, and how many. */
  private cur = 0;
  private off = 0;
  private count = 0;
  /** The row appended last to the current buffer (a row the same but for its times is sent as REPEAT). */
  private prev?: PendingRow;
  private seq = 0;
  /** Batches handed over and not yet handled: read back if the worker fails. */
  private inflight: Array<{ seq: number; buf: number; len: number }> = [];
  private stopped = false;
  /** True once the worker has failed or ended: the journal writes its rows itself. */
  failed = false;
  /** Resolves once the worker has ended (its connection closed). */
  private readonly ended: Promise<void>;

  constructor(path: string, opts: WriterOptions) {
    this.fields = opts.fields;
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { path, ...opts, ctl: this.ctl.buffer, bufs: this.bufs.map((b) => b.buffer) },
    });
    this.worker.unref();
    this.ended = new Promise((resolve) => this.worker.once('exit', () => resolve()));
    const fail = () => {
      this.failed = true;
    };
    this.worker.once('error', fail);
    this.worker.once('exit', fail);
  }

  /** Append a row to the next batch; false (nothing written) when it finds no room or the worker has failed. */
  append(row: PendingRow): boolean {
    if (this.failed || this.stopped || Atomics.load(this.ctl, 1 + this.cur) !== 0) return false;
    const buf = this.bufs[this.cur];
    const view = this.views[this.cur];
    let off = this.off;
    const prev = this.prev;
    if (prev !== undefined && off + 25 <= BUFFER_BYTES && sameButTimes(prev, row)) {
      buf[off] = REPEAT;
      view.setFloat64(off + 1, row[0], true);
      view.setFloat64(off + 9, row[1], true);
      view.setFloat64(off + 17, row[6], true);
      this.off = off + 25;
      this.count++;
      return true;
    }
    for (let i = 0; i < row.length; i++) {
      const v = row[i];
      if (off + 9 > BUFFER_BYTES) return false;
      if (v === null) buf[off++] = NULL;
      else if (typeof v === 'number') {
        buf[off] = NUMBER;
        view.setFloat64(off + 1, v, true);
        off += 9;
      } else {
        const room = BUFFER_BYTES - off - 5;
        const n = buf.write(v, off + 5, 'utf8');
        // Cut short (or exactly filling the rest, which cannot be told apart): no room.
        if (n >= room || n < 0) return false;
        buf[off] = TEXT;
        view.setUint32(off + 1, n, true);
        off += 5 + n;
      }
    }
    this.off = off;
    this.count++;
    this.prev = row;
    return true;
  }

  /** Hand the rows appended so far over to the worker (a message of a few bytes). */
  post(): void {
    if (!this.count || this.failed || this.stopped) return;
    const batch = { seq: ++this.seq, buf: this.cur, len: this.off };
    const done = Atomics.load(this.ctl, 0);
    this.inflight = this.inflight.filter((b) => b.seq > done);
    this.inflight.push(batch);
    Atomics.store(this.ctl, 1 + this.cur, 1);
    this.cur = 1 - this.cur;
    this.off = 0;
    this.count = 0;
    this.prev = undefined;
    try {
      this.worker.postMessage(batch);
    } catch {
      this.failed = true;
    }
  }

  /**
   * Block until every batch handed over is handled (at most WAIT_MS). Never call it while this
   * process holds the database's write lock: the worker needs it.
   */
  wait(): void {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const done = Atomics.load(this.ctl, 0);
      if (done >= this.seq || this.failed) return;
      const left = deadline - Date.now();
      if (left <= 0) return;
      Atomics.wait(this.ctl, 0, done, Math.min(left, 50));
    }
  }

  /** The rows appended and never written (the worker failed): the caller writes them. */
  takeBack(): PendingRow[] {
    const done = Atomics.load(this.ctl, 0);
    const rows = this.inflight
      .filter((b) => b.seq > done)
      .flatMap((b) => decodeRows(this.bufs[b.buf], b.len, this.fields));
    this.inflight = [];
    if (this.count) rows.push(...decodeRows(this.bufs[this.cur], this.off, this.fields));
    this.count = 0;
    this.off = 0;
    this.prev = undefined;
    return rows;
  }

  /** End the worker (after what it was handed); resolves once its connection is closed. */
  stop(): Promise<void> {
    if (!this.stopped) {
      this.post();
      this.stopped = true;
      this.worker.ref(); // the process waits for it to close its connection
      try {
        this.worker.postMessage('close');
      } catch {
        /* already gone */
      }
    }
    return this.ended;
  }
}
