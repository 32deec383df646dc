// The request journal (issue 30): every request a sandbox serves, as a row of its database, so
// that every process serving one file writes to and reads from one journal. A row holds the
// time, method, path, auth mode, account, status and duration, the request and response bodies
// with secrets redacted (redact.ts), what the request changed (rows it inserted, rows it
// updated) and the outbox e-mails it caused.
//
// A request that wrote (an order, a user...) has its row written inside the turn's group commit
// (Store.serve), with its writes: committed together, before the answer leaves. The rows of
// requests that wrote nothing (lookups, refusals) are kept in memory and written together, one
// transaction every FLUSH_MS at most (a lookup that made every turn a write transaction cost
// two thirds of the lookup's throughput): they are in the database within FLUSH_MS of their
// answer, and at once for the journal routes of this server and before it closes. Requests
// that are not the service's (pages, control routes, faults, refusals before routing) are
// journaled when their answer has gone.
//
// Bounded: at most `size` requests (default DEFAULT_JOURNAL_SIZE), the oldest dropped; bodies
// longer than MAX_BODY_CHARS are cut (the row says so). Requests that differ only in their
// times (a lookup asked again and again) share one row (pack.ts).
//
// The rows of lookups are written on the event loop. Since a run of repeats is one row (pack.ts),
// a flush is one short transaction. A worker thread writing them was tried and removed: its
// commits, being another connection's, made this one drop its memos (the caller's account, the
// clock, a book's answer text) and SQLite its whole page cache at every flush, and the lookups
// after it read and serialised them again: with the worker, the signed lookup cost 9-18% more
// CPU than with rows written here (bench/journal.mjs run on both at once, load 12-18, nproc 2). A flush by the timer does not wait for a database
// another process holds: its rows wait for the next one.
//
// These flushes are light commits (Turn.tx): 20 a second of them never make the connection hand
// its checkpoints to the checkpointer's worker thread, which a connection that keeps committing
// starts after 100 commits. Started by the flushes of lookups alone (some 5 s into a load), that
// thread's checkpoints, four a second with their fsyncs, cost the lookups more than the journal
// itself: bench (l) 0.945 and 0.945 without it, 0.881 and 0.886 with it, alternate runs at load
// 4-9, nproc 2. The lookups' WAL is checkpointed by SQLite as it was before that thread existed,
// in the commit that takes it past 1,000 pages (one flush in some 90). A connection that writes
// for its requests (orders) still starts it, and then every commit, these too, reports to it.
import type { SQLInputValue } from 'node:sqlite';
import type { Store } from '../db/store.js';
import { journalText, sameJournalHeaders, type PendingRow, type RowText } from './redact.js';
import { ensureJournalTable, INSERT, PACK_MAX, PendingRuns, pruneJournal, TAKE_IDS } from './pack.js';
import { changesOf, type Writes } from './changes.js';
import { monotonicMs, wallMs } from './wall-clock.js';

const DEFAULT_JOURNAL_SIZE = 10_000;
/** Rows inserted by this process between two prunes of the oldest. */
const PRUNE_EVERY = 64;
/**
 * The most a row of a request that wrote nothing waits in memory before it is written. A flush
 * costs 90-100 us whatever it holds (its transaction, one row a run, the prune, 5-6 pages into
 * the WAL): every 20 ms it was 0.6 us a lookup at 8,000 lookups/s, every 50 ms 0.23 (a harness of
 * the journal alone, load 7, nproc 2). 50 ms leaves `requests tail --db` (it polls every 80 ms)
 * 70 ms of its 200 ms; through a server's control routes (`--url`) rows are written at once.
 * A flush of 500 repeats costs about 110 us, of 1,400 about 150 (harness of the journal alone, a
 * full journal, load 2, nproc 2). Measured and not kept (bench (l), load 1.4-2.2, nproc 2):
 * 100 ms (0.954-0.964 vs 0.949-0.965 with 50, alternate runs: no difference); no prune at all
 * (0.963 vs 0.958). Flushing only every 2 s gave 0.972: what flushes cost in all (the commit, the
 * checkpointer thread it wakes) is about 0.015 of the row, the request's own note the rest.
 * Stop 47, with the flushes light commits (no checkpointer thread): inside a server under the
 * row's load a flush costs 130 us of its thread's CPU on average (about 70 us, most of it the
 * COMMIT's 9-12 WAL frames, two writes each; one flush in some 40 also runs SQLite's checkpoint,
 * 2.3-2.9 ms) and 550 us of wall time; a build whose timer flush wrote nothing read 0.968 and
 * 0.972 against 0.954 and 0.945 (alternate runs, load 4-7, nproc 2), every 2 s 0.964 and 0.983
 * against 0.945 and 0.937. Measured and not kept (same conditions, differences inside the
 * rounds' spread of +-0.015): 75 ms (0.918, 0.948 vs 0.933, 0.930), no prune (0.941, 0.932 vs
 * 0.951, 0.936), wal_autocheckpoint 8,000 (0.940, 0.942 vs 0.943, 0.930), the timer flush's
 * PRAGMA statements prepared once (2 us a flush).
 */
const FLUSH_MS = 50;
/**
 * Rows (runs) kept in memory at most; one more writes them at once. While the database stays busy,
 * the newest MAX_PENDING requests are kept.
 */
const MAX_PENDING = 500;
/**
 * Requests kept in memory at most, over every run; one more writes them at once. A repeat is three
 * numbers (24 bytes), not a row, so this bound is on memory only, far above what FLUSH_MS holds of
 * a busy lookup (about 1,400 at 28,000 a second): a steady stream of one lookup is written by the
 * timer, one flush every FLUSH_MS. Counting requests against MAX_PENDING wrote it every 500
 * requests instead (56 flushes a second at 28,000 lookups a second, each its transaction, its
 * rows and its prune): bench (l) 0.939 with that, 0.962 with this (load 0.2-1.2, nproc 2).
 */
const MAX_PENDING_REQUESTS = 20 * PACK_MAX;

export interface JournalOptions {
  /** Requests kept, the oldest dropped (default DEFAULT_JOURNAL_SIZE). */
  size?: number;
  /** Redact redemption codes too (`sandbox serve --redact-codes`). */
  redactCodes?: boolean;
}

/** The journal of one server process; `start` makes the note of one request. */
export class Journal {
  private readonly size: number;
  private readonly codes: boolean;
  private readonly text: ReturnType<typeof journalText>;
  private inserted = 0;
  private readonly pending = new PendingRuns();
  private timer?: NodeJS.Timeout;
  private closed = false;

  /** The headers of the last request (a copy) and their JSON (`headersText`). */
  private lastHeaders?: { values: Record<string, string>; text: string };

  constructor(
    readonly store: Store,
    opts: JournalOptions = {},
  ) {
    this.size = Math.max(1, Math.floor(opts.size ?? DEFAULT_JOURNAL_SIZE));
    this.codes = !!opts.redactCodes;
    this.text = journalText(this.codes);
    ensureJournalTable(store);
  }

  start(method: string, rawUrl: string, headers: Record<string, string>): RequestNote {
    return new RequestNote(this, method, rawUrl, headers);
  }

  /**
   * Journal a request: its row is written with the turn's group commit when the request wrote
   * something (and with it every row still in memory, which came before it), else kept in
   * memory until the next flush. The rows of a group's requests are written together as it
   * commits (Turn.atGroupCommit): in its transaction, so an order is committed with its row or
   * not at all, and answered only after both.
   */
  write(n: RequestNote, status: number): void {
    const wrote = n.writes !== undefined && (n.writes.inserted.size > 0 || n.writes.updated.size > 0);
    this.keep(n, status, wrote);
    if (wrote || this.pending.runs.length >= MAX_PENDING || this.pending.requests >= MAX_PENDING_REQUESTS) {
      const store = this.store;
      // No group open (a control route's write, committed before its answer): a group of its own.
      if (!store.atGroupCommit(this.atGroupCommit)) store.serve(() => store.tx(() => this.insertPending()));
    } else if (!this.timer) {
      this.timer = setTimeout(this.background, FLUSH_MS).unref();
    }
  }

  /**
   * As the group commit of written requests ends, in its transaction: the rows kept in memory
   * (the first call of a group writes them all, the others find none). A group that failed
   * (`failed`) undid its requests' writes: their rows, and any written with them, go as well.
   */
  private readonly atGroupCommit = (failed?: unknown): void => {
    if (failed !== undefined) this.pending.clear();
    else if (this.pending.requests) this.insertPending();
  };

  /** The timer's flush: the rows kept in memory written, unless another connection holds the write lock. */
  private readonly background = (): void => {
    this.timer = undefined;
    this.writeHere(false);
  };

  /** Write the rows kept in memory now (in their own transaction, or the open group's). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.store.db.isOpen) return;
    this.writeHere();
  }

  /**
   * Write the rows kept in memory on this thread (in their own transaction, or the open group's).
   * `wait` false (the timer's flush): when another connection holds the database's write lock (a
   * long catalogue load), give up at once rather than block the event loop for the busy timeout.
   */
  private writeHere(wait = true): void {
    const db = this.store.db;
    if (!this.pending.requests || !db.isOpen) return;
    // The connection's own busy timeout, put back after (a catalogue load over --url sets its own).
    const busyMs = wait ? undefined : (db.prepare('PRAGMA busy_timeout').get() as { timeout: number }).timeout;
    try {
      if (busyMs !== undefined) db.exec('PRAGMA busy_timeout = 0');
      // A light commit: these flushes alone never start the checkpointer's thread (Turn.tx).
      this.store.tx(() => this.insertPending(), true);
    } catch {
      /* busy or full: the rows stay in memory for the next flush, up to MAX_PENDING */
      this.pending.keepNewest(MAX_PENDING);
      // Tried again soon, also when no other request comes to start the timer.
      if (!wait && !this.timer && !this.closed) this.timer = setTimeout(this.background, FLUSH_MS).unref();
    } finally {
      if (busyMs !== undefined && db.isOpen) db.exec(`PRAGMA busy_timeout = ${busyMs}`);
    }
  }

  /** Write what is kept in memory; no timer is started after. */
  close(): Promise<void> {
    this.flush();
    this.closed = true;
    return Promise.resolve();
  }

  private insertPending(): void {
    const store = this.store;
    const runs = this.pending.packed();
    const requests = this.pending.requests;
    let last = 0;
    try {
      for (const { row, n, times } of runs) {
        const text = rowTextOf(this.text, row);
        if (!text) continue;
        const params = [...(row.slice(0, 10) as SQLInputValue[]), ...text, null, n > 1 ? n : null, times];
        params[2] = row[2].slice(0, 16); // the method as sent, cut
        last = store.run(INSERT, ...params).lastInsertRowid + n - 1;
        if (n > 1) store.run(TAKE_IDS, last);
      }
    } finally {
      // Written or not (a failed write's transaction is undone: its rows are not kept for another try).
      this.pending.clear();
    }
    const before = this.inserted;
    this.inserted += requests;
    if (last && (before === 0 || Math.floor(before / PRUNE_EVERY) !== Math.floor(this.inserted / PRUNE_EVERY)))
      pruneJournal(store, last - this.size, PACK_MAX);
  }

  /**
   * The JSON of a request's headers: the last request's text again when they give the same journal
   * text (sameJournalHeaders: a client sends the same ones every time), which also lets `keep` see
   * a repeat at once. The row keeps the first request's text, redacted the same.
   */
  private headersText(h: Record<string, string>): string {
    const last = this.lastHeaders;
    if (last !== undefined && sameJournalHeaders(last.values, h)) return last.text;
    const text = JSON.stringify(h);
    this.lastHeaders = { values: h, text };
    return text;
  }

  /**
   * Keep a request in memory until it is written: a request equal to the one before but for its
   * times (a lookup asked again and again) adds only its times to that one's run; any other is
   * a row of its own, its text columns not made yet. What this thread does for each request is
   * to take what it has (no copy, no redaction, no JSON of an answer it has the text of); the
   * rest is done once per run when it is written (a lookup's with the next flush). What the
   * request changed is read now (it needs the database, in the request's turn).
   */
  private keep(n: RequestNote, status: number, wrote: boolean): void {
    const store = this.store;
    const changes = wrote && n.writes ? changesOf(store, n.writes, n.endpoint, n.response) : undefined;
    const emails = wrote ? n.writes?.inserted.get('outbox') : undefined;
    const changesText = changes ? JSON.stringify(changes) : null;
    const emailsText = emails?.length ? JSON.stringify(emails) : null;
    const at = n.at;
    const sandboxAt = n.sandboxAt ?? at + store.clockOffset();
    const duration = Math.round((monotonicMs() - n.started) * 1000) / 1000;
    const headers = this.headersText(n.headers);
    const account = n.account ?? null;
    const endpoint = n.endpoint ?? null;
    // A `request` text the handler read as a JSON object (`requestParsed`) and that starts with `{`
    // is JSON text as it stands: the row takes it as it was sent, unless it may hold a secret.
    const parsed = n.requestParsed && n.requestText !== undefined && n.requestText.charCodeAt(0) === 123;
    const requestText = parsed ? null : (n.requestText ?? null);
    const requestJson = parsed
      ? n.requestText!
      : n.requestText === undefined && n.request !== undefined
        ? JSON.stringify(n.request)
        : null;
    const responseText = n.responseText ?? null;
    const responseJson =
      n.responseText === undefined && n.response !== undefined ? (JSON.stringify(n.response) ?? null) : null;
    const r = this.pending.last();
    if (
      r !== undefined &&
      r[10] === n.rawUrl &&
      r[11] === headers &&
      r[14] === responseText &&
      r[5] === status &&
      r[2] === n.method &&
      r[3] === n.auth &&
      r[4] === account &&
      r[7] === endpoint &&
      r[8] === changesText &&
      r[9] === emailsText &&
      r[12] === requestText &&
      r[13] === requestJson &&
      r[15] === responseJson
    )
      this.pending.repeat(at, sandboxAt, duration);
    else
      this.pending.add([
        at,
        sandboxAt,
        n.method,
        n.auth,
        account,
        status,
        duration,
        endpoint,
        changesText,
        emailsText,
        n.rawUrl,
        headers,
        requestText,
        requestJson,
        responseText,
        responseJson,
      ]);
  }
}

/** The text columns of a pending row; undefined (the row dropped) when they cannot be made. */
function rowTextOf(text: ReturnType<typeof journalText>, p: PendingRow): RowText | undefined {
  try {
    return text.rowText(p);
  } catch {
    return undefined;
  }
}

/** A request being served: what the journal will say of it once its status is known. */
export class RequestNote {
  readonly started = monotonicMs();
  /** Wall-clock time in ms with its fraction (wall-clock.ts): two requests one after the other,
   * served by two processes of one database, are listed in the order they came even in the same
   * millisecond once each process has served a few dozen (a row's id is the order it was written,
   * which the FLUSH_MS batching may swap). */
  readonly at = wallMs(this.started);
  /** The sandbox clock when the request ran (set in `capture`; else read when the row is made). */
  sandboxAt?: number;
  /** The auth mode the request's headers ask for: CryptoAuth, SharedKeyAuth, token, control or none. */
  auth: string;
  account?: string;
  endpoint?: string;
  /** The `request` text as sent (read as JSON when the row is made). */
  requestText?: string;
  /** True once the handler read `requestText` as JSON (it is JSON text, whatever it holds). */
  requestParsed = false;
  /** The payload, when it is not a `request` text (a form's fields, a control route's body). */
  request?: unknown;
  response?: unknown;
  /** The answer's JSON text as sent (the same as `response`), when the server has it. */
  responseText?: string;
  writes?: Writes;
  /** True once the row is written (a request is journaled once). */
  done = false;

  constructor(
    private readonly journal: Journal,
    readonly method: string,
    readonly rawUrl: string,
    readonly headers: Record<string, string>,
  ) {
    this.auth = authMode(headers, rawUrl);
  }

  /** Run `fn` (a request's handler, in Store.serve) while collecting what it writes; dropped when it throws (rolled back). */
  capture<T>(fn: () => T): T {
    const store = this.journal.store;
    this.sandboxAt = this.at + store.clockOffset();
    // The note itself watches the writes (`wrote`): no closure made per request.
    store.onWrite = this;
    try {
      return fn();
    } catch (err) {
      this.writes = undefined;
      throw err;
    } finally {
      store.onWrite = undefined;
    }
  }

  /** A write of the request's handler (Turn.run): its table, whether it inserted, the row id it inserted and the rows it changed. */
  wrote(table: string | undefined, insert: boolean, id: number, changes: number): void {
    if (table === undefined || table === 'journal' || changes === 0) return;
    const writes = (this.writes ??= { inserted: new Map(), updated: new Map() }); // made at the first write: most requests write nothing
    if (insert) {
      const ids = writes.inserted.get(table);
      if (ids) ids.push(id);
      else writes.inserted.set(table, [id]);
    } else writes.updated.set(table, (writes.updated.get(table) ?? 0) + changes);
  }

  /** Journal the request with its status (once). */
  finish(status: number): void {
    if (this.done) return;
    this.done = true;
    try {
      this.journal.write(this, status);
    } catch {
      /* a journal that cannot be written (a busy or full database) never fails the request */
    }
  }
}

/** The auth mode a request's headers ask for, as authenticate() reads them. */
function authMode(h: Record<string, string>, rawUrl: string): string {
  if (rawUrl.startsWith('/_sandbox')) return 'control';
  // What the reference clients send, as it is (the general reading below splits and lower-cases).
  const given = h['authorization'];
  if (given === 'CryptoAuth' || given === 'SharedKeyAuth') return given;
  const scheme = (h['authorization'] ?? '').trim().split(/\s+/)[0]?.toLowerCase() ?? '';
  if (scheme === 'bearer' || scheme === 'token') return 'token';
  if (scheme === 'sharedkeyauth' || (scheme === '' && h['api-key'] && !h['signature'])) return 'SharedKeyAuth';
  if (scheme === 'cryptoauth' || (scheme === '' && h['signature'])) return 'CryptoAuth';
  return scheme ? scheme.slice(0, 30) : 'none';
}
