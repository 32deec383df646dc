// The SQL of orders, their items (purchases and access grants) and reading usage, as typed rows.
// The rules (refund windows, what a grant replaces) live in ../domain/orders.ts and ../domain/access.ts.
import type { Store } from '../db/store.js';

type OrderKind = 'external' | 'free' | 'access' | 'code';

export interface OrderRow {
  id: number;
  account_id: number;
  user_id: number;
  kind: OrderKind;
  order_number: string | null;
  order_type: string | null;
  org: string | null;
  label_id: number | null;
  billing_address: string | null;
  shipping_address: string | null;
  is_complete: number;
  created_at: number;
}

export interface ItemRow {
  id: number;
  order_id: number;
  user_id: number;
  book_id: number;
  pricing_id: number | null;
  source: OrderKind;
  purchase_price: string;
  quantity: number;
  is_digital: number;
  is_print: number;
  is_active: number;
  is_refunded: number;
  purchase_date: number;
  expiration_date: number | null;
  refunded_at: number | null;
  revoked_at: number | null;
  access_email: string | null;
}

/** An item with what its views show of its book, user and price (ITEM_SELECT). */
export interface ItemJoinRow extends ItemRow {
  book_hash_id: string;
  book_title: string;
  book_num_pages: number;
  user_username: string;
  user_first: string;
  user_last: string;
  pricing_description: string | null;
  pricing_currency: string | null;
}

export interface UsageRow {
  user_id: number;
  book_id: number;
  pages_viewed: number;
  pages_printed: number;
  first_access_at: number;
}

const ITEM_SELECT = `SELECT i.*, bk.hash_id AS book_hash_id, bk.title AS book_title, bk.num_pages AS book_num_pages,
  u.username AS user_username, u.first_name AS user_first, u.last_name AS user_last,
  p.description AS pricing_description, p.currency AS pricing_currency
  FROM order_items i JOIN books bk ON bk.id = i.book_id JOIN users u ON u.id = i.user_id
  LEFT JOIN pricing p ON p.id = i.pricing_id`;

export interface NewOrder {
  account: number;
  user: number;
  kind: OrderKind;
  number?: string;
  type?: string;
  org?: string;
  label?: number;
  billing?: unknown;
  shipping?: unknown;
  now: number;
}

/** A complete order (the sandbox has no carts in progress on the API). */
export function insertOrder(store: Store, o: NewOrder): number {
  return store.run(
    `INSERT INTO orders(account_id, user_id, kind, order_number, order_type, org, label_id, billing_address, shipping_address, is_complete, created_at)
     VALUES (?,?,?,?,?,?,?,?,?,1,?)`,
    o.account,
    o.user,
    o.kind,
    o.number ?? null,
    o.type ?? null,
    o.org ?? null,
    o.label ?? null,
    o.billing ? JSON.stringify(o.billing) : null,
    o.shipping ? JSON.stringify(o.shipping) : null,
    o.now,
  ).lastInsertRowid;
}

export interface NewItem {
  order: number;
  user: number;
  book: number;
  pricing?: number;
  source: OrderKind;
  price: string;
  now: number;
  expires?: number | null;
  email?: string;
}

/**
 * One digital copy, active and not refunded: inserted, and returned as the row now stored (what
 * `SELECT *` would read back; test/sandbox/order-cost.test.ts compares them).
 */
export function insertItem(store: Store, i: NewItem): ItemRow {
  const row: ItemRow = {
    id: 0,
    order_id: i.order,
    user_id: i.user,
    book_id: i.book,
    pricing_id: i.pricing ?? null,
    source: i.source,
    purchase_price: i.price,
    quantity: 1,
    is_digital: 1,
    is_print: 0,
    is_active: 1,
    is_refunded: 0,
    purchase_date: i.now,
    expiration_date: i.expires ?? null,
    refunded_at: null,
    revoked_at: null,
    access_email: i.email ?? null,
  };
  row.id = store.run(
    `INSERT INTO order_items(order_id, user_id, book_id, pricing_id, source, purchase_price, quantity, is_digital, is_print,
       is_active, is_refunded, purchase_date, expiration_date, access_email)
     VALUES (?,?,?,?,?,?,1,1,0,1,0,?,?,?)`,
    row.order_id,
    row.user_id,
    row.book_id,
    row.pricing_id,
    row.source,
    row.purchase_price,
    row.purchase_date,
    row.expiration_date,
    row.access_email,
  ).lastInsertRowid;
  return row;
}

/** An item with what ITEM_SELECT joins to it, from rows already read: its book, its user and its price (null for none). */
export function joinedItem(
  item: ItemRow,
  book: { hash_id: string; title: string; num_pages: number },
  user: { username: string; first_name: string; last_name: string },
  pricing: { description: string; currency: string } | null,
): ItemJoinRow {
  return {
    ...item,
    book_hash_id: book.hash_id,
    book_title: book.title,
    book_num_pages: book.num_pages,
    user_username: user.username,
    user_first: user.first_name,
    user_last: user.last_name,
    pricing_description: pricing ? pricing.description : null,
    pricing_currency: pricing ? pricing.currency : null,
  };
}

export function orderById(store: Store, id: number): OrderRow | undefined {
  return store.get<OrderRow>('SELECT * FROM orders WHERE id = ?', id);
}

/** The account's order with this id (another account's is not found). */
export function orderOfAccount(store: Store, id: number, accountId: number): OrderRow | undefined {
  return store.get<OrderRow>('SELECT * FROM orders WHERE id = ? AND account_id = ?', id, accountId);
}

export function orderByNumber(store: Store, accountId: number, orderNumber: string): OrderRow | undefined {
  return store.get<OrderRow>('SELECT * FROM orders WHERE account_id = ? AND order_number = ?', accountId, orderNumber);
}

/** The user's complete orders, oldest first. */
export function ordersOfUser(store: Store, userId: number): OrderRow[] {
  return store.all<OrderRow>('SELECT * FROM orders WHERE user_id = ? AND is_complete = 1 ORDER BY id', userId);
}

export function itemsOfOrder(store: Store, orderId: number): ItemJoinRow[] {
  return store.all<ItemJoinRow>(`${ITEM_SELECT} WHERE i.order_id = ? ORDER BY i.id`, orderId);
}

/** The user's item with this id (another user's is not found). */
export function itemOfUser(store: Store, id: number, userId: number): ItemJoinRow | undefined {
  return store.get<ItemJoinRow>(`${ITEM_SELECT} WHERE i.id = ? AND i.user_id = ?`, id, userId);
}

/** Every item (live or not) of a user and a book. */
export function itemsOfUserBook(store: Store, userId: number, bookId: number): ItemRow[] {
  return store.all<ItemRow>('SELECT * FROM order_items WHERE user_id = ? AND book_id = ?', userId, bookId);
}

export function refundItem(store: Store, id: number, now: number): void {
  store.run('UPDATE order_items SET is_refunded = 1, is_active = 0, refunded_at = ? WHERE id = ?', now, id);
}

export function usageOf(store: Store, userId: number, bookId: number): UsageRow | undefined {
  return store.get<UsageRow>('SELECT * FROM usage WHERE user_id = ? AND book_id = ?', userId, bookId);
}

/** Close the user's access grants of a book that expired by `now` (they no longer count). */
export function closeExpiredGrants(store: Store, userId: number, bookId: number, now: number): void {
  store.run(
    `UPDATE order_items SET is_active = 0 WHERE source = 'access' AND is_active = 1 AND user_id = ? AND book_id = ?
         AND expiration_date IS NOT NULL AND expiration_date <= ?`,
    userId,
    bookId,
    now,
  );
}

export function hasActiveGrant(store: Store, userId: number, bookId: number): boolean {
  return !!store.get(
    `SELECT 1 FROM order_items WHERE source = 'access' AND is_active = 1 AND user_id = ? AND book_id = ?`,
    userId,
    bookId,
  );
}

/** Revoke the user's live grant of a book; false when there was none. */
export function revokeGrant(store: Store, userId: number, bookId: number, now: number): boolean {
  const r = store.run(
    `UPDATE order_items SET is_active = 0, revoked_at = ? WHERE source = 'access' AND is_active = 1 AND user_id = ? AND book_id = ?
         AND (expiration_date IS NULL OR expiration_date > ?)`,
    now,
    userId,
    bookId,
    now,
  );
  return r.changes > 0;
}

/** Every item of a user and a book, newest first. */
export function itemsOfUserBookNewestFirst(store: Store, userId: number, bookId: number): ItemRow[] {
  return store.all<ItemRow>(
    'SELECT * FROM order_items WHERE user_id = ? AND book_id = ? ORDER BY id DESC',
    userId,
    bookId,
  );
}

export function orderIdByNumber(store: Store, accountId: number, orderNumber: string): number | undefined {
  return store.get<{ id: number }>(
    'SELECT id FROM orders WHERE account_id = ? AND order_number = ?',
    accountId,
    orderNumber,
  )?.id;
}
