// A book's prices as a catalogue load writes them: added a few rows a statement, and
// deactivated (never deleted: orders refer to them) by id or all of a book's live ones.
import type { Store } from '../db/store.js';
import type { NewPriceRow } from './books.js';

/** Rows a price statement writes at once; its SQL by row count, made once (statements are cached by their text). */
const AT_ONCE = 8;
const listOf = (n: number, item: string) => Array.from({ length: n }, () => item).join(',');
const INSERT_PRICES = Array.from(
  { length: AT_ONCE + 1 },
  (_, n) =>
    `INSERT INTO pricing(book_id, currency, price, description, description_limit, is_limited, limit_days, other_pricing, deactivated_at)
     VALUES ${listOf(n, '(?,?,?,?,?,?,?,?,NULL)')}`,
);
const DEACTIVATE_PRICES = Array.from(
  { length: AT_ONCE + 1 },
  (_, n) => `UPDATE pricing SET deactivated_at = ? WHERE id IN (${listOf(n, '?')})`,
);

/** Add `rows` as prices of the book in one statement (a few rows a statement): ids in list order, as one at a time. */
export function insertPrices(store: Store, bookId: number, rows: NewPriceRow[]): void {
  for (let i = 0; i < rows.length; i += AT_ONCE) {
    const part = rows.slice(i, i + AT_ONCE);
    const values = part.flatMap((p) => [
      bookId,
      p.currency,
      p.price,
      p.description,
      p.description_limit,
      p.is_limited,
      p.limit_days,
      p.other_pricing,
    ]);
    store.run(INSERT_PRICES[part.length], ...values);
  }
}

/** Deactivate these prices, by id (kept: orders refer to them): no walk over the book's older prices. */
export function deactivatePrices(store: Store, ids: number[], now: number): void {
  for (let i = 0; i < ids.length; i += AT_ONCE)
    store.run(DEACTIVATE_PRICES[Math.min(AT_ONCE, ids.length - i)], now, ...ids.slice(i, i + AT_ONCE));
}

/** Deactivate every price of a book that is live at `now` (kept: orders refer to them). */
export function deactivateLivePrices(store: Store, bookId: number, now: number): void {
  store.run(
    'UPDATE pricing SET deactivated_at = ? WHERE book_id = ? AND (deactivated_at IS NULL OR deactivated_at > ?)',
    now,
    bookId,
    now,
  );
}
