// e2e: `bookdist order create|refund|free` against a sandbox over HTTP.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, WELL_KNOWN, type TestSandbox } from '../helpers/sandbox.js';
import { cliFor, json, uniqueEmail, type Cli } from './_support.js';

let sb: TestSandbox;
let cli: Cli;
const dir = mkdtempSync(join(tmpdir(), 'bookdist-order-test-'));
const readme = WELL_KNOWN.readme;
const billing = ['--billing-name', 'Ada Byron', '--billing-postal-code', '04101', '--billing-country', 'US'];

async function newUser(): Promise<string> {
  const r = await cli([
    'user',
    'create',
    '--email',
    uniqueEmail('order'),
    '--first-name',
    'Ada',
    '--last-name',
    'Byron',
    '--json',
  ]);
  expect(r.code).toBe(0);
  return json(r).username;
}

function orderArgs(username: string, ...pricing: number[]): string[] {
  return [
    'order',
    'create',
    '--username',
    username,
    ...pricing.flatMap((p) => ['--pricing-id', String(p)]),
    '--order-type',
    'TestPlan',
    '--org',
    'harborlane',
  ];
}

beforeAll(async () => {
  sb = await startTestSandbox();
  cli = cliFor(sb, { COLUMNS: '220' });
});
afterAll(async () => {
  await sb?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('order create', () => {
  it('reports an order and shows it with items and totals; "Order created." on stderr', async () => {
    const user = await newUser();
    const other = WELL_KNOWN.otherPublisher.pricing[0];
    const r = await cli([...orderArgs(user, readme.pricing[0].id, other.id), ...billing, '-o', 'table']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Order created.');
    expect(r.stdout).toMatch(/Order\s+\d+/);
    expect(r.stdout).toMatch(new RegExp(`User\\s+${user} \\(Ada Byron\\)`));
    expect(r.stdout).toMatch(/Items\s+2/);
    const total = (Number(readme.pricing[0].price) + Number(other.price)).toFixed(2);
    expect(r.stdout).toMatch(new RegExp(`Totals\\s+subtotal ${total} · taxes 0\\.00 · total ${total}`));
    expect(r.stdout).toContain(readme.title);
    expect(r.stdout).toContain(WELL_KNOWN.otherPublisher.title);
  });

  it('takes the billing address from a JSON file, shipping too, and gives the response with --json', async () => {
    const user = await newUser();
    const billingFile = join(dir, 'billing.json');
    const shippingFile = join(dir, 'shipping.json');
    writeFileSync(
      billingFile,
      JSON.stringify({
        first_name: 'Ada',
        last_name: 'Byron',
        line_1: '1 Quay St',
        postal_code: '04101',
        country: 'US',
      }),
    );
    writeFileSync(
      shippingFile,
      JSON.stringify({
        full_name: 'Ada Byron',
        line_1: '1 Quay St',
        city: 'Portland',
        postal_code: '04101',
        country: 'US',
      }),
    );
    const r = await cli([
      ...orderArgs(user, readme.pricing[1].id),
      '--billing-file',
      billingFile,
      '--shipping-file',
      shippingFile,
      '--no-email',
      '--json',
    ]);
    expect(r.code).toBe(0);
    const body = json(r);
    expect(body.message).toBe('Order created.');
    expect(body.order.username).toBe(user);
    expect(body.order.items).toHaveLength(1);
    // A limited price gives the item an expiration date.
    expect(body.order.items[0].expiration_date).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(r.stderr).not.toContain('Order created.');
  });

  it('exits 0 when the order number was used before (an idempotent repeat), showing the existing order and creating nothing', async () => {
    const user = await newUser();
    const number = `T-${Date.now().toString(36)}`;
    const first = await cli([...orderArgs(user, readme.pricing[0].id), ...billing, '--order-number', number, '--json']);
    expect(first.code).toBe(0);
    const id = json(first).order.id;
    const again = await cli([...orderArgs(user, readme.pricing[0].id), ...billing, '--order-number', number, '--json']);
    expect(again.code).toBe(0);
    expect(json(again).order.id).toBe(id);
    expect(again.stderr).toContain(`Order number ${number} was used before`);
    const orders = json(await cli(['user', 'orders', user, '--json']));
    expect(orders.count).toBe(1);
  });

  it("exits 1 with the service's message for an order type it does not support", async () => {
    const user = await newUser();
    const r = await cli([
      ...orderArgs(user, readme.pricing[0].id).map((a) => (a === 'TestPlan' ? 'POSPlan' : a)),
      ...billing,
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('POSPlan is not currently supported.');
  });
});

describe('order free', () => {
  it('gives free access, with an expiry sent as YYYY-MM-DD HH:MM:SS (table and JSON)', async () => {
    const [u1, u2] = await Promise.all([newUser(), newUser()]);
    const [table, out] = await Promise.all([
      cli(['order', 'free', '--username', u1, '--hash-id', readme.hash_id, '-o', 'table']),
      cli([
        'order',
        'free',
        '--username',
        u2,
        '--hash-id',
        readme.hash_id,
        '--expires',
        '2030-01-02T10:30:00Z',
        '--json',
      ]),
    ]);
    expect(table.code).toBe(0);
    expect(table.stderr).toContain('Free order created.');
    expect(table.stdout).toMatch(/Totals\s+subtotal 0\.00/);
    expect(out.code).toBe(0);
    const body = json(out);
    expect(body.message).toBe('Free order created.');
    expect(body.order.items[0].expiration_date).toBe('2030-01-02T10:30:00Z');
  });

  it('exits 3 for an unknown book', async () => {
    const user = await newUser();
    const r = await cli(['order', 'free', '--username', user, '--hash-id', 'f'.repeat(40)]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('HTTP 404');
  });
});

describe('order refund', () => {
  let user: string;
  let orderId: number;
  let items: number[];

  beforeAll(async () => {
    user = await newUser();
    const r = await cli([
      ...orderArgs(user, readme.pricing[0].id, WELL_KNOWN.otherPublisher.pricing[0].id),
      ...billing,
      '--json',
    ]);
    const order = json(r).order;
    orderId = order.id;
    items = order.items.map((i: any) => i.id);
  });

  const refunded = async () =>
    json(await cli(['user', 'orders', user, '--json'])).results[0].items.map((i: any) => i.is_refunded);

  it('needs --yes off a terminal, and sends nothing without it', async () => {
    const r = await cli(['order', 'refund', '--order-id', String(orderId)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`Refund order ${orderId}: confirmation needed; pass --yes`);
    expect(await refunded()).toEqual([false, false]);
  });

  it('prints the request with --dry-run and changes nothing', async () => {
    const r = await cli([
      'order',
      'refund',
      '--order-id',
      String(orderId),
      '--item',
      String(items[0]),
      '--no-email',
      '--dry-run',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`curl -X POST '${sb.url}/v1/order/refund/'`);
    expect(r.stdout).toContain(`"order_id": ${orderId}`);
    expect(r.stdout).toContain('"send_email": "False"');
    expect(await refunded()).toEqual([false, false]);
  });

  it('refunds one item with --yes (table), then the rest (JSON), reporting items already refunded', async () => {
    const one = await cli([
      'order',
      'refund',
      '--order-id',
      String(orderId),
      '--item',
      String(items[0]),
      '--no-email',
      '--yes',
      '-o',
      'table',
    ]);
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(new RegExp(`^${items[0]}\\s+refunded`, 'm'));
    expect(one.stderr).toContain(`Refunded 1 item of order ${orderId}.`);
    expect(await refunded()).toEqual([true, false]);
    const rest = await cli(['order', 'refund', '--order-id', String(orderId), '--send-email', '-y', '--json']);
    expect(rest.code).toBe(0);
    const body = json(rest);
    expect(body.refunds).toEqual(
      expect.arrayContaining([
        { purchase_id: items[0], success: false },
        { purchase_id: items[1], success: true },
      ]),
    );
    expect(rest.stderr).toContain(`1 item was not refunded (already refunded): ${items[0]}`);
    expect(await refunded()).toEqual([true, true]);
  });

  it('exits 2 for --send-email with --no-email', async () => {
    const r = await cli(['order', 'refund', '--order-id', String(orderId), '--send-email', '--no-email', '--yes']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--send-email and --no-email');
  });

  it('exits 1 outside the refund window, a business rule (runs last: moves the sandbox clock)', async () => {
    const late = await newUser();
    const order = json(await cli([...orderArgs(late, readme.pricing[0].id), ...billing, '--json'])).order;
    await sb.control.advanceClock('31d');
    const r = await cli(['order', 'refund', '--order-id', String(order.id), '--yes']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('HTTP 403');
    expect(r.stderr).toContain('cannot be refunded');
  });
});
