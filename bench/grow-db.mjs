// Grow a seeded sandbox database far past the seed, fast: bulk INSERT ... SELECT from a
// recursive counter, all in one transaction (a few seconds for 50,000 books). Used by the
// throughput bench (bench/sandbox-throughput.mjs) and by the query-plan test
// (test/sandbox/query-plans.test.ts), so both look at the same shape of data.
//
// Grown rows are valid under the schema's constraints and belong to the seeded accounts,
// publishers and users, so the service serves them like seeded ones (the partner's book list
// includes every grown book of publishers 1 and 2).
import { DatabaseSync } from 'node:sqlite';

export const GROW_DEFAULTS = {
  books: 50_000,
  users: 20_000,
  orders: 20_000,
  codes: 20_000,
  imports: 20_000,
  outbox: 20_000,
};

/**
 * Add rows to the database at `target` (a path, or an open DatabaseSync). Returns the counts
 * added. Ids continue after the seed's; values are unique where the schema says so.
 */
export function growSandboxDb(target, counts = {}) {
  const n = { ...GROW_DEFAULTS, ...counts };
  const db = typeof target === 'string' ? new DatabaseSync(target, { timeout: 30_000 }) : target;
  const seq = (count) =>
    `WITH RECURSIVE c(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM c WHERE k < ${Math.max(0, Math.floor(count))})`;
  const max = (table) => db.prepare(`SELECT coalesce(max(id), 0) AS m FROM ${table}`).get().m;
  db.exec('BEGIN IMMEDIATE');
  try {
    const b0 = max('books');
    const p0 = max('pricing');
    const u0 = max('users');
    const o0 = max('orders');
    const c0 = max('codes');
    const i0 = max('imports');
    // Books: publishers 1 and 2 in turn (the seeded partner's, so its list holds every grown book); ISBN-like unique digit strings (not checksummed: the
    // lookups match on the stored text), hash ids of 40 hex digits.
    db.exec(`${seq(n.books)}
      INSERT INTO books(id, hash_id, publisher_id, title, subtitle, description, author, language, num_pages, publish_year,
        isbn10, isbn13, eisbn10, eisbn13, parent_isbn, sku, distribution_type, copy_percent, offline_percent, sample_percent,
        offline_range, print_allowance_range, print_allowance_percent, sample_page_end,
        is_active, is_html, is_processed, is_public, is_published, is_queued, processed_at)
      SELECT ${b0} + k, printf('%040x', 0xb00c000000 + ${b0} + k), 1 + (k % 2),
        'Grown Volume ' || k || ' of the ' || (CASE k % 4 WHEN 0 THEN 'River' WHEN 1 THEN 'Harbour' WHEN 2 THEN 'Mountain' ELSE 'Forest' END) || ' Series',
        '', 'A generated book for scale tests.', 'Author ' || (k % 997), 'en', 100 + (k % 400), 2000 + (k % 25),
        printf('8%09d', ${b0} + k), printf('9798%09d', ${b0} + k), printf('7%09d', ${b0} + k), printf('9797%09d', ${b0} + k),
        printf('9798%09d', ${b0} + k), printf('GRW-%08d', ${b0} + k), 'standard', 20, 100, 10,
        'unlimited', '30 days', 20, 10, 1, 0, 1, 1, 1, 0, 1700000000000
      FROM c`);
    // Two prices per book: lifetime and a 90-day rental.
    db.exec(`${seq(n.books * 2)}
      INSERT INTO pricing(id, book_id, currency, price, description, description_limit, is_limited, limit_days, other_pricing)
      SELECT ${p0} + k, ${b0} + (k + 1) / 2, 'USD', CASE k % 2 WHEN 1 THEN '12.99' ELSE '4.99' END,
        CASE k % 2 WHEN 1 THEN 'Digital edition (lifetime access)' ELSE '90-day rental' END,
        CASE k % 2 WHEN 1 THEN 'Unlimited access' ELSE 'Access for 90 days' END,
        1 - k % 2, CASE k % 2 WHEN 1 THEN 0 ELSE 90 END, CASE k % 2 WHEN 1 THEN NULL ELSE 'LIMITED' END
      FROM c`);
    db.exec(`${seq(n.users)}
      INSERT INTO users(id, username, email, first_name, last_name, password_hash, owner_account_id, verified, date_joined)
      SELECT ${u0} + k, printf('%030x', 0xfeed000000 + ${u0} + k), 'grown' || (${u0} + k) || '@example.com', 'Grown', 'User ' || k,
        'x', 1, 1, 1700000000000
      FROM c`);
    // Orders of one item each, by the partner, for grown users and books.
    db.exec(`${seq(n.orders)}
      INSERT INTO orders(id, account_id, user_id, kind, order_number, order_type, org, is_complete, created_at)
      SELECT ${o0} + k, 1, ${u0} + 1 + (k % ${Math.max(1, n.users)}), 'external', 'G' || (${o0} + k), 'TestPlan', 'grown', 1, 1700000000000 + k
      FROM c`);
    db.exec(`${seq(n.orders)}
      INSERT INTO order_items(order_id, user_id, book_id, pricing_id, source, purchase_price, quantity, is_digital, is_print,
        is_active, is_refunded, purchase_date)
      SELECT ${o0} + k, ${u0} + 1 + (k % ${Math.max(1, n.users)}), ${b0} + 1 + (k % ${Math.max(1, n.books)}),
        ${p0} + 1 + 2 * (k % ${Math.max(1, n.books)}), 'external', '12.99', 1, 1, 0, 1, 0, 1700000000000 + k
      FROM c`);
    db.exec(`${seq(n.codes)}
      INSERT INTO codes(id, code, account_id, book_id, org, limit_days, samples, created_at)
      SELECT ${c0} + k, printf('G%013d', ${c0} + k), 1, ${b0} + 1 + (k % ${Math.max(1, n.books)}), 'grown', 0, 0, 1700000000000
      FROM c`);
    db.exec(`${seq(n.imports)}
      INSERT INTO imports(id, title, author, publisher, edition_number, book_id, isbn10, isbn13, eisbn10, eisbn13, deleted, file_received, imported)
      SELECT ${i0} + k, 'Grown Import ' || k, 'Importer ' || (k % 97), 'Harbor Lane Press', 1, 900000 + k,
        printf('6%09d', ${i0} + k), printf('9796%09d', ${i0} + k), printf('5%09d', ${i0} + k), printf('9795%09d', ${i0} + k), 0, 1, 0
      FROM c`);
    db.exec(`${seq(n.outbox)}
      INSERT INTO outbox(recipients, subject, body, kind, created_at)
      SELECT '["grown@example.com"]', 'Grown mail ' || k, 'body', 'grown', 1700000000000 + k FROM c`);
    db.exec('COMMIT');
  } catch (err) {
    try {
      db.exec('ROLLBACK');
    } catch {
      /* already rolled back */
    }
    throw err;
  } finally {
    if (typeof target === 'string') db.close();
  }
  return n;
}
