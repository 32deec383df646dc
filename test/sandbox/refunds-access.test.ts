// The refund rules of section 8 (with the clock moved and usage recorded), all-or-nothing
// refunds, the access state table of section 3 with its section 7 rows, expirations, the
// outbox and its send_email flags.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEED_BOOKS, startTestSandbox, WELL_KNOWN, type TestSandbox } from '../helpers/sandbox.js';
import { buy, clients, ERROR, expectShape, newUser, raw, type Clients } from './_support.js';

let sb: TestSandbox;
let c: Clients;
beforeAll(async () => {
  sb = await startTestSandbox();
  c = clients(sb);
});
afterAll(async () => {
  await c?.closeAll();
  await sb?.close();
});

const readme = WELL_KNOWN.readme; // 312 pages: 31 pages is within 10%, 32 is not
const refund = (payload: Record<string, unknown>) => c.partner.call('order.refund', { payload });

describe('refunds (section 8, decisions: Refunds)', () => {
  it('refunds a whole order, reports already refunded items as success false, e-mails the user', async () => {
    const user = await newUser(c.partner, 'r1');
    const order = await buy(c.partner, user, [readme.pricing[0].id, readme.pricing[1].id]);
    const r = await refund({ order_id: order.id, type: 'refund' });
    expect(r.status).toBe(200);
    expectShape(r.body, {
      code: 'integer',
      success: 'boolean',
      test_mode: 'boolean',
      refunds: [{ purchase_id: 'integer', success: 'boolean' }],
    });
    expect(r.body.refunds).toEqual(order.items.map((i: any) => ({ purchase_id: i.id, success: true })));
    const again = await refund({ id: order.id });
    expect(again.status).toBe(200);
    expect(again.body.refunds.every((x: any) => x.success === false)).toBe(true);
    const listed = (await c.partner.call('user.orders', { params: { username: user } })).body.results[0];
    expect(listed.items.every((i: any) => i.is_refunded && !i.is_active && i.refund_available === false)).toBe(true);
    const email = (await c.partner.call('user.get', { params: { username: user } })).body.user.email;
    expect((await sb.control.outbox(email)).filter((m) => m.kind === 'order.refund')).toHaveLength(1);
  });

  it('partial refund by items; send_email False sends nothing', async () => {
    const user = await newUser(c.partner, 'r2');
    const order = await buy(c.partner, user, [readme.pricing[0].id, WELL_KNOWN.otherPublisher.pricing[0].id]);
    const r = await refund({ order_id: order.id, items: [order.items[1].id], send_email: 'False' });
    expect(r.body.refunds).toEqual([{ purchase_id: order.items[1].id, success: true }]);
    const email = (await c.partner.call('user.get', { params: { username: user } })).body.user.email;
    expect(await sb.control.outbox(email)).toHaveLength(0);
    const items = (await c.partner.call('user.orders', { params: { username: user } })).body.results[0].items;
    expect(items.map((i: any) => i.is_refunded)).toEqual([false, true]);
    const bad = await refund({ order_id: order.id, items: [123456] });
    expect(bad.status).toBe(400);
  });

  it('viewed share: at most 10% of the pages', async () => {
    const user = await newUser(c.partner, 'r3');
    const order = await buy(c.partner, user, [readme.pricing[0].id]);
    await sb.control.usage({ username: user, hashId: readme.hash_id, viewed: 31 });
    let p = await c.partner.call('user.purchase', {
      params: { username: user, purchase_id: order.items[0].id },
      payload: { refund_data: true },
    });
    expect(p.body.refund_available).toBe(true);
    await sb.control.usage({ username: user, hashId: readme.hash_id, viewed: 1 });
    p = await c.partner.call('user.purchase', {
      params: { username: user, purchase_id: order.items[0].id },
      payload: { refund_data: true },
    });
    expect(p.body.refund_available).toBe(false);
    const r = await refund({ order_id: order.id });
    expect(r.status).toBe(403);
    expectShape(r.body, ERROR);
    expect(r.body.message).toMatch(new RegExp(`Item ${order.items[0].id}.*10%`));
  });

  it('viewed share at its edge: exactly 10% of a 320-page book (32 pages) stays refundable, 33 pages do not', async () => {
    const baltic = SEED_BOOKS.find((b) => b.num_pages === 320 && b.publisher === 'Northwind Academic')!;
    const user = await newUser(c.partner, 'r3edge');
    const order = await buy(c.partner, user, [baltic.pricing[0].id]);
    const available = async () =>
      (
        await c.partner.call('user.purchase', {
          params: { username: user, purchase_id: order.items[0].id },
          payload: { refund_data: true },
        })
      ).body.refund_available;
    await sb.control.usage({ username: user, hashId: baltic.hash_id, viewed: 32 });
    expect(await available()).toBe(true);
    await sb.control.usage({ username: user, hashId: baltic.hash_id, viewed: 1 });
    expect(await available()).toBe(false);
    expect((await refund({ order_id: order.id })).status).toBe(403);
  });

  it('printing any page forbids the refund, and the request is all or nothing', async () => {
    const user = await newUser(c.partner, 'r4');
    const order = await buy(c.partner, user, [readme.pricing[0].id, WELL_KNOWN.otherPublisher.pricing[0].id]);
    await sb.control.usage({ username: user, hashId: WELL_KNOWN.otherPublisher.hash_id, printed: 1 });
    const r = await refund({ order_id: order.id });
    expect(r.status).toBe(403);
    expect(r.body.message).toMatch(/printed/);
    const items = (await c.partner.call('user.orders', { params: { username: user } })).body.results[0].items;
    expect(items.map((i: any) => i.is_refunded)).toEqual([false, false]);
    expect(items.map((i: any) => i.refund_available)).toEqual([true, false]);
    const partial = await refund({ order_id: order.id, items: [order.items[0].id] });
    expect(partial.status).toBe(200);
  });

  it('page views in the reader count', async () => {
    const user = await newUser(c.partner, 'r5');
    const order = await buy(c.partner, user, [readme.pricing[0].id]);
    const url = (await c.partner.call('book.viewer', { payload: { username: user, hash_id: readme.hash_id } })).body
      .viewer_url;
    for (let page = 1; page <= 32; page++) expect((await raw(`${url}?page=${page}`)).status).toBe(200);
    expect((await refund({ order_id: order.id })).status).toBe(403);
    const user2 = await newUser(c.partner, 'r6');
    const order2 = await buy(c.partner, user2, [readme.pricing[0].id]);
    const url2 = (await c.partner.call('book.viewer', { payload: { username: user2, hash_id: readme.hash_id } })).body
      .viewer_url;
    expect((await raw(`${url2}print/?page=2`)).status).toBe(200);
    const r = await refund({ order_id: order2.id });
    expect(r.status).toBe(403);
    expect(r.body.message).toMatch(/printed/);
  });

  it("only the caller's orders; unknown order 404", async () => {
    const r = await refund({ order_id: 987654 });
    expect(r.status).toBe(404);
    const t = await refund({ order_id: 1, type: 'chargeback' });
    expect(t.status).toBe(400);
  });

  // Clock tests last: the clock only moves forward.
  it('14 days after first access, then 30 days after purchase', async () => {
    const user = await newUser(c.partner, 'r7');
    const early = await buy(c.partner, user, [readme.pricing[0].id]);
    const user2 = await newUser(c.partner, 'r8');
    const unread = await buy(c.partner, user2, [readme.pricing[0].id]);
    await sb.control.usage({ username: user, hashId: readme.hash_id, viewed: 1 });
    await sb.control.advanceClock(14 * 86_400_000 - 3_600_000); // 13 days 23 hours
    let p = await c.partner.call('user.purchase', {
      params: { username: user, purchase_id: early.items[0].id },
      payload: { refund_data: true },
    });
    expect(p.body.refund_available).toBe(true);
    await sb.control.advanceClock('2h');
    p = await c.partner.call('user.purchase', {
      params: { username: user, purchase_id: early.items[0].id },
      payload: { refund_data: true },
    });
    expect(p.body.refund_available).toBe(false);
    const r = await refund({ order_id: early.id });
    expect(r.status).toBe(403);
    expect(r.body.message).toMatch(/14 days/);
    // Never accessed: the 30-day window after purchase applies.
    await sb.control.advanceClock('15d');
    expect(
      (
        await c.partner.call('user.purchase', {
          params: { username: user2, purchase_id: unread.items[0].id },
          payload: { refund_data: true },
        })
      ).body.refund_available,
    ).toBe(true);
    await sb.control.advanceClock('1d');
    const late = await refund({ order_id: unread.id });
    expect(late.status).toBe(403);
    expect(late.body.message).toMatch(/30 days/);
  });
});

describe('access control (section 3 state table, section 7 rows)', () => {
  const allow = (payload: Record<string, unknown>, accept?: string) =>
    c.operator.call('access.allow', { payload, accept });
  const revoke = (payload: Record<string, unknown>, accept?: string) =>
    c.operator.call('access.revoke', { payload, accept });

  it('no access → allow → has access → allow again 400 → revoke → no access → revoke 404', async () => {
    const user = await newUser(c.partner, 'acc');
    const book = WELL_KNOWN.otherPublisher.hash_id;
    const v0 = await c.partner.call('book.viewer', { payload: { username: user, hash_id: book } });
    expect(v0.status).toBe(404);
    const a = await allow({
      hash_id: book,
      username: user,
      price: '12.01',
      send_email: 'true',
      email: 'desk@partner.example',
    });
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ code: 200, success: true, test_mode: true });
    expect((await c.partner.call('book.viewer', { payload: { username: user, hash_id: book } })).status).toBe(200);
    const email = (await c.partner.call('user.get', { params: { username: user } })).body.user.email;
    expect((await sb.control.outbox(email)).map((m) => m.kind)).toEqual(['access.allow']);
    const again = await allow({ hash_id: book, username: user, price: '12.01' });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ code: 400, error: true, message: 'The user already has access to this book' });
    const r = await revoke({ hash_id: book, username: user });
    expect(r.status).toBe(200);
    expect((await c.partner.call('book.viewer', { payload: { username: user, hash_id: book } })).status).toBe(404);
    const r2 = await revoke({ hash_id: book, username: user });
    expect(r2.status).toBe(404);
    expect(r2.body.message).toBe('Purchase record not found');
    const a2 = await allow({ hash_id: book, username: user, price: '0', send_email: false });
    expect(a2.status).toBe(200);
    expect(await sb.control.outbox(email)).toHaveLength(1);
  });

  it('expiration_date ends access; then allow works again', async () => {
    const user = await newUser(c.partner, 'exp');
    const book = WELL_KNOWN.readme.hash_id;
    const now = Date.parse(await sb.control.now());
    const exp = new Date(now + 2 * 86_400_000).toISOString().replace('T', ' ').slice(0, 19);
    expect((await allow({ hash_id: book, username: user, price: '5.00', expiration_date: exp })).status).toBe(200);
    expect((await c.partner.call('book.viewer', { payload: { username: user, hash_id: book } })).status).toBe(200);
    await sb.control.advanceClock('3d');
    expect((await c.partner.call('book.viewer', { payload: { username: user, hash_id: book } })).status).toBe(404);
    expect((await revoke({ hash_id: book, username: user })).status).toBe(404);
    expect((await allow({ hash_id: book, username: user, price: '5.00' })).status).toBe(200);
  });

  it('the error rows of section 7, in JSON and in XML', async () => {
    const user = await newUser(c.partner, 'err');
    const book = WELL_KNOWN.readme.hash_id;
    const rows: Array<[Record<string, unknown>, number, string]> = [
      [{ hash_id: 'f'.repeat(40), username: user, price: '1.00' }, 404, 'Book not found'],
      [{ hash_id: book, username: 'e'.repeat(30), price: '1.00' }, 404, 'User not found'],
      [{ hash_id: WELL_KNOWN.foreignPublisher.hash_id, username: user, price: '1.00' }, 401, 'Not Authorized for Book'],
      [{ hash_id: book, username: user, price: 'twelve' }, 400, 'The price field was supplied an invalid value'],
      [{ hash_id: book, username: user, price: '1.001' }, 400, 'The price field was supplied an invalid value'],
      [{ hash_id: book, username: user, price: '-1' }, 400, 'The price field was supplied an invalid value'],
      [
        { hash_id: book, username: user, price: '1.00', email: 'not an email' },
        400,
        'The email field provided was invalid',
      ],
    ];
    for (const [payload, status, message] of rows) {
      const j = await allow(payload);
      expect(j.status, message).toBe(status);
      expect(j.body).toMatchObject({ code: status, error: true, message });
      const x = await allow(payload, 'application/xml, application/json;q=0.5');
      expect(x.status).toBe(status);
      expect(x.format).toBe('xml');
      expect(x.body.message).toBe(message);
      expect(x.body.text).toContain('The following errors were detected:');
    }
    const revRows: Array<[Record<string, unknown>, number, string]> = [
      [{ hash_id: 'f'.repeat(40), username: user }, 404, 'Book not found'],
      [{ hash_id: book, username: 'e'.repeat(30) }, 404, 'User not found'],
      [{ hash_id: WELL_KNOWN.foreignPublisher.hash_id, username: user }, 401, 'Not Authorized for Book'],
      [{ hash_id: book, username: user }, 404, 'Purchase record not found'],
    ];
    for (const [payload, status, message] of revRows) {
      const j = await revoke(payload);
      expect(j.status, message).toBe(status);
      expect(j.body.message).toBe(message);
    }
  });

  it('the operator token: as Bearer, Token or a shared key, never another scheme, a wrong or an oversized one', async () => {
    // An authenticated call about a user that does not exist is 404; any other caller gets 403.
    const path = `/v1/access/allow/?hash_id=${WELL_KNOWN.readme.hash_id}&username=${'e'.repeat(30)}&price=3.50`;
    const status = async (headers: Record<string, string>) => (await fetch(sb.url + path, { headers })).status;
    const token = sb.creds.operatorToken;
    expect(await status({ authorization: `Bearer ${token}` })).toBe(404);
    expect(await status({ authorization: `token  ${token}` })).toBe(404);
    expect(await status({ 'api-key': token })).toBe(404);
    expect(await status({ authorization: 'SharedKeyAuth', 'api-key': token })).toBe(404);
    expect(await status({ authorization: `Bearer ${token}x` })).toBe(403);
    expect(await status({ authorization: 'Bearer' })).toBe(403);
    expect(await status({ authorization: `Basic ${token}` })).toBe(403);
    expect(await status({ authorization: 'Basic', 'api-key': token })).toBe(403);
    expect(await status({ authorization: `Bearer ${token}${'x'.repeat(300)}` })).toBe(403);
    // Only the access API takes it: a partner endpoint answers it as it answers no credentials (401).
    const partnerPath = `${sb.url}/v1/user/${'e'.repeat(30)}/`;
    expect((await fetch(partnerPath, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
  });

  it('GET form of the access API and partner auth with the access scope', async () => {
    const user = await newUser(c.partner, 'get');
    const book = WELL_KNOWN.readme.hash_id;
    const g = await c.operator.request({
      method: 'GET',
      path: `/v1/access/allow/?hash_id=${book}&username=${user}&price=3.50`,
      auth: 'access',
    });
    expect(g.status).toBe(200);
    const p = await c.partner.request({
      method: 'POST',
      path: '/v1/access/revoke/',
      payload: { hash_id: book, username: user },
      auth: 'partner',
    });
    expect(p.status).toBe(200);
  });
});
