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
// Bounded: at most `size` rows (default DEFAULT_JOURNAL_SIZE), the oldest dropped; bodies
// longer than MAX_BODY_CHARS are cut (the row says so).
import type { SQLInputValue } from 'node:sqlite';
import type { Store } from '../db/store.js';
import {
  redactedAnswer,
  redactedJson,
  redactHeaders,
  redactPath,
  redactRawText,
  type RedactOptions,
} from './redact.js';

const DEFAULT_JOURNAL_SIZE = 10_000;
/** A body kept in the journal is at most this many characters of JSON; longer ones are cut. */
const MAX_BODY_CHARS = 64 * 1024;
/** Rows of a listing (`results`) kept in a journaled answer; the rest are counted. */
const MAX_LISTED = 20;
/** Endpoints whose answers carry a secret or a code by design: walked field by field to redact them. */
const WALKED = new Set(['user.create', 'user.invite', 'book.viewer', 'checkout', 'offers', 'codes.generate', 'redeem']);
/** Rows inserted by this process between two prunes of the oldest. */
const PRUNE_EVERY = 64;
/** The most a row of a request that wrote nothing waits in memory before it is written. */
const FLUSH_MS = 20;
/** Rows kept in memory at most; one more writes them at once. */
const MAX_PENDING = 500;

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
  emails TEXT
)`;

const INSERT =
  'INSERT INTO journal(at, sandbox_at, method, path, query, auth, account, status, duration_ms, endpoint, headers, request, response, changes, emails) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)';

/** Create the journal table when the database has none (idempotent). */
function ensureJournalTable(store: Store): void {
  if (!store.hasTable('journal')) store.tx(() => store.db.exec(DDL));
}

export interface JournalOptions {
  /** Requests kept, the oldest dropped (default DEFAULT_JOURNAL_SIZE). */
  size?: number;
  /** Redact redemption codes too (`sandbox serve --redact-codes`). */
  redactCodes?: boolean;
}

/** What a request changed, as its writes show it. */
interface Writes {
  inserted: Map<string, number[]>;
  updated: Map<string, number>;
}

/** The journal of one server process; `start` makes the note of one request. */
export class Journal {
  private readonly size: number;
  private readonly redact: RedactOptions;
  private inserted = 0;
  private pending: Array<readonly SQLInputValue[]> = [];
  private timer?: NodeJS.Timeout;

  constructor(
    readonly store: Store,
    opts: JournalOptions = {},
  ) {
    this.size = Math.max(1, Math.floor(opts.size ?? DEFAULT_JOURNAL_SIZE));
    this.redact = { codes: !!opts.redactCodes };
    ensureJournalTable(store);
  }

  start(method: string, rawUrl: string, headers: Record<string, string>): RequestNote {
    return new RequestNote(this, method, rawUrl, headers);
  }

  /**
   * Journal a request: its row is written with the turn's group commit when the request wrote
   * something (and with it every row still in memory, which came before it), else kept in
   * memory until the next flush.
   */
  write(n: RequestNote, status: number): void {
    this.pending.push(this.row(n, status));
    const wrote = n.writes !== undefined && (n.writes.inserted.size > 0 || n.writes.updated.size > 0);
    if (wrote || this.pending.length >= MAX_PENDING) {
      const store = this.store;
      store.serve(() => store.tx(() => this.insertPending()));
    } else if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), FLUSH_MS);
      this.timer.unref();
    }
  }

  /** Write the rows kept in memory now (in their own transaction, or the open group's). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.pending.length || !this.store.db.isOpen) return;
    try {
      this.store.tx(() => this.insertPending());
    } catch {
      /* busy or full: the rows stay in memory for the next flush, up to MAX_PENDING */
      if (this.pending.length > MAX_PENDING) this.pending.splice(0, this.pending.length - MAX_PENDING);
    }
  }

  private insertPending(): void {
    const store = this.store;
    const rows = this.pending;
    this.pending = [];
    let last = 0;
    for (const row of rows) last = store.run(INSERT, ...row).lastInsertRowid;
    const before = this.inserted;
    this.inserted += rows.length;
    if (before === 0 || Math.floor(before / PRUNE_EVERY) !== Math.floor(this.inserted / PRUNE_EVERY)) {
      store.run('DELETE FROM journal WHERE id <= ?', last - this.size);
    }
  }

  /** A journal row of a request: its values for INSERT, secrets redacted. */
  private row(n: RequestNote, status: number): readonly SQLInputValue[] {
    const store = this.store;
    const r = this.redact;
    const q = n.rawUrl.indexOf('?');
    const path = redactPath(q < 0 ? n.rawUrl : n.rawUrl.slice(0, q)).slice(0, 2000);
    const query = q < 0 ? '' : redactPath(n.rawUrl.slice(q + 1)).slice(0, 2000);
    let request: string | null = null;
    if (n.request !== undefined) {
      request =
        typeof n.request === 'string'
          ? cut(JSON.stringify(redactRawText(n.request, r)))
          : cut(redactedJson(n.request, r));
    }
    let response: string | null = null;
    if (n.responseText !== undefined && n.responseText.length <= MAX_BODY_CHARS) {
      response = redactedAnswer(
        n.response,
        n.responseText,
        n.endpoint === undefined || WALKED.has(n.endpoint) || status >= 400,
        r,
      );
    } else if (n.response !== undefined) response = cut(redactedJson(shorten(n.response), r));
    const changes = n.writes ? changesOf(store, n.writes, n.endpoint, n.response) : undefined;
    const emails = n.writes?.inserted.get('outbox');
    return [
      n.at,
      n.sandboxAt ?? n.at + store.clockOffset(),
      n.method.slice(0, 16),
      path,
      query,
      n.auth,
      n.account ?? null,
      status,
      Math.round((performance.now() - n.started) * 1000) / 1000,
      n.endpoint ?? null,
      JSON.stringify(redactHeaders(n.headers)),
      request,
      response,
      changes ? JSON.stringify(changes) : null,
      emails?.length ? JSON.stringify(emails) : null,
    ];
  }
}

/** A request being served: what the journal will say of it once its status is known. */
export class RequestNote {
  readonly started = performance.now();
  /** Wall-clock time in ms with its fraction: two requests one after the other, served by two
   * processes of one database, are listed in the order they came even in the same millisecond
   * (a row's id is the order it was written, which the FLUSH_MS batching may swap). */
  readonly at = performance.timeOrigin + this.started;
  /** The sandbox clock when the request ran (set in `capture`; else read when the row is made). */
  sandboxAt?: number;
  /** The auth mode the request's headers ask for: CryptoAuth, SharedKeyAuth, token, control or none. */
  auth: string;
  account?: string;
  endpoint?: string;
  /** The payload (an object), or the raw text when it was not JSON. */
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
    const writes: Writes = { inserted: new Map(), updated: new Map() };
    this.sandboxAt = this.at + store.clockOffset();
    store.onWrite = (table, insert, id, changes) => {
      if (table === undefined || table === 'journal' || changes === 0) return;
      if (insert) {
        const ids = writes.inserted.get(table);
        if (ids) ids.push(id);
        else writes.inserted.set(table, [id]);
      } else writes.updated.set(table, (writes.updated.get(table) ?? 0) + changes);
    };
    try {
      const out = fn();
      this.writes = writes;
      return out;
    } finally {
      store.onWrite = undefined;
    }
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
  const scheme = (h['authorization'] ?? '').trim().split(/\s+/)[0]?.toLowerCase() ?? '';
  if (scheme === 'bearer' || scheme === 'token') return 'token';
  if (scheme === 'sharedkeyauth' || (scheme === '' && h['api-key'] && !h['signature'])) return 'SharedKeyAuth';
  if (scheme === 'cryptoauth' || (scheme === '' && h['signature'])) return 'CryptoAuth';
  return scheme ? scheme.slice(0, 30) : 'none';
}

/** A listing's answer with its `results` cut to MAX_LISTED (the journal says how many more there were). */
function shorten(body: unknown): unknown {
  const b = body as { results?: unknown } | null;
  if (!b || typeof b !== 'object' || !Array.isArray(b.results) || b.results.length <= MAX_LISTED) return body;
  return { ...b, results: b.results.slice(0, MAX_LISTED), journal_results_omitted: b.results.length - MAX_LISTED };
}

/** JSON text longer than MAX_BODY_CHARS, cut: a JSON object that says so and keeps the start as text. */
function cut(text: string): string {
  if (text.length <= MAX_BODY_CHARS) return text;
  return JSON.stringify({ journal_truncated: true, chars: text.length, start: text.slice(0, MAX_BODY_CHARS) });
}

/**
 * What a request changed, from its writes: orders, purchases (order items; access grants apart),
 * users (their usernames), codes (a count), outbox e-mails apart (the `emails` column), refunds
 * (from the answer) and other rows updated, by table.
 */
function changesOf(
  store: Store,
  w: Writes,
  endpoint: string | undefined,
  response: unknown,
): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  const orders = w.inserted.get('orders');
  if (orders) out.orders = orders;
  const items = w.inserted.get('order_items');
  if (items) out[endpoint === 'access.allow' || endpoint === 'redeem' ? 'grants' : 'purchases'] = items;
  const users = w.inserted.get('users');
  if (users) {
    out.users = users.map((id) => store.get('SELECT username FROM users WHERE id = ?', id)?.username ?? id);
  }
  const codes = w.inserted.get('codes');
  if (codes) out.codes = codes.length;
  if (endpoint === 'order.refund') {
    const refunds = (response as { refunds?: Array<{ purchase_id: number; success: boolean }> } | undefined)?.refunds;
    const done = refunds?.filter((r) => r.success).map((r) => r.purchase_id);
    if (done?.length) out.refunds = done;
  }
  const updated: Record<string, number> = {};
  for (const [table, n] of w.updated) updated[table] = n;
  for (const [table, ids] of w.inserted) {
    if (!['orders', 'order_items', 'users', 'codes', 'outbox'].includes(table))
      updated[table] = (updated[table] ?? 0) + ids.length;
  }
  if (Object.keys(updated).length) out.rows = updated;
  return Object.keys(out).length ? out : undefined;
}
