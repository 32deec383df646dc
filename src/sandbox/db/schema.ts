// The sandbox's schema: tables, indexes, trigram text indexes and the migrations between schema
// versions. Plain data; db/store.ts applies it.
import { hash } from 'node:crypto';

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

// A CHECK of a column against a list of more than two values is written as ORs, not `IN (...)`:
// SQLite builds a temporary b-tree of an IN list at every run of an INSERT (a page allocated and
// zeroed, the values inserted, the tree freed), twice an order (test/sandbox/order-cost.test.ts).
// A database made before keeps its IN lists, which say the same.
export const SCHEMA = `
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
  kind TEXT NOT NULL CHECK (kind = 'external' OR kind = 'free' OR kind = 'access' OR kind = 'code'),
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
  source TEXT NOT NULL CHECK (source = 'external' OR source = 'free' OR source = 'access' OR source = 'code'),
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
export const INDEXES = `
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
// Diacritics and case are ignored (`brucke` finds Brücke, `cafe` finds Café): the tokenizer
// removes diacritics, and the exact test compares the words folded alike (fold(), db/store.ts).
// A database whose index was made without it gets it again when opened (FTS_TOKENIZE).
export const FTS_TOKENIZE = 'trigram remove_diacritics 1';
export const FTS = ['books', 'imports']
  .map(
    (t) => `
CREATE VIRTUAL TABLE IF NOT EXISTS ${t}_fts USING fts5(title, author, content='${t}', content_rowid='id', tokenize='${FTS_TOKENIZE}');
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
export const FTS_TABLES = ['books_fts', 'imports_fts'];
export const INDEX_NAMES = [...INDEXES.matchAll(/CREATE INDEX IF NOT EXISTS (\w+)/g)].map((m) => m[1]);

/** Every table, dependants first (the order `dropAll` drops them in). */
export const TABLES = [
  ...FTS_TABLES,
  'idempotency',
  'carts',
  'outbox',
  'imports',
  'codes',
  'reader_sessions',
  'reader_pages',
  'usage',
  'order_items',
  'orders',
  'users',
  'pricing',
  'books',
  'tokens',
  'labels',
  'account_publishers',
  'accounts',
  'publishers',
  'meta',
];

let digest: number | undefined;

/**
 * What `ensureSeeded` leaves in the database header (PRAGMA user_version) once it has found the
 * database seeded and its schema this version's: tables, indexes and text indexes of these very
 * statements, at SCHEMA_VERSION. A command's sandbox that reads it back checks nothing again and
 * never loads the seed (issue 31): two reads of the header instead of six statements. It is a
 * digest of the schema's text and version mixed with SQLite's schema cookie (`cookie`, PRAGMA
 * schema_version, which every CREATE, DROP or ALTER moves, and user_version does not): a database
 * stamped by another version, or whose schema anything changed since (an older bookdist's `sandbox
 * reset`, another tool), no longer matches and is checked as before. Never 0 (SQLite's default).
 */
export function schemaStamp(cookie: number): number {
  digest ??= Number.parseInt(hash('sha1', [SCHEMA_VERSION, SCHEMA, INDEXES, FTS].join('\0')).slice(0, 8), 16);
  return (Math.imul(digest ^ cookie, 0x9e3779b1) >>> 1 || 1) | 0;
}
