// The service's rules (interface.md + decisions.md): one handler per endpoint of the table,
// each write in one transaction.
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { ENDPOINTS } from '../spec/endpoints.js';
import { openApiDocument } from '../spec/openapi.js';
import type { Caller } from './auth.js';
import { bad, HttpError, notFound } from './http.js';
import { normalizeIsbn, toIsbn13 } from './isbn.js';
import type { Row, Store } from './db/store.js';
import { DAY, cents, hashPassword, isEmail, isoTime, money, randomCode, randomHex, randomPassword } from './util.js';
import { paging, type Payload } from './validate.js';
import { bookView, bookViews, fullName, ITEM_SELECT, itemLive, itemView, userView } from './views.js';

export interface HandlerCtx {
  store: Store;
  caller?: Caller;
  payload: Payload;
  params: Record<string, string>;
  query: URLSearchParams;
  now: number;
  /** `http://host:port` as the client addressed the server. */
  origin: string;
  hostName: string;
  /** Poke the processing worker (a book was queued). */
  queued(): void;
  /** The request's Idempotency-Key header, if any (honoured by code generation and free orders). */
  idempotencyKey?: string;
}

export interface HandlerResult {
  status?: number;
  body: Record<string, unknown>;
  /** Send `body` as it is, without the envelope (the OpenAPI document). */
  raw?: boolean;
  headers?: Record<string, string>;
}

type Handler = (c: HandlerCtx) => HandlerResult | Record<string, unknown>;

const ok = (body: Record<string, unknown>, status = 200): HandlerResult => ({ status, body });

// ---------------------------------------------------------------- lookups

export function bookByHash(store: Store, hashId: string | undefined): Row {
  const b = hashId ? store.get('SELECT * FROM books WHERE hash_id = ?', hashId.toLowerCase()) : undefined;
  if (!b) throw notFound('Book not found');
  return b;
}

export function bookByIsbn(store: Store, isbn: string): Row | undefined {
  const v = normalizeIsbn(isbn);
  if (!v || v.length > 20) return undefined;
  const v13 = toIsbn13(v);
  // The first book (lowest id) any of whose ISBNs is this one: min(id) over the index probes,
  // then the one row (ORDER BY id LIMIT 1 sorted the matches in a temporary b-tree first).
  return store.get(
    `SELECT * FROM books WHERE id = (SELECT min(id) FROM books WHERE isbn13 IN (?1, ?2) OR eisbn13 IN (?1, ?2) OR isbn10 = ?1 OR eisbn10 = ?1 OR parent_isbn = ?1)`,
    v, v13,
  );
}

export function userByUsername(store: Store, username: string | undefined): Row {
  const u = username ? store.get('SELECT * FROM users WHERE username = ?', username.toLowerCase()) : undefined;
  if (!u) throw notFound('User not found');
  return u;
}

function controls(store: Store, caller: Caller, book: Row): boolean {
  return !!store.get('SELECT 1 FROM account_publishers WHERE account_id = ? AND publisher_id = ?', caller.account.id, book.publisher_id);
}

function requireControl(store: Store, caller: Caller, book: Row): void {
  if (!controls(store, caller, book)) throw new HttpError(401, 'Not Authorized for Book');
}

function labelOf(store: Store, caller: Caller, label: string | undefined): Row | undefined {
  if (label === undefined || label === '') return undefined;
  const row = store.get('SELECT * FROM labels WHERE subdomain = ? AND account_id = ?', label.toLowerCase(), caller.account.id);
  if (!row) throw bad(`Label "${label}" is not a white label under your control.`);
  return row;
}

// ---------------------------------------------------------------- outbox

export function sendMail(store: Store, now: number, to: string[], subject: string, body: string, kind: string): void {
  store.run('INSERT INTO outbox(recipients, subject, body, kind, created_at) VALUES (?,?,?,?,?)', JSON.stringify(to), subject, body, kind, now);
}

function labelRecipients(store: Store, caller: Caller, label: Row | undefined): string[] {
  return [label ? label.member_email : caller.account.email];
}

// ---------------------------------------------------------------- orders and refunds

/** Why an item cannot be refunded now, or null when it can (decisions.md, Refunds). */
export function refundProblem(store: Store, item: Row, now: number): string | null {
  if (now > item.purchase_date + 30 * DAY) return 'the refund window of 30 days after purchase has passed';
  const usage = store.get('SELECT * FROM usage WHERE user_id = ? AND book_id = ?', item.user_id, item.book_id);
  if (usage) {
    if (now > usage.first_access_at + 14 * DAY) return 'more than 14 days have passed since first access';
    const pages = item.book_num_pages ?? store.get('SELECT num_pages FROM books WHERE id = ?', item.book_id)!.num_pages;
    if (usage.pages_viewed * 10 > pages) return 'more than 10% of the book was viewed';
    if (usage.pages_printed > 0) return 'pages were printed';
  }
  return null;
}

export function refundAvailable(store: Store, item: Row, now: number): boolean {
  return item.is_refunded === 0 && refundProblem(store, item, now) === null;
}

function orderItems(store: Store, orderId: number): Row[] {
  return store.all(`${ITEM_SELECT} WHERE i.order_id = ? ORDER BY i.id`, orderId);
}

function sumCents(items: Row[]): number {
  return items.reduce((s, i) => s + cents(i.purchase_price) * i.quantity, 0);
}

/** The order as returned on creation: totals are numbers. */
function createdOrderView(store: Store, order: Row, now: number): Record<string, unknown> {
  const items = orderItems(store, order.id);
  const user = store.get('SELECT username FROM users WHERE id = ?', order.user_id)!;
  const subtotal = sumCents(items) / 100;
  return {
    id: order.id,
    username: user.username,
    is_complete: order.is_complete === 1,
    item_count: items.length,
    items: items.map((i) => itemView(i, now)),
    totals: { subtotal, taxes: 0, shipping: 0, total: subtotal },
  };
}

/** The order as listed: totals are decimal strings; items say whether a refund is available. */
function listedOrderView(store: Store, order: Row, now: number): Record<string, unknown> {
  const items = orderItems(store, order.id);
  const user = store.get('SELECT username FROM users WHERE id = ?', order.user_id)!;
  const subtotal = money(sumCents(items));
  return {
    id: order.id,
    username: user.username,
    is_complete: order.is_complete === 1,
    item_count: items.length,
    items: items.map((i) => itemView(i, now, refundAvailable(store, i, now))),
    totals: { subtotal, discount: '0.00', taxes: '0.00', shipping_fee: '0.00', processing_fee: '0.00', total: subtotal },
  };
}

function insertOrder(
  store: Store,
  o: { account: number; user: number; kind: string; number?: string; type?: string; org?: string; label?: number; billing?: unknown; shipping?: unknown; now: number },
): number {
  return store.run(
    `INSERT INTO orders(account_id, user_id, kind, order_number, order_type, org, label_id, billing_address, shipping_address, is_complete, created_at)
     VALUES (?,?,?,?,?,?,?,?,?,1,?)`,
    o.account, o.user, o.kind, o.number ?? null, o.type ?? null, o.org ?? null, o.label ?? null,
    o.billing ? JSON.stringify(o.billing) : null, o.shipping ? JSON.stringify(o.shipping) : null, o.now,
  ).lastInsertRowid;
}

function insertItem(
  store: Store,
  i: { order: number; user: number; book: number; pricing?: number; source: string; price: string; now: number; expires?: number | null; email?: string },
): number {
  return store.run(
    `INSERT INTO order_items(order_id, user_id, book_id, pricing_id, source, purchase_price, quantity, is_digital, is_print,
       is_active, is_refunded, purchase_date, expiration_date, access_email)
     VALUES (?,?,?,?,?,?,1,1,0,1,0,?,?,?)`,
    i.order, i.user, i.book, i.pricing ?? null, i.source, i.price, i.now, i.expires ?? null, i.email ?? null,
  ).lastInsertRowid;
}

const ORDER_TYPES = new Set(['TestPlan', 'ExternalPlan']);

function orderExternal(c: HandlerCtx): HandlerResult {
  const { store, payload: p, now } = c;
  const caller = c.caller!;
  const user = userByUsername(store, p.username);
  const ids: number[] = p.digital_pricing;
  if (ids.length === 0) throw bad('Field "digital_pricing" must list at least one pricing id.');
  const addr = p.billing_address as Record<string, string>;
  const named = !!addr.full_name?.trim() || (!!addr.first_name?.trim() && !!addr.last_name?.trim());
  if (!named || !addr.postal_code?.trim() || !addr.country?.trim()) {
    throw bad('Field "billing_address" needs full_name (or first_name and last_name), postal_code and country.');
  }
  if (!ORDER_TYPES.has(p.order_type)) throw bad(`${p.order_type} is not currently supported.`);
  const number: string | undefined = p.order_number === '' ? undefined : p.order_number;
  if (number !== undefined && number.length > 20) throw bad('Field "order_number" must be at most 20 characters.');
  const label = labelOf(store, caller, p.label);
  const prices = ids.map((id) => {
    const row = store.get('SELECT p.*, b.hash_id, b.is_active AS book_active, b.is_published, b.distribution_type FROM pricing p JOIN books b ON b.id = p.book_id WHERE p.id = ?', id);
    if (!row) throw bad(`Unknown pricing id ${id} in "digital_pricing".`);
    if (row.deactivated_at !== null && row.deactivated_at <= now) throw bad(`Pricing ${id} is deactivated.`);
    if (!row.book_active) throw bad(`Book ${row.hash_id} is not active.`);
    if (!row.is_published) throw bad(`Book ${row.hash_id} is not published.`);
    if (row.distribution_type === 'code') throw bad(`Book ${row.hash_id} is distributed by redemption code only.`);
    return row;
  });
  return store.tx(() => {
    if (number !== undefined) {
      const existing = store.get('SELECT * FROM orders WHERE account_id = ? AND order_number = ?', caller.account.id, number);
      if (existing) return ok({ message: 'Order already exists.', order: createdOrderView(store, existing, now) });
    }
    const orderId = insertOrder(store, {
      account: caller.account.id, user: user.id, kind: 'external', number, type: p.order_type, org: p.org, label: label?.id,
      billing: addr, shipping: p.shipping_address, now,
    });
    for (const pr of prices) {
      insertItem(store, {
        order: orderId, user: user.id, book: pr.book_id, pricing: pr.id, source: 'external', price: pr.price, now,
        expires: pr.is_limited ? now + pr.limit_days * DAY : null,
      });
    }
    const order = store.get('SELECT * FROM orders WHERE id = ?', orderId)!;
    const view = createdOrderView(store, order, now);
    if (p.send_email !== false) {
      sendMail(store, now, labelRecipients(store, caller, label), `Order ${number ?? orderId} for ${fullName(user) || user.email}`,
        `Order ${orderId} (${p.order_type}, org ${p.org}) for ${user.email}: ${prices.length} item(s), total ${money(sumCents(orderItems(store, orderId)))}.`,
        'order.external');
    }
    return ok({ message: 'Order created.', order: view });
  });
}

function orderFree(c: HandlerCtx): HandlerResult {
  const { store, payload: p, now } = c;
  const caller = c.caller!;
  const user = userByUsername(store, p.username);
  const book = bookByHash(store, p.hash_id);
  if (p.expiration_date !== undefined && p.expiration_date <= now) throw bad('Field "expiration_date" must be in the future.');
  const label = labelOf(store, caller, p.label);
  return idempotent(c, 'order.free', () => {
    const orderId = insertOrder(store, { account: caller.account.id, user: user.id, kind: 'free', label: label?.id, now });
    insertItem(store, { order: orderId, user: user.id, book: book.id, source: 'free', price: '0.00', now, expires: p.expiration_date ?? null });
    sendMail(store, now, labelRecipients(store, caller, label), `Free access to "${book.title}"`,
      `${user.email} was given free access to "${book.title}"` + (p.expiration_date ? ` until ${isoTime(p.expiration_date)}.` : '.'),
      'order.free');
    const order = store.get('SELECT * FROM orders WHERE id = ?', orderId)!;
    return ok({ message: 'Free order created.', order: createdOrderView(store, order, now) });
  });
}

function orderRefund(c: HandlerCtx): HandlerResult {
  const { store, payload: p, now } = c;
  const caller = c.caller!;
  const orderId: number | undefined = p.order_id ?? p.id;
  if (orderId === undefined) throw bad('Field "order_id" is required.');
  if (p.order_id !== undefined && p.id !== undefined && p.order_id !== p.id) throw bad('Fields "order_id" and "id" name different orders.');
  if (p.type !== undefined && p.type !== 'refund') throw bad(`Field "type" must be "refund".`);
  return store.tx(() => {
    const order = store.get('SELECT * FROM orders WHERE id = ? AND account_id = ?', orderId, caller.account.id);
    if (!order) throw notFound('Order not found');
    const all = orderItems(store, order.id);
    let named = all;
    // No items, or an empty list (the reference clients' default `items=[]`): the whole order.
    if (p.items !== undefined && p.items.length > 0) {
      named = [];
      for (const id of p.items as number[]) {
        const it = all.find((i) => i.id === id);
        if (!it) throw bad(`Item ${id} is not part of order ${order.id}.`);
        if (!named.includes(it)) named.push(it);
      }
    }
    for (const it of named) {
      if (it.is_refunded) continue;
      const why = refundProblem(store, it, now);
      if (why) throw new HttpError(403, `Item ${it.id} cannot be refunded: ${why}.`, { purchase_id: it.id });
    }
    const refunds = named.map((it) => {
      if (it.is_refunded) return { purchase_id: it.id, success: false };
      store.run('UPDATE order_items SET is_refunded = 1, is_active = 0, refunded_at = ? WHERE id = ?', now, it.id);
      return { purchase_id: it.id, success: true };
    });
    const done = refunds.filter((r) => r.success);
    if (done.length && p.send_email !== false) {
      const user = store.get('SELECT * FROM users WHERE id = ?', order.user_id)!;
      sendMail(store, now, [user.email], `Refund of order ${order.id}`,
        `Items ${done.map((r) => r.purchase_id).join(', ')} of order ${order.id} were refunded.`, 'order.refund');
    }
    return ok({ message: done.length ? 'Refund processed.' : 'Nothing to refund.', refunds });
  });
}

// ---------------------------------------------------------------- users

const PROFILE_FIELDS = ['address_1', 'address_2', 'city', 'zip', 'country', 'state', 'nickname'];

function existingUserConflict(u: Row) {
  return { message: 'User with email address already exists', value: u.email, conflict: true, field: 'email', username: u.username };
}

function createUser(c: HandlerCtx, invite: boolean): HandlerResult {
  const { store, payload: p, now } = c;
  const caller = c.caller!;
  const email = String(p.email).trim();
  if (!isEmail(email)) throw bad('Field "email" must be a valid e-mail address.');
  const profile = (p.profile ?? {}) as Record<string, string>;
  for (const k of Object.keys(profile)) if (!PROFILE_FIELDS.includes(k)) throw bad(`Unknown field "profile.${k}".`);
  let passwd: string;
  if (!invite && (p.passwd !== undefined || p.passwd_confirm !== undefined)) {
    if (p.passwd !== p.passwd_confirm) throw bad('Fields "passwd" and "passwd_confirm" do not match.');
    if (String(p.passwd).length < 6) throw bad('Field "passwd" must have at least 6 characters.');
    passwd = p.passwd;
  } else passwd = randomPassword();
  const label = labelOf(store, caller, p.label);
  return store.tx(() => {
    const existing = store.get('SELECT * FROM users WHERE email = ?', email);
    if (existing) {
      if (!invite && caller.kind === 'token') return ok(existingUserConflict(existing));
      throw new HttpError(400, 'User with email address already exists', { value: existing.email, conflict: true, field: 'email', username: existing.username });
    }
    let username = randomHex(30);
    while (store.get('SELECT 1 FROM users WHERE username = ?', username)) username = randomHex(30);
    store.run(
      `INSERT INTO users(username, email, first_name, last_name, password_hash, owner_account_id, label_id, date_joined,
         address_1, address_2, city, zip, country, state, nickname) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
      username, email, p.first_name ?? '', p.last_name ?? '', hashPassword(passwd), caller.account.id, label?.id ?? null, now,
      profile.address_1 ?? '', profile.address_2 ?? '', profile.city ?? '', profile.zip ?? '', profile.country ?? '',
      profile.state ?? '', profile.nickname ?? '',
    );
    if (invite) {
      sendMail(store, now, [email], `You are invited to read with ${caller.account.full_name}`,
        `Hello ${p.first_name ?? ''}, an account was created for you (${email}). Your password: ${passwd}`, 'user.invite');
      return ok({ email, message: 'Invitation sent.', username });
    }
    return ok({ email, passwd, message: 'User created.', username });
  });
}

function userOrders(c: HandlerCtx): Record<string, unknown> {
  const user = userByUsername(c.store, c.params.username);
  const orders = c.store.all('SELECT * FROM orders WHERE user_id = ? AND is_complete = 1 ORDER BY id', user.id);
  return { count: orders.length, results: orders.map((o) => listedOrderView(c.store, o, c.now)) };
}

function purchaseLookup(c: HandlerCtx): HandlerResult {
  const { store, now, payload: p } = c;
  const user = store.get('SELECT * FROM users WHERE username = ?', (c.params.username ?? '').toLowerCase());
  const id = /^\d{1,15}$/.test(c.params.purchase_id ?? '') ? Number(c.params.purchase_id) : NaN;
  const item = user && Number.isSafeInteger(id) ? store.get(`${ITEM_SELECT} WHERE i.id = ? AND i.user_id = ?`, id, user.id) : undefined;
  if (!item) throw notFound('Purchase not found');
  const v = itemView(item, now);
  const wantTruth = p.refund_data === true || p.refund_info === true;
  return ok({
    book: v.book,
    digital_pricing: { description: item.pricing_description ?? (item.source === 'access' ? 'External access' : 'Free'), id: item.pricing_id ?? null },
    expiration_date: v.expiration_date,
    id: item.id,
    is_active: v.is_active,
    is_digital: v.is_digital,
    is_print: v.is_print,
    is_refunded: v.is_refunded,
    purchase_date: v.purchase_date,
    purchase_price: v.purchase_price,
    quantity: v.quantity,
    refund_available: wantTruth ? refundAvailable(store, item, now) : true,
    user: v.user,
  });
}

// ---------------------------------------------------------------- books

/** A search of books or imports as SQL: what to read from, the conditions and their order. */
interface SearchSql {
  table: string;
  from: string;
  where: string[];
  args: string[];
  order: string;
  /** A column of the table, as this query names it. */
  col: (column: string) => string;
}

/**
 * The title/author/ISBN filters of a search of `table`: every word of title/author, any of the
 * ISBNs; the answer is the same as a plain LIKE '%word%' over the whole table (ASCII-only case
 * folding, `%` and `_` taken literally).
 *
 * Words of three characters or more are found through the trigram index `<table>_fts` with one
 * MATCH of trigrams that cover them (`title : "har" AND title : "bou" AND title : "our"`: a
 * superset of the exact match, see `coverTrigrams`; the index also folds non-ASCII case),
 * which then drives the query in id order: a page of a common word stops after
 * `offset + limit` matches instead of collecting and sorting them all (12,500 books with
 * "Harbour" in the title: 24 ms a page before, 0.2 ms after). Each word then decides through
 * `instr(lower(column), lower(word))`, the same test as that LIKE. Neither is a LIKE with a bound
 * pattern: SQLite re-prepares such a statement at every run, as its plan may depend on the
 * pattern (a one-book page: 15 -> 10 µs). Without such a word (only shorter ones, or ISBNs) the
 * table is read with LIKE, which is what a short word needs anyway.
 */
function searchSql(p: Record<string, any>, table: 'books' | 'imports'): SearchSql {
  const words = (['title', 'author'] as const).flatMap((column) =>
    p[column]?.trim() ? (p[column].trim().split(/\s+/) as string[]).map((w) => ({ column, w })) : [],
  );
  const fts = words.filter(({ w }) => [...w].length >= 3);
  const index = `${table}_fts`;
  const col = (c: string) => (fts.length ? `${table}.${c}` : c);
  const where: string[] = [];
  const args: string[] = [];
  if (fts.length === 0) {
    where.push(...words.map(({ column }) => `${column} LIKE ? ESCAPE '\\'`));
    args.push(...words.map(({ w }) => like(w)));
  } else {
    // Text between double quotes is literal, a quote in it doubled.
    const terms = fts.flatMap(({ column, w }) => coverTrigrams(w).map((t) => `${column} : "${t.replace(/"/g, '""')}"`));
    where.push(`${index} MATCH ?`, ...words.map(({ column }) => `instr(lower(${col(column)}), lower(?)) > 0`));
    args.push(terms.join(' AND '), ...words.map(({ w }) => w));
  }
  if (p.isbn?.length) {
    const vs = (p.isbn as string[]).flatMap((i) => [normalizeIsbn(i), toIsbn13(i)]);
    const q = vs.map(() => '?').join(',');
    where.push(`(${['isbn13', 'isbn10', 'eisbn13', 'eisbn10'].map((c) => `${col(c)} IN (${q})`).join(' OR ')})`);
    args.push(...vs, ...vs, ...vs, ...vs);
  }
  if (fts.length === 0) return { table, from: table, where, args, order: 'id', col };
  return { table, from: `${index} JOIN ${table} ON ${table}.id = ${index}.rowid`, where, args, order: `${index}.rowid`, col };
}

/** One page of a search and the total (counted only when the page does not tell it). */
function searchPage(store: Store, q: SearchSql, limit: number, offset: number): { rows: Row[]; count: number } {
  const w = q.where.length ? `WHERE ${allOf(q.where)}` : '';
  // Through the text index the page's bounds are part of the SQL: FTS5 is told LIMIT and OFFSET,
  // so SQLite re-prepares a statement whose bounds are parameters at every run (10 -> 16 µs).
  // They are integers (paging checks them).
  const rows =
    q.from === q.table
      ? store.all(`SELECT * FROM ${q.table} ${w} ORDER BY ${q.order} LIMIT ? OFFSET ?`, ...q.args, limit, offset)
      : store.all(`SELECT ${q.table}.* FROM ${q.from} ${w} ORDER BY ${q.order} LIMIT ${limit} OFFSET ${offset}`, ...q.args);
  const count = countFromPage(rows.length, limit, offset) ?? store.get(`SELECT count(*) AS n FROM ${q.from} ${w}`, ...q.args)!.n;
  return { rows, count };
}

function bookSearch(c: HandlerCtx): Record<string, unknown> {
  const { store, payload: p, now } = c;
  const { limit, offset } = paging(p);
  const q = searchSql(p, 'books');
  if (p.hash_ids?.length) {
    q.where.push(`${q.col('hash_id')} IN (${(p.hash_ids as string[]).map(() => '?').join(',')})`);
    q.args.push(...(p.hash_ids as string[]).map((h) => h.toLowerCase()));
  }
  const { rows, count } = searchPage(store, q, limit, offset);
  return { count, results: bookViews(store, rows, now) };
}

/**
 * The total of a listing when its page tells it: a page shorter than `limit` is the last one, so
 * the total is `offset` plus its rows (a search that fits one page costs one query, not two).
 * Undefined when the page is full, or empty past the first page (the offset may be past the end).
 */
function countFromPage(rows: number, limit: number, offset: number): number | undefined {
  if (rows < limit && (rows > 0 || offset === 0)) return offset + rows;
  return undefined;
}

/**
 * Conditions joined by AND. Beyond 64 they go in parenthesised groups: SQLite nests a chain of
 * ANDs one level per term and refuses a tree deeper than 1000 (title and author of 500
 * one-character words each were a 500). The planner splits the groups again, and the usual
 * short chain keeps its SQL text (and its prepared statement).
 */
function allOf(conds: string[]): string {
  if (conds.length <= 64) return conds.join(' AND ');
  const groups: string[] = [];
  for (let i = 0; i < conds.length; i += 64) groups.push(`(${conds.slice(i, i + 64).join(' AND ')})`);
  return groups.join(' AND ');
}

/**
 * Trigrams that cover a word (of 3 characters or more) without overlapping, the last one
 * ending with it: `Lighthouse` -> Lig, hth, ous, use. A row holding the word holds them all, so
 * as index terms they find a superset of its rows, as the word's phrase (its 8 overlapping
 * trigrams in a row) does, and the exact test decides either way; they read about a third as
 * many doclists and no positions (a one-word page 15.7 -> 10.9 µs, "Harbour" 25 -> 18.5 µs).
 */
function coverTrigrams(word: string): string[] {
  const c = [...word];
  const out: string[] = [];
  for (let i = 0; i + 3 <= c.length; i += 3) out.push(c.slice(i, i + 3).join(''));
  if (c.length % 3) out.push(c.slice(-3).join(''));
  return out;
}

function like(word: string): string {
  return '%' + word.replace(/[\\%_]/g, (m) => '\\' + m) + '%';
}

const OWN_BOOKS = 'publisher_id IN (SELECT publisher_id FROM account_publishers WHERE account_id = ?)';
// Where the pages served so far ended: per store, `account:offset` -> the id of the last book
// before that offset. Reading a whole list page by page (`book list --all`) then costs one
// range read per page instead of skipping `offset` rows each time.
const pageEnds = new WeakMap<Store, Map<string, number>>();
const MAX_PAGE_ENDS = 1000;

function bookIndex(c: HandlerCtx): Record<string, unknown> {
  const { store, now } = c;
  const { limit, offset } = paging(c.payload);
  const acct = c.caller!.account.id;
  const count = store.get(`SELECT count(*) AS n FROM books WHERE ${OWN_BOOKS}`, acct)!.n;
  let ends = pageEnds.get(store);
  if (!ends) pageEnds.set(store, (ends = new Map()));
  // A remembered end is used only when exactly `offset` of the account's books still come
  // before it (counted on the index), so the page is the same as OFFSET would give.
  const after = offset > 0 ? ends.get(`${acct}:${offset}`) : undefined;
  let rows: Row[];
  if (after !== undefined && store.get(`SELECT count(*) AS n FROM books WHERE ${OWN_BOOKS} AND id <= ?`, acct, after)!.n === offset) {
    // `+publisher_id`: walk the books in id order from `after` rather than sort the account's books.
    rows = store.all(`SELECT * FROM books WHERE id > ? AND +${OWN_BOOKS} ORDER BY id LIMIT ?`, after, acct, limit);
  } else {
    rows = store.all(`SELECT * FROM books WHERE +${OWN_BOOKS} ORDER BY id LIMIT ? OFFSET ?`, acct, limit, offset);
  }
  if (rows.length) {
    if (ends.size >= MAX_PAGE_ENDS) ends.delete(ends.keys().next().value!);
    ends.set(`${acct}:${offset + rows.length}`, rows[rows.length - 1].id);
  }
  return { count, limit, offset, results: bookViews(store, rows, now) };
}

function bookProcess(c: HandlerCtx): HandlerResult {
  const { store, payload: p, now } = c;
  const book = bookByHash(store, c.params.hash_id);
  requireControl(store, c.caller!, book);
  const force = p.force === true;
  const urgent = p.urgent === true;
  return store.tx(() => {
    const b = store.get('SELECT * FROM books WHERE id = ?', book.id)!;
    const seq = Number(store.meta('queue_seq') ?? 1);
    store.setMeta('queue_seq', String(seq + 1));
    const position = urgent ? -seq : seq;
    if (b.is_queued && !force) {
      if (urgent) store.run('UPDATE books SET queue_urgent = 1, queue_seq = ? WHERE id = ? AND processing_started_at IS NULL', position, b.id);
      return ok({ message: 'Book already queued.' });
    }
    if (b.is_processed && !b.is_queued && !force) return ok({ message: 'Book already processed.' });
    store.run(
      'UPDATE books SET is_queued = 1, queued_at = ?, queue_urgent = ?, queue_seq = ?, queue_hold = 0, processing_started_at = NULL WHERE id = ?',
      now, urgent ? 1 : 0, position, b.id,
    );
    c.queued();
    return ok({ message: 'Book queued for processing.' });
  });
}

function bookViewer(c: HandlerCtx): HandlerResult {
  const { store, payload: p, now } = c;
  const user = userByUsername(store, p.username);
  const book = bookByHash(store, p.hash_id);
  requireControl(store, c.caller!, book);
  const items = store.all('SELECT * FROM order_items WHERE user_id = ? AND book_id = ?', user.id, book.id);
  if (!items.some((i) => itemLive(i, now))) throw notFound('Purchase for user not found.');
  const token = randomHex(32);
  store.tx(() => store.run('INSERT INTO reader_sessions(token, user_id, book_id, created_at) VALUES (?,?,?,?)', token, user.id, book.id, now));
  return ok({ viewer_url: `${c.origin}/reader/${token}/` });
}

// ---------------------------------------------------------------- codes

function codesGenerate(c: HandlerCtx): HandlerResult {
  const { store, payload: p, now } = c;
  const caller = c.caller!;
  const book = bookByHash(store, p.hash_id);
  requireControl(store, caller, book);
  if (!Number.isInteger(p.count) || p.count < 1 || p.count > 1000) throw bad('Field "count" must be an integer between 1 and 1000.');
  const limitDays = p.limit_days ?? 0;
  if (limitDays < 0 || limitDays > 36500) throw bad('Field "limit_days" must be an integer between 0 and 36500.');
  if (p.expiration_date !== undefined && p.expiration_date <= now) throw bad('Field "expiration_date" must be in the future.');
  const label = labelOf(store, caller, p.label);
  return idempotent(c, 'codes.generate', () => {
    const codes: Array<Record<string, unknown>> = [];
    for (let i = 0; i < p.count; i++) {
      let code = randomCode();
      while (store.get('SELECT 1 FROM codes WHERE code = ?', code)) code = randomCode();
      store.run(
        `INSERT INTO codes(code, account_id, book_id, org, label_id, limit_days, expiration_date, samples, created_at) VALUES (?,?,?,?,?,?,?,?,?)`,
        code, caller.account.id, book.id, p.org, label?.id ?? null, limitDays, p.expiration_date ?? null, p.samples ? 1 : 0, now,
      );
      codes.push({ code, deactivation_date: isoTime(p.expiration_date ?? null), limit_days: limitDays });
    }
    return ok({ codes });
  });
}

/**
 * Run a write in one transaction, honouring the request's Idempotency-Key: a repeat of a
 * request whose answer was lost (a dropped connection, a killed client, a resumed bulk job) is
 * answered with what the first one made, from the same transaction that made it; the same key
 * with another request is a 400. Without a key the write just runs.
 */
function idempotent(c: HandlerCtx, endpoint: string, write: () => HandlerResult): HandlerResult {
  const { store, now } = c;
  const account = c.caller!.account.id;
  const key = c.idempotencyKey;
  if (key === undefined) return store.tx(write);
  const requestHash = createHash('sha256').update(JSON.stringify(c.payload)).digest('hex');
  return store.tx(() => {
    const seen = store.get('SELECT endpoint, request_hash, response FROM idempotency WHERE account_id = ? AND key = ?', account, key);
    if (seen) {
      if (seen.endpoint !== endpoint || seen.request_hash !== requestHash) throw bad('This Idempotency-Key was already used for a different request.');
      return ok(JSON.parse(seen.response as string));
    }
    const result = write();
    if ((result.status ?? 200) < 400) {
      store.run(
        'INSERT INTO idempotency(account_id, key, endpoint, request_hash, response, created_at) VALUES (?,?,?,?,?,?)',
        account, key, endpoint, requestHash, JSON.stringify(result.body), now,
      );
    }
    return result;
  });
}

function codesSummary(c: HandlerCtx): Record<string, unknown> {
  const r = c.store.get('SELECT count(*) AS g, count(redeemed_by) AS r FROM codes WHERE account_id = ?', c.caller!.account.id)!;
  return { codes_generated: r.g, codes_redeemed: r.r, redemption_percentage: r.g ? r.r / r.g : 0 };
}

/** Redeem a code for a user (sandbox control): an order of kind `code` at 0.00. */
export function redeemCode(store: Store, code: string, username: string): Record<string, unknown> {
  const now = store.now();
  const user = userByUsername(store, username);
  return store.tx(() => {
    const row = store.get('SELECT * FROM codes WHERE code = ?', code.trim().toUpperCase());
    if (!row) throw notFound('Code not found');
    if (row.redeemed_by !== null) throw bad('Code already redeemed.');
    if (row.expiration_date !== null && row.expiration_date <= now) throw bad('Code has expired.');
    let expires: number | null = row.limit_days > 0 ? now + row.limit_days * DAY : null;
    if (row.expiration_date !== null) expires = expires === null ? row.expiration_date : Math.min(expires, row.expiration_date);
    store.run('UPDATE codes SET redeemed_by = ?, redeemed_at = ? WHERE id = ?', user.id, now, row.id);
    const orderId = insertOrder(store, { account: row.account_id, user: user.id, kind: 'code', org: row.org, label: row.label_id ?? undefined, now });
    const itemId = insertItem(store, { order: orderId, user: user.id, book: row.book_id, source: 'code', price: '0.00', now, expires });
    return { code: row.code, username: user.username, order_id: orderId, purchase_id: itemId, expiration_date: isoTime(expires) };
  });
}

// ---------------------------------------------------------------- imports

function importSearch(c: HandlerCtx): Record<string, unknown> {
  const { payload: p } = c;
  const { limit, offset } = paging(p);
  const { rows, count } = searchPage(c.store, searchSql(p, 'imports'), limit, offset);
  return {
    count,
    limit,
    offset,
    results: rows.map((r) => ({
      title: r.title,
      author: r.author,
      publisher: r.publisher,
      edition_number: r.edition_number,
      identifiers: { book_id: r.book_id, eisbn10: r.eisbn10, eisbn13: r.eisbn13, isbn10: r.isbn10, isbn13: r.isbn13 },
      status: { deleted: r.deleted === 1, file_received: r.file_received === 1, imported: r.imported === 1 },
    })),
  };
}

// ---------------------------------------------------------------- access control

const PRICE = /^\d{1,9}(\.\d{1,2})?$/;

function accessCommon(c: HandlerCtx): { book: Row; user: Row } {
  const book = bookByHash(c.store, c.payload.hash_id);
  const user = userByUsername(c.store, c.payload.username);
  requireControl(c.store, c.caller!, book);
  return { book, user };
}

function accessAllow(c: HandlerCtx): HandlerResult {
  const { store, payload: p, now } = c;
  const { book, user } = accessCommon(c);
  if (typeof p.price !== 'string' || !PRICE.test(p.price.trim())) throw bad('The price field was supplied an invalid value');
  if (p.email !== undefined && p.email !== '' && (typeof p.email !== 'string' || !isEmail(p.email.trim()))) throw bad('The email field provided was invalid');
  if (p.expiration_date !== undefined && p.expiration_date <= now) throw bad('Field "expiration_date" must be in the future.');
  return store.tx(() => {
    // A grant that has expired no longer counts as access.
    store.run(
      `UPDATE order_items SET is_active = 0 WHERE source = 'access' AND is_active = 1 AND user_id = ? AND book_id = ?
         AND expiration_date IS NOT NULL AND expiration_date <= ?`,
      user.id, book.id, now,
    );
    if (store.get(`SELECT 1 FROM order_items WHERE source = 'access' AND is_active = 1 AND user_id = ? AND book_id = ?`, user.id, book.id)) {
      throw bad('The user already has access to this book');
    }
    const orderId = insertOrder(store, { account: c.caller!.account.id, user: user.id, kind: 'access', now });
    insertItem(store, {
      order: orderId, user: user.id, book: book.id, source: 'access', price: Number(p.price).toFixed(2), now,
      expires: p.expiration_date ?? null, email: p.email || undefined,
    });
    if (p.send_email === true) {
      sendMail(store, now, [user.email], `You now have access to "${book.title}"`,
        `Access to "${book.title}" was granted` + (p.expiration_date ? ` until ${isoTime(p.expiration_date)}.` : '.'), 'access.allow');
    }
    return ok({ message: 'Access granted.' });
  });
}

function accessRevoke(c: HandlerCtx): HandlerResult {
  const { store, now } = c;
  const { book, user } = accessCommon(c);
  return store.tx(() => {
    const r = store.run(
      `UPDATE order_items SET is_active = 0, revoked_at = ? WHERE source = 'access' AND is_active = 1 AND user_id = ? AND book_id = ?
         AND (expiration_date IS NULL OR expiration_date > ?)`,
      now, user.id, book.id, now,
    );
    if (r.changes === 0) throw notFound('Purchase record not found');
    return ok({ message: 'Access revoked.' });
  });
}

// ---------------------------------------------------------------- price comparison

function offers(c: HandlerCtx): HandlerResult {
  const isbn = normalizeIsbn(c.query.get('isbn') ?? '');
  if (isbn.length < 10) throw bad('Invalid ISBN supplied');
  const book = bookByIsbn(c.store, isbn);
  if (!book || !book.is_active || !book.is_public) throw bad('The requested book does not exist');
  if (book.distribution_type === 'code') throw bad('The requested book is not available');
  if (!book.is_published) throw bad('The requested book is not published');
  const prices = c.store.all('SELECT * FROM pricing WHERE book_id = ? AND (deactivated_at IS NULL OR deactivated_at > ?) ORDER BY id', book.id, c.now);
  return ok({
    Status: 'OK',
    Isbn: isbn,
    Offers: prices.map((p) => ({ Price: p.price, Id: p.id, Condition: 'digital', RentalDays: p.limit_days })),
  });
}

function checkout(c: HandlerCtx): HandlerResult {
  const idsText = c.query.get('ids') ?? '';
  if (!idsText.trim()) throw bad('Field "ids" is required.');
  if (idsText.length > 2000) throw bad('Field "ids" is too long.');
  const ids = idsText.split(',').map((s) => s.trim()).filter(Boolean);
  for (const id of ids) {
    if (!/^\d{1,15}$/.test(id) || !c.store.get('SELECT 1 FROM pricing WHERE id = ?', Number(id))) throw bad(`Unknown price id ${id.slice(0, 40)}.`);
  }
  const rejoiner = (c.query.get('rejoiner_ids') ?? '').slice(0, 2000);
  const token = randomHex(24);
  c.store.tx(() =>
    c.store.run('INSERT INTO carts(token, pricing_ids, rejoiner_ids, created_at) VALUES (?,?,?,?)', token, JSON.stringify(ids.map(Number)), rejoiner, c.now),
  );
  const location = `/cart/?t=${token}`;
  return { status: 302, body: { location }, headers: { location } };
}

// ---------------------------------------------------------------- general

function index(c: HandlerCtx): Record<string, unknown> {
  return {
    api: {
      admin: 'operator@bookdist.example',
      available_versions: [
        { version: 'v1', version_date: '2015-01-21', version_help: '/v1/describe/', version_major: 1, version_string: '1.0.3', version_url: '/v1/' },
      ],
      current_version: 'v1',
      host: c.hostName || hostname(),
    },
  };
}

function profile(c: HandlerCtx): Record<string, unknown> {
  const a = c.caller!.account;
  return {
    profile: { address_1: a.address_1, address_2: a.address_2, city: a.city, country: a.country, nickname: a.nickname, state: a.state, zip: a.zip },
    scopes: [...c.caller!.scopes].sort(),
  };
}

function describe(): Record<string, unknown> {
  return {
    endpoints: ENDPOINTS.map((e) => ({
      name: e.name,
      methods: e.methods,
      path: e.path,
      aliases: e.aliases ?? [],
      scope: e.scope,
      auth: e.auth,
      summary: e.summary,
      fields: e.fields.map((f) => ({ name: f.name, type: f.type, required: !!f.required, description: f.description })),
    })),
  };
}

let lastDocument: { origin: string; body: Record<string, unknown> } | undefined;
function openapi(c: HandlerCtx): HandlerResult {
  if (lastDocument?.origin !== c.origin) lastDocument = { origin: c.origin, body: openApiDocument(c.origin) };
  return { status: 200, raw: true, body: lastDocument.body };
}

export const HANDLERS: Record<string, Handler> = {
  index,
  profile,
  describe,
  openapi,
  'book.get': (c) => ({ book: bookView(c.store, bookByHash(c.store, c.params.hash_id), c.now) }),
  'book.isbn': (c) => {
    const b = bookByIsbn(c.store, c.params.isbn ?? '');
    if (!b) throw notFound('Book not found');
    return { book: bookView(c.store, b, c.now) };
  },
  'book.sku': (c) => {
    const b = c.store.get('SELECT * FROM books WHERE sku = ? COLLATE NOCASE', c.params.sku ?? '');
    if (!b) throw notFound('Book not found');
    return { book: bookView(c.store, b, c.now) };
  },
  'book.pricing': (c) => {
    const b = bookByIsbn(c.store, c.params.isbn ?? '');
    if (!b) throw notFound('Book not found');
    const v = bookView(c.store, b, c.now);
    return { hash_id: b.hash_id, isbn: b.isbn13, title: b.title, digital_pricing: v.digital_pricing };
  },
  'book.search': bookSearch,
  'book.index': bookIndex,
  'book.viewer': bookViewer,
  'book.process': bookProcess,
  'user.invite': (c) => createUser(c, true),
  'user.create': (c) => createUser(c, false),
  'user.get': (c) => ({ user: userView(c.store, userByUsername(c.store, c.params.username)) }),
  'user.email': (c) => {
    const u = c.store.get('SELECT * FROM users WHERE email = ?', (c.params.email ?? '').trim());
    if (!u) throw notFound('User not found');
    return { user: userView(c.store, u) };
  },
  'user.orders': userOrders,
  'user.purchase': purchaseLookup,
  'order.external': orderExternal,
  'order.refund': orderRefund,
  'order.free': orderFree,
  'codes.generate': codesGenerate,
  'codes.summary': codesSummary,
  'import.search': importSearch,
  'access.allow': accessAllow,
  'access.revoke': accessRevoke,
  offers,
  checkout,
};

/** Run the processing worker: complete queued books in queue order, each taking `delayMs`. */
export function runWorker(store: Store, delayMs: number): number {
  let done = 0;
  if (!store.get('SELECT 1 FROM books WHERE is_queued = 1 AND queue_hold = 0 LIMIT 1')) return 0;
  store.tx(() => {
    const now = store.now();
    for (let i = 0; i < 1000; i++) {
      let head = store.get('SELECT * FROM books WHERE is_queued = 1 AND queue_hold = 0 AND processing_started_at IS NOT NULL ORDER BY processing_started_at LIMIT 1');
      if (!head) {
        head = store.get('SELECT * FROM books WHERE is_queued = 1 AND queue_hold = 0 ORDER BY queue_seq, id LIMIT 1');
        if (!head) break;
        store.run('UPDATE books SET processing_started_at = ? WHERE id = ?', now, head.id);
        head.processing_started_at = now;
      }
      const finish = head.processing_started_at + delayMs;
      if (finish > now) break;
      store.run(
        'UPDATE books SET is_queued = 0, is_processed = 1, processed_at = ?, processing_started_at = NULL, queue_urgent = 0, queue_seq = NULL WHERE id = ?',
        finish, head.id,
      );
      done++;
      const next = store.get('SELECT id FROM books WHERE is_queued = 1 AND queue_hold = 0 AND processing_started_at IS NULL ORDER BY queue_seq, id LIMIT 1');
      if (next) store.run('UPDATE books SET processing_started_at = ? WHERE id = ?', finish, next.id);
    }
  });
  return done;
}

/** Does the user hold a live purchase or grant of the book now? */
export function itemLiveFor(store: Store, userId: number, bookId: number, now: number): boolean {
  return store.all('SELECT * FROM order_items WHERE user_id = ? AND book_id = ?', userId, bookId).some((i) => itemLive(i, now));
}
