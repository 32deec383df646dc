// The SQL of carts (the storefront's checkout links) and reader sessions: short-lived rows named by a token.
import type { Store } from '../db/store.js';

export interface NewCartRow {
  token: string;
  pricing_ids: number[];
  rejoiner_ids: string;
  created_at: number;
}

export function insertCart(store: Store, c: NewCartRow): void {
  store.run('INSERT INTO carts(token, pricing_ids, rejoiner_ids, created_at) VALUES (?,?,?,?)', c.token, JSON.stringify(c.pricing_ids), c.rejoiner_ids, c.created_at);
}

export function insertReaderSession(store: Store, token: string, userId: number, bookId: number, now: number): void {
  store.run('INSERT INTO reader_sessions(token, user_id, book_id, created_at) VALUES (?,?,?,?)', token, userId, bookId, now);
}
