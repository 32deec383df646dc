// A workspace that shares its catalogue (issue 30, item 5). A workspace made from a snapshot keeps
// the snapshot's catalogue (books, their prices, publishers, imports: 97% of a 100,000-book database)
// in one read-only base file that every workspace of that snapshot attaches, and holds in its own
// file only the rest (accounts, users, orders, codes, the journal...) and the catalogue rows it
// changed or added. So twenty workspaces take little more disk than one, and making one copies
// only the small part.
//
// On each connection to such a file (meta `workspace_base` names the base, relative to the
// file's directory):
// - the base is attached read-only and immutable (`base`);
// - a TEMP view of each shared table (searched before `main`, so every unqualified read uses it)
//   shows the workspace's own rows and the base's rows it has not changed;
// - a write to a shared table (`rewrite`) first copies the rows it is about to change from the
//   base (`INSERT OR IGNORE ... WHERE` the statement's own condition), then runs on `main`'s
//   table: its changes and inserted row id are the statement's own, as without a base.
// New rows get ids after the base's: a workspace is made holding each shared table's last row.
// Foreign keys are not enforced there (SQLite checks a parent only in its child's database).
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { pathToFileURL } from 'node:url';

/**
 * The catalogue tables a workspace shares with its base, each with an `id` key: the books, their
 * prices and publishers, and the imports (which the service only reads once seeded).
 */
export const SHARED_TABLES = ['books', 'pricing', 'publishers', 'imports'];
/** The meta key naming the base file, relative to the workspace file's directory. */
export const BASE_KEY = 'workspace_base';

/** A write to a shared table, made for a workspace: the statement on `main`, and the copy before it. */
export interface SharedWrite {
  sql: string;
  /** Copies the rows the statement will change from the base; its parameters are the statement's last `params`. */
  copy?: { sql: string; params: number };
}

/** The base file of a workspace is missing (its snapshot's link was removed by hand): exit 1, what to do. */
class MissingBase extends Error {
  override readonly name = 'CliError';
  readonly exitCode = 1;
  constructor(file: string, base: string) {
    super(
      `The workspace database ${file} shares its catalogue with ${base}, which is missing: ` +
        'remove the workspace (`bookdist sandbox workspace rm`) and create it again.',
    );
  }
}

/** An `ATTACH` operand: a read-only, immutable URI of `path` (SQL-quoted). */
export function readOnlyUri(path: string): string {
  return `'${`${pathToFileURL(path).href}?mode=ro&immutable=1`.replace(/'/g, "''")}'`;
}

/**
 * When `db` (the file at `path`) is a workspace sharing a base: attach it, make the views, and
 * return true. A database without meta, or without a base, is left as it is.
 */
export function attachBase(db: DatabaseSync, path: string): boolean {
  if (path === ':memory:') return false;
  let rel: unknown;
  try {
    rel = db.prepare(`SELECT value FROM meta WHERE key = '${BASE_KEY}'`).get()?.value;
  } catch {
    return false; // no meta table yet: a new database
  }
  if (typeof rel !== 'string' || rel === '') return false;
  const base = resolve(dirname(path), rel);
  if (!existsSync(base)) throw new MissingBase(path, base);
  db.exec(`ATTACH ${readOnlyUri(base)} AS base`);
  db.exec('PRAGMA foreign_keys = OFF');
  for (const t of SHARED_TABLES)
    db.exec(
      `CREATE TEMP VIEW IF NOT EXISTS ${t} AS SELECT * FROM main.${t} UNION ALL SELECT * FROM base.${t} WHERE id NOT IN (SELECT id FROM main.${t})`,
    );
  return true;
}

/**
 * Make `copy` (a backup of the workspace file at `workspacePath`, no connection on it yet) a
 * database of its own: the base's rows the workspace has not changed are copied into its shared
 * tables (their text indexes kept by the triggers, or built again), and the base is no longer
 * named. A snapshot of a workspace is then its whole state, loaded or copied anywhere. A copy
 * without a base is left as it is.
 */
export function inlineBase(copy: string, workspacePath: string): void {
  const db = new DatabaseSync(copy);
  try {
    const rel = (
      db.prepare(`SELECT value FROM meta WHERE key = '${BASE_KEY}'`).get() as { value?: unknown } | undefined
    )?.value;
    if (typeof rel !== 'string' || rel === '') return;
    const base = resolve(dirname(workspacePath), rel);
    if (!existsSync(base)) throw new MissingBase(workspacePath, base);
    db.exec('PRAGMA foreign_keys = OFF');
    db.exec(`ATTACH ${readOnlyUri(base)} AS base`);
    const has = (type: string, name: string) =>
      db.prepare('SELECT 1 FROM sqlite_master WHERE type = ? AND name = ?').get(type, name) !== undefined;
    db.exec('BEGIN');
    try {
      for (const t of SHARED_TABLES) {
        // The base's columns, named: a workspace of a later version may have more (their defaults apply).
        const cols = (db.prepare(`PRAGMA base.table_info(${t})`).all() as Array<{ name: string }>)
          .map((c) => `"${c.name.replace(/"/g, '""')}"`)
          .join(', ');
        if (!cols) continue;
        db.exec(
          `INSERT INTO main.${t}(${cols}) SELECT ${cols} FROM base.${t} WHERE id NOT IN (SELECT id FROM main.${t})`,
        );
        if (has('table', `${t}_fts`) && !has('trigger', `${t}_fts_insert`))
          db.exec(`INSERT INTO main.${t}_fts(${t}_fts) VALUES ('rebuild')`);
      }
      db.prepare('DELETE FROM meta WHERE key = ?').run(BASE_KEY);
      db.exec('COMMIT');
    } catch (err) {
      db.exec('ROLLBACK');
      throw err;
    }
    db.exec('DETACH base');
  } finally {
    db.close();
  }
}

const WRITE = /^(\s*(?:INSERT(?:\s+OR\s+\w+)?\s+INTO|REPLACE\s+INTO|UPDATE(?:\s+OR\s+\w+)?|DELETE\s+FROM)\s+)(\w+)\b/i;

/** `sql` made for a workspace when it writes a shared table; undefined when it writes none. */
export function rewriteSharedWrite(sql: string): SharedWrite | undefined {
  const m = WRITE.exec(sql);
  const table = m?.[2].toLowerCase();
  if (!m || !table || !SHARED_TABLES.includes(table)) return undefined;
  const head = m[1];
  const onMain = `${head}main.${table}${sql.slice(m[0].length)}`;
  if (/^\s*DELETE\b/i.test(head))
    // A row deleted from main would show the base's again: nothing deletes catalogue rows today.
    throw new Error(`A workspace cannot delete rows of its shared table ${table}.`);
  if (!/^\s*UPDATE\b/i.test(head)) return { sql: onMain };
  const where = topLevelWhere(sql);
  const cond = where === undefined ? '' : ` WHERE ${sql.slice(where).trim()}`;
  return {
    sql: onMain,
    copy: {
      sql: `INSERT OR IGNORE INTO main.${table} SELECT * FROM base.${table}${cond}`,
      params: cond ? placeholders(sql.slice(where)) : 0,
    },
  };
}

/** Where the text after an UPDATE's own WHERE starts (outside brackets and quotes), or undefined. */
function topLevelWhere(sql: string): number | undefined {
  let depth = 0;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i];
    if (c === "'" || c === '"') {
      const end = sql.indexOf(c, i + 1);
      i = end < 0 ? sql.length : end;
    } else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (depth === 0 && /^WHERE\b/i.test(sql.slice(i, i + 6)) && /\s/.test(sql[i - 1] ?? ' ')) return i + 5;
  }
  return undefined;
}

/** The `?` parameters in `sql`, outside quotes. */
function placeholders(sql: string): number {
  let n = 0;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i];
    if (c === "'" || c === '"') {
      const end = sql.indexOf(c, i + 1);
      i = end < 0 ? sql.length : end;
    } else if (c === '?') n++;
  }
  return n;
}
