// The SQL of carts (the storefront's checkout links and their lines) and reader sessions: short-lived rows named by a token.
import type { Store } from '../db/store.js';
import type { PricingRow } from './pricing.js';

export interface NewCartRow {
  token: string;
  pricing_ids: number[];
  rejoiner_ids: string;
  created_at: number;
}

export function insertCart(store: Store, c: NewCartRow): void {
  store.run(
    'INSERT INTO carts(token, pricing_ids, rejoiner_ids, created_at) VALUES (?,?,?,?)',
    c.token,
    JSON.stringify(c.pricing_ids),
    c.rejoiner_ids,
    c.created_at,
  );
}

export function insertReaderSession(store: Store, token: string, userId: number, bookId: number, now: number): void {
  store.run(
    'INSERT INTO reader_sessions(token, user_id, book_id, created_at) VALUES (?,?,?,?)',
    token,
    userId,
    bookId,
    now,
  );
}

export interface CartRow {
  token: string;
  /** A JSON array of price ids. */
  pricing_ids: string;
  rejoiner_ids: string;
  created_at: number;
}

export function cartByToken(store: Store, token: string): CartRow | undefined {
  return store.get<CartRow>('SELECT * FROM carts WHERE token = ?', token);
}

/** A line of a cart: the price with its book's title, author and hash id. */
export interface CartLineRow extends PricingRow {
  title: string;
  author: string;
  hash_id: string;
}

export function cartLine(store: Store, pricingId: number): CartLineRow | undefined {
  return store.get<CartLineRow>(
    'SELECT p.*, b.title, b.author, b.hash_id FROM pricing p JOIN books b ON b.id = p.book_id WHERE p.id = ?',
    pricingId,
  );
}

/** A reader session with what the reader shows of its book. */
export interface ReaderSessionRow {
  token: string;
  user_id: number;
  book_id: number;
  created_at: number;
  title: string;
  subtitle: string;
  author: string;
  num_pages: number;
  hash_id: string;
}

export function readerSession(store: Store, token: string): ReaderSessionRow | undefined {
  return store.get<ReaderSessionRow>(
    'SELECT s.*, b.title, b.subtitle, b.author, b.num_pages, b.hash_id FROM reader_sessions s JOIN books b ON b.id = s.book_id WHERE token = ?',
    token,
  );
}
