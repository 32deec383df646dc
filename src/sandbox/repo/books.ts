// The SQL of the catalogue: books, their digital prices and their publishers, as typed rows.
// The rules (what an update keeps, what a withdrawal does, who may load what) live in
// ../catalogue/load.ts; this module only reads and writes rows.
import type { Store } from '../db/store.js';

/** What the catalogue loader needs of a book. */
export interface BookKeyRow {
  id: number;
  hash_id: string;
  publisher_id: number;
  isbn13: string;
  eisbn13: string;
  parent_isbn: string;
  sku: string;
  is_active: number;
  loaded_at: number | null;
}

/** The metadata a catalogue record sets on a book (undefined: keep what the book has). */
export interface BookFields {
  publisher_id: number;
  title: string;
  subtitle: string;
  description: string;
  author: string;
  language: string;
  num_pages: number;
  publish_year: number | null;
  isbn13: string;
  isbn10: string;
  eisbn13: string;
  eisbn10: string;
  parent_isbn: string;
  sku: string;
  is_published: number;
}

export interface NewBookRow extends BookFields {
  hash_id: string;
  loaded_at: number;
}

interface PriceRow {
  id: number;
  book_id: number;
  currency: string;
  price: string;
  limit_days: number;
  deactivated_at: number | null;
}

export interface NewPriceRow {
  currency: string;
  price: string;
  description: string;
  description_limit: string;
  is_limited: number;
  limit_days: number;
  other_pricing: string | null;
}

export interface PublisherRow {
  id: number;
  title: string;
  is_active: number;
}

// ---------------------------------------------------------------- whole books, as the service reads them

/** A row of `books`, every column. */
export interface BookRow extends BookFields {
  id: number;
  hash_id: string;
  distribution_type: 'standard' | 'code';
  copy_percent: number | null;
  offline_percent: number | null;
  sample_percent: number | null;
  offline_range: string;
  print_allowance_range: string;
  print_allowance_percent: number;
  sample_page_end: number;
  is_active: number;
  is_html: number;
  is_processed: number;
  is_public: number;
  is_queued: number;
  processed_at: number | null;
  queued_at: number | null;
  queue_urgent: number;
  queue_seq: number | null;
  queue_hold: number;
  processing_started_at: number | null;
  loaded_at: number | null;
}

/** The book with this hash id (already lower case). */
export function bookRowByHash(store: Store, hashId: string): BookRow | undefined {
  return store.get<BookRow>('SELECT * FROM books WHERE hash_id = ?', hashId);
}

export function bookRowById(store: Store, id: number): BookRow | undefined {
  return store.get<BookRow>('SELECT * FROM books WHERE id = ?', id);
}

/** The book with this SKU, whatever its case. */
export function bookRowBySkuNoCase(store: Store, sku: string): BookRow | undefined {
  return store.get<BookRow>('SELECT * FROM books WHERE sku = ? COLLATE NOCASE', sku);
}

/** The first book (lowest id) any of whose ISBNs is `isbn` (normalised) or `isbn13` (its ISBN-13 form). */
export function bookRowByAnyIsbn(store: Store, isbn: string, isbn13: string): BookRow | undefined {
  // min(id) over the index probes, then the one row (ORDER BY id LIMIT 1 sorted the matches in a
  // temporary b-tree first).
  return store.get<BookRow>(
    `SELECT * FROM books WHERE id = (SELECT min(id) FROM books WHERE isbn13 IN (?1, ?2) OR eisbn13 IN (?1, ?2) OR isbn10 = ?1 OR eisbn10 = ?1 OR parent_isbn = ?1)`,
    isbn,
    isbn13,
  );
}

export function bookPages(store: Store, id: number): number {
  return store.get<{ num_pages: number }>('SELECT num_pages FROM books WHERE id = ?', id)!.num_pages;
}

const OWN_BOOKS = 'publisher_id IN (SELECT publisher_id FROM account_publishers WHERE account_id = ?)';

/** How many books the account's publishers have. */
export function countOwnBooks(store: Store, accountId: number): number {
  return store.get<{ n: number }>(`SELECT count(*) AS n FROM books WHERE ${OWN_BOOKS}`, accountId)!.n;
}

/** How many of the account's books have an id up to `id`. */
export function countOwnBooksUpTo(store: Store, accountId: number, id: number): number {
  return store.get<{ n: number }>(`SELECT count(*) AS n FROM books WHERE ${OWN_BOOKS} AND id <= ?`, accountId, id)!.n;
}

/** A page of the account's books in id order, after the book `after`. */
export function ownBooksAfter(store: Store, accountId: number, after: number, limit: number): BookRow[] {
  // `+publisher_id`: walk the books in id order from `after` rather than sort the account's books.
  return store.all<BookRow>(
    `SELECT * FROM books WHERE id > ? AND +${OWN_BOOKS} ORDER BY id LIMIT ?`,
    after,
    accountId,
    limit,
  );
}

/** A page of the account's books in id order, at an offset. */
export function ownBooksAt(store: Store, accountId: number, limit: number, offset: number): BookRow[] {
  return store.all<BookRow>(
    `SELECT * FROM books WHERE +${OWN_BOOKS} ORDER BY id LIMIT ? OFFSET ?`,
    accountId,
    limit,
    offset,
  );
}

const KEY_COLUMNS = 'id, hash_id, publisher_id, isbn13, eisbn13, parent_isbn, sku, is_active, loaded_at';
const BY_EISBN = `SELECT ${KEY_COLUMNS}, title, subtitle, description, author, language, num_pages, publish_year, isbn10, eisbn10, is_published,
  is_public, sample_page_end FROM books WHERE eisbn13 = ? ORDER BY id LIMIT 1`;
const BY_ISBN13 = `SELECT ${KEY_COLUMNS} FROM books WHERE isbn13 = ?`;
const BY_SKU = `SELECT ${KEY_COLUMNS} FROM books WHERE sku = ?`;

/** A book as a catalogue record finds it again: its keys and the fields a record sets. */
export type LoadedBookRow = BookKeyRow & BookFields & { is_public: number; sample_page_end: number };

/** The book whose own (digital) ISBN-13 this is. */
export function bookByEisbn(store: Store, eisbn13: string): LoadedBookRow | undefined {
  return store.get<LoadedBookRow>(BY_EISBN, eisbn13);
}

/** A book found again by its own ISBN-13, with its prices live at `now` (bookByEisbnWithPrices). */
export type FoundBookRow = LoadedBookRow & { live: PriceRow[] };

const jsonOf = (columns: string) =>
  `json_object(${columns
    .split(', ')
    .map((c) => `'${c}', ${c}`)
    .join(', ')})`;

// Its live prices as one JSON array of [id, currency, price, limit_days, deactivated_at].
const BY_EISBN_WITH_PRICES = BY_EISBN.replace(
  ' FROM books',
  `, (SELECT json_group_array(json_array(id, currency, price, limit_days, deactivated_at)) FROM pricing
    WHERE book_id = books.id AND (deactivated_at IS NULL OR deactivated_at > ?)) AS live FROM books`,
);

/** The book whose own (digital) ISBN-13 this is (bookByEisbn), and its prices live at `now`, in id order. */
export function bookByEisbnWithPrices(store: Store, eisbn13: string, now: number): FoundBookRow | undefined {
  const row = store.get<LoadedBookRow & { live: string | PriceRow[] }>(BY_EISBN_WITH_PRICES, now, eisbn13);
  if (!row) return undefined;
  const live = JSON.parse(row.live as string) as Array<[number, string, string, number, number | null]>;
  row.live = live
    .sort((a, b) => a[0] - b[0])
    .map(([id, currency, price, limit_days, deactivated_at]) => ({
      id,
      book_id: row.id,
      currency,
      price,
      limit_days,
      deactivated_at,
    }));
  return row as FoundBookRow;
}

/** The books that hold a SKU and an ISBN-13 (in the isbn13 column). */
export interface KeyHolders {
  sku: string;
  skuOwner?: BookKeyRow;
  isbn13: string;
  isbn13Holder?: BookKeyRow;
}

const KEY_HOLDERS = `SELECT (SELECT ${jsonOf(KEY_COLUMNS)} FROM books WHERE sku = ?) AS owner,
  (SELECT ${jsonOf(KEY_COLUMNS)} FROM books WHERE isbn13 = ?) AS holder`;

/** bookBySku(sku) and bookByIsbn13Column(isbn13) in one statement. */
export function keyHolders(store: Store, sku: string, isbn13: string): KeyHolders {
  const r = store.get<{ owner: string | null; holder: string | null }>(KEY_HOLDERS, sku, isbn13)!;
  const row = (json: string | null) => (json === null ? undefined : (JSON.parse(json) as BookKeyRow));
  return { sku, skuOwner: row(r.owner), isbn13, isbn13Holder: row(r.holder) };
}

/** The book whose `isbn13` column holds this value (unique). */
export function bookByIsbn13Column(store: Store, isbn13: string): BookKeyRow | undefined {
  return store.get<BookKeyRow>(BY_ISBN13, isbn13);
}

/** The book with this SKU (unique). */
export function bookBySku(store: Store, sku: string): BookKeyRow | undefined {
  return store.get<BookKeyRow>(BY_SKU, sku);
}

/** The last page of a loaded book's sample: its first tenth. */
export function sampleEnd(pages: number): number {
  return Math.max(1, Math.floor(pages / 10));
}

export function insertBook(store: Store, b: NewBookRow): number {
  // A loaded book is ready to read: processed, active, with the seed's DRM defaults.
  return store.run(
    `INSERT INTO books(hash_id, publisher_id, title, subtitle, description, author, language, num_pages, publish_year,
       isbn10, isbn13, eisbn10, eisbn13, parent_isbn, sku, distribution_type, copy_percent, offline_percent, sample_percent,
       offline_range, print_allowance_range, print_allowance_percent, sample_page_end,
       is_active, is_html, is_processed, is_public, is_published, is_queued, processed_at, queued_at, loaded_at)
     VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,'standard',20,100,10,'unlimited','30 days',20,?,1,0,1,?,?,0,?,NULL,?)`,
    b.hash_id,
    b.publisher_id,
    b.title,
    b.subtitle,
    b.description,
    b.author,
    b.language,
    b.num_pages,
    b.publish_year,
    b.isbn10,
    b.isbn13,
    b.eisbn10,
    b.eisbn13,
    b.parent_isbn,
    b.sku,
    sampleEnd(b.num_pages),
    b.is_published,
    b.is_published,
    b.loaded_at,
    b.loaded_at,
  ).lastInsertRowid;
}

/** Set the given fields of a book (and make it active again: an update of a withdrawn title restores it). */
export function updateBook(store: Store, id: number, fields: Partial<BookFields>): void {
  const cols = Object.keys(fields) as Array<keyof BookFields>;
  const sets = cols.map((c) => `${c} = ?`);
  const values = cols.map((c) => fields[c] as string | number | null);
  const set = (column: string, value: string | number | null) => {
    sets.push(`${column} = ?`);
    values.push(value);
  };
  if ('is_published' in fields) set('is_public', fields.is_published!);
  if ('num_pages' in fields) set('sample_page_end', sampleEnd(fields.num_pages!));
  sets.push('is_active = 1');
  store.run(`UPDATE books SET ${sets.join(', ')} WHERE id = ?`, ...values, id);
}

/** Take a book off sale: inactive, unpublished; its orders and grants stay as they are. */
export function withdrawBook(store: Store, id: number): void {
  store.run('UPDATE books SET is_active = 0, is_published = 0, is_public = 0 WHERE id = ?', id);
}

export function publisherByTitle(store: Store, title: string): PublisherRow | undefined {
  return store.get<PublisherRow>('SELECT id, title, is_active FROM publishers WHERE title = ?', title);
}

export function insertPublisher(store: Store, title: string, description: string): number {
  return store.run('INSERT INTO publishers(title, description, is_active) VALUES (?,?,1)', title, description)
    .lastInsertRowid;
}

export function accountControls(store: Store, accountId: number, publisherId: number): boolean {
  return !!store.get(
    'SELECT 1 FROM account_publishers WHERE account_id = ? AND publisher_id = ?',
    accountId,
    publisherId,
  );
}

export function grantPublisher(store: Store, accountId: number, publisherId: number): void {
  store.run(
    'INSERT INTO account_publishers(account_id, publisher_id) VALUES (?,?) ON CONFLICT DO NOTHING',
    accountId,
    publisherId,
  );
}

export function accountIdByRole(store: Store, role: string): number | undefined {
  return store.get<{ id: number }>('SELECT id FROM accounts WHERE role = ?', role)?.id;
}

/** How many books came from catalogue files. */
export function countLoaded(store: Store): number {
  return store.get<{ n: number }>('SELECT count(*) AS n FROM books WHERE loaded_at IS NOT NULL')!.n;
}

/** The loaded books, their prices and publishers, as rows to write back after a reset. */
export interface LoadedCatalogue {
  publishers: Array<Record<string, unknown>>;
  grants: Array<{ account_id: number; publisher_id: number }>;
  books: Array<Record<string, unknown>>;
  prices: Array<Record<string, unknown>>;
}

export function exportLoaded(store: Store): LoadedCatalogue {
  const books = store.all('SELECT * FROM books WHERE loaded_at IS NOT NULL ORDER BY id');
  const prices = store.all(
    'SELECT * FROM pricing WHERE book_id IN (SELECT id FROM books WHERE loaded_at IS NOT NULL) ORDER BY id',
  );
  const pubIds = [...new Set(books.map((b) => b.publisher_id))];
  const publishers = store.all(
    'SELECT * FROM publishers WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id',
    JSON.stringify(pubIds),
  );
  const grants = store.all<LoadedCatalogue['grants'][number]>(
    'SELECT account_id, publisher_id FROM account_publishers WHERE publisher_id IN (SELECT value FROM json_each(?))',
    JSON.stringify(pubIds),
  );
  return { publishers, grants, books, prices };
}

/** Write exported rows back into a freshly seeded database, with their ids (hash ids and price ids stay the same). */
export function importLoaded(store: Store, c: LoadedCatalogue): void {
  const insert = (table: string, row: Record<string, unknown>, conflict = '') => {
    const cols = Object.keys(row);
    store.run(
      `INSERT INTO ${table}(${cols.join(', ')}) VALUES (${cols.map(() => '?').join(',')}) ${conflict}`,
      ...cols.map((k) => row[k] as string | number | null),
    );
  };
  for (const p of c.publishers) insert('publishers', p, 'ON CONFLICT DO NOTHING');
  for (const g of c.grants) insert('account_publishers', g, 'ON CONFLICT DO NOTHING');
  for (const b of c.books)
    insert('books', {
      ...b,
      is_queued: 0,
      queued_at: null,
      queue_seq: null,
      queue_hold: 0,
      processing_started_at: null,
    });
  for (const p of c.prices) insert('pricing', p);
}
