// The SQL of reading usage (pages viewed and printed per user and book), which the refund rules read.
import type { Store } from '../db/store.js';

/** Usage with the book's length and hash id and the user's name, as the controls report it. */
export interface UsageReportRow {
  user_id: number;
  book_id: number;
  pages_viewed: number;
  pages_printed: number;
  first_access_at: number;
  num_pages: number;
  hash_id: string;
  username: string;
}

/** Add pages viewed and printed (the first record sets the time of first access). */
export function addUsage(
  store: Store,
  userId: number,
  bookId: number,
  viewed: number,
  printed: number,
  now: number,
): void {
  store.run(
    `INSERT INTO usage(user_id, book_id, pages_viewed, pages_printed, first_access_at) VALUES (?,?,?,?,?)
       ON CONFLICT(user_id, book_id) DO UPDATE SET pages_viewed = pages_viewed + excluded.pages_viewed,
         pages_printed = pages_printed + excluded.pages_printed`,
    userId,
    bookId,
    viewed,
    printed,
    now,
  );
}

export function usageReport(store: Store, userId: number, bookId: number): UsageReportRow | undefined {
  return store.get<UsageReportRow>(
    `SELECT us.*, b.num_pages, b.hash_id, x.username FROM usage us JOIN books b ON b.id = us.book_id JOIN users x ON x.id = us.user_id
     WHERE us.user_id = ? AND us.book_id = ?`,
    userId,
    bookId,
  );
}

/** Start counting a user's reading of a book (no-op when already counted). */
export function startUsage(store: Store, userId: number, bookId: number, now: number): void {
  store.run(
    `INSERT INTO usage(user_id, book_id, pages_viewed, pages_printed, first_access_at) VALUES (?,?,0,0,?) ON CONFLICT DO NOTHING`,
    userId,
    bookId,
    now,
  );
}

export function countPrinted(store: Store, userId: number, bookId: number): void {
  store.run('UPDATE usage SET pages_printed = pages_printed + 1 WHERE user_id = ? AND book_id = ?', userId, bookId);
}

/** Count a page viewed, once per distinct page. */
export function countViewed(store: Store, userId: number, bookId: number, page: number): void {
  const r = store.run(
    'INSERT INTO reader_pages(user_id, book_id, page) VALUES (?,?,?) ON CONFLICT DO NOTHING',
    userId,
    bookId,
    page,
  );
  if (r.changes)
    store.run('UPDATE usage SET pages_viewed = pages_viewed + 1 WHERE user_id = ? AND book_id = ?', userId, bookId);
}

export function usageCounts(
  store: Store,
  userId: number,
  bookId: number,
): { pages_viewed: number; pages_printed: number } | undefined {
  return store.get<{ pages_viewed: number; pages_printed: number }>(
    'SELECT pages_viewed, pages_printed FROM usage WHERE user_id = ? AND book_id = ?',
    userId,
    bookId,
  );
}
