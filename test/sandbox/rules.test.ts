// The service's rules (interface.md, decisions.md) asked of the domain's handlers themselves, on a
// seeded database in memory, the request already authenticated and validated: orders, refunds and
// their windows, access grants, codes, users, Idempotency-Keys, the storefront's checks. The same
// rules over HTTP are in conformance.test.ts and refunds-access.test.ts; these run in milliseconds,
// so that `npm run mutate` judges src/sandbox/domain/ by them first (test/mutation/sequencer.ts).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Caller } from '../../src/sandbox/auth.js';
import { listOutbox, recordUsage } from '../../src/sandbox/control.js';
import type { Store } from '../../src/sandbox/db/store.js';
import { redeemCode } from '../../src/sandbox/domain/codes.js';
import { handlerCtx, runHandler, runWorker } from '../../src/sandbox/domain/index.js';
import { endpoints } from '../../src/spec/endpoints.js';
import { seedCatalogue, SEED_IMPORTS, WELL_KNOWN } from '../../src/sandbox/seed.js';
import { isoTime } from '../../src/sandbox/util.js';
import { callerOf as domainCaller, handlerCalls, ORIGIN, type Call } from '../helpers/domain-call.js';
import { seededMemoryStore } from '../helpers/memory-store.js';

const SEED_BOOKS = seedCatalogue();

const DAY = 86_400_000;
const readme = WELL_KNOWN.readme;

let store: Store;
let partner: Caller;
let limited: Caller;
let operator: Caller;
let queued = 0;

const callerOf = (role: string, kind: Caller['kind'] = 'partner') => domainCaller(store, role, kind);

beforeAll(async () => {
  store = await seededMemoryStore();
  partner = callerOf('partner');
  limited = callerOf('limited');
  operator = callerOf('partner', 'token');
});
afterAll(() => store.close());

const { call, refusal } = handlerCalls(
  () => store,
  () => partner,
  () => queued++,
);

let userSeq = 0;
/** A new reader of the partner's: its username. */
function newUser(): string {
  const r = call('user.create', { payload: { email: `rules${++userSeq}@example.com` } });
  return r.body.username as string;
}

const billing = { full_name: 'Avery Reader', postal_code: '02139', country: 'US' };
const order = (username: string, pricing: number[], more: Record<string, unknown> = {}, now?: number) =>
  call('order.external', {
    payload: { username, digital_pricing: pricing, billing_address: billing, order_type: 'TestPlan', org: 7, ...more },
    now,
  });

describe('external orders', () => {
  it('an order of a book that can be sold: its items, totals and the mail to the account', () => {
    const u = newUser();
    const [p14, p7] = readme.pricing;
    const r = order(u, [p14.id, p7.id], { order_number: 'R-1' });
    expect(r.body.message).toBe('Order created.');
    expect(r.body.order.username).toBe(u);
    expect(r.body.order.is_complete).toBe(true);
    expect(r.body.order.item_count).toBe(2);
    expect(r.body.order.totals).toEqual({ subtotal: 21.98, taxes: 0, shipping: 0, total: 21.98 });
    // The same order number again: the order it made, not another.
    const again = order(u, [p14.id], { order_number: 'R-1' });
    expect(again.body.message).toBe('Order already exists.');
    expect(again.body.order.id).toBe(r.body.order.id);
    expect(again.body.order.item_count).toBe(2);
    const mail = listOutbox(store).filter((m) => m.kind === 'order.external');
    expect(mail.at(-1)?.to).toEqual([WELL_KNOWN.partner.email]);
    expect(mail.at(-1)?.subject).toBe(`Order R-1 for rules${userSeq}@example.com`);
    expect(mail.at(-1)?.body).toContain('2 item(s), total 21.98');
    // An empty order number is none: two orders.
    const a = order(u, [p14.id], { order_number: '' });
    const b = order(u, [p14.id], { order_number: '' });
    expect(a.body.order.id).not.toBe(b.body.order.id);
    // Under a white label, its member hears of it; without mail, no one does.
    const before = listOutbox(store).length;
    order(u, [p14.id], { label: WELL_KNOWN.partner.label.toUpperCase() });
    expect(listOutbox(store).at(-1)?.to).toEqual([WELL_KNOWN.partner.labelMember]);
    order(u, [p14.id], { send_email: false });
    expect(listOutbox(store).length).toBe(before + 1);
  });

  it('a rental runs for its days from the purchase; a purchase has no end', () => {
    const u = newUser();
    const now = store.now();
    const rental = readme.pricing.find((p) => p.is_limited)!;
    const r = order(u, [rental.id, readme.pricing[0].id], {}, now);
    const [limitedItem, bought] = r.body.order.items;
    expect(Date.parse(limitedItem.expiration_date)).toBe(Math.floor((now + rental.limit_days * DAY) / 1000) * 1000);
    expect(bought.expiration_date).toBeNull();
  });

  it('each check of the order, with what to fix', () => {
    const u = newUser();
    const p = readme.pricing[0].id;
    const refused = (more: Record<string, unknown>, pricing = [p]) =>
      refusal('order.external', {
        payload: {
          username: u,
          digital_pricing: pricing,
          billing_address: billing,
          order_type: 'TestPlan',
          org: 7,
          ...more,
        },
      });
    expect(refused({}, []).message).toMatch(/at least one pricing id/);
    for (const addr of [
      { postal_code: '1', country: 'US' },
      { full_name: '  ', postal_code: '1', country: 'US' },
      { first_name: 'A', postal_code: '1', country: 'US' },
      { last_name: 'B', postal_code: '1', country: 'US' },
      { first_name: 'A', last_name: ' ', postal_code: '1', country: 'US' },
      { first_name: ' ', last_name: 'B', postal_code: '1', country: 'US' },
      { full_name: 'A', country: 'US' },
      { full_name: 'A', postal_code: ' ', country: 'US' },
      { full_name: 'A', postal_code: '1' },
      { full_name: 'A', postal_code: '1', country: ' ' },
    ])
      expect(refused({ billing_address: addr }).message, JSON.stringify(addr)).toMatch(/billing_address/);
    expect(
      order(u, [p], { billing_address: { first_name: 'A', last_name: 'B', postal_code: '1', country: 'US' } }).status,
    ).toBe(200);
    expect(order(u, [p], { order_type: 'ExternalPlan' }).status).toBe(200);
    expect(refused({ order_type: 'OtherPlan' }).message).toBe('OtherPlan is not currently supported.');
    expect(refused({ order_number: 'x'.repeat(21) }).message).toMatch(/at most 20/);
    expect(order(u, [p], { order_number: 'y'.repeat(20) }).status).toBe(200);
    expect(refused({}, [999_999]).message).toBe('Unknown pricing id 999999 in "digital_pricing".');
    const dead = WELL_KNOWN.deactivatedPrice.pricing[1];
    expect(refused({}, [dead.id]).message).toBe(`Pricing ${dead.id} is deactivated.`);
    expect(order(u, [WELL_KNOWN.deactivatedPrice.pricing[0].id]).status).toBe(200);
    expect(refused({}, [WELL_KNOWN.inactive.pricing[0].id]).message).toMatch(/is not active/);
    expect(refused({}, [WELL_KNOWN.unpublished.pricing[0].id]).message).toMatch(/is not published/);
    expect(refused({}, [WELL_KNOWN.codeDistribution.pricing[0].id]).message).toMatch(/redemption code only/);
    const euro = WELL_KNOWN.otherPublisher.pricing[0].id;
    store.run("UPDATE pricing SET currency = 'EUR' WHERE id = ?", euro);
    try {
      expect(refused({}, [p, euro]).message).toBe('All items of an order must be in one currency.');
    } finally {
      store.run("UPDATE pricing SET currency = 'USD' WHERE id = ?", euro);
    }
    expect(refused({ label: 'nolabel' }).message).toBe('Label "nolabel" is not a white label under your control.');
    expect(refused({ label: WELL_KNOWN.limited.label }).status).toBe(400);
    expect(refused({ username: 'nobody' }).status).toBe(404);
  });

  it('a price deactivated from a time on sells until then', () => {
    const u = newUser();
    const id = readme.pricing[0].id;
    const at = store.now() + DAY;
    store.run('UPDATE pricing SET deactivated_at = ? WHERE id = ?', at, id);
    try {
      expect(order(u, [id], {}, at - 1).status).toBe(200);
      expect(() => order(u, [id], {}, at)).toThrow(/deactivated/);
    } finally {
      store.run('UPDATE pricing SET deactivated_at = NULL WHERE id = ?', id);
    }
  });
});

describe('refunds (decisions.md, Refunds)', () => {
  /** A new reader's order of the README book at `at`: the order id. */
  const bought = (at: number) => {
    const u = newUser();
    return { u, id: order(u, [readme.pricing[0].id], {}, at).body.order.id as number };
  };
  const refund = (id: number, now: number, more: Record<string, unknown> = {}) =>
    call('order.refund', { payload: { order_id: id, ...more }, now });
  const whyNot = (id: number, now: number) => refusal('order.refund', { payload: { order_id: id }, now });

  it('within 30 days of the purchase, not after', () => {
    const t = store.now() - 40 * DAY;
    const a = bought(t);
    expect(whyNot(a.id, t + 30 * DAY + 1)).toMatchObject({
      status: 403,
      message: expect.stringContaining('the refund window of 30 days after purchase has passed'),
    });
    const r = refund(a.id, t + 30 * DAY);
    expect(r.body.message).toBe('Refund processed.');
    expect(r.body.refunds).toHaveLength(1);
    expect(r.body.refunds[0].success).toBe(true);
    // Again: nothing left to refund, and no mail.
    const mails = listOutbox(store).length;
    expect(refund(a.id, t + 30 * DAY).body).toEqual({
      message: 'Nothing to refund.',
      refunds: [{ purchase_id: r.body.refunds[0].purchase_id, success: false }],
    });
    expect(listOutbox(store).length).toBe(mails);
  });

  it('14 days after the first access; more than 10% viewed; any page printed', () => {
    const book = readme;
    const pagesBefore = store.get<{ n: number }>('SELECT num_pages AS n FROM books WHERE hash_id = ?', book.hash_id)!.n;
    // A book of 300 pages: exactly 10% viewed (30 pages) is still refundable, 31 pages is not.
    store.run('UPDATE books SET num_pages = 300 WHERE hash_id = ?', book.hash_id);
    try {
      const now = store.now();
      const a = bought(now);
      recordUsage(store, a.u, book.hash_id, 30, 0);
      const first = store.get<{ t: number }>(
        'SELECT first_access_at AS t FROM usage u JOIN users r ON r.id = u.user_id WHERE r.username = ?',
        a.u,
      )!.t;
      expect(whyNot(a.id, first + 14 * DAY + 1).message).toContain('more than 14 days have passed since first access');
      const b = bought(now);
      recordUsage(store, b.u, book.hash_id, 31, 0);
      expect(whyNot(b.id, now).message).toContain('more than 10% of the book was viewed');
      const c = bought(now);
      recordUsage(store, c.u, book.hash_id, 0, 1);
      expect(whyNot(c.id, now).message).toContain('pages were printed');
      expect(refund(a.id, first + 14 * DAY).body.message).toBe('Refund processed.');
      const mail = listOutbox(store).at(-1)!;
      expect(mail.kind).toBe('order.refund');
      expect(mail.subject).toBe(`Refund of order ${a.id}`);
    } finally {
      store.run('UPDATE books SET num_pages = ? WHERE hash_id = ?', pagesBefore, book.hash_id);
    }
  });

  it('a listing and a purchase lookup say whether each item can be refunded now', () => {
    const now = store.now();
    const a = bought(now);
    const listed = () => call('user.orders', { params: { username: a.u } }).body;
    const l = listed();
    expect(l.count).toBe(1);
    expect(l.results[0].totals).toEqual({
      subtotal: '14.99',
      discount: '0.00',
      taxes: '0.00',
      shipping_fee: '0.00',
      processing_fee: '0.00',
      total: '14.99',
    });
    expect(l.results[0].items[0].refund_available).toBe(true);
    const item = l.results[0].items[0].id;
    const lookup = (payload: Record<string, unknown> = {}, username = a.u, id = String(item)) =>
      call('user.purchase', { params: { username, purchase_id: id }, payload }).body;
    recordUsage(store, a.u, readme.hash_id, 0, 2);
    expect(listed().results[0].items[0].refund_available).toBe(false);
    // The lookup tells the truth only when asked (the service's own default is true).
    expect(lookup().refund_available).toBe(true);
    expect(lookup({ refund_data: true }).refund_available).toBe(false);
    expect(lookup({ refund_info: true }).refund_available).toBe(false);
    const v = lookup({ refund_data: true }, a.u.toUpperCase());
    expect(v.id).toBe(item);
    expect(v.digital_pricing).toEqual({ description: readme.pricing[0].description, id: readme.pricing[0].id });
    expect(v.purchase_price).toBe('14.99');
    for (const [u, id] of [
      [a.u, '0'],
      [a.u, `${item}x`],
      [a.u, '1'.repeat(16)],
      [newUser(), String(item)],
      ['nobody', String(item)],
    ])
      expect(refusal('user.purchase', { params: { username: u, purchase_id: id } }).status).toBe(404);
  });

  it('names the items to refund by id, once each; the order must be the caller’s', () => {
    const now = store.now();
    const u = newUser();
    const o = order(u, [readme.pricing[0].id, WELL_KNOWN.otherPublisher.pricing[0].id], {}, now).body.order;
    const [i1, i2] = o.items.map((i: { id: number }) => i.id);
    expect(refusal('order.refund', { payload: { order_id: o.id, items: [i1, 424242] }, now }).message).toBe(
      `Item 424242 is not part of order ${o.id}.`,
    );
    expect(refusal('order.refund', { payload: { order_id: o.id }, caller: limited, now }).status).toBe(404);
    expect(refusal('order.refund', { payload: {} }).message).toBe('Field "order_id" is required.');
    expect(refusal('order.refund', { payload: { order_id: o.id, id: o.id + 1 } }).message).toMatch(/different orders/);
    expect(refusal('order.refund', { payload: { order_id: o.id, type: 'cancel' } }).message).toBe(
      'Field "type" must be "refund".',
    );
    const r = call('order.refund', { payload: { id: o.id, items: [i2, i2], type: 'refund', send_email: false }, now });
    expect(r.body.refunds).toEqual([{ purchase_id: i2, success: true }]);
    const rest = call('order.refund', { payload: { order_id: o.id, id: o.id, items: [] }, now });
    expect(rest.body.refunds).toEqual([
      { purchase_id: i1, success: true },
      { purchase_id: i2, success: false },
    ]);
    expect(listOutbox(store).at(-1)?.body).toBe(`Items ${i1} of order ${o.id} were refunded.`);
  });
});

describe('refunds and lookups, continued', () => {
  it('an item refunded before is passed over; the refusal names the item; the mail lists each refunded', () => {
    const now = store.now();
    const u = newUser();
    const two = () =>
      order(u, [readme.pricing[0].id, WELL_KNOWN.otherPublisher.pricing[0].id], {}, now).body.order as {
        id: number;
        items: Array<{ id: number }>;
      };
    const o = two();
    const [a, b] = o.items.map((i) => i.id);
    call('order.refund', { payload: { order_id: o.id, items: [a] }, now });
    // The refunded book is then printed from: that item would not be refundable now, but it is done.
    recordUsage(store, u, readme.hash_id, 0, 1);
    expect(call('order.refund', { payload: { order_id: o.id }, now }).body.refunds).toEqual([
      { purchase_id: a, success: false },
      { purchase_id: b, success: true },
    ]);
    const o2 = two();
    expect(refusal('order.refund', { payload: { order_id: o2.id }, now })).toEqual({
      status: 403,
      message: `Item ${o2.items[0].id} cannot be refunded: pages were printed.`,
      extra: { purchase_id: o2.items[0].id },
    });
    const v = newUser();
    const o3 = order(v, [readme.pricing[0].id, WELL_KNOWN.otherPublisher.pricing[0].id], {}, now).body.order;
    call('order.refund', { payload: { order_id: o3.id }, now });
    const [x, y] = o3.items.map((i: { id: number }) => i.id);
    expect(listOutbox(store).at(-1)?.body).toBe(`Items ${x}, ${y} of order ${o3.id} were refunded.`);
    expect(refusal('order.refund', { payload: { order_id: 987_654 } })).toMatchObject({
      status: 404,
      message: 'Order not found',
    });
  });

  it("a purchase looked up by its number alone (no spaces), a free item's and a grant's description", () => {
    const u = newUser();
    let id = 0;
    while (id < 10) id = order(u, [readme.pricing[0].id]).body.order.items[0].id;
    const lookup = (pid: string) => call('user.purchase', { params: { username: u, purchase_id: pid } }).body;
    expect(lookup(String(id)).id).toBe(id);
    for (const pid of [` ${id}`, `${id} `, `+${id}`])
      expect(refusal('user.purchase', { params: { username: u, purchase_id: pid } }), pid).toMatchObject({
        status: 404,
        message: 'Purchase not found',
      });
    const free = call('order.free', { payload: { username: u, hash_id: WELL_KNOWN.otherPublisher.hash_id } }).body;
    expect(listOutbox(store).at(-1)?.kind).toBe('order.free');
    expect(lookup(String(free.order.items[0].id)).digital_pricing).toEqual({ description: 'Free', id: null });
    expect(lookup(String(free.order.items[0].id)).purchase_price).toBe('0.00');
    call('access.allow', {
      payload: { username: u, hash_id: WELL_KNOWN.limitedPricing.hash_id, price: '2' },
      caller: operator,
    });
    const grant = call('user.orders', { params: { username: u } }).body.results.at(-1).items[0].id;
    expect(lookup(String(grant)).digital_pricing).toEqual({ description: 'External access', id: null });
  });
});

describe('free orders and access grants', () => {
  it('a free order gives the book until its date, at 0.00, and says so by mail', () => {
    const u = newUser();
    const now = store.now();
    expect(
      refusal('order.free', { payload: { username: u, hash_id: readme.hash_id, expiration_date: now }, now }).message,
    ).toMatch(/must be in the future/);
    const r = call('order.free', {
      payload: { username: u, hash_id: readme.hash_id.toUpperCase(), expiration_date: now + DAY },
      now,
    });
    expect(r.body.message).toBe('Free order created.');
    expect(r.body.order.totals.total).toBe(0);
    expect(Date.parse(r.body.order.items[0].expiration_date)).toBe(Math.floor((now + DAY) / 1000) * 1000);
    const mail = listOutbox(store).at(-1)!;
    expect(mail.subject).toBe(`Free access to "${readme.title}"`);
    expect(mail.body).toMatch(/ until \d{4}-/);
    call('order.free', { payload: { username: u, hash_id: readme.hash_id }, now });
    expect(listOutbox(store).at(-1)?.body).toMatch(new RegExp(`access to "${readme.title.replace(/'/g, '.')}"\\.$`));
  });

  it('a grant: its price and mail checked, once while it lasts, then revoked once', () => {
    const u = newUser();
    const now = store.now();
    const allow = (more: Record<string, unknown>, caller = operator) =>
      call('access.allow', { payload: { username: u, hash_id: readme.hash_id, price: '5', ...more }, caller, now });
    const refused = (more: Record<string, unknown>) => {
      try {
        allow(more);
      } catch (e) {
        return (e as Error).message;
      }
      return 'granted';
    };
    for (const price of [5, '', '1.234', '1234567890', '-1', '1.', '.5', 'x1'])
      expect(refused({ price }), String(price)).toBe('The price field was supplied an invalid value');
    for (const email of ['nope', 5, ' @x '])
      expect(refused({ email }), String(email)).toBe('The email field provided was invalid');
    expect(refused({ expiration_date: now })).toMatch(/future/);
    expect(refused({ hash_id: WELL_KNOWN.foreignPublisher.hash_id })).toBe('Not Authorized for Book');
    expect(allow({ price: ' 123456789.50 ', email: ' a@example.com ', send_email: true }).body.message).toBe(
      'Access granted.',
    );
    expect(listOutbox(store).at(-1)?.subject).toBe(`You now have access to "${readme.title}"`);
    expect(refused({})).toBe('The user already has access to this book');
    const item = call('user.orders', { params: { username: u } }).body.results[0].items[0];
    expect(item.purchase_price).toBe('123456789.50');
    const revoke = () =>
      call('access.revoke', { payload: { username: u, hash_id: readme.hash_id }, caller: operator, now });
    expect(revoke().body.message).toBe('Access revoked.');
    expect(() => revoke()).toThrow('Purchase record not found');
    // Granted again, until a time: after it, the grant no longer counts and a new one is made.
    const mails = listOutbox(store).length;
    allow({ expiration_date: now + 1000, email: '' });
    expect(listOutbox(store).length).toBe(mails);
    expect(
      call('access.allow', {
        payload: { username: u, hash_id: readme.hash_id, price: '1' },
        caller: operator,
        now: now + 1000,
      }).body.message,
    ).toBe('Access granted.');
  });

  it("a grant's mail says until when it lasts, or no date when it has none", () => {
    const now = store.now();
    const grant = (u: string, more: Record<string, unknown>) =>
      call('access.allow', {
        payload: { username: u, hash_id: readme.hash_id, price: '5', send_email: true, ...more },
        caller: operator,
        now,
      });
    grant(newUser(), { expiration_date: now + 2 * DAY });
    const dated = listOutbox(store).at(-1)!;
    expect(dated.kind).toBe('access.allow');
    expect(dated.body).toBe(`Access to "${readme.title}" was granted until ${isoTime(now + 2 * DAY)}.`);
    grant(newUser(), {});
    expect(listOutbox(store).at(-1)!.body).toBe(`Access to "${readme.title}" was granted.`);
  });
});

describe('codes', () => {
  const generate = (payload: Record<string, unknown>, c: Partial<Call> = {}) =>
    call('codes.generate', { payload: { hash_id: readme.hash_id, org: 1, ...payload }, ...c });

  it('count from 1 to 1000, days from 0 to 36500, a date in the future, a book the caller controls', () => {
    const now = store.now();
    for (const count of [0, 1001, 1.5])
      expect(refusal('codes.generate', { payload: { hash_id: readme.hash_id, count } }).message).toMatch(
        /between 1 and 1000/,
      );
    for (const limit_days of [-1, 36501])
      expect(refusal('codes.generate', { payload: { hash_id: readme.hash_id, count: 1, limit_days } }).message).toMatch(
        /between 0 and 36500/,
      );
    expect(
      refusal('codes.generate', { payload: { hash_id: readme.hash_id, count: 1, expiration_date: now }, now }).message,
    ).toMatch(/future/);
    expect(refusal('codes.generate', { payload: { hash_id: readme.hash_id, count: 1 }, caller: limited }).status).toBe(
      401,
    );
    const r = generate({ count: 3, limit_days: 36500, expiration_date: now + 10 * DAY }, { now });
    expect(r.body.codes).toHaveLength(3);
    expect(new Set(r.body.codes.map((c: { code: string }) => c.code)).size).toBe(3);
    expect(r.body.codes[0].limit_days).toBe(36500);
    expect(Date.parse(r.body.codes[0].deactivation_date)).toBe(Math.floor((now + 10 * DAY) / 1000) * 1000);
    expect(generate({ count: 1000 }).body.codes).toHaveLength(1000);
    expect(generate({ count: 1 }).body.codes[0]).toMatchObject({ limit_days: 0, deactivation_date: null });
  });

  it('a redeemed code gives the book for the shorter of its days and its date; once; not after its date', () => {
    const now = store.now();
    const [days] = generate({ count: 1, limit_days: 5 }).body.codes;
    const [dated] = generate({ count: 1, limit_days: 5, expiration_date: now + 2 * DAY }).body.codes;
    const [late] = generate({ count: 1, limit_days: 1, expiration_date: now + 9 * DAY }).body.codes;
    const [plain] = generate({ count: 1 }).body.codes;
    const u = newUser();
    const within = (iso: string | null, ms: number) => expect(Math.abs(Date.parse(iso!) - ms)).toBeLessThan(60_000);
    within(redeemCode(store, ` ${days.code.toLowerCase()} `, u).expiration_date as string, now + 5 * DAY);
    within(redeemCode(store, dated.code, u).expiration_date as string, now + 2 * DAY);
    within(redeemCode(store, late.code, u).expiration_date as string, now + DAY);
    expect(redeemCode(store, plain.code, u)).toMatchObject({ expiration_date: null, username: u });
    expect(() => redeemCode(store, plain.code, u)).toThrow('Code already redeemed.');
    expect(() => redeemCode(store, 'NOSUCHCODE', u)).toThrow('Code not found');
    const summary = call('codes.summary').body;
    expect(summary.codes_redeemed).toBe(4);
    expect(summary.redemption_percentage).toBeCloseTo(4 / summary.codes_generated);
    expect(call('codes.summary', { caller: limited }).body).toEqual({
      codes_generated: 0,
      codes_redeemed: 0,
      redemption_percentage: 0,
    });
    const [soon] = generate({ count: 1, expiration_date: store.now() + DAY }).body.codes;
    store.advanceClock(DAY);
    expect(() => redeemCode(store, soon.code, u)).toThrow('Code has expired.');
  });

  it("a code with a date and no days gives the book until the code's date; at that very moment it has expired", () => {
    const t0 = Date.now();
    const clock = vi.spyOn(Date, 'now').mockReturnValue(t0);
    try {
      const now = store.now();
      const [dated, edge] = generate({ count: 2, expiration_date: now + 3 * DAY }, { now }).body.codes;
      const u = newUser();
      expect(redeemCode(store, dated.code, u).expiration_date).toBe(isoTime(now + 3 * DAY));
      const item = call('user.orders', { params: { username: u } }).body.results[0].items[0];
      expect(item.purchase_price).toBe('0.00');
      clock.mockReturnValue(t0 + 3 * DAY - 1);
      expect(redeemCode(store, edge.code, newUser()).code).toBe(edge.code);
      const [last] = generate({ count: 1, expiration_date: now + 4 * DAY }, { now }).body.codes;
      clock.mockReturnValue(t0 + 4 * DAY);
      expect(() => redeemCode(store, last.code, u)).toThrow('Code has expired.');
    } finally {
      clock.mockRestore();
    }
  });
});

describe('Idempotency-Key', () => {
  it('a repeat gets the first answer; the key with another request is refused; without a key each runs', () => {
    const u = newUser();
    const free = (key: string | undefined, hash = readme.hash_id) =>
      call('order.free', { payload: { username: u, hash_id: hash }, key });
    const first = free('k-1');
    expect(free('k-1').body).toEqual(first.body);
    expect(() => free('k-1', WELL_KNOWN.otherPublisher.hash_id)).toThrow(/already used for a different request/);
    expect(() =>
      call('codes.generate', { payload: { hash_id: readme.hash_id, count: 1, org: 1 }, key: 'k-1' }),
    ).toThrow(/different request/);
    // The same key and the very same payload at another endpoint: refused, not the other's answer.
    const both = { username: u, hash_id: readme.hash_id, count: 1, org: 1 };
    call('order.free', { payload: both, key: 'k-both' });
    expect(() => call('codes.generate', { payload: both, key: 'k-both' })).toThrow(/different request/);
    expect(free('k-2').body.order.id).not.toBe(first.body.order.id);
    expect(free(undefined).body.order.id).not.toBe(free(undefined).body.order.id);
    // Another account's same key is its own.
    const c = call('codes.generate', {
      payload: { hash_id: WELL_KNOWN.foreignPublisher.hash_id, count: 1, org: 1 },
      key: 'k-1',
      caller: limited,
    });
    expect(c.body.codes).toHaveLength(1);
  });
});

describe('users', () => {
  it('created with a password or invited by mail; an e-mail taken is a conflict', () => {
    const email = 'rules-users@example.com';
    const r = call('user.create', {
      payload: {
        email: ` ${email} `,
        passwd: 'secret1',
        passwd_confirm: 'secret1',
        first_name: 'Ann',
        profile: { city: 'Cork' },
      },
    });
    expect(r.body).toMatchObject({ email, passwd: 'secret1', message: 'User created.' });
    expect(r.body.username).toMatch(/^[0-9a-f]{30}$/);
    const got = call('user.get', { params: { username: r.body.username.toUpperCase() } }).body.user;
    expect(got.email).toBe(email);
    expect(call('user.email', { params: { email: ` ${email} ` } }).body.user.username).toBe(r.body.username);
    expect(refusal('user.email', { params: { email: 'none@example.com' } }).status).toBe(404);
    const taken = refusal('user.create', { payload: { email } });
    expect(taken).toMatchObject({ status: 400, message: 'User with email address already exists' });
    expect(taken.extra).toEqual({ value: email, conflict: true, field: 'email', username: r.body.username });
    // The operator's create answers the conflict as a success (the access API's clients read it so).
    expect(call('user.create', { payload: { email }, caller: operator }).body).toEqual({
      message: 'User with email address already exists',
      value: email,
      conflict: true,
      field: 'email',
      username: r.body.username,
    });
    expect(refusal('user.invite', { payload: { email }, caller: operator }).status).toBe(400);
    const inv = call('user.invite', { payload: { email: 'rules-invited@example.com', first_name: 'Bo', passwd: 'x' } });
    expect(inv.body).toEqual({
      email: 'rules-invited@example.com',
      message: 'Invitation sent.',
      username: inv.body.username,
    });
    const mail = listOutbox(store).at(-1)!;
    expect(mail.to).toEqual(['rules-invited@example.com']);
    expect(mail.subject).toMatch(/^You are invited to read with /);
    expect(mail.body).toMatch(
      /^Hello Bo, an account was created for you \(rules-invited@example.com\)\. Your password: \S{6,}/,
    );
  });

  it('refuses a bad e-mail, an unknown profile field, passwords that differ or are short', () => {
    const msg = (payload: Record<string, unknown>) => refusal('user.create', { payload }).message;
    expect(msg({ email: 'not-an-email' })).toMatch(/valid e-mail/);
    expect(msg({ email: 'p1@example.com', profile: { city: 'x', shoe: '4' } })).toBe('Unknown field "profile.shoe".');
    expect(msg({ email: 'p2@example.com', passwd: 'secret1' })).toMatch(/do not match/);
    expect(msg({ email: 'p3@example.com', passwd_confirm: 'secret1' })).toMatch(/do not match/);
    expect(msg({ email: 'p4@example.com', passwd: '12345', passwd_confirm: '12345' })).toMatch(/at least 6/);
    expect(
      call('user.create', { payload: { email: 'p5@example.com', passwd: '123456', passwd_confirm: '123456' } }).body
        .passwd,
    ).toBe('123456');
    const gen = call('user.create', { payload: { email: 'p6@example.com' } }).body.passwd;
    expect(typeof gen === 'string' && gen.length >= 6).toBe(true);
  });
});

describe('books: lookups, listings, the processing queue', () => {
  it('by ISBN (any of its ISBNs, with or without hyphens), by SKU in any case, its prices; else 404', () => {
    const isbn = (v: string) => call('book.isbn', { params: { isbn: v } }).body.book.hash_id;
    expect(isbn(readme.isbn13)).toBe(readme.hash_id);
    expect(isbn(readme.isbn10)).toBe(readme.hash_id);
    expect(isbn(readme.eisbn13)).toBe(readme.hash_id);
    expect(isbn(`${readme.isbn13.slice(0, 3)}-${readme.isbn13.slice(3)}`)).toBe(readme.hash_id);
    for (const v of ['9780000000002', '', '9'.repeat(21)])
      expect(refusal('book.isbn', { params: { isbn: v } }).status, v).toBe(404);
    const sku = store.get<{ sku: string }>('SELECT sku FROM books WHERE hash_id = ?', readme.hash_id)!.sku;
    expect(call('book.sku', { params: { sku: sku.toLowerCase() } }).body.book.hash_id).toBe(readme.hash_id);
    expect(refusal('book.sku', { params: { sku: 'NO-SUCH-SKU' } }).status).toBe(404);
    const pricing = call('book.pricing', { params: { isbn: readme.isbn10 } }).body;
    expect(pricing).toMatchObject({ hash_id: readme.hash_id, isbn: readme.isbn13, title: readme.title });
    expect(pricing.digital_pricing.map((p: { id: number }) => p.id).sort()).toEqual(
      readme.pricing.map((p) => p.id).sort(),
    );
    expect(refusal('book.pricing', { params: { isbn: '9780000000002' } }).status).toBe(404);
    expect(call('book.get', { params: { hash_id: readme.hash_id.toUpperCase() } }).body.book.title).toBe(readme.title);
  });

  it("the account's books page by page: every book once, in order, whatever the page size", () => {
    const page = (limit: number, offset: number) => call('book.index', { payload: { limit, offset } }).body;
    const all = page(500, 0);
    expect(all.count).toBe(all.results.length);
    expect(all.count).toBeGreaterThan(5);
    const ids = all.results.map((b: { hash_id: string }) => b.hash_id);
    for (const size of [1, 2, 3]) {
      const seen: string[] = [];
      for (let offset = 0; offset < all.count; offset += size) {
        const p = page(size, offset);
        expect(p).toMatchObject({ count: all.count, limit: size, offset });
        seen.push(...p.results.map((b: { hash_id: string }) => b.hash_id));
      }
      expect(seen).toEqual(ids);
      // Read again from the middle (a remembered page end) and past the end.
      expect(page(size, size).results.map((b: { hash_id: string }) => b.hash_id)).toEqual(ids.slice(size, 2 * size));
    }
    // A book leaves the account's list (its publisher changes hands): the pages after it move up.
    page(2, 0);
    const first = all.results[0];
    const owner = store.get<{ p: number }>('SELECT publisher_id AS p FROM books WHERE hash_id = ?', first.hash_id)!.p;
    store.run('UPDATE books SET publisher_id = 3 WHERE hash_id = ?', first.hash_id);
    try {
      expect(page(2, 2).results.map((b: { hash_id: string }) => b.hash_id)).toEqual(ids.slice(3, 5));
    } finally {
      store.run('UPDATE books SET publisher_id = ? WHERE hash_id = ?', owner, first.hash_id);
    }
    expect(page(0, 0).limit).toBe(50);
    expect(page(5, all.count).results).toEqual([]);
    expect(call('book.index', { payload: { limit: 2, offset: 0 }, caller: limited }).body.count).not.toBe(all.count);
  });

  it('search: by title words and by hash ids, counted', () => {
    const r = call('book.search', { payload: { title: readme.title.split(' ')[1], limit: 5 } }).body;
    expect(r.results.map((b: { hash_id: string }) => b.hash_id)).toContain(readme.hash_id);
    expect(r.count).toBeGreaterThanOrEqual(r.results.length);
    const two = [readme.hash_id, WELL_KNOWN.otherPublisher.hash_id];
    const byIds = call('book.search', { payload: { hash_ids: two.map((h) => h.toUpperCase()) } }).body;
    expect(byIds.count).toBe(2);
    expect(byIds.results.map((b: { hash_id: string }) => b.hash_id).sort()).toEqual([...two].sort());
    const imports = call('import.search', { payload: { limit: 100 } }).body;
    expect(imports).toMatchObject({ count: SEED_IMPORTS.length, limit: 100, offset: 0 });
    const known = imports.results.find((i: { title: string }) => i.title === WELL_KNOWN.importTitle.title);
    expect(known.status).toEqual({ deleted: false, file_received: true, imported: false });
    expect(Object.keys(known.identifiers).sort()).toEqual(['book_id', 'eisbn10', 'eisbn13', 'isbn10', 'isbn13']);
  });

  it('the worker completes queued books one at a time, an urgent one first', () => {
    const [normal, urgent] = SEED_BOOKS.filter(
      (b) =>
        b.publisher_id === readme.publisher_id &&
        b.hash_id !== readme.hash_id &&
        b.hash_id !== WELL_KNOWN.queued.hash_id,
    );
    const processed = (hash: string) => {
      const st = call('book.get', { params: { hash_id: hash } }).body.book.status;
      return st.is_processed === true && st.is_queued === false;
    };
    call('book.process', { params: { hash_id: normal.hash_id }, payload: { force: true } });
    call('book.process', { params: { hash_id: urgent.hash_id }, payload: { force: true, urgent: true } });
    expect(runWorker(store, 60_000)).toBe(0);
    store.advanceClock(90_000);
    expect(runWorker(store, 60_000)).toBe(1);
    expect(processed(urgent.hash_id)).toBe(true);
    expect(processed(normal.hash_id)).toBe(false);
    store.advanceClock(60_000);
    expect(runWorker(store, 60_000)).toBe(1);
    expect(processed(normal.hash_id)).toBe(true);
    expect(runWorker(store, 60_000)).toBe(0);
  });

  it('describe lists every endpoint of the table; the OpenAPI document is sent as it is', () => {
    const d = call('describe').body.endpoints;
    expect(d.map((e: { name: string }) => e.name)).toEqual(endpoints().map((e) => e.name));
    const one = d.find((e: { name: string }) => e.name === 'order.refund');
    expect(one.fields.find((f: { name: string }) => f.name === 'order_id')).toMatchObject({ required: false });
    const doc = runHandler('openapi', '/openapi', handlerCtx(store, { payload: {}, origin: ORIGIN, queued: () => {} }));
    expect(doc.raw).toBe(true);
    expect(JSON.stringify(doc.body)).toContain(ORIGIN);
    const other = runHandler(
      'openapi',
      '/openapi',
      handlerCtx(store, { payload: {}, origin: 'http://other.test', queued: () => {} }),
    );
    expect(JSON.stringify(other.body)).toContain('http://other.test');
  });

  it('an endpoint the table has no handler for: 404 naming it and its path; nothing inherited is one', () => {
    expect(refusal('no.such')).toMatchObject({
      status: 404,
      message: 'The sandbox does not implement no.such (/no.such).',
    });
    expect(refusal('toString')).toMatchObject({
      status: 404,
      message: 'The sandbox does not implement toString (/toString).',
    });
  });
});

describe('books and the storefront', () => {
  it('book process: queued, already queued (made urgent), already processed, or forced', () => {
    const process = (hash: string, payload: Record<string, unknown> = {}) =>
      call('book.process', { params: { hash_id: hash }, payload }).body.message;
    const n = queued;
    expect(process(WELL_KNOWN.unprocessed.hash_id)).toBe('Book queued for processing.');
    expect(queued).toBe(n + 1);
    expect(process(WELL_KNOWN.unprocessed.hash_id, { urgent: true })).toBe('Book already queued.');
    expect(process(WELL_KNOWN.queued.hash_id)).toBe('Book already queued.');
    expect(process(readme.hash_id)).toBe('Book already processed.');
    expect(process(readme.hash_id, { force: true })).toBe('Book queued for processing.');
    expect(queued).toBe(n + 2);
    expect(refusal('book.process', { params: { hash_id: WELL_KNOWN.foreignPublisher.hash_id } }).status).toBe(401);
    expect(refusal('book.process', { params: { hash_id: 'f'.repeat(40) } }).status).toBe(404);
  });

  it('the reader link needs a live purchase', () => {
    const u = newUser();
    const viewer = () => call('book.viewer', { payload: { username: u, hash_id: readme.hash_id } });
    expect(() => viewer()).toThrow('Purchase for user not found.');
    order(u, [readme.pricing[0].id]);
    expect(viewer().body.viewer_url).toMatch(new RegExp(`^${ORIGIN}/reader/[0-9a-f]{32}/$`));
  });

  it('offers: an ISBN of a book on sale, its prices; each reason it is not', () => {
    const r = call('offers', { query: { isbn: readme.isbn13 } }).body;
    expect(r.Status).toBe('OK');
    expect(r.Isbn).toBe(readme.isbn13);
    expect(r.Offers).toContainEqual({ Price: '14.99', Id: readme.pricing[0].id, Condition: 'digital', RentalDays: 0 });
    const why = (isbn: string) => refusal('offers', { query: { isbn } }).message;
    expect(why('978-161')).toBe('Invalid ISBN supplied');
    expect(why('9780000000002')).toBe('The requested book does not exist');
    expect(why(WELL_KNOWN.inactive.isbn13)).toBe('The requested book does not exist');
    expect(why(WELL_KNOWN.unpublished.isbn13)).toBe('The requested book does not exist');
    expect(why(WELL_KNOWN.codeDistribution.isbn13)).toBe('The requested book is not available');
  });

  it('checkout: known price ids, at most 2000 characters, to a cart', () => {
    const id = readme.pricing[0].id;
    const r = call('checkout', { query: { ids: ` ${id}, ,${id} `, rejoiner_ids: 'r'.repeat(3000) } });
    expect(r.status).toBe(302);
    expect(r.body.location).toMatch(/^\/cart\/\?t=[0-9a-f]{24}$/);
    expect(r.headers?.location).toBe(r.body.location);
    const why = (ids: string) => refusal('checkout', { query: { ids } }).message;
    expect(why(' ')).toBe('Field "ids" is required.');
    expect(why(`${id},`.repeat(2001).slice(0, 2001))).toBe('Field "ids" is too long.');
    expect(call('checkout', { query: { ids: ','.repeat(2000 - String(id).length) + id } }).status).toBe(302);
    expect(why('12a')).toBe('Unknown price id 12a.');
    expect(why('999999')).toBe('Unknown price id 999999.');
    expect(why('9'.repeat(50))).toBe(`Unknown price id ${'9'.repeat(40)}.`);
  });

  it('the index names the sandbox by its origin; the profile lists the scopes in order', () => {
    expect(call('index').body.api.host).toBe('sandbox.test');
    const p = call('profile', { caller: limited }).body;
    expect(p.scopes).toEqual(['book_metadata', 'invite_user']);
    expect(Object.keys(p.profile).sort()).toEqual([
      'address_1',
      'address_2',
      'city',
      'country',
      'nickname',
      'state',
      'zip',
    ]);
    expect(refusal('no.such', {}).status).toBe(404);
  });
});
