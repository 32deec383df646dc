// The connection and its statements: one SQLite database (node:sqlite), WAL, foreign keys on, a
// busy timeout so that several processes can share the file; each statement prepared once per
// connection, queries returning rows of one fixed shape. Transactions and the turn's group
// commit are the next layer up (turn.ts).
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import { existsSync, writeFileSync } from 'node:fs';
import { makeDir } from './make-dir.js';
import { dirname } from 'node:path';
import { TABLES } from './schema.js';
import { attachBase, rewriteSharedWrite } from './overlay.js';

/** Prepared statements kept per connection; dynamic SQL (search filters) beyond this is evicted oldest first. */
const MAX_CACHED = 500;

/** Runs of a query with node:sqlite's own rows before it gets a row maker (Connection.query). */
const OWN_ROWS_FOR = 2;

/** A query prepared once: its statement, and once it has run OWN_ROWS_FOR times, the maker of its rows. */
interface Query {
  stmt: StatementSync;
  row: ((values: unknown[]) => Row) | undefined;
  runs: number;
}

// any: a row's columns are typed by the repo/ function that reads it (it casts the row to its row type)
export type Row = Record<string, any>;

/** A write statement prepared once: the table it changes, and (in a workspace) the copy of base rows before it. */
export interface WriteStatement {
  stmt: StatementSync;
  table: string | undefined;
  insert: boolean;
  copy: { stmt: StatementSync; params: number } | undefined;
}

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

export class Connection {
  readonly db: DatabaseSync;
  readonly path: string;
  /** True for a workspace that reads its catalogue through a shared base (overlay.ts). */
  readonly shared: boolean;
  private readonly cache = new Map<string, StatementSync>();
  private readonly writes = new Map<string, WriteStatement>();
  private readonly queries = new Map<string, Query>();

  constructor(path: string) {
    this.path = path;
    this.db = openDatabase(path);
    // A workspace sharing its catalogue with a base file (overlay.ts).
    this.shared = attachBase(this.db, path);
  }

  /** The prepared statement for `sql`, made once per connection and reused by every request. */
  protected stmt(sql: string): StatementSync {
    return cached(this.cache, sql, () => this.db.prepare(sql));
  }

  /** A write statement prepared once, with the table it changes (read from its text once, not at every run). */
  protected write(sql: string): WriteStatement {
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
   * The query `sql` prepared once, and from its third run on the maker of its rows. node:sqlite
   * builds each row as an object of its own, turning every column name into a property key again;
   * a statement run again and again returns arrays instead, and a function made once from its
   * column names turns each into an object of one fixed shape (about half the cost, and faster to
   * read afterwards). Not for its first runs: the maker is a function compiled for the statement,
   * which a statement run once or twice (a command's embedded sandbox runs most of its statements
   * once) never pays back (issue 31). A statement of its own: `stmt` (run, and the store's own
   * PRAGMAs) keeps node:sqlite's rows.
   */
  private query(sql: string): Query {
    const q = cached(this.queries, sql, (): Query => ({ stmt: this.db.prepare(sql), row: undefined, runs: 0 }));
    if (q.row === undefined && ++q.runs > OWN_ROWS_FOR) {
      q.row = rowMaker(q.stmt.columns().map((c) => c.name));
      q.stmt.setReturnArrays(true);
    }
    return q;
  }

  /** The first row of a query, as the row type `T` its columns make (a repo names it), or undefined. */
  get<T extends object = Row>(sql: string, ...params: SQLInputValue[]): T | undefined {
    const q = this.query(sql);
    if (q.row === undefined) return q.stmt.get(...params) as T | undefined;
    const values = q.stmt.get(...params) as unknown[] | undefined;
    return values === undefined ? undefined : (q.row(values) as T);
  }

  /** Every row of a query, as the row type `T` its columns make (a repo names it). */
  all<T extends object = Row>(sql: string, ...params: SQLInputValue[]): T[] {
    const q = this.query(sql);
    if (q.row === undefined) return q.stmt.all(...params) as T[];
    const row = q.row;
    return (q.stmt.all(...params) as unknown as unknown[][]).map((v) => row(v) as T);
  }

  dropAll(): void {
    for (const t of TABLES) this.db.exec(`DROP TABLE IF EXISTS ${t}`);
    // Nothing is seeded any more: the next open checks (store.ts, schemaIsCurrent).
    this.db.exec('PRAGMA user_version = 0');
  }

  /** True when a table exists (schema upgrades of databases seeded by an earlier version). */
  hasTable(name: string): boolean {
    return !!this.get(`SELECT 1 FROM sqlite_master WHERE type='table' AND name=?`, name);
  }

  hasSchema(): boolean {
    return !!this.get(`SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'`);
  }

  /** Drop every prepared statement and close the database (if it is still open). */
  protected closeConnection(): void {
    this.cache.clear();
    this.writes.clear();
    this.queries.clear();
    try {
      if (this.db.isOpen) this.db.close();
    } catch {
      /* already closed */
    }
  }
}

/** Open (and, for a file, create 0600) the database at `path`, with the sandbox's settings. */
function openDatabase(path: string): DatabaseSync {
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
  const db = new DatabaseSync(path, { timeout: 10_000 });
  try {
    db.exec('PRAGMA busy_timeout = 10000');
    db.exec('PRAGMA schema_version');
  } catch (err) {
    // A file that is not a database (or a damaged one): say which file, and what to do.
    const code = ((err as { errcode?: number }).errcode ?? 0) & 0xff;
    if (code !== 26 && code !== 11) throw err;
    db.close();
    throw new DamagedDatabase(path);
  }
  // A new database gets 8 KB pages (an existing one keeps its own: in WAL mode the page size is
  // fixed once the file exists): a catalogue load writes half as many WAL frames, each one a
  // header and a page in two writes.
  db.exec('PRAGMA page_size = 8192');
  if (path !== ':memory:') {
    // Switching to WAL needs a brief exclusive lock; another process may hold it right now.
    for (let i = 0; ; i++) {
      try {
        db.exec('PRAGMA journal_mode = WAL');
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
  db.exec('PRAGMA synchronous = NORMAL');
  db.exec('PRAGMA foreign_keys = ON');
  // Text as a search compares it: diacritics removed and lower case (`Brücke` -> `brucke`), as
  // the text index's tokenizer does (schema.ts, FTS).
  db.function('fold', { deterministic: true }, (s) => (typeof s === 'string' ? foldText(s) : s));
  return db;
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
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- a row builder made once per statement from its own column names (no outside text)
  return new Function('v', `return { ${body} };`) as (values: unknown[]) => Row;
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
