// The SQL of the seed: the fixed rows every new sandbox database starts with, written with their
// ids. What the rows hold (the seed's books, accounts, users) lives in ../seed.ts.
import type { Store } from '../db/store.js';
import type { AccountRow } from './accounts.js';
import type { BookRow } from './books.js';
import type { PricingRow } from './pricing.js';
import type { PublisherFullRow } from './publishers.js';
import type { ImportRow } from './search.js';
import type { UserRow } from './users.js';

export function insertSeedPublisher(store: Store, p: PublisherFullRow): void {
  store.run(
    'INSERT INTO publishers(id, title, description, is_active) VALUES (?,?,?,?)',
    p.id,
    p.title,
    p.description,
    p.is_active,
  );
}

/** An account, its publishers and its white label. */
export function insertSeedAccount(
  store: Store,
  a: AccountRow,
  publishers: readonly number[],
  label: { subdomain: string; member_email: string },
): void {
  store.run(
    `INSERT INTO accounts(id, role, username, email, full_name, public_key, private_key, shared_key, scopes,
        address_1, address_2, city, country, nickname, state, zip) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
    a.id,
    a.role,
    a.username,
    a.email,
    a.full_name,
    a.public_key,
    a.private_key,
    a.shared_key,
    a.scopes,
    a.address_1,
    a.address_2,
    a.city,
    a.country,
    a.nickname,
    a.state,
    a.zip,
  );
  for (const p of publishers)
    store.run('INSERT INTO account_publishers(account_id, publisher_id) VALUES (?,?)', a.id, p);
  store.run(
    'INSERT INTO labels(account_id, subdomain, member_email) VALUES (?,?,?)',
    a.id,
    label.subdomain,
    label.member_email,
  );
}

export function insertSeedToken(store: Store, token: string, accountId: number): void {
  store.run('INSERT INTO tokens(token, account_id) VALUES (?, ?)', token, accountId);
}

export type SeedBookRow = Omit<BookRow, 'queue_urgent' | 'processing_started_at' | 'loaded_at'>;

export function insertSeedBook(store: Store, b: SeedBookRow): void {
  store.run(
    `INSERT INTO books(id, hash_id, publisher_id, title, subtitle, description, author, language, num_pages, publish_year,
        isbn10, isbn13, eisbn10, eisbn13, parent_isbn, sku, distribution_type, copy_percent, offline_percent, sample_percent,
        offline_range, print_allowance_range, print_allowance_percent, sample_page_end,
        is_active, is_html, is_processed, is_public, is_published, is_queued, processed_at, queued_at, queue_seq, queue_hold)
       VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
    b.id,
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
    b.distribution_type,
    b.copy_percent,
    b.offline_percent,
    b.sample_percent,
    b.offline_range,
    b.print_allowance_range,
    b.print_allowance_percent,
    b.sample_page_end,
    b.is_active,
    b.is_html,
    b.is_processed,
    b.is_public,
    b.is_published,
    b.is_queued,
    b.processed_at,
    b.queued_at,
    b.queue_seq,
    b.queue_hold,
  );
}

export function insertSeedPrice(store: Store, p: PricingRow): void {
  store.run(
    `INSERT INTO pricing(id, book_id, currency, price, description, description_limit, is_limited, limit_days, other_pricing, deactivated_at)
         VALUES (?,?,?,?,?,?,?,?,?,?)`,
    p.id,
    p.book_id,
    p.currency,
    p.price,
    p.description,
    p.description_limit,
    p.is_limited,
    p.limit_days,
    p.other_pricing,
    p.deactivated_at,
  );
}

export function insertSeedImport(store: Store, im: ImportRow): void {
  store.run(
    `INSERT INTO imports(id, title, author, publisher, edition_number, book_id, isbn10, isbn13, eisbn10, eisbn13, deleted, file_received, imported)
       VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`,
    im.id,
    im.title,
    im.author,
    im.publisher,
    im.edition_number,
    im.book_id,
    im.isbn10,
    im.isbn13,
    im.eisbn10,
    im.eisbn13,
    im.deleted,
    im.file_received,
    im.imported,
  );
}

export type SeedUserRow = Pick<
  UserRow,
  | 'id'
  | 'username'
  | 'email'
  | 'first_name'
  | 'last_name'
  | 'password_hash'
  | 'owner_account_id'
  | 'date_joined'
  | 'last_login'
  | 'city'
  | 'country'
  | 'nickname'
>;

/** A verified user. */
export function insertSeedUser(store: Store, u: SeedUserRow): void {
  store.run(
    `INSERT INTO users(id, username, email, first_name, last_name, password_hash, owner_account_id, verified, date_joined, last_login, city, country, nickname)
       VALUES (?,?,?,?,?,?,?,1,?,?,?,?,?)`,
    u.id,
    u.username,
    u.email,
    u.first_name,
    u.last_name,
    u.password_hash,
    u.owner_account_id,
    u.date_joined,
    u.last_login,
    u.city,
    u.country,
    u.nickname,
  );
}

/** New keys for every account of `role` (a workspace copied from a snapshot gets its own). */
export function replaceAccountKeys(
  store: Store,
  role: string,
  k: { publicKey: string; privateKey: string; sharedKey: string },
): void {
  store.run(
    'UPDATE accounts SET public_key = ?, private_key = ?, shared_key = ? WHERE role = ?',
    k.publicKey,
    k.privateKey,
    k.sharedKey,
    role,
  );
}

/** Drop every operator token (the copy's old ones belong to the database it was copied from). */
export function deleteTokens(store: Store): void {
  store.run('DELETE FROM tokens');
}
