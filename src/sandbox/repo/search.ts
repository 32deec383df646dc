// The SQL of searches of books and imports by title, author, ISBN (and, for books, hash id):
// the text index, the exact test, the page and its total.
import { foldText, type Store } from '../db/store.js';
import { normalizeIsbn, toIsbn13 } from '../isbn.js';
import type { BookRow } from './books.js';

/** What a search asks for (every word of title and author, any of the ISBNs, any of the hash ids). */
export interface SearchFilters {
  title?: string;
  author?: string;
  isbn?: string[];
  hash_ids?: string[];
}

export interface ImportRow {
  id: number;
  title: string;
  author: string;
  publisher: string;
  edition_number: number;
  book_id: number;
  isbn10: string;
  isbn13: string;
  eisbn10: string;
  eisbn13: string;
  deleted: number;
  file_received: number;
  imported: number;
}

/** One page of books matching the filters, and the total. */
export function searchBooks(
  store: Store,
  f: SearchFilters,
  limit: number,
  offset: number,
): { rows: BookRow[]; count: number } {
  const q = searchSql(f, 'books', store.shared);
  if (f.hash_ids?.length) {
    q.where.push(`${q.col('hash_id')} IN (${f.hash_ids.map(() => '?').join(',')})`);
    q.args.push(...f.hash_ids.map((h) => h.toLowerCase()));
  }
  return searchPage<BookRow>(store, q, limit, offset);
}

/** One page of imports matching the filters (hash ids do not apply), and the total. */
export function searchImports(
  store: Store,
  f: SearchFilters,
  limit: number,
  offset: number,
): { rows: ImportRow[]; count: number } {
  return searchPage<ImportRow>(store, searchSql(f, 'imports', store.shared), limit, offset);
}

/** A search of books or imports as SQL: what to read from, the conditions and their order. */
interface SearchSql {
  table: string;
  from: string;
  where: string[];
  args: string[];
  order: string;
  /** A column of the table, as this query names it. */
  col: (column: string) => string;
}

/**
 * The title/author/ISBN filters of a search of `table`: every word of title/author, any of the
 * ISBNs; the answer is the same as a plain LIKE '%word%' over the whole table with both sides
 * folded (diacritics and case ignored: `brucke` finds Brücke; `%` and `_` taken literally).
 *
 * Words of three characters or more are found through the trigram index `<table>_fts` with one
 * MATCH of trigrams that cover them (`title : "har" AND title : "bou" AND title : "our"`: a
 * superset of the exact match, see `coverTrigrams`; the index also folds non-ASCII case),
 * which then drives the query in id order: a page of a common word stops after
 * `offset + limit` matches instead of collecting and sorting them all, so a page costs about
 * the same however many books match. Each word then decides through
 * `instr(fold(column), word)`, the same test as that LIKE. Neither is a LIKE with a bound
 * pattern: SQLite re-prepares such a statement at every run, as its plan may depend on the
 * pattern. Without such a word (only shorter ones, or ISBNs) the
 * table is read with LIKE, which is what a short word needs anyway.
 */
function searchSql(p: SearchFilters, table: 'books' | 'imports', shared = false): SearchSql {
  const words = (['title', 'author'] as const).flatMap((column) => {
    const text = p[column]?.trim();
    // Compared folded (diacritics and case ignored, as the text index ignores them).
    return text
      ? text
          .split(/\s+/)
          .map((w) => ({ column, w: foldText(w) }))
          .filter(({ w }) => w)
      : [];
  });
  const fts = words.filter(({ w }) => [...w].length >= 3);
  const index = `${table}_fts`;
  const col = (c: string) => (fts.length ? `${table}.${c}` : c);
  const where: string[] = [];
  const args: string[] = [];
  if (fts.length === 0) {
    where.push(...words.map(({ column }) => `fold(${column}) LIKE ? ESCAPE '\\'`));
    args.push(...words.map(({ w }) => like(w)));
  } else {
    // Text between double quotes is literal, a quote in it doubled.
    const terms = fts.flatMap(({ column, w }) => coverTrigrams(w).map((t) => `${column} : "${t.replace(/"/g, '""')}"`));
    // A workspace sharing its catalogue (db/overlay.ts) has two indexes: its own rows' and the base's.
    if (shared) args.push(terms.join(' AND '), terms.join(' AND '));
    else where.push(`${index} MATCH ?`);
    where.push(...words.map(({ column }) => `instr(fold(${col(column)}), ?) > 0`));
    if (!shared) args.push(terms.join(' AND '));
    args.push(...words.map(({ w }) => w));
  }
  if (p.isbn?.length) {
    const vs = p.isbn.flatMap((i) => [normalizeIsbn(i), toIsbn13(i)]);
    const q = vs.map(() => '?').join(',');
    where.push(`(${['isbn13', 'isbn10', 'eisbn13', 'eisbn10'].map((c) => `${col(c)} IN (${q})`).join(' OR ')})`);
    args.push(...vs, ...vs, ...vs, ...vs);
  }
  if (fts.length === 0) return { table, from: table, where, args, order: 'id', col };
  return {
    table,
    from: shared
      ? `(SELECT rowid FROM main.${index}(?) UNION SELECT rowid FROM base.${index}(?)) AS ${index} JOIN ${table} ON ${table}.id = ${index}.rowid`
      : `${index} JOIN ${table} ON ${table}.id = ${index}.rowid`,
    where,
    args,
    order: `${index}.rowid`,
    col,
  };
}

/** One page of a search and the total (counted only when the page does not tell it). */
function searchPage<T extends object>(
  store: Store,
  q: SearchSql,
  limit: number,
  offset: number,
): { rows: T[]; count: number } {
  const w = q.where.length ? `WHERE ${allOf(q.where)}` : '';
  // Through the text index the page's bounds are part of the SQL: FTS5 is told LIMIT and OFFSET,
  // so SQLite would re-prepare a statement whose bounds are parameters at every run.
  // They are integers (paging checks them).
  const rows =
    q.from === q.table
      ? store.all<T>(`SELECT * FROM ${q.table} ${w} ORDER BY ${q.order} LIMIT ? OFFSET ?`, ...q.args, limit, offset)
      : store.all<T>(
          `SELECT ${q.table}.* FROM ${q.from} ${w} ORDER BY ${q.order} LIMIT ${limit} OFFSET ${offset}`,
          ...q.args,
        );
  const count =
    countFromPage(rows.length, limit, offset) ??
    store.get<{ n: number }>(`SELECT count(*) AS n FROM ${q.from} ${w}`, ...q.args)!.n;
  return { rows, count };
}

/**
 * The total of a listing when its page tells it: a page shorter than `limit` is the last one, so
 * the total is `offset` plus its rows (a search that fits one page costs one query, not two).
 * Undefined when the page is full, or empty past the first page (the offset may be past the end).
 */
function countFromPage(rows: number, limit: number, offset: number): number | undefined {
  if (rows < limit && (rows > 0 || offset === 0)) return offset + rows;
  return undefined;
}

/**
 * Conditions joined by AND. Beyond 64 they go in parenthesised groups: SQLite nests a chain of
 * ANDs one level per term and refuses a tree deeper than 1000 (title and author of 500
 * one-character words each were a 500). The planner splits the groups again, and the usual
 * short chain keeps its SQL text (and its prepared statement).
 */
function allOf(conds: string[]): string {
  if (conds.length <= 64) return conds.join(' AND ');
  const groups: string[] = [];
  for (let i = 0; i < conds.length; i += 64) groups.push(`(${conds.slice(i, i + 64).join(' AND ')})`);
  return groups.join(' AND ');
}

/**
 * Trigrams that cover a word (of 3 characters or more) without overlapping, the last one
 * ending with it: `Lighthouse` -> Lig, hth, ous, use. A row holding the word holds them all, so
 * as index terms they find a superset of its rows, as the word's phrase (its 8 overlapping
 * trigrams in a row) does, and the exact test decides either way; they read about a third as
 * many doclists and no positions, which makes a page of a word search cheaper.
 */
function coverTrigrams(word: string): string[] {
  const c = [...word];
  const out: string[] = [];
  for (let i = 0; i + 3 <= c.length; i += 3) out.push(c.slice(i, i + 3).join(''));
  if (c.length % 3) out.push(c.slice(-3).join(''));
  return out;
}

function like(word: string): string {
  return '%' + word.replace(/[\\%_]/g, (m) => '\\' + m) + '%';
}
