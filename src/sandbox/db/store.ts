// The sandbox's storage: one SQLite database (node:sqlite), WAL, foreign keys on, a busy
// timeout so that several processes can share the file, and constraints that make invalid
// states unrepresentable. Every write goes through `tx` (BEGIN IMMEDIATE ... COMMIT); a served
// request's go through `serve`, which shares one read snapshot and one group commit per turn of
// the event loop among the requests of that turn.
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import { existsSync, writeFileSync } from 'node:fs';
import { makeDir } from './make-dir.js';
import { dirname } from 'node:path';
import { FTS, FTS_TABLES, FTS_TOKENIZE, INDEX_NAMES, INDEXES, SCHEMA, TABLES } from './schema.js';
import { attachBase, rewriteSharedWrite } from './overlay.js';

/** Commits after which a connection checkpoints from a worker thread instead of in its commits. */
const BACKGROUND_CHECKPOINTS_AFTER = 100;

/** Prepared statements kept per connection; dynamic SQL (search filters) beyond this is evicted oldest first. */
const MAX_CACHED = 500;
/** Memos kept at once (accounts by name, the clock...); beyond this they are all dropped. */
const MAX_MEMOS = 1000;

// any: a row's columns are typed by the repo/ function that reads it (it casts the row to its row type)
export type Row = Record<string, any>;

/**
 * The database file is not a database, or is damaged (SQLITE_NOTADB, SQLITE_CORRUPT). Reported as
 * a CliError is (by its name; db/ imports nothing above it): exit 1, the file and the fix named.
 */
export class DamagedDatabase extends Error {
  override readonly name = 'CliError';
  readonly exitCode = 1;
  readonly details: { file: string };
  constructor(readonly file: string) {
    super(
      `The sandbox database ${file} is damaged (not a database SQLite can read). ` +
        'Run `bookdist sandbox reset --yes` to move it aside (it is kept, renamed *.damaged-<time>) and start a fresh one, or restore it from a copy.',
    );
    this.details = { file };
  }
}

/** The database's directory cannot be made (a file in its place, a path under /proc...): exit 2, the fix named. */
class UnusableDirectory extends Error {
  override readonly name = 'CliError';
  readonly exitCode = 2;
  constructor(dir: string, err: unknown) {
    super(
      `Cannot create the directory of the sandbox database, ${dir} (${(err as NodeJS.ErrnoException).code ?? String(err)}): ` +
        'give --db (or BOOKDIST_DATA_DIR) a path in a directory you can write.',
    );
  }
}

export class Store {
  readonly db: DatabaseSync;
  readonly path: string;
  /** True for a workspace that reads its catalogue through a shared base (overlay.ts). */
  readonly shared: boolean;
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
  private checkpointer?: { committed(): void; stop(): Promise<void> };
  private readonly cache = new Map<string, StatementSync>();
  private readonly writes = new Map<string, Write>();
  private readonly queries = new Map<string, { stmt: StatementSync; row: (values: unknown[]) => Row }>();
  /** Answers of this turn's requests that wrote nothing (`afterCommit`). */
  private answers: Array<(err?: unknown) => void> = [];
  /**
   * Set by the request journal (../journal/) while a request's handler runs: each write's table,
   * whether it inserted, the row id it inserted and the rows it changed.
   */
  onWrite?: (table: string | undefined, insert: boolean, id: number, changes: number) => void;
  /** Set by `watchTextIndexes`: called when another connection committed (see `checkDataVersion`). */
  private onOtherCommit?: () => void;

  constructor(path: string) {
    this.path = path;
    if (path !== ':memory:') {
      try {
        makeDir(dirname(path));
      } catch (err) {
        throw new UnusableDirectory(dirname(path), err);
      }
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
    try {
      this.db.exec('PRAGMA busy_timeout = 10000');
      this.db.exec('PRAGMA schema_version');
    } catch (err) {
      // A file that is not a database (or a damaged one): say which file, and what to do.
      const code = ((err as { errcode?: number }).errcode ?? 0) & 0xff;
      if (code !== 26 && code !== 11) throw err;
      this.db.close();
      throw new DamagedDatabase(path);
    }
    // A new database gets 8 KB pages (an existing one keeps its own: in WAL mode the page size is
    // fixed once the file exists): a catalogue load writes half as many WAL frames, each one a
    // header and a page in two writes.
    this.db.exec('PRAGMA page_size = 8192');
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
    // power cut can lose the last commits, never corrupt the file. FULL's fsync at every commit
    // stalls the event loop for a large part of each write request.
    this.db.exec('PRAGMA synchronous = NORMAL');
    this.db.exec('PRAGMA foreign_keys = ON');
    // Text as a search compares it: diacritics removed and lower case (`Brücke` -> `brucke`), as
    // the text index's tokenizer does (schema.ts, FTS).
    this.db.function('fold', { deterministic: true }, (s) => (typeof s === 'string' ? foldText(s) : s));
    // A workspace sharing its catalogue with a base file (overlay.ts).
    this.shared = attachBase(this.db, path);
  }

  /**
   * Create the tables, indexes and text indexes (idempotent). Call inside a transaction. A text
   * index added to a database that already has rows (made by an earlier version) is filled here.
   */
  createSchema(): void {
    this.db.exec(SCHEMA);
    this.db.exec(INDEXES);
    // A text index made by an earlier version with another tokenizer is made again.
    for (const t of FTS_TABLES) if (this.hasTable(t) && !this.ftsCurrent(t)) this.db.exec(`DROP TABLE ${t}`);
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
    return n === names.length && FTS_TABLES.every((t) => this.ftsCurrent(t));
  }

  /** Was this text index made with this version's tokenizer? */
  private ftsCurrent(table: string): boolean {
    const sql = this.get(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?`, table)?.sql;
    return typeof sql === 'string' && sql.includes(`'${FTS_TOKENIZE}'`);
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

  /** A write statement prepared once, with the table it changes (read from its text once, not at every run). */
  private write(sql: string): Write {
    return cached(this.writes, sql, () => {
      // In a workspace sharing its catalogue, a write to a shared table runs on its own rows.
      const shared = this.shared ? rewriteSharedWrite(sql) : undefined;
      return {
        stmt: this.db.prepare(shared?.sql ?? sql),
        table: writtenTable(sql),
        insert: /^\s*(?:INSERT|REPLACE)\b/i.test(sql),
        copy: shared?.copy && { stmt: this.db.prepare(shared.copy.sql), params: shared.copy.params },
      };
    });
  }

  /**
   * The query `sql` prepared once, with the maker of its rows. node:sqlite builds each row as an
   * object of its own, turning every column name into a property key again; the statement
   * returns arrays instead, and a function made once from its column names turns each into an
   * object of one fixed shape (about half the cost, and faster to read afterwards). A statement
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

  /** The first row of a query, as the row type `T` its columns make (a repo names it), or undefined. */
  get<T extends object = Row>(sql: string, ...params: SQLInputValue[]): T | undefined {
    const q = this.query(sql);
    const values = q.stmt.get(...params) as unknown[] | undefined;
    return values === undefined ? undefined : (q.row(values) as T);
  }

  /** Every row of a query, as the row type `T` its columns make (a repo names it). */
  all<T extends object = Row>(sql: string, ...params: SQLInputValue[]): T[] {
    const q = this.query(sql);
    return (q.stmt.all(...params) as unknown as unknown[][]).map((v) => q.row(v) as T);
  }

  run(sql: string, ...params: SQLInputValue[]): { changes: number; lastInsertRowid: number } {
    if (this.depth === 0) this.settleForWrite();
    const w = this.write(sql);
    if (this.memos.size) this.forget(w.table);
    if (w.copy !== undefined) w.copy.stmt.run(...params.slice(params.length - w.copy.params));
    const r = w.stmt.run(...params);
    const out = { changes: Number(r.changes), lastInsertRowid: Number(r.lastInsertRowid) };
    if (this.onWrite !== undefined) this.onWrite(w.table, w.insert, out.lastInsertRowid, out.changes);
    return out;
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
    if (this.depth > 0 || this.serving || this.group)
      throw new Error('txAsync: this connection is already in a transaction');
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
   * by one between requests wake it (and the core it sleeps on) once each, which costs the
   * server CPU on every request when many clients are busy (bench/sandbox-throughput.mjs). An
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
    import('../checkpointer.js')
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
   * and a search then probes every segment for each trigram of each word, so each segment more
   * slows every word search. FTS5's own merging runs only as more rows are
   * written, and the sandbox never writes books or imports after seeding, so it would never
   * come. A step writes about `pages` pages ('merge' with a negative count: every level, down to
   * one segment), so the loop is never held for long, where one 'optimize' would hold it for
   * the whole merge.
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
    this.run(
      'INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
      key,
      value,
    );
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

  /**
   * Closes the connection now. The promise resolves when the background checkpointer's thread
   * (if one started) has closed its own connection too: after it, nothing of this store writes.
   */
  close(): Promise<void> {
    this.commitGroup();
    this.sendAnswers();
    this.onOtherCommit = undefined;
    if (this.reading && this.db.isOpen) this.endRead();
    const ended = this.checkpointer?.stop() ?? Promise.resolve();
    this.cache.clear();
    this.writes.clear();
    this.queries.clear();
    try {
      if (this.db.isOpen) this.db.close();
    } catch {
      /* already closed */
    }
    return ended;
  }
}

/** A write statement prepared once: the table it changes, and (in a workspace) the copy of base rows before it. */
interface Write {
  stmt: StatementSync;
  table: string | undefined;
  insert: boolean;
  copy: { stmt: StatementSync; params: number } | undefined;
}

/** The table a write statement changes (undefined when the statement is not a plain one). */
function writtenTable(sql: string): string | undefined {
  return /^\s*(?:INSERT(?:\s+OR\s+\w+)?\s+INTO|REPLACE\s+INTO|UPDATE(?:\s+OR\s+\w+)?|DELETE\s+FROM)\s+(\w+)/i
    .exec(sql)?.[1]
    ?.toLowerCase();
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

/** Text folded for a search: diacritics removed, lower case (`Brücke` -> `brucke`, `CAFÉ` -> `cafe`). */
export function foldText(s: string): string {
  return s
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
}
