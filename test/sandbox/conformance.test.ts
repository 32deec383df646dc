// Conformance of the sandbox to interface.md + decisions.md + wire.md, over real HTTP with
// signed requests: success shapes, section 7 rows, scopes, publisher authorization, listings.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../src/spec/endpoints.js';
import type { EndpointName } from '../../src/spec/contract.js';
import { pythonJson, quotePlus, sign, loadRsaPrivateKey } from '../../src/api/wire.js';
import { startTestSandbox, WELL_KNOWN, SEED_BOOKS, type TestSandbox } from '../helpers/sandbox.js';
import { isValidIsbn } from '../../src/sandbox/isbn.js';
import {
  BOOK,
  buy,
  checkShape,
  clients,
  ENVELOPE,
  ERROR,
  expectShape,
  ITEM,
  newUser,
  PRICING,
  raw,
  uniqueEmail,
  USER,
  type Clients,
} from './_support.js';

let sb: TestSandbox;
let c: Clients;

beforeAll(async () => {
  sb = await startTestSandbox({ processDelayMs: 300 });
  c = clients(sb);
});
afterAll(async () => {
  await c?.closeAll();
  await sb?.close();
});

describe('seed', () => {
  it('is a deterministic catalogue of valid identifiers', () => {
    expect(SEED_BOOKS.length).toBeGreaterThanOrEqual(20);
    expect(new Set(SEED_BOOKS.map((b) => b.publisher_id)).size).toBe(3);
    for (const b of SEED_BOOKS) {
      expect(b.hash_id).toMatch(/^[0-9a-f]{40}$/);
      expect(isValidIsbn(b.isbn13) && isValidIsbn(b.isbn10) && isValidIsbn(b.eisbn13)).toBe(true);
    }
    expect(WELL_KNOWN.partner.username).toMatch(/^[0-9a-f]{30}$/);
    expect(WELL_KNOWN.readme.hash_id).toBe('cee313141a0ce9a22774b32f87855d677d864cfb');
    expect(WELL_KNOWN.readme.isbn13).toBe('9781614001379');
    expect(sb.creds.partner.username).toBe(WELL_KNOWN.partner.username);
  });
});

describe('general (4.1)', () => {
  it('GET / and /index/ answer without auth', async () => {
    for (const path of ['/', '/index/', '/index']) {
      const r = await c.anon.request({ method: 'GET', path, auth: 'none' });
      expect(r.status).toBe(200);
      expectShape(r.body, {
        ...ENVELOPE,
        api: {
          admin: 'string',
          current_version: 'string',
          host: 'string',
          available_versions: [
            {
              version: 'string',
              version_date: 'string',
              version_help: 'string',
              version_major: 'integer',
              version_string: 'string',
              version_url: 'string',
            },
          ],
        },
      });
      expect(r.body.api.available_versions).toEqual([
        {
          version: 'v1',
          version_date: '2015-01-21',
          version_help: '/v1/describe/',
          version_major: 1,
          version_string: '1.0.3',
          version_url: '/v1/',
        },
      ]);
      expect(r.body.test_mode).toBe(true);
    }
  });

  it('GET /profile/ gives profile and scopes', async () => {
    const r = await c.partner.call('profile');
    expect(r.status).toBe(200);
    expectShape(r.body, {
      ...ENVELOPE,
      profile: {
        address_1: 'string',
        address_2: 'string',
        city: 'string',
        country: 'string',
        nickname: 'string',
        state: 'string',
        zip: 'string',
      },
      scopes: ['string'],
    });
    expect([...r.body.scopes].sort()).toEqual([...WELL_KNOWN.partner.scopes].sort());
    const l = await c.limited.call('profile');
    expect(l.body.scopes.sort()).toEqual(['book_metadata', 'invite_user']);
  });

  it('GET /v1/describe/ is generated from the endpoint table', async () => {
    const r = await c.partner.call('describe');
    expect(r.status).toBe(200);
    expect(r.body.endpoints.map((e: any) => e.name)).toEqual(endpoints().map((e) => e.name));
    for (const e of r.body.endpoints) {
      const src = endpoints().find((x) => x.name === e.name)!;
      expect(e.path).toBe(src.path);
      expect(e.methods).toEqual(src.methods);
      expect(e.scope).toBe(src.scope);
      expect(e.fields).toEqual(
        src.fields.map((f) => ({ name: f.name, type: f.type, required: !!f.required, description: f.description })),
      );
    }
  });

  it('every endpoint of the table is routed, with and without the final slash', async () => {
    for (const ep of endpoints()) {
      const path = ep.path.replace(/\{\w+\}/g, 'x');
      for (const p of new Set([path, path.replace(/\/$/, '')])) {
        const r = await raw(sb.url + p, { method: ep.methods[0] });
        expect(r.text, `${ep.methods[0]} ${p}`).not.toMatch(/No such endpoint/);
        expect(r.status, `${ep.methods[0]} ${p}`).not.toBe(405);
        expect(r.status).toBeLessThan(500);
      }
    }
  });
});

describe('books (4.2)', () => {
  const readme = WELL_KNOWN.readme;

  it('looks a book up by hash_id, ISBN-13, ISBN-10, hyphenated ISBN and SKU', async () => {
    const a = await c.partner.call('book.get', { params: { hash_id: readme.hash_id } });
    expect(a.status).toBe(200);
    expectShape(a.body, { ...ENVELOPE, book: BOOK });
    expect(a.body.book.hash_id).toBe(readme.hash_id);
    for (const isbn of [readme.isbn13, readme.isbn10, `${readme.isbn13.slice(0, 3)}-${readme.isbn13.slice(3)}`]) {
      const b = await c.partner.call('book.isbn', { params: { isbn } });
      expect(b.status, isbn).toBe(200);
      expect(b.body.book.hash_id).toBe(readme.hash_id);
    }
    const s = await c.partner.call('book.sku', { params: { sku: readme.sku } });
    expect(s.body.book.identifiers.sku).toBe(readme.sku);
  });

  it('limited pricing entries carry calculated_expiration_date and days_until_expiration', async () => {
    const r = await c.partner.call('book.get', { params: { hash_id: WELL_KNOWN.limitedPricing.hash_id } });
    for (const p of r.body.book.digital_pricing) {
      expectShape(p, { ...(PRICING as object), calculated_expiration_date: 'date', days_until_expiration: 'string' });
      expect(p.is_limited).toBe(true);
    }
    const d = await c.partner.call('book.get', { params: { hash_id: WELL_KNOWN.deactivatedPrice.hash_id } });
    expect(d.body.book.digital_pricing.filter((p: any) => p.deactivation_date !== null)).toHaveLength(1);
  });

  it('status flags of the seed', async () => {
    const get = async (h: string) => (await c.partner.call('book.get', { params: { hash_id: h } })).body.book.status;
    expect(await get(WELL_KNOWN.unpublished.hash_id)).toMatchObject({ is_published: false, is_public: false });
    expect(await get(WELL_KNOWN.inactive.hash_id)).toMatchObject({ is_active: false });
    expect(await get(WELL_KNOWN.queued.hash_id)).toMatchObject({ is_queued: true, is_processed: false });
    expect(await get(WELL_KNOWN.unprocessed.hash_id)).toMatchObject({ is_queued: false, is_processed: false });
  });

  it('404 for no matching book', async () => {
    expect((await c.partner.call('book.get', { params: { hash_id: 'f'.repeat(40) } })).status).toBe(404);
    expect((await c.partner.call('book.isbn', { params: { isbn: '9780000000002' } })).status).toBe(404);
    expect((await c.partner.call('book.sku', { params: { sku: 'NOPE' } })).status).toBe(404);
    const r = await c.partner.call('book.pricing', { params: { isbn: '9780000000002' } });
    expect(r.status).toBe(404);
    expectShape(r.body, ERROR);
  });

  it('pricing by ISBN', async () => {
    const r = await c.partner.call('book.pricing', { params: { isbn: readme.isbn13 } });
    expect(r.status).toBe(200);
    expectShape(r.body, { ...ENVELOPE, digital_pricing: [PRICING] });
    expect(r.body.digital_pricing.map((p: any) => p.id)).toEqual(readme.pricing.map((p) => p.id));
  });

  it('search by title, author, isbn and hash_ids with count and paging', async () => {
    const t = await c.partner.call('book.search', { payload: { title: 'lighthouse ledger' } });
    expect(t.status).toBe(200);
    expectShape(t.body, { ...ENVELOPE, count: 'integer', results: [BOOK] });
    expect(t.body.results.map((b: any) => b.hash_id)).toEqual([readme.hash_id]);
    const a = await c.partner.call('book.search', { payload: { author: 'Ellison' } });
    expect(a.body.count).toBe(1);
    const i = await c.partner.call('book.search', {
      payload: { isbn: [readme.isbn13, WELL_KNOWN.otherPublisher.isbn10] },
    });
    expect(i.body.count).toBe(2);
    const h = await c.partner.call('book.search', { payload: { hash_ids: [WELL_KNOWN.foreignPublisher.hash_id] } });
    expect(h.body.results[0].hash_id).toBe(WELL_KNOWN.foreignPublisher.hash_id);
    const all = await c.partner.call('book.search', { payload: { limit: 5, offset: 5 } });
    expect(all.body.count).toBe(SEED_BOOKS.length);
    expect(all.body.results.map((b: any) => b.id)).toEqual([6, 7, 8, 9, 10]);
  });

  it("index lists the books of the account's publishers, paged by id", async () => {
    const mine = SEED_BOOKS.filter((b) => b.publisher_id !== 3);
    const r = await c.partner.call('book.index', { payload: { offset: 0, limit: 0 } });
    expect(r.status).toBe(200);
    expectShape(r.body, { ...ENVELOPE, count: 'integer', results: [BOOK] });
    expect(r.body.count).toBe(mine.length);
    expect(r.body.results.map((b: any) => b.id)).toEqual(mine.map((b) => b.id));
    const page = await c.partner.call('book.index', { payload: { offset: 3, limit: 4 } });
    expect(page.body.results.map((b: any) => b.id)).toEqual(mine.slice(3, 7).map((b) => b.id));
    const post = await c.partner.request({ method: 'POST', path: '/v1/book/index/', payload: { limit: 2, offset: 1 } });
    expect(post.body.results.map((b: any) => b.id)).toEqual(mine.slice(1, 3).map((b) => b.id));
    const lim = await c.limited.call('book.index');
    expect(lim.body.results.every((b: any) => b.publisher.title === 'Copperleaf Books')).toBe(true);
    for (const bad of [{ limit: 501 }, { limit: -1 }, { offset: -1 }]) {
      const e = await c.partner.call('book.index', { payload: bad });
      expect(e.status, JSON.stringify(bad)).toBe(400);
      expect(e.body.message).toMatch(/limit|offset/);
    }
    const max = await c.partner.call('book.index', { payload: { limit: 500 } });
    expect(max.status).toBe(200);
  });

  it('viewer needs an active purchase; the reader records views', async () => {
    const user = await newUser(c.partner, 'viewer');
    const none = await c.partner.call('book.viewer', { payload: { username: user, hash_id: readme.hash_id } });
    expect(none.status).toBe(404);
    expect(none.body.message).toBe('Purchase for user not found.');
    await buy(c.partner, user, [readme.pricing[0].id]);
    const r = await c.partner.call('book.viewer', { payload: { username: user, hash_id: readme.hash_id } });
    expect(r.status).toBe(200);
    expectShape(r.body, { ...ENVELOPE, viewer_url: 'string' });
    const get = await c.partner.request({
      method: 'GET',
      path: `/v1/book/viewer/?username=${user}&hash_id=${readme.hash_id}`,
    });
    expect(get.status).toBe(200);
    const page = await raw(r.body.viewer_url + '?page=3');
    expect(page.status).toBe(200);
    expect(page.text).toContain(readme.title.replace(/'/g, '&#39;'));
    const foreign = await c.partner.call('book.viewer', {
      payload: { username: user, hash_id: WELL_KNOWN.foreignPublisher.hash_id },
    });
    expect(foreign.status).toBe(401);
    expect(foreign.body.message).toBe('Not Authorized for Book');
    const nouser = await c.partner.call('book.viewer', {
      payload: { username: '0'.repeat(30), hash_id: readme.hash_id },
    });
    expect(nouser.status).toBe(404);
  });
});

describe('processing (decisions: Book processing)', () => {
  // A sandbox of its own where processing a book takes an hour of its clock: the test moves the
  // clock and runs the worker itself, so no book finishes between two of its requests however slow
  // the machine is (with a real 300 ms, a loaded machine saw "already processed" for "already queued").
  let own: TestSandbox;
  let pc: Clients;
  beforeAll(async () => {
    own = await startTestSandbox({ processDelayMs: 3_600_000 });
    pc = clients(own);
  });
  afterAll(async () => {
    await pc?.closeAll();
    await own?.close();
  });

  it('queues, reports already queued / processed, and the worker completes the queue urgent first', async () => {
    const c = pc;
    const target = WELL_KNOWN.unprocessed;
    const q = await c.partner.call('book.process', {
      params: { hash_id: target.hash_id },
      payload: { force: false, urgent: false },
    });
    expect(q.status).toBe(200);
    expectShape(q.body, { ...ENVELOPE, message: 'string' });
    expect(q.body.message).toBe('Book queued for processing.');
    const again = await c.partner.call('book.process', { params: { hash_id: target.hash_id }, payload: {} });
    expect(again.body.message).toBe('Book already queued.');
    const st = (await c.partner.call('book.get', { params: { hash_id: target.hash_id } })).body.book.status;
    expect(st.is_queued).toBe(true);
    expect(st.queued_date).toMatch(/^\d{4}-/);

    // An urgent book queued later overtakes the normal ones still waiting.
    const normal = WELL_KNOWN.otherPublisher;
    const urgent = SEED_BOOKS.find((b) => b.title === 'Paper Boats')!;
    await c.partner.call('book.process', { params: { hash_id: normal.hash_id }, payload: { force: true } });
    await c.partner.call('book.process', {
      params: { hash_id: urgent.hash_id },
      payload: { force: true, urgent: 'True' },
    });
    // An hour of the sandbox's clock per book, one book at a time: the one in process, then the
    // urgent one, then the normal one.
    const processedAt: Record<string, string> = {};
    const order: string[] = [];
    for (let hour = 0; hour < 3; hour++) {
      await own.control.advanceClock('1h');
      await own.control.runWorker();
      for (const b of [target, normal, urgent]) {
        const s = (await c.partner.call('book.get', { params: { hash_id: b.hash_id } })).body.book.status;
        if (!s.is_queued && s.is_processed && !processedAt[b.hash_id]) {
          processedAt[b.hash_id] = s.processed_date;
          order.push(b === target ? 'target' : b === urgent ? 'urgent' : 'normal');
        }
      }
    }
    expect(order).toEqual(['target', 'urgent', 'normal']);
    expect(processedAt[urgent.hash_id] < processedAt[normal.hash_id]).toBe(true);

    const done = await c.partner.call('book.process', {
      params: { hash_id: target.hash_id },
      payload: { force: false },
    });
    expect(done.body.message).toBe('Book already processed.');
    const forced = await c.partner.call('book.process', {
      params: { hash_id: target.hash_id },
      payload: { force: true },
    });
    expect(forced.body.message).toBe('Book queued for processing.');
  });

  it('needs publisher authorization and the process scope', async () => {
    const r = await c.partner.call('book.process', {
      params: { hash_id: WELL_KNOWN.foreignPublisher.hash_id },
      payload: {},
    });
    expect(r.status).toBe(401);
    expect(r.body.message).toBe('Not Authorized for Book');
    const l = await c.limited.call('book.process', {
      params: { hash_id: WELL_KNOWN.foreignPublisher.hash_id },
      payload: {},
    });
    expect(l.status).toBe(403);
    expect(l.body.message).toBe('Missing scope: process');
  });
});

describe('users (4.3)', () => {
  it('invite creates the user, e-mails the invitation, and conflicts on the e-mail', async () => {
    const email = uniqueEmail('invite');
    const r = await c.partner.call('user.invite', {
      payload: {
        email,
        first_name: 'Ivy',
        last_name: 'Invite',
        profile: { city: 'Bath' },
        label: WELL_KNOWN.partner.label,
      },
    });
    expect(r.status).toBe(200);
    expectShape(r.body, { ...ENVELOPE, email: 'string', message: 'string', username: 'string' });
    expect(r.body.message).toBe('Invitation sent.');
    expect(r.body.username).toMatch(/^[0-9a-f]{30}$/);
    const mails = await sb.control.outbox(email);
    expect(mails).toHaveLength(1);
    expect(mails[0].kind).toBe('user.invite');
    const dup = await c.partner.call('user.invite', { payload: { email: email.toUpperCase() } });
    expect(dup.status).toBe(400);
    expect(dup.body).toMatchObject({
      message: 'User with email address already exists',
      value: email,
      conflict: true,
      field: 'email',
      username: r.body.username,
      error: true,
    });
    expect(await sb.control.outbox(email)).toHaveLength(1);
  });

  it('create returns the password, sends no e-mail; existing user: 400 partner, 200 operator token', async () => {
    const email = uniqueEmail('create');
    const r = await c.partner.call('user.create', {
      payload: { email, first_name: 'Cy', last_name: 'Create', passwd: 's3cret-pw', passwd_confirm: 's3cret-pw' },
    });
    expect(r.status).toBe(200);
    expectShape(r.body, { ...ENVELOPE, email: 'string', passwd: 'string', message: 'string', username: 'string' });
    expect(r.body.message).toBe('User created.');
    expect(r.body.passwd).toBe('s3cret-pw');
    const gen = await c.partner.call('user.create', {
      payload: { email: uniqueEmail('gen'), passwd: null, passwd_confirm: null },
    });
    expect(gen.body.passwd.length).toBeGreaterThanOrEqual(12);
    expect(await sb.control.outbox(email)).toHaveLength(0);
    const dup = await c.partner.call('user.create', { payload: { email } });
    expect(dup.status).toBe(400);
    expect(dup.body).toMatchObject({
      message: 'User with email address already exists',
      conflict: true,
      field: 'email',
      value: email,
      username: r.body.username,
    });
    const tok = await c.operator.request({ method: 'POST', path: '/v1/user/', payload: { email }, auth: 'access' });
    expect(tok.status).toBe(200);
    expect(tok.body).toMatchObject({
      code: 200,
      message: 'User with email address already exists',
      value: email,
      conflict: true,
      field: 'email',
      username: r.body.username,
    });
    const mismatch = await c.partner.call('user.create', {
      payload: { email: uniqueEmail(), passwd: 'abcdefgh', passwd_confirm: 'abcdefgx' },
    });
    expect(mismatch.status).toBe(400);
    const badEmail = await c.partner.call('user.create', { payload: { email: 'not-an-email' } });
    expect(badEmail.status).toBe(400);
    expect(badEmail.body.message).toMatch(/email/);
    const badLabel = await c.partner.call('user.create', { payload: { email: uniqueEmail(), label: 'someone-else' } });
    expect(badLabel.status).toBe(400);
  });

  it('get by username and by e-mail', async () => {
    const u = WELL_KNOWN.user;
    const a = await c.partner.call('user.get', { params: { username: u.username } });
    expect(a.status).toBe(200);
    expectShape(a.body, { ...ENVELOPE, user: USER });
    expect(a.body.user.email).toBe(u.email);
    const b = await c.partner.call('user.email', { params: { email: u.email } });
    expect(b.body.user.username).toBe(u.username);
    expect((await c.partner.call('user.get', { params: { username: 'a'.repeat(30) } })).status).toBe(404);
    expect((await c.partner.call('user.email', { params: { email: 'nobody@example.com' } })).status).toBe(404);
  });

  it('orders and purchase lookup with refund_data / refund_info', async () => {
    const user = await newUser(c.partner, 'orders');
    const order = await buy(c.partner, user, [WELL_KNOWN.readme.pricing[0].id, WELL_KNOWN.readme.pricing[1].id]);
    const list = await c.partner.call('user.orders', { params: { username: user } });
    expect(list.status).toBe(200);
    expectShape(list.body, {
      ...ENVELOPE,
      count: 'integer',
      results: [
        {
          id: 'integer',
          username: 'string',
          is_complete: 'boolean',
          item_count: 'integer',
          items: [{ ...(ITEM as object), refund_available: 'boolean' }],
          totals: {
            subtotal: 'decimal',
            taxes: 'decimal',
            total: 'decimal',
            shipping_fee: 'decimal',
            discount: 'decimal',
            processing_fee: 'decimal',
          },
        },
      ],
    });
    expect(list.body.count).toBe(1);
    expect(list.body.results[0].totals.total).toBe('21.98');
    const post = await c.partner.request({ method: 'POST', path: `/v1/user/${user}/orders/`, payload: {} });
    expect(post.body.count).toBe(1);

    const itemId = order.items[0].id;
    await sb.control.usage({ username: user, hashId: WELL_KNOWN.readme.hash_id, printed: 1 });
    const plain = await c.partner.call('user.purchase', { params: { username: user, purchase_id: itemId } });
    expect(plain.status).toBe(200);
    expectShape(plain.body, {
      ...ENVELOPE,
      book: { hash_id: 'string', sample_url: 'string', title: 'string' },
      digital_pricing: { description: 'string', id: 'integer' },
      expiration_date: 'datetime|null',
      id: 'integer',
      is_active: 'boolean',
      is_digital: 'boolean',
      is_print: 'boolean',
      is_refunded: 'boolean',
      purchase_date: 'datetime',
      purchase_price: 'decimal',
      quantity: 'integer',
      refund_available: 'boolean',
      user: { full_name: 'string', username: 'string' },
    });
    expect(plain.body.refund_available).toBe(true);
    for (const flag of [{ refund_data: true }, { refund_info: 'True' }]) {
      const t = await c.partner.call('user.purchase', {
        params: { username: user, purchase_id: itemId },
        payload: flag,
      });
      expect(t.body.refund_available, JSON.stringify(flag)).toBe(false);
    }
    const get = await c.partner.request({
      method: 'GET',
      path: `/v1/user/${user}/purchase/${itemId}/?refund_data=true`,
    });
    expect(get.body.refund_available).toBe(false);
    const missing = await c.partner.call('user.purchase', { params: { username: user, purchase_id: 999999 } });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ message: 'Purchase not found', error: true });
  });
});

describe('orders (4.4)', () => {
  it('external order: shape, totals, expiration of limited entries, outbox to label members', async () => {
    const user = await newUser(c.partner, 'ext');
    const lim = WELL_KNOWN.limitedPricing.pricing[0];
    const r = await c.partner.call('order.external', {
      payload: {
        username: user,
        digital_pricing: [WELL_KNOWN.readme.pricing[0].id, lim.id],
        billing_address: { first_name: 'A', last_name: 'B', postal_code: '1', country: 'US' },
        order_type: 'ExternalPlan',
        org: 'acme',
        label: WELL_KNOWN.partner.label,
        shipping_address: null,
        send_email: 'true',
      },
    });
    expect(r.status).toBe(200);
    expect(r.body.message).toBe('Order created.');
    expectShape(r.body.order, {
      id: 'integer',
      username: 'string',
      is_complete: 'boolean',
      item_count: 'integer',
      items: [ITEM],
      totals: { subtotal: 'number', taxes: 'number', total: 'number', shipping: 'number' },
    });
    expect(r.body.order.totals).toEqual({ subtotal: 18.98, taxes: 0, shipping: 0, total: 18.98 });
    const [unl, rental] = r.body.order.items;
    expect(unl.expiration_date).toBeNull();
    const days = (Date.parse(rental.expiration_date) - Date.parse(rental.purchase_date)) / 86_400_000;
    expect(days).toBe(lim.limit_days);
    const mails = await sb.control.outbox(WELL_KNOWN.partner.labelMember);
    expect(mails.filter((m) => m.kind === 'order.external').length).toBeGreaterThanOrEqual(1);
  });

  it('send_email false sends nothing; free orders e-mail the account', async () => {
    const before = (await sb.control.outbox()).length;
    const user = await newUser(c.partner, 'quiet');
    await buy(c.partner, user, [WELL_KNOWN.readme.pricing[0].id], { send_email: 'False' });
    expect((await sb.control.outbox()).length).toBe(before);
    const f = await c.partner.call('order.free', {
      payload: { username: user, hash_id: WELL_KNOWN.otherPublisher.hash_id, expiration_date: '2099-12-31 23:59:59' },
    });
    expect(f.status).toBe(200);
    expect(f.body.message).toBe('Free order created.');
    expect(f.body.order.items[0]).toMatchObject({ purchase_price: '0.00', expiration_date: '2099-12-31T23:59:59Z' });
    expect((await sb.control.outbox()).length).toBe(before + 1);
  });

  it('order_type, billing address, unknown/deactivated pricing, order_number length', async () => {
    const user = await newUser(c.partner, 'bad');
    const base = {
      username: user,
      digital_pricing: [1],
      billing_address: { full_name: 'A', postal_code: '1', country: 'US' },
      order_type: 'TestPlan',
      org: 'o',
    };
    const cases: Array<[Record<string, unknown>, number, RegExp]> = [
      [{ order_type: 'POSPlan' }, 400, /^POSPlan is not currently supported\.$/],
      [{ billing_address: { full_name: 'A' } }, 400, /billing_address/],
      [{ digital_pricing: [99999] }, 400, /99999/],
      [{ digital_pricing: [WELL_KNOWN.deactivatedPrice.pricing[1].id] }, 400, /deactivated/],
      [{ order_number: 'X'.repeat(21) }, 400, /order_number/],
      [{ username: 'b'.repeat(30) }, 404, /User not found/],
      [{ org: undefined }, 400, /"org" is required/],
    ];
    for (const [patch, status, msg] of cases) {
      const r = await c.partner.call('order.external', { payload: { ...base, ...patch } });
      expect(r.status, JSON.stringify(patch)).toBe(status);
      expect(r.body.message).toMatch(msg);
    }
  });

  it('order_number is idempotent per account', async () => {
    const user = await newUser(c.partner, 'idem');
    const num = `N-${Date.now() % 1e9}`;
    const first = await buy(c.partner, user, [1], { order_number: num });
    const again = await c.partner.call('order.external', {
      payload: {
        username: user,
        digital_pricing: [1],
        billing_address: { full_name: 'A', postal_code: '1', country: 'US' },
        order_type: 'TestPlan',
        org: 'o',
        order_number: num,
      },
    });
    expect(again.status).toBe(200);
    expect(again.body.message).toBe('Order already exists.');
    expect(again.body.order.id).toBe(first.id);
    expect((await c.partner.call('user.orders', { params: { username: user } })).body.count).toBe(1);
  });
});

describe('codes (4.5)', () => {
  it('generates unique codes in the documented format and counts them in the summary', async () => {
    const before = (await c.partner.call('codes.summary')).body;
    expectShape(before, {
      ...ENVELOPE,
      codes_generated: 'integer',
      codes_redeemed: 'integer',
      redemption_percentage: 'number',
    });
    const r = await c.partner.call('codes.generate', {
      payload: {
        hash_id: WELL_KNOWN.codeDistribution.hash_id,
        org: 'acme',
        count: 1000,
        limit_days: 30,
        samples: 'false',
      },
    });
    expect(r.status).toBe(200);
    expect(r.body.codes).toHaveLength(1000);
    expectShape(r.body.codes[0], { code: 'string', deactivation_date: 'null', limit_days: 'integer' });
    for (const x of r.body.codes)
      expect(x.code).toMatch(
        /^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{4}-[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{4}-[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{4}$/,
      );
    const more = await c.partner.call('codes.generate', {
      payload: {
        hash_id: WELL_KNOWN.codeDistribution.hash_id,
        org: 'acme',
        count: 5,
        expiration_date: '2099-01-01 00:00:00',
      },
    });
    expect(more.body.codes[0].deactivation_date).toBe('2099-01-01T00:00:00Z');
    const all = [...r.body.codes, ...more.body.codes].map((x: any) => x.code);
    expect(new Set(all).size).toBe(all.length);

    const user = await newUser(c.partner, 'redeem');
    const red = await sb.control.redeem(all[0], user);
    expect(red.purchase_id).toBeGreaterThan(0);
    await expect(sb.control.redeem(all[0], user)).rejects.toThrow(/already redeemed/);
    const after = (await c.partner.call('codes.summary')).body;
    expect(after.codes_generated).toBe(before.codes_generated + 1005);
    expect(after.codes_redeemed).toBe(before.codes_redeemed + 1);
    expect(after.redemption_percentage).toBeCloseTo(after.codes_redeemed / after.codes_generated, 10);
    // Redeeming gives access: the viewer works.
    const v = await c.partner.call('book.viewer', {
      payload: { username: user, hash_id: WELL_KNOWN.codeDistribution.hash_id },
    });
    expect(v.status).toBe(200);
  });

  it('count bounds, publisher authorization, summary of an account without codes', async () => {
    for (const count of [0, 1001, -5, 2.5, '10']) {
      const r = await c.partner.call('codes.generate', {
        payload: { hash_id: WELL_KNOWN.readme.hash_id, org: 'a', count },
      });
      expect(r.status, String(count)).toBe(400);
      expect(r.body.message).toMatch(/"count"/);
    }
    const f = await c.partner.call('codes.generate', {
      payload: { hash_id: WELL_KNOWN.foreignPublisher.hash_id, org: 'a', count: 1 },
    });
    expect(f.status).toBe(401);
    expect(f.body.message).toBe('Not Authorized for Book');
    const l = await c.limited.call('codes.summary');
    expect(l.status).toBe(403);
    expect(l.body.message).toBe('Missing scope: codes');
  });
});

describe('imported titles (4.6)', () => {
  it('search with count, limit, offset and status flags', async () => {
    const r = await c.partner.call('import.search', { payload: {} });
    expect(r.status).toBe(200);
    expectShape(r.body, {
      ...ENVELOPE,
      count: 'integer',
      limit: 'integer',
      offset: 'integer',
      results: [
        {
          title: 'string',
          author: 'string',
          publisher: 'string',
          edition_number: 'integer',
          identifiers: { book_id: 'integer', eisbn10: 'string', eisbn13: 'string', isbn10: 'string', isbn13: 'string' },
          status: { deleted: 'boolean', file_received: 'boolean', imported: 'boolean' },
        },
      ],
    });
    expect(r.body.count).toBe(10);
    expect(r.body.limit).toBe(50);
    const flags = new Set(r.body.results.map((x: any) => JSON.stringify(x.status)));
    expect(flags.size).toBeGreaterThanOrEqual(4);
    const t = await c.partner.call('import.search', { payload: { isbn: [WELL_KNOWN.importTitle.isbn13], limit: 1 } });
    expect(t.body.results[0].title).toBe(WELL_KNOWN.importTitle.title);
    const g = await c.partner.request({ method: 'GET', path: '/v1/import/search/?title=coastal&limit=5' });
    expect(g.body.count).toBe(1);
    const p = await c.partner.call('import.search', { payload: { limit: 3, offset: 9 } });
    expect(p.body.results).toHaveLength(1);
  });
});

describe('price comparison (4.7)', () => {
  it('offers for an ISBN and the errors of section 7', async () => {
    const r = await raw(`${sb.url}/api/offers.json?isbn=${WELL_KNOWN.readme.isbn13}`);
    expect(r.status).toBe(200);
    expectShape(r.json, {
      Status: 'string',
      Offers: [{ Price: 'decimal', Id: 'integer', Condition: 'string', RentalDays: 'integer' }],
      Isbn: 'string',
      success: 'boolean',
      code: 'integer',
    });
    expect(r.json.Offers).toEqual([
      { Price: '14.99', Id: WELL_KNOWN.readme.pricing[0].id, Condition: 'digital', RentalDays: 0 },
      { Price: '6.99', Id: WELL_KNOWN.readme.pricing[1].id, Condition: 'digital', RentalDays: 180 },
    ]);
    const cases: Array<[string, string]> = [
      ['', 'Invalid ISBN supplied'],
      ['12345', 'Invalid ISBN supplied'],
      ['9780000000002', 'The requested book does not exist'],
      [WELL_KNOWN.inactive.isbn13, 'The requested book does not exist'],
      [WELL_KNOWN.unpublished.isbn13, 'The requested book does not exist'],
      [WELL_KNOWN.codeDistribution.isbn13, 'The requested book is not available'],
    ];
    for (const [isbn, message] of cases) {
      const e = await raw(`${sb.url}/api/offers.json?isbn=${isbn}`);
      expect(e.status, isbn).toBe(400);
      expect(e.json.message).toBe(message);
    }
  });

  it('checkout redirects to a pre-filled cart that answers 200', async () => {
    const r = await raw(
      `${sb.url}/checkout?ids=${WELL_KNOWN.readme.pricing[0].id},${WELL_KNOWN.limitedPricing.pricing[0].id}&rejoiner_ids=abc`,
    );
    expect(r.status).toBe(302);
    expect(r.headers.location).toMatch(/^\/cart\/\?t=[0-9a-f]+$/);
    const cart = await raw(sb.url + r.headers.location);
    expect(cart.status).toBe(200);
    expect(cart.text).toContain(WELL_KNOWN.limitedPricing.title);
    expect((await raw(`${sb.url}/checkout?ids=abc`)).status).toBe(400);
  });
});

describe('scopes (decisions: Scopes)', () => {
  it('the limited account gets 403 Missing scope: <name> for each operation it lacks', async () => {
    const checks: Array<[EndpointName, Record<string, unknown>, string]> = [
      ['user.create', { payload: { email: uniqueEmail() } }, 'create_user'],
      ['user.get', { params: { username: WELL_KNOWN.user.username } }, 'users'],
      ['order.external', { payload: {} }, 'create_orders'],
      ['order.refund', { payload: { order_id: 1 } }, 'refunds'],
      ['import.search', { payload: {} }, 'import'],
      ['book.viewer', { payload: {} }, 'viewer'],
      ['access.allow', { payload: {} }, 'access'],
    ];
    for (const [name, args, scope] of checks) {
      const r = await c.limited.call(name, args as any);
      expect(r.status, name).toBe(name.startsWith('access') ? 403 : 403);
      expect(r.body.message, name).toBe(`Missing scope: ${scope}`);
    }
    const ok = await c.limited.call('book.get', { params: { hash_id: WELL_KNOWN.foreignPublisher.hash_id } });
    expect(ok.status).toBe(200);
    const inv = await c.limited.call('user.invite', { payload: { email: uniqueEmail('lim') } });
    expect(inv.status).toBe(200);
  });
});

describe('authentication (wire.md)', () => {
  const username = () => sb.creds.partner.username;
  const key = () => loadRsaPrivateKey(sb.creds.partner.keyPem);

  it('SharedKeyAuth works; wrong keys, signatures and users give 401 Authentication failed', async () => {
    expect((await c.shared.call('profile')).status).toBe(200);
    const bads: Array<Record<string, string>> = [
      {},
      { 'api-user': username(), user: username(), authorization: 'SharedKeyAuth', 'api-key': 'nope' },
      { 'api-user': username(), user: username(), authorization: 'CryptoAuth', signature: 'AAAA' },
      { 'api-user': username(), user: username(), authorization: 'CryptoAuth', signature: sign('someone-else', key()) },
      {
        'api-user': 'c'.repeat(30),
        user: 'c'.repeat(30),
        authorization: 'SharedKeyAuth',
        'api-key': sb.creds.partner.sharedKey,
      },
      { 'api-user': username(), authorization: 'CryptoAuth' },
      { 'api-user': sb.creds.limited.username, authorization: 'SharedKeyAuth', 'api-key': sb.creds.partner.sharedKey },
    ];
    for (const headers of bads) {
      const r = await raw(`${sb.url}/profile/`, { headers });
      expect(r.status, JSON.stringify(Object.keys(headers))).toBe(401);
      expect(r.json).toMatchObject({ code: 401, error: true, message: 'Authentication failed' });
    }
  });

  it('header names in any case and with _ for -; Ruby style without authorization header', async () => {
    const sig = sign(username(), key());
    const r1 = await raw(`${sb.url}/profile/`, {
      headers: { Api_User: username(), USER: username(), Signature: sig, AUTHORIZATION: 'CryptoAuth', Version: 'v1' },
    });
    expect(r1.status).toBe(200);
    const r2 = await raw(`${sb.url}/profile/`, { headers: { User: username(), Api_user: username(), Signature: sig } });
    expect(r2.status).toBe(200);
  });

  it('the signature covers the raw request text: form and JSON bodies, Python and compact JSON', async () => {
    const hash = WELL_KNOWN.unprocessed.hash_id;
    const path = `/v1/book/${hash}/process/`;
    const python = pythonJson({ force: false, urgent: false });
    const compact = JSON.stringify({ force: 'false', urgent: 'False' });
    for (const text of [python, compact]) {
      const form = await raw(sb.url + path, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'api-user': username(),
          user: username(),
          signature: sign(text, key()),
          authorization: 'CryptoAuth',
        },
        body: 'request=' + quotePlus(text),
      });
      expect(form.status, text).toBe(200);
    }
    const body = `{"request": {"force" : false,  "urgent":null}}`;
    const member = `{"force" : false,  "urgent":null}`;
    const json = await raw(sb.url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'api-user': username(), signature: sign(member, key()) },
      body,
    });
    expect(json.status).toBe(200);
    const tampered = await raw(sb.url + path, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'api-user': username(),
        signature: sign(python, key()),
        authorization: 'CryptoAuth',
      },
      body: 'request=' + quotePlus(pythonJson({ force: true, urgent: false })),
    });
    expect(tampered.status).toBe(401);
  });

  it('access API: auth failures are 403, as XML when Accept prefers it', async () => {
    const r = await raw(`${sb.url}/v1/access/allow/`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: 'SharedKeyAuth',
        'api-key': 'wrong',
      },
      body: 'request=%7B%7D',
    });
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({ code: 403, error: true, message: 'Authentication failed' });
    const x = await raw(`${sb.url}/v1/access/allow/`, {
      method: 'POST',
      headers: { accept: 'application/xml', authorization: 'SharedKeyAuth', 'api-key': 'wrong' },
    });
    expect(x.status).toBe(403);
    expect(x.headers['content-type']).toMatch(/xml/);
    expect(x.text).toContain('<error>The following errors were detected:</error>');
    expect(x.text).toContain('<message>Authentication failed</message>');
  });
});

describe('every response says test_mode: true', () => {
  it('on success and on error', async () => {
    const rs = [
      await c.partner.call('profile'),
      await c.partner.call('book.get', { params: { hash_id: 'x' } }),
      await c.anon.call('profile'),
      await c.partner.request({ method: 'GET', path: '/v1/nope/' }),
    ];
    for (const r of rs) expect(r.body.test_mode, JSON.stringify(r.body)).toBe(true);
    expect(checkShape(rs[1].body, ERROR)).toEqual([]);
  });
});
