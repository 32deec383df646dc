// The SQL of digital prices as the orders, offers and carts read them, as typed rows. (The
// catalogue loader's writes of prices are in ./books.ts.)
import type { Store } from '../db/store.js';

export interface PricingRow {
  id: number;
  book_id: number;
  currency: string;
  price: string;
  description: string;
  description_limit: string;
  is_limited: number;
  limit_days: number;
  other_pricing: string | null;
  deactivated_at: number | null;
}

/** A price with what an order needs to know of its book. */
export interface PricingWithBookRow extends PricingRow {
  hash_id: string;
  /** The book's title and page count, as an order's items show them. */
  title: string;
  num_pages: number;
  book_active: number;
  is_published: number;
  distribution_type: 'standard' | 'code';
}

export function pricingWithBook(store: Store, id: number): PricingWithBookRow | undefined {
  return store.get<PricingWithBookRow>(
    'SELECT p.*, b.hash_id, b.title, b.num_pages, b.is_active AS book_active, b.is_published, b.distribution_type FROM pricing p JOIN books b ON b.id = p.book_id WHERE p.id = ?',
    id,
  );
}

/** The book's prices that are not deactivated at `now`, in id order. */
export function offeredPrices(store: Store, bookId: number, now: number): PricingRow[] {
  return store.all<PricingRow>(
    'SELECT * FROM pricing WHERE book_id = ? AND (deactivated_at IS NULL OR deactivated_at > ?) ORDER BY id',
    bookId,
    now,
  );
}

export function pricingExists(store: Store, id: number): boolean {
  return !!store.get('SELECT 1 FROM pricing WHERE id = ?', id);
}

/** Every price of a book (deactivated ones too), in id order. */
export function pricesOfBook(store: Store, bookId: number): PricingRow[] {
  return store.all<PricingRow>('SELECT * FROM pricing WHERE book_id = ? ORDER BY id', bookId);
}

/** Every price of these books, by book then id. */
export function pricesOfBooks(store: Store, bookIds: number[]): PricingRow[] {
  return store.all<PricingRow>(
    'SELECT * FROM pricing WHERE book_id IN (SELECT value FROM json_each(?)) ORDER BY book_id, id',
    JSON.stringify(bookIds),
  );
}
