// The sandbox's storage: one SQLite database (node:sqlite), WAL, foreign keys on, a busy
// timeout so that several processes can share the file, and constraints that make invalid
// states unrepresentable. Every write goes through `tx` (BEGIN IMMEDIATE ... COMMIT); a served
// request's go through `serve`, which shares one read snapshot and one group commit per turn of
// the event loop among the requests of that turn.
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * The version of the schema this code writes (meta `schema_version`). A database written by an
 * earlier version is brought up to it by MIGRATIONS when it is opened (`ensureSeeded`); one
 * written by a later version is refused with what to do (test/sandbox/schema-upgrade.test.ts
 * opens a database made by version 1).
 */
export const SCHEMA_VERSION = 2;

/**
 * The steps from each version to the next: MIGRATIONS[n] takes a database of version n - 1 to
 * version n, inside the transaction that records the new version. Never edit a step that has
 * shipped; add the next one.
 */
export const MIGRATIONS: Record<number, string> = {
  // 2: books loaded from a partner's catalogue (`sandbox catalogue load`) are told from the seed's.
  2: 'ALTER TABLE books ADD COLUMN loaded_at INTEGER',
};

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS publishers (
  id INTEGER PRIMARY KEY,
  title TEXT NOT NULL UNIQUE,
  description TEXT NOT NULL,
  is_active INTEGER NOT NULL CHECK (is_active IN (0,1))
);
CREATE TABLE IF NOT EXISTS accounts (
  id INTEGER PRIMARY KEY,
  role TEXT NOT NULL UNIQUE,
  username TEXT NOT NULL UNIQUE CHECK (length(username) = 30),
  email TEXT NOT NULL,
  full_name TEXT NOT NULL,
  public_key TEXT NOT NULL,
  private_key TEXT NOT NULL,
  shared_key TEXT NOT NULL UNIQUE,
  scopes TEXT NOT NULL,
  address_1 TEXT NOT NULL, address_2 TEXT NOT NULL, city TEXT NOT NULL, country TEXT NOT NULL,
  nickname TEXT NOT NULL, state TEXT NOT NULL, zip TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS account_publishers (
  account_id INTEGER NOT NULL REFERENCES accounts(id),
  publisher_id INTEGER NOT NULL REFERENCES publishers(id),
  PRIMARY KEY (account_id, publisher_id)
);
CREATE TABLE IF NOT EXISTS labels (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id),
  subdomain TEXT NOT NULL UNIQUE,
  member_email TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tokens (
  token TEXT PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id)
);
CREATE TABLE IF NOT EXISTS books (
  id INTEGER PRIMARY KEY,
  hash_id TEXT NOT NULL UNIQUE CHECK (length(hash_id) = 40),
  publisher_id INTEGER NOT NULL REFERENCES publishers(id),
  title TEXT NOT NULL, subtitle TEXT NOT NULL, description TEXT NOT NULL, author TEXT NOT NULL,
  language TEXT NOT NULL, num_pages INTEGER NOT NULL CHECK (num_pages > 0), publish_year INTEGER,
  isbn10 TEXT NOT NULL, isbn13 TEXT NOT NULL UNIQUE, eisbn10 TEXT NOT NULL, eisbn13 TEXT NOT NULL,
  parent_isbn TEXT NOT NULL, sku TEXT NOT NULL UNIQUE,
  distribution_type TEXT NOT NULL CHECK (distribution_type IN ('standard','code')),
  copy_percent REAL, offline_percent REAL, sample_percent REAL,
  offline_range TEXT NOT NULL, print_allowance_range TEXT NOT NULL, print_allowance_percent REAL NOT NULL,
  sample_page_end INTEGER NOT NULL,
  is_active INTEGER NOT NULL CHECK (is_active IN (0,1)),
  is_html INTEGER NOT NULL CHECK (is_html IN (0,1)),
  is_processed INTEGER NOT NULL CHECK (is_processed IN (0,1)),
  is_public INTEGER NOT NULL CHECK (is_public IN (0,1)),
  is_published INTEGER NOT NULL CHECK (is_published IN (0,1)),
  is_queued INTEGER NOT NULL CHECK (is_queued IN (0,1)),
  processed_at INTEGER, queued_at INTEGER,
  queue_urgent INTEGER NOT NULL DEFAULT 0,
  queue_seq INTEGER,
  queue_hold INTEGER NOT NULL DEFAULT 0,
  processing_started_at INTEGER,
  -- When the book came from a partner's catalogue file (sandbox catalogue load); NULL for the seed's.
  loaded_at INTEGER,
  CHECK (is_queued = 0 OR queued_at IS NOT NULL),
  CHECK (is_processed = 0 OR processed_at IS NOT NULL)
);
CREATE TABLE IF NOT EXISTS pricing (
  id INTEGER PRIMARY KEY,
  book_id INTEGER NOT NULL REFERENCES books(id),
  currency TEXT NOT NULL CHECK (length(currency) = 3),
  price TEXT NOT NULL,
  description TEXT NOT NULL,
  description_limit TEXT NOT NULL,
  is_limited INTEGER NOT NULL CHECK (is_limited IN (0,1)),
  limit_days INTEGER NOT NULL CHECK (limit_days >= 0),
  other_pricing TEXT,
  deactivated_at INTEGER,
  CHECK (is_limited = 0 OR limit_days > 0)
);
CREATE TABLE IF NOT EXISTS users (
  id INTEGER PRIMARY KEY,
  username TEXT NOT NULL UNIQUE CHECK (length(username) = 30),
  email TEXT NOT NULL UNIQUE COLLATE NOCASE,
  first_name TEXT NOT NULL, last_name TEXT NOT NULL,
  password_hash TEXT NOT NULL,
  owner_account_id INTEGER REFERENCES accounts(id),
  label_id INTEGER REFERENCES labels(id),
  is_active INTEGER NOT NULL DEFAULT 1, verified INTEGER NOT NULL DEFAULT 0, over_18 INTEGER NOT NULL DEFAULT 1,
  last_login INTEGER, date_joined INTEGER NOT NULL,
  address_1 TEXT NOT NULL DEFAULT '', address_2 TEXT NOT NULL DEFAULT '', city TEXT NOT NULL DEFAULT '',
  zip TEXT NOT NULL DEFAULT '', country TEXT NOT NULL DEFAULT '', state TEXT NOT NULL DEFAULT '',
  nickname TEXT NOT NULL DEFAULT '',
  html_posting INTEGER NOT NULL DEFAULT 0, bdp_posting INTEGER NOT NULL DEFAULT 0, can_post INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS orders (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id),
  user_id INTEGER NOT NULL REFERENCES users(id),
  kind TEXT NOT NULL CHECK (kind IN ('external','free','access','code')),
  order_number TEXT CHECK (order_number IS NULL OR length(order_number) BETWEEN 1 AND 20),
  order_type TEXT, org TEXT, label_id INTEGER REFERENCES labels(id),
  billing_address TEXT, shipping_address TEXT,
  is_complete INTEGER NOT NULL CHECK (is_complete IN (0,1)),
  created_at INTEGER NOT NULL,
  UNIQUE (account_id, order_number)
);
CREATE TABLE IF NOT EXISTS order_items (
  id INTEGER PRIMARY KEY,
  order_id INTEGER NOT NULL REFERENCES orders(id),
  user_id INTEGER NOT NULL REFERENCES users(id),
  book_id INTEGER NOT NULL REFERENCES books(id),
  pricing_id INTEGER REFERENCES pricing(id),
  source TEXT NOT NULL CHECK (source IN ('external','free','access','code')),
  purchase_price TEXT NOT NULL,
  quantity INTEGER NOT NULL CHECK (quantity > 0),
  is_digital INTEGER NOT NULL, is_print INTEGER NOT NULL,
  is_active INTEGER NOT NULL CHECK (is_active IN (0,1)),
  is_refunded INTEGER NOT NULL CHECK (is_refunded IN (0,1)),
  purchase_date INTEGER NOT NULL,
  expiration_date INTEGER,
  refunded_at INTEGER, revoked_at INTEGER,
  access_email TEXT,
  CHECK (is_refunded = 0 OR (is_active = 0 AND refunded_at IS NOT NULL))
);
-- One active access grant per user and book.
CREATE UNIQUE INDEX IF NOT EXISTS one_active_grant ON order_items(user_id, book_id) WHERE source = 'access' AND is_active = 1;
CREATE TABLE IF NOT EXISTS usage (
  user_id INTEGER NOT NULL REFERENCES users(id),
  book_id INTEGER NOT NULL REFERENCES books(id),
  pages_viewed INTEGER NOT NULL DEFAULT 0 CHECK (pages_viewed >= 0),
  pages_printed INTEGER NOT NULL DEFAULT 0 CHECK (pages_printed >= 0),
  first_access_at INTEGER NOT NULL,
  PRIMARY KEY (user_id, book_id)
);
CREATE TABLE IF NOT EXISTS reader_pages (
  user_id INTEGER NOT NULL REFERENCES users(id),
  book_id INTEGER NOT NULL REFERENCES books(id),
  page INTEGER NOT NULL,
  PRIMARY KEY (user_id, book_id, page)
);
CREATE TABLE IF NOT EXISTS reader_sessions (
  token TEXT PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id),
  book_id INTEGER NOT NULL REFERENCES books(id),
  created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS codes (
  id INTEGER PRIMARY KEY,
  code TEXT NOT NULL UNIQUE CHECK (length(code) = 14),
  account_id INTEGER NOT NULL REFERENCES accounts(id),
  book_id INTEGER NOT NULL REFERENCES books(id),
  org TEXT NOT NULL, label_id INTEGER REFERENCES labels(id),
  limit_days INTEGER NOT NULL CHECK (limit_days >= 0),
  expiration_date INTEGER,
  samples INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  redeemed_by INTEGER REFERENCES users(id),
  redeemed_at INTEGER,
  CHECK ((redeemed_by IS NULL) = (redeemed_at IS NULL))
);
-- Answers to requests sent with an Idempotency-Key (code generation, free orders): a repeat of the same
-- request with the same key gets the stored answer instead of new codes.
CREATE TABLE IF NOT EXISTS idempotency (
  account_id INTEGER NOT NULL REFERENCES accounts(id),
  key TEXT NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
  endpoint TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  response TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (account_id, key)
);
CREATE TABLE IF NOT EXISTS imports (
  id INTEGER PRIMARY KEY,
  title TEXT NOT NULL, author TEXT NOT NULL, publisher TEXT NOT NULL,
  edition_number INTEGER NOT NULL,
  book_id INTEGER NOT NULL,
  isbn10 TEXT NOT NULL, isbn13 TEXT NOT NULL UNIQUE, eisbn10 TEXT NOT NULL, eisbn13 TEXT NOT NULL,
  deleted INTEGER NOT NULL, file_received INTEGER NOT NULL, imported INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS outbox (
  id INTEGER PRIMARY KEY,
  recipients TEXT NOT NULL,
  subject TEXT NOT NULL,
  body TEXT NOT NULL,
  kind TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS carts (
  token TEXT PRIMARY KEY,
  pricing_ids TEXT NOT NULL,
  rejoiner_ids TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
`;

// Indexes that serve the sandbox's statements on a database grown far past the seed: every
// statement is checked with EXPLAIN QUERY PLAN in test/sandbox/query-plans.test.ts. Created at
// every open (IF NOT EXISTS), so databases made by an earlier version gain them too.
const INDEXES = `
CREATE INDEX IF NOT EXISTS order_items_by_order ON order_items(order_id);
CREATE INDEX IF NOT EXISTS order_items_by_user_book ON order_items(user_id, book_id);
CREATE INDEX IF NOT EXISTS codes_by_account ON codes(account_id);
CREATE INDEX IF NOT EXISTS codes_by_account_redeemed ON codes(account_id, redeemed_by);
CREATE INDEX IF NOT EXISTS pricing_by_book ON pricing(book_id);
CREATE INDEX IF NOT EXISTS books_by_publisher ON books(publisher_id);
CREATE INDEX IF NOT EXISTS books_by_isbn10 ON books(isbn10);
CREATE INDEX IF NOT EXISTS books_by_eisbn13 ON books(eisbn13);
CREATE INDEX IF NOT EXISTS books_by_eisbn10 ON books(eisbn10);
CREATE INDEX IF NOT EXISTS books_by_parent_isbn ON books(parent_isbn);
CREATE INDEX IF NOT EXISTS books_by_sku_nocase ON books(sku COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS books_queue ON books(queue_seq, id) WHERE is_queued = 1;
CREATE INDEX IF NOT EXISTS books_loaded ON books(id) WHERE loaded_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS users_by_owner ON users(owner_account_id);
CREATE INDEX IF NOT EXISTS orders_by_user ON orders(user_id);
CREATE INDEX IF NOT EXISTS imports_by_isbn10 ON imports(isbn10);
CREATE INDEX IF NOT EXISTS imports_by_eisbn13 ON imports(eisbn13);
CREATE INDEX IF NOT EXISTS imports_by_eisbn10 ON imports(eisbn10);
`;

// Title and author words match anywhere in the text (LIKE '%word%'): trigram full-text tables
// find the candidate rows of a word of 3 characters or more without reading the whole table
// (the exact LIKE still decides). External content: the rows live in books/imports only.
const FTS = ['books', 'imports']
  .map(
    (t) => `
CREATE VIRTUAL TABLE IF NOT EXISTS ${t}_fts USING fts5(title, author, content='${t}', content_rowid='id', tokenize='trigram');
CREATE TRIGGER IF NOT EXISTS ${t}_fts_insert AFTER INSERT ON ${t} BEGIN
  INSERT INTO ${t}_fts(rowid, title, author) VALUES (new.id, new.title, new.author);
END;
CREATE TRIGGER IF NOT EXISTS ${t}_fts_delete AFTER DELETE ON ${t} BEGIN
  INSERT INTO ${t}_fts(${t}_fts, rowid, title, author) VALUES ('delete', old.id, old.title, old.author);
END;
CREATE TRIGGER IF NOT EXISTS ${t}_fts_update AFTER UPDATE OF id, title, author ON ${t} BEGIN
  INSERT INTO ${t}_fts(${t}_fts, rowid, title, author) VALUES ('delete', old.id, old.title, old.author);
  INSERT INTO ${t}_fts(rowid, title, author) VALUES (new.id, new.title, new.author);
END;`,
  )
  .join('\n');
const FTS_TABLES = ['books_fts', 'imports_fts'];
export const INDEX_NAMES = [...INDEXES.matchAll(/CREATE INDEX IF NOT EXISTS (\w+)/g)].map((m) => m[1]);

/** Commits after which a connection checkpoints from a worker thread instead of in its commits. */
const BACKGROUND_CHECKPOINTS_AFTER = 100;

/** Prepared statements kept per connection; dynamic SQL (search filters) beyond this is evicted oldest first. */
const MAX_CACHED = 500;
/** Memos kept at once (accounts by name, the clock...); beyond this they are all dropped. */
const MAX_MEMOS = 1000;

const TABLES = [
  ...FTS_TABLES, 'idempotency', 'carts', 'outbox', 'imports', 'codes', 'reader_sessions', 'reader_pages', 'usage', 'order_items', 'orders',
  'users', 'pricing', 'books', 'tokens', 'labels', 'account_publishers', 'accounts', 'publishers', 'meta',
];

export type Row = Record<string, any>;

export class Store {
  readonly db: DatabaseSync;
  readonly path: string;
  private depth = 0;
  /** True while the turn's read snapshot (`serve`) is open (no write has started in it). */
  private reading = false;
  /** Values derived from the database (`memo`), valid until it changes; see `serve`. */
  private readonly memos = new Map<string, { value: unknown; tables: readonly string[] }>();
  private dataVersion = -1;
  private endScheduled = false;
  /** True while `serve` runs a request's work: its writes join the turn's group commit. */
  private serving = false;
  /** The turn's group commit, while its write transaction is open (see `serve`). */
  private group?: { waiting: Array<(err?: unknown) => void>; requests: number };
  private commits = 0;
  private checkpointer?: { committed(): void; stop(): void };
  private readonly cache = new Map<string, StatementSync>();
  private readonly queries = new Map<string, { stmt: StatementSync; row: (values: unknown[]) => Row }>();
  /** Answers of this turn's requests that wrote nothing (`afterCommit`). */
  private answers: Array<(err?: unknown) => void> = [];
  /** Set by `watchTextIndexes`: called when another connection committed (see `checkDataVersion`). */
  private onOtherCommit?: () => void;

  constructor(path: string) {
    this.path = path;
    if (path !== ':memory:') {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      // The database holds keys and secrets: create it 0600 (SQLite gives -wal/-shm the same mode).
      if (!existsSync(path)) {
        try {
          writeFileSync(path, '', { mode: 0o600, flag: 'wx' });
        } catch {
          /* another process created it first */
        }
      }
    }
    this.db = new DatabaseSync(path, { timeout: 10_000 });
    this.db.exec('PRAGMA busy_timeout = 10000');
    if (path !== ':memory:') {
      // Switching to WAL needs a brief exclusive lock; another process may hold it right now.
      for (let i = 0; ; i++) {
        try {
          this.db.exec('PRAGMA journal_mode = WAL');
          break;
        } catch (err) {
          if (i > 50) throw err;
          sleepSync(20);
        }
      }
    }
    // WAL + NORMAL: a commit appends to the WAL without an fsync (the WAL is synced at each
    // checkpoint). A killed process loses nothing it committed (the OS holds the pages); only a
    // power cut can lose the last commits, never corrupt the file. FULL stalled the event loop for
    // ~45% of an order creation.
    this.db.exec('PRAGMA synchronous = NORMAL');
    this.db.exec('PRAGMA foreign_keys = ON');
  }

  /**
   * Create the tables, indexes and text indexes (idempotent). Call inside a transaction. A text
   * index added to a database that already has rows (made by an earlier version) is filled here.
   */
  createSchema(): void {
    this.db.exec(SCHEMA);
    this.db.exec(INDEXES);
    const missing = FTS_TABLES.filter((t) => !this.hasTable(t));
    this.db.exec(FTS);
    for (const t of missing) this.db.exec(`INSERT INTO ${t}(${t}) VALUES ('rebuild')`);
  }

  /** True when every index and text index of this version exists (else `createSchema` adds them). */
  hasIndexes(): boolean {
    const names = [...INDEX_NAMES, ...FTS_TABLES];
    const n = this.get(
      `SELECT count(*) AS n FROM sqlite_master WHERE type IN ('index', 'table') AND name IN (${names.map(() => '?').join(',')})`,
      ...names,
    )!.n;
    return n === names.length;
  }

  dropAll(): void {
    for (const t of TABLES) this.db.exec(`DROP TABLE IF EXISTS ${t}`);
  }

  /** True when a table exists (schema upgrades of databases seeded by an earlier version). */
  hasTable(name: string): boolean {
    return !!this.get(`SELECT 1 FROM sqlite_master WHERE type='table' AND name=?`, name);
  }

  hasSchema(): boolean {
    return !!this.get(`SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'`);
  }

  /** The prepared statement for `sql`, made once per connection and reused by every request. */
  private stmt(sql: string): StatementSync {
    return cached(this.cache, sql, () => this.db.prepare(sql));
  }

  /**
   * The query `sql` prepared once, with the maker of its rows. node:sqlite builds each row as an
   * object of its own, turning every column name into a property key again (a book row: 5.3 µs);
   * the statement returns arrays instead, and a function made once from its column names turns
   * each into an object of one fixed shape (2.4 µs, and faster to read afterwards). A statement
   * of its own: `stmt` (run, and the store's own PRAGMAs) keeps node:sqlite's rows.
   */
  private query(sql: string): { stmt: StatementSync; row: (values: unknown[]) => Row } {
    return cached(this.queries, sql, () => {
      const stmt = this.db.prepare(sql);
      const row = rowMaker(stmt.columns().map((c) => c.name));
      stmt.setReturnArrays(true);
      return { stmt, row };
    });
  }

  get(sql: string, ...params: SQLInputValue[]): Row | undefined {
    const q = this.query(sql);
    const values = q.stmt.get(...params) as unknown[] | undefined;
    return values === undefined ? undefined : q.row(values);
  }

  all(sql: string, ...params: SQLInputValue[]): Row[] {
    const q = this.query(sql);
    return (q.stmt.all(...params) as unknown as unknown[][]).map(q.row);
  }

  run(sql: string, ...params: SQLInputValue[]): { changes: number; lastInsertRowid: number } {
    if (this.depth === 0) this.settleForWrite();
    this.forget(writtenTable(sql));
    const r = this.stmt(sql).run(...params);
    return { changes: Number(r.changes), lastInsertRowid: Number(r.lastInsertRowid) };
  }

  /** Run `fn` in one write transaction (BEGIN IMMEDIATE); rolled back when it throws. */
  tx<T>(fn: () => T): T {
    if (this.depth > 0) return fn();
    if (this.serving) return this.groupTx(fn);
    this.settleForWrite();
    const out = this.bracket('BEGIN IMMEDIATE', 'COMMIT', 'ROLLBACK', fn);
    this.committed();
    return out;
  }

  /**
   * Run `fn`, which awaits between its writes (a catalogue read as a stream), in one write
   * transaction. Only for a connection that nothing else uses meanwhile (a command's own, or a
   * second connection of a server): a request served on this connection during an await would
   * write into this transaction.
   */
  async txAsync<T>(fn: () => Promise<T>): Promise<T> {
    if (this.depth > 0 || this.serving || this.group) throw new Error('txAsync: this connection is already in a transaction');
    this.settleForWrite();
    this.stmt('BEGIN IMMEDIATE').run();
    this.depth++;
    try {
      const out = await fn();
      this.stmt('COMMIT').run();
      this.committed();
      return out;
    } catch (err) {
      this.memos.clear();
      try {
        this.db.exec('ROLLBACK');
      } catch {
        /* already rolled back */
      }
      throw err;
    } finally {
      this.depth--;
    }
  }

  /** `fn` between the statements `begin` and `end`; when it throws, `undo` (if it can) and rethrow. */
  private bracket<T>(begin: string, end: string, undo: string, fn: () => T): T {
    this.stmt(begin).run();
    this.depth++;
    try {
      const out = fn();
      this.stmt(end).run();
      return out;
    } catch (err) {
      // A memo made from what is now undone would outlive it.
      this.memos.clear();
      try {
        this.db.exec(undo);
      } catch {
        /* already rolled back (SQLite does so on some errors; a group's commit then says so) */
      }
      throw err;
    } finally {
      this.depth--;
    }
  }

  /**
   * One request's work (`fn`, synchronous).
   *
   * Its reads use the turn's read snapshot (one read transaction, opened here if none is open),
   * shared by every request served in the same turn of the event loop and ended (COMMIT) when the
   * turn is over (`setImmediate`): each autocommit statement would take and drop the WAL read lock
   * on its own (two `fcntl` calls, most of the system time of a signed GET). A snapshot never
   * outlives the turn, so a commit by another connection is seen by the next turn's requests, as
   * it would be had they arrived a moment later.
   *
   * Its writes (`tx`) join the turn's **group commit**: the first write of a turn ends the
   * snapshot and opens one write transaction, each request's writes are a savepoint in it (rolled
   * back alone when they fail), and one COMMIT at the end of the turn makes them all durable.
   * Sixteen clients creating orders put about fifteen requests in a turn: fifteen commits (each
   * writing the same pages to the WAL) become one. Answer the request from `afterCommit`, never
   * before: an answer is sent only once what it says is committed (a `kill -9` loses nothing
   * acknowledged).
   */
  serve<T>(fn: () => T): T {
    if (this.depth === 0 && !this.reading && !this.group) this.beginRead();
    this.serving = true;
    try {
      return fn();
    } finally {
      this.serving = false;
    }
  }

  /**
   * Call `cb` (the request's answer) once the turn's group commit is done (`err` when it failed),
   * or, for a request that wrote nothing, when the turn ends. The answers of a turn go out
   * together: a client woken by the first is still awake for the rest, where answers written one
   * by one between requests wake it (and the core it sleeps on) once each. Measured with 16
   * clients of signed GETs: 128 -> 104 µs of server CPU per request; with 50, 93 -> 69 µs. An
   * answer waits at most for the rest of its turn's requests.
   */
  afterCommit(cb: (err?: unknown) => void): void {
    if (this.group) return void this.group.waiting.push(cb);
    this.answers.push(cb);
    if (this.answers.length === 1) setImmediate(this.sendAnswers);
  }

  private readonly sendAnswers = (): void => {
    const answers = this.answers;
    this.answers = [];
    for (const cb of answers) cb();
  };

  /** A request's `tx` inside `serve`: a savepoint in the turn's group transaction. */
  private groupTx<T>(fn: () => T): T {
    if (!this.group) {
      this.settleForWrite();
      this.stmt('BEGIN IMMEDIATE').run();
      // Between the snapshot's end and this lock another process may have committed.
      this.checkDataVersion();
      this.group = { waiting: [], requests: 0 };
      OPEN_GROUPS.add(this);
      setImmediate(() => this.commitGroup());
    }
    try {
      return this.bracket('SAVEPOINT request', 'RELEASE request', 'ROLLBACK TO request; RELEASE request', fn);
    } finally {
      // A turn that serves very many writers commits early, so no answer waits behind too many.
      if (this.group && ++this.group.requests >= MAX_GROUP) this.commitGroup();
    }
  }

  /** Commit the turn's group (if one is open) and answer the requests waiting for it. */
  commitGroup(): void {
    const g = this.group;
    if (!g) return;
    this.group = undefined;
    OPEN_GROUPS.delete(this);
    let failed: unknown;
    try {
      if (!this.db.isOpen) throw new Error('The sandbox database was closed before its writes were committed.');
      if (this.db.isTransaction) this.stmt('COMMIT').run();
      else throw new Error('The sandbox database rolled back the transaction of these writes.');
      this.committed();
    } catch (err) {
      failed = err;
      try {
        if (this.db.isOpen && this.db.isTransaction) this.db.exec('ROLLBACK');
      } catch {
        /* already rolled back */
      }
      this.memos.clear();
    }
    for (const cb of g.waiting) cb(failed);
  }

  /**
   * Before a write outside `serve` (the worker, a control route, another command in this
   * process): commit the group of this connection and of any other connection of this process to
   * the same file (it holds the write lock until the end of the turn: waiting for it here would
   * block the very loop that ends it), and end the read snapshot.
   */
  private settleForWrite(): void {
    if (this.group && !this.serving) this.commitGroup();
    commitOtherGroups(this);
    if (this.reading) this.endRead();
  }

  private committed(): void {
    if (this.checkpointer) this.checkpointer.committed();
    else if (++this.commits === BACKGROUND_CHECKPOINTS_AFTER) this.startCheckpointer();
  }

  private beginRead(): void {
    this.stmt('BEGIN DEFERRED').run();
    this.reading = true;
    this.checkDataVersion();
    if (!this.endScheduled) {
      this.endScheduled = true;
      setImmediate(() => {
        this.endScheduled = false;
        if (this.reading && this.db.isOpen) this.endRead();
      });
    }
  }

  /**
   * `compute()` (a value read from `tables`) once per state of those tables: inside a request
   * (`serve`) a value made earlier is reused until a write of this connection to one of
   * the tables (any write that `run` cannot name the table of, any undone write, and `exec`
   * drop every memo) or a commit of another connection (`PRAGMA data_version`, checked as each
   * snapshot begins). Outside a request it is computed afresh. For small, hot values every
   * request needs: the caller's account, the clock, the publishers.
   */
  memo<T>(key: string, tables: readonly string[], compute: () => T): T {
    if (!this.reading && !this.group) return compute();
    const kept = this.memos.get(key);
    if (kept) return kept.value as T;
    const value = compute();
    if (this.memos.size >= MAX_MEMOS) this.memos.clear();
    this.memos.set(key, { value, tables });
    return value;
  }

  /** Drop the memos read from `table` (every memo when it is not known). */
  private forget(table: string | undefined): void {
    if (table === undefined) return this.memos.clear();
    for (const [key, m] of this.memos) if (m.tables.includes(table)) this.memos.delete(key);
  }

  /**
   * Another connection (a second server on this file, a `--db` command) committed since the
   * memos were made: they may be stale. Read inside a transaction, so it is that snapshot's.
   */
  private checkDataVersion(): void {
    const version = this.stmt('PRAGMA data_version').get()!.data_version as number;
    if (version !== this.dataVersion) {
      this.memos.clear();
      if (this.dataVersion !== -1) this.onOtherCommit?.();
      this.dataVersion = version;
    }
  }

  private endRead(): void {
    this.reading = false;
    this.stmt('COMMIT').run();
  }

  /**
   * A connection that keeps writing (a serving sandbox, not a one-shot command) moves WAL
   * checkpoints to a worker thread (checkpointer.ts), loaded only then.
   */
  private startCheckpointer(): void {
    if (this.path === ':memory:') return;
    import('./checkpointer.js')
      .then(({ Checkpointer }) => {
        if (this.db.isOpen && !this.checkpointer) this.checkpointer = new Checkpointer(this.db, this.path);
      })
      .catch(() => {
        /* automatic checkpoints stay on */
      });
  }

  /**
   * One step of merging each trigram text index that is in more than one segment towards one;
   * true while some index has more to merge. Rows inserted in bulk (a large seed, rows added by
   * another connection, as the bench's 50,000 books are) leave an index in several segments,
   * and a search then probes every segment for each trigram of each word: 5 segments made a
   * one-word title search 2.5x slower than 1. FTS5's own merging runs only as more rows are
   * written, and the sandbox never writes books or imports after seeding, so it would never
   * come. A step writes about `pages` pages ('merge' with a negative count: every level, down to
   * one segment), so the loop is never held for long: 50,000 books merge in 7 steps of 10-60 ms
   * with 256 pages, where one 'optimize' held it for 200 ms.
   */
  tidyTextIndexes(pages = 128): boolean {
    let more = false;
    for (const t of FTS_TABLES) {
      const before = textIndexStructure(this, t);
      if ((segmentCount(before) ?? 0) <= 1) continue;
      this.tx(() => this.run(`INSERT INTO ${t}(${t}, rank) VALUES ('merge', ?)`, -pages));
      const after = textIndexStructure(this, t);
      // Unchanged: nothing left that FTS5 would merge (or it cannot be read); stop.
      if ((segmentCount(after) ?? 0) > 1 && !sameBytes(before, after)) more = true;
    }
    return more;
  }

  /**
   * Keep the text indexes merged while serving (`tidyTextIndexes`, a step at a time with the
   * loop free in between): now, and `delayMs` after another connection's commits stop (only
   * those can add books or imports).
   */
  watchTextIndexes(delayMs = 500): void {
    let timer: NodeJS.Timeout | undefined;
    const step = () => {
      timer = undefined;
      if (!this.db.isOpen) return;
      let more = false;
      try {
        more = this.tidyTextIndexes();
      } catch {
        /* busy: the next commit from elsewhere tries again */
      }
      if (more) (timer = setTimeout(step, 10)).unref();
    };
    this.onOtherCommit = () => {
      if (timer) clearTimeout(timer);
      (timer = setTimeout(step, delayMs)).unref();
    };
    step();
    // From here on, a commit of another connection is one since now (the first snapshot would
    // otherwise take what it finds as the start).
    if (this.depth === 0 && !this.reading && !this.group) {
      this.memos.clear();
      this.dataVersion = this.stmt('PRAGMA data_version').get()!.data_version as number;
    }
  }

  meta(key: string): string | undefined {
    return this.get('SELECT value FROM meta WHERE key = ?', key)?.value;
  }

  setMeta(key: string, value: string): void {
    this.run('INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value', key, value);
  }

  /** The sandbox's notion of now, in ms: real time plus the clock offset stored in the database. */
  now(): number {
    const off = this.clockOffset();
    return Date.now() + (Number.isFinite(off) ? off : 0);
  }

  clockOffset(): number {
    return this.memo('clock', ['meta'], () => Number(this.meta('clock_offset_ms') ?? 0));
  }

  /** Move the clock forward by `ms`. Returns the new offset. */
  advanceClock(ms: number): number {
    return this.tx(() => {
      const next = this.clockOffset() + ms;
      this.setMeta('clock_offset_ms', String(next));
      return next;
    });
  }

  /** Run SQL that is not a query (a PRAGMA), outside any read snapshot. */
  exec(sql: string): void {
    this.settleForWrite();
    this.memos.clear();
    this.db.exec(sql);
  }

  close(): void {
    this.commitGroup();
    this.sendAnswers();
    this.onOtherCommit = undefined;
    if (this.reading && this.db.isOpen) this.endRead();
    this.checkpointer?.stop();
    this.cache.clear();
    this.queries.clear();
    try {
      if (this.db.isOpen) this.db.close();
    } catch {
      /* already closed */
    }
  }
}

/** The table a write statement changes (undefined when the statement is not a plain one). */
function writtenTable(sql: string): string | undefined {
  return /^\s*(?:INSERT(?:\s+OR\s+\w+)?\s+INTO|REPLACE\s+INTO|UPDATE(?:\s+OR\s+\w+)?|DELETE\s+FROM)\s+(\w+)/i.exec(sql)?.[1]?.toLowerCase();
}

/** `map`'s value for `key`, made by `make` the first time; the oldest goes beyond MAX_CACHED. */
function cached<V>(map: Map<string, V>, key: string, make: () => V): V {
  let v = map.get(key);
  if (v === undefined) {
    v = make();
    if (map.size >= MAX_CACHED) map.delete(map.keys().next().value!);
    map.set(key, v);
  }
  return v;
}

/**
 * A function from a row's values (in column order) to the row as an object with these keys:
 * one object literal, so every row of a statement has the same shape. A repeated name keeps its
 * last value, as node:sqlite's own rows do.
 */
function rowMaker(names: string[]): (values: unknown[]) => Row {
  const last = new Map(names.map((n, i) => [n, i]));
  const body = [...last].map(([n, i]) => `${JSON.stringify(n)}: v[${i}]`).join(', ');
  return new Function('v', `return { ${body} };`) as (values: unknown[]) => Row;
}

/** An FTS5 index's structure record (row 10 of `<table>_data`), undefined when it has none. */
function textIndexStructure(store: Store, table: string): Uint8Array | undefined {
  const block = store.get(`SELECT block FROM ${table}_data WHERE id = 10`)?.block;
  return block instanceof Uint8Array ? block : undefined;
}

/**
 * The number of segments a structure record holds (undefined when unknown): a 4-byte cookie,
 * an optional 4-byte version marker FF 00 00 01, then varints for the number of levels and of
 * segments.
 */
function segmentCount(block: Uint8Array | undefined): number | undefined {
  if (!block || block.length < 6) return undefined;
  let i = block[4] === 0xff && block[5] === 0 && block[6] === 0 && block[7] === 1 ? 8 : 4;
  const varint = (): number | undefined => {
    let v = 0;
    for (let k = 0; k < 5 && i < block.length; k++) {
      const c = block[i++];
      v = v * 128 + (c & 0x7f);
      if (!(c & 0x80)) return v;
    }
    return undefined;
  };
  return varint() === undefined ? undefined : varint();
}

function sameBytes(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  return !!a && !!b && a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Requests in one group commit at most; the next one starts a new group. */
const MAX_GROUP = 200;

/** Connections of this process with a group commit open (see `Store.serve`). */
const OPEN_GROUPS = new Set<Store>();

/** Commit the open groups of this process's other connections to `store`'s file. */
function commitOtherGroups(store: Store): void {
  for (const other of OPEN_GROUPS) if (other !== store && other.path === store.path) other.commitGroup();
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
