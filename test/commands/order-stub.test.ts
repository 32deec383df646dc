// order create, refund and free in-process through the stub registry: the request each sends
// (form fields as the service reads them), its output as a table and as JSON, its main error with
// its exit code, and an answer the verified-answers check refuses ("outcome unknown", in the ledger).
import { describe, expect, it } from 'vitest';
import { json, ok, refusal, sentOnce, stdoutJson, stubCli, StubRegistry } from './_stubs.js';

const cli = stubCli();

const USER = '6dda08c181e996f3a7b0afe6ae9ead';
const HASH = 'dfdf8b53417b81653644de7e47b7f3122320094d';
const item = (id: number, price: string, extra: Record<string, unknown> = {}) => ({
  id,
  order: { id: 12 },
  book: { hash_id: HASH, title: 'A Winter Atlas' },
  user: { full_name: 'Ada Byron', username: USER },
  expiration_date: '2026-12-25T12:00:00Z',
  is_active: true,
  is_digital: true,
  is_print: false,
  is_refunded: false,
  purchase_date: '2026-11-25T12:00:00Z',
  purchase_price: price,
  quantity: 1,
  ...extra,
});
const order = (price: string) => ({
  id: 12,
  username: USER,
  is_complete: true,
  item_count: 1,
  items: [item(77, price)],
  totals: { subtotal: Number(price), taxes: 0, shipping: 0, total: Number(price) },
});
const ledgerLast = async () => stdoutJson(await cli(new StubRegistry(), ['ledger', 'list', '--json'])).at(-1);

describe('order create', () => {
  const ARGS = [
    'order',
    'create',
    '--username',
    USER,
    '--pricing-id',
    '4',
    '--pricing-id',
    '5',
    '--order-type',
    'TestPlan',
    '--org',
    'harborlane',
    '--billing-name',
    'Ada Byron',
    '--billing-postal-code',
    '04101',
    '--billing-country',
    'US',
  ];

  it('POST /v1/order/external/ with pricing ids, billing address, plan and org; the order as a card and JSON', async () => {
    const http = new StubRegistry().on(
      'POST',
      '/v1/order/external/',
      ok({ message: 'Order created.', order: order('3.99') }),
      2,
    );
    const card = await cli(http, [...ARGS, '--order-number', 'N-1', '--no-email', '-o', 'table']);
    expect(card.code, card.stderr).toBe(0);
    expect(card.stdout).toMatch(/^Order +12$/m);
    expect(card.stdout).toMatch(new RegExp(`^User +${USER} \\(Ada Byron\\)$`, 'm'));
    expect(card.stdout).toMatch(/^Totals +subtotal 3\.99 · taxes 0\.00 · total 3\.99$/m);
    expect(card.stdout).toMatch(
      new RegExp(`^ +77 +A Winter Atlas +${HASH} +3\\.99 +2026-11-25 12:00 +2026-12-25 12:00 +active$`, 'm'),
    );
    expect(card.stderr).toMatch(/Order created\./);
    expect(http.requests[0]!.payload).toEqual({
      username: USER,
      digital_pricing: [4, 5],
      billing_address: { full_name: 'Ada Byron', postal_code: '04101', country: 'US' },
      order_type: 'TestPlan',
      org: 'harborlane',
      send_email: false,
      order_number: 'N-1',
    });
    const j = stdoutJson(await cli(http, [...ARGS, '--json']));
    expect(j.order).toMatchObject({ id: 12, items: [{ id: 77 }] });
    expect(http.requests[1]!.payload).not.toHaveProperty('order_number');
    expect(await ledgerLast()).toMatchObject({ op: 'order create', status: 'done' });
  });

  it('an order number used before: the existing order, said on stderr, exit 0', async () => {
    const http = new StubRegistry().on(
      'POST',
      '/v1/order/external/',
      ok({ message: 'Order with this order number already exists.', order: order('3.99') }),
    );
    const r = await cli(http, [...ARGS, '--order-number', 'N-1', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /Order number N-1 was used before: nothing new was created; this is the existing order 12\./,
    );
  });

  it('an unknown user: exit 3 with the service message', async () => {
    const http = new StubRegistry().on('POST', '/v1/order/external/', refusal(404, 'User not found.'));
    const r = await cli(http, ARGS);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/User not found/);
    expect(await ledgerLast()).toMatchObject({ op: 'order create', status: 'failed' });
  });

  it('an answer without the order: outcome unknown (exit 1), recorded as unknown', async () => {
    const http = new StubRegistry().on('POST', '/v1/order/external/', ok({ message: 'Order created.' }));
    const r = await cli(http, ARGS);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/the outcome is unknown/);
    expect(r.stdout).toBe('');
    expect(await ledgerLast()).toMatchObject({ op: 'order create', status: 'unknown' });
  });
});

describe('order refund', () => {
  it('POST /v1/order/refund/ with order_id, items, type and send_email; one row per item and JSON', async () => {
    const http = new StubRegistry().on(
      'POST',
      '/v1/order/refund/',
      ok({ message: 'Refund processed.', refunds: [{ purchase_id: 77, success: true }] }),
      2,
    );
    const t = await cli(http, [
      'order',
      'refund',
      '--order-id',
      '12',
      '--item',
      '77',
      '--no-email',
      '--yes',
      '-o',
      'table',
    ]);
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout).toMatch(/^PURCHASE +RESULT$/m);
    expect(t.stdout).toMatch(/^77 +refunded$/m);
    expect(t.stderr).toMatch(/Refunded 1 item of order 12\./);
    expect(http.requests[0]!.payload).toEqual({ order_id: 12, items: [77], type: 'refund', send_email: 'False' });
    const j = stdoutJson(await cli(http, ['order', 'refund', '--order-id', '12', '--send-email', '--yes', '--json']));
    expect(j.refunds).toEqual([{ purchase_id: 77, success: true }]);
    expect(http.requests[1]!.payload).toEqual({ order_id: 12, type: 'refund', send_email: 'True' });
  });

  it('an item already refunded is said, and not counted as refunded', async () => {
    const http = new StubRegistry().on(
      'POST',
      '/v1/order/refund/',
      ok({ message: 'Refund processed.', refunds: [{ purchase_id: 77, success: false }] }),
    );
    const r = await cli(http, ['order', 'refund', '--order-id', '12', '--yes', '-o', 'table']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^77 +not refunded \(already refunded\)$/m);
    expect(r.stderr).toMatch(/Refunded 0 items of order 12\./);
    expect(r.stderr).toMatch(/1 item was not refunded \(already refunded\): 77\./);
  });

  it('a refusal of the refund window: exit 1 with the service message; without --yes in a script nothing is sent (exit 2)', async () => {
    const http = new StubRegistry().on(
      'POST',
      '/v1/order/refund/',
      refusal(400, 'The refund window of purchase 77 has closed.'),
    );
    const r = await cli(http, ['order', 'refund', '--order-id', '12', '--yes']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/The refund window of purchase 77 has closed\./);
    expect(r.stdout).toBe('');
    const unconfirmed = await cli(new StubRegistry(), ['order', 'refund', '--order-id', '12']);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toMatch(/--yes/);
  });

  it('refunds that are not a list: outcome unknown (exit 1)', async () => {
    const http = new StubRegistry().on('POST', '/v1/order/refund/', ok({ message: 'ok', refunds: 'all' }));
    const r = await cli(http, ['order', 'refund', '--order-id', '12', '--yes']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/the outcome is unknown/);
    expect(await ledgerLast()).toMatchObject({ op: 'order refund', status: 'unknown' });
  });
});

describe('order free', () => {
  it('POST /v1/order/free/ with username, hash_id and the expiry as YYYY-MM-DD HH:MM:SS; the order as a card and JSON', async () => {
    const http = new StubRegistry().on(
      'POST',
      '/v1/order/free/',
      ok({ message: 'Free order created.', order: order('0.00') }),
      2,
    );
    const card = await cli(http, [
      'order',
      'free',
      '--username',
      USER,
      '--hash-id',
      HASH,
      '--expires',
      '2026-12-25',
      '-o',
      'table',
    ]);
    expect(card.code, card.stderr).toBe(0);
    expect(card.stdout).toMatch(/^Order +12$/m);
    expect(card.stdout).toMatch(new RegExp(`^ +77 +A Winter Atlas +${HASH} +0\\.00 `, 'm'));
    expect(card.stderr).toMatch(/Free order created\./);
    expect(http.requests[0]!.payload).toEqual({
      username: USER,
      hash_id: HASH,
      expiration_date: '2026-12-25 00:00:00',
    });
    const j = stdoutJson(await cli(http, ['order', 'free', '--username', USER, '--hash-id', HASH, '--json']));
    expect(j).toMatchObject({ message: 'Free order created.', order: { id: 12 } });
    expect(http.requests[1]!.payload).toEqual({ username: USER, hash_id: HASH });
  });

  it('an unknown book: exit 3', async () => {
    const http = new StubRegistry().on('POST', '/v1/order/free/', refusal(404, 'Book not found.'));
    const r = await cli(http, ['order', 'free', '--username', USER, '--hash-id', HASH]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/Book not found/);
    expect(sentOnce(http, 'POST', '/v1/order/free/').payload).toEqual({ username: USER, hash_id: HASH });
  });

  it('an HTML page in a 200: outcome unknown (exit 1), recorded as unknown', async () => {
    const http = new StubRegistry().on('POST', '/v1/order/free/', {
      status: 200,
      headers: { 'content-type': 'text/html' },
      text: '<html>portal</html>',
    });
    const r = await cli(http, ['order', 'free', '--username', USER, '--hash-id', HASH]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/the outcome is unknown/);
    expect(await ledgerLast()).toMatchObject({ op: 'order free', status: 'unknown', http: 200 });
  });

  it('a 400 without the envelope is still the service saying no: exit 1 with its message', async () => {
    const http = new StubRegistry().on('POST', '/v1/order/free/', json(400, { message: 'Label not yours.' }));
    const r = await cli(http, ['order', 'free', '--username', USER, '--hash-id', HASH, '--label', 'elsewhere']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Label not yours/);
  });
});
