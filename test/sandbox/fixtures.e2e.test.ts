// Fixtures (issue 30, item 3): every sample in docs/samples/*fixture* applied through the CLI to a
// running sandbox (--url) and checked through the service; a named fixture applied twice makes
// nothing twice; a failing step is named with its field; --db works on the file.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { clients, type Clients } from './_support.js';

let sb: TestSandbox;
let c: Clients;
let env: Record<string, string>;
let dir: string;

beforeAll(async () => {
  sb = await startTestSandbox({ processDelayMs: 50 });
  c = clients(sb);
  env = { ...sb.env, BOOKDIST_SANDBOX_SECRET: sb.controlSecret };
  dir = mkdtempSync(join(tmpdir(), 'bookdist-fixtures-'));
});
afterAll(async () => {
  await c?.closeAll();
  await sb?.close();
  rmSync(dir, { recursive: true, force: true });
});

const SAMPLES = join(__dirname, '../../docs/samples');
const apply = async (file: string, ...more: string[]) => {
  const r = await runCli(['sandbox', 'fixtures', 'apply', file, '--url', sb.url, '--json', ...more], { env });
  // With --json an error is JSON on stderr: its message.
  const error = r.code === 0 ? '' : (JSON.parse(r.stderr).error.message as string);
  return { ...r, json: r.code === 0 ? JSON.parse(r.stdout) : undefined, error };
};
const resultOf = (out: { steps: Array<{ name: string; result: any }> }, name: string) =>
  out.steps.find((s) => s.name === name)!.result;

describe('the sample fixtures', () => {
  it('there are samples for the refund window, a held book, an expired rental and a code batch', () => {
    expect(
      readdirSync(SAMPLES)
        .filter((f) => f.includes('fixture'))
        .sort(),
    ).toEqual([
      'code-batch.fixture.json',
      'expired-rental.fixture.yaml',
      'held-book.fixture.yaml',
      'refund-window.fixture.yaml',
    ]);
  });

  it('refund window: bought 20 days ago, 12% read; the refund is refused for the reading, and applying again makes nothing twice', async () => {
    const first = await apply(join(SAMPLES, 'refund-window.fixture.yaml'));
    expect(first.code, first.stderr).toBe(0);
    expect(first.json).toMatchObject({ fixture: 'refund-window', applied: 5, remembered: 0 });
    const order = resultOf(first.json, 'order').order;
    const usage = resultOf(first.json, 'read-12-percent');
    expect(usage).toMatchObject({ pages_viewed: 38, num_pages: 312 });
    const refund = await c.partner.call('order.refund', { payload: { order_id: order.id } });
    expect(refund.status).toBe(403);
    expect(refund.body.message).toMatch(/more than 10% of the book was viewed/);

    const usersBefore = (await c.partner.call('user.orders', { params: { username: order.username } })).body.count;
    const clockBefore = await sb.control.now();
    const again = await apply(join(SAMPLES, 'refund-window.fixture.yaml'));
    expect(again.code, again.stderr).toBe(0);
    expect(again.json).toMatchObject({ applied: 0, remembered: 5 });
    expect(resultOf(again.json, 'order').order.id).toBe(order.id);
    expect((await c.partner.call('user.orders', { params: { username: order.username } })).body.count).toBe(
      usersBefore,
    );
    // The clock did not move a second time.
    expect(Date.parse(await sb.control.now()) - Date.parse(clockBefore)).toBeLessThan(60_000);
  });

  it('held book: held with its reason; the failing one is off the queue unprocessed, and the outbox says why', async () => {
    const r = await apply(join(SAMPLES, 'held-book.fixture.yaml'));
    expect(r.code, r.stderr).toBe(0);
    const held = (await c.partner.call('book.get', { params: { hash_id: resultOf(r.json, 'held').book.hash_id } })).body
      .book.status;
    expect(held).toMatchObject({
      is_queued: true,
      is_processed: false,
      is_held: true,
      held_reason: "waiting for the publisher's corrected EPUB",
    });
    const failing = resultOf(r.json, 'failing').book;
    const status = (await c.partner.call('book.get', { params: { hash_id: failing.hash_id } })).body.book.status;
    expect(status).toMatchObject({ is_queued: false, is_processed: false });
    const mail = (await sb.control.outbox()).filter((m) => m.kind === 'book.process.failed');
    expect(mail.at(-1)!.body).toContain('mimetype is not the first entry');
    // Released, the held book is processed in its turn.
    const released = await sb.control.call('POST', '/_sandbox/books/release', {
      hash_id: resultOf(r.json, 'held').book.hash_id,
    });
    expect(released.status).toBe(200);
    await sb.control.runWorker();
  });

  it('expired rental: after 181 days the viewer finds no active purchase', async () => {
    const r = await apply(join(SAMPLES, 'expired-rental.fixture.yaml'));
    expect(r.code, r.stderr).toBe(0);
    const viewer = await c.partner.call('book.viewer', {
      payload: { username: resultOf(r.json, 'reader').username, hash_id: resultOf(r.json, 'book').book.hash_id },
    });
    expect(viewer.status).toBe(404);
  });

  it('code batch: 25 codes, the first redeemed by a student, as the code summary counts', async () => {
    const before = (await c.partner.call('codes.summary', {})).body;
    const r = await apply(join(SAMPLES, 'code-batch.fixture.json'));
    expect(r.code, r.stderr).toBe(0);
    expect(resultOf(r.json, 'batch').codes).toHaveLength(25);
    expect(resultOf(r.json, 'redeemed').code).toBe(resultOf(r.json, 'batch').codes[0].code);
    const after = (await c.partner.call('codes.summary', {})).body;
    expect(after.codes_generated - before.codes_generated).toBe(25);
    expect(after.codes_redeemed - before.codes_redeemed).toBe(1);
  });
});

describe('errors name the step and the field', () => {
  it('a reference to no earlier step, a bad field of a call, and a file that is not a fixture', async () => {
    const file = join(dir, 'broken.fixture.yaml');
    writeFileSync(
      file,
      'steps:\n  - name: buyer\n    call: user.create\n    payload: { email: broken.one@example.com }\n  - name: order\n    call: order.external\n    payload: { username: "${reader.username}", digital_pricing: [1] }\n',
    );
    const r = await apply(file);
    expect(r.code).toBe(2);
    expect(r.error).toContain(
      'step 2 "order": field "payload.username": ${reader.username} names no earlier step "reader".',
    );

    writeFileSync(
      file,
      'name: broken-two\nsteps:\n  - name: buyer\n    call: user.create\n    payload: { email: broken.two@example.com }\n  - name: order\n    call: order.external\n    payload: { username: "${buyer.username}", digital_pricing: [1], billing_address: { full_name: A B, postal_code: "1", country: US }, org: acme, order_type: POSPlan }\n',
    );
    const failed = await apply(file);
    expect(failed.code).not.toBe(0);
    expect(failed.error).toMatch(
      /step 2 "order" \(order\.external\): the sandbox answered 400: POSPlan is not currently supported\. \(the 1 step before it are applied and remembered/,
    );
    // Fixed, it goes on from the failed step: the buyer is not made twice.
    writeFileSync(
      file,
      'name: broken-two\nsteps:\n  - name: buyer\n    call: user.create\n    payload: { email: broken.two@example.com }\n  - name: order\n    call: order.external\n    payload: { username: "${buyer.username}", digital_pricing: [1], billing_address: { full_name: A B, postal_code: "1", country: US }, org: acme, order_type: TestPlan }\n',
    );
    const fixed = await apply(file);
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(fixed.json.steps.map((s: { state: string }) => s.state)).toEqual(['remembered', 'applied']);

    writeFileSync(file, 'steps:\n  - name: x\n    control: clock.rewind\n');
    const bad = await apply(file);
    expect(bad.code).toBe(2);
    expect(bad.error).toContain(
      'step 1 "x": field "control": "clock.rewind" is not a sandbox control; use one of clock.advance',
    );
  });

  it('--db applies to the database file (JSON), and a missing field of a control is named', async () => {
    const file = join(dir, 'usage.fixture.json');
    writeFileSync(
      file,
      JSON.stringify({
        steps: [
          { name: 'read', control: 'usage', with: { hash_id: 'cee313141a0ce9a22774b32f87855d677d864cfb', viewed: 1 } },
        ],
      }),
    );
    const r = await runCli(['sandbox', 'fixtures', 'apply', file, '--db', sb.dbPath], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('step 1 "read": field "with.username" is required by usage');
  });
});
