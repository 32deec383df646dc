// A book's prices as a catalogue load writes them: added in record order, and
// deactivated (never deleted: orders refer to them) one by id or all of a book's live ones.
import type { Store } from '../db/store.js';
import type { NewPriceRow } from './books.js';

/**
 * Add `rows` as prices of the book, in order. One statement a row: a multi-row VALUES list cost
 * SQLite as much as the calls it saves (callgrind, 3,000-product load).
 */
export function insertPrices(store: Store, bookId: number, rows: NewPriceRow[]): void {
  for (const p of rows)
    store.run(
      `INSERT INTO pricing(book_id, currency, price, description, description_limit, is_limited, limit_days, other_pricing, deactivated_at)
     VALUES (?,?,?,?,?,?,?,?,NULL)`,
      bookId,
      p.currency,
      p.price,
      p.description,
      p.description_limit,
      p.is_limited,
      p.limit_days,
      p.other_pricing,
    );
}

/** Deactivate a price (kept: orders refer to it). */
export function deactivatePrice(store: Store, id: number, now: number): void {
  store.run('UPDATE pricing SET deactivated_at = ? WHERE id = ?', now, id);
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
