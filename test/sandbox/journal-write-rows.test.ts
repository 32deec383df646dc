// The journal row of a request that wrote (an order, a user, a grant) is made from what the
// server already has (src/sandbox/journal/redact.ts): the `request` text as the client sent it,
// and the answer as it was sent for the routes whose answers hold no secret (orders, grants),
// neither read nor written out again. Every secret is still redacted: one in a request that only
// a JSON escape spells, a created user's password, the operator token.
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, WELL_KNOWN, type TestSandbox } from '../helpers/sandbox.js';
import { raw, uniqueEmail } from './_support.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ processDelayMs: 100 });
});
afterAll(async () => {
  await sb?.close();
});

const readme = WELL_KNOWN.readme;

/** POST a `request` text as it stands, signed with the partner's shared key (or the given headers). */
function post(path: string, requestText: string, auth?: Record<string, string>) {
  const headers = auth ?? {
    'api-user': sb.creds.partner.username,
    user: sb.creds.partner.username,
    'api-key': sb.creds.partner.sharedKey,
    authorization: 'SharedKeyAuth',
  };
  return raw(`${sb.url}${path}`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ request: requestText }).toString(),
  });
}

/** The journal's newest row for `path`, every column, from the database file (a write's row is committed before its answer). */
function rowOf(path: string): Record<string, unknown> {
  const db = new DatabaseSync(sb.dbPath, { readOnly: true });
  try {
    return db.prepare('SELECT * FROM journal WHERE path = ? ORDER BY id DESC LIMIT 1').get(path) as Record<
      string,
      unknown
    >;
  } finally {
    db.close();
  }
}

/** A user made through the API with these names; its username. */
async function userNamed(first: string, last: string): Promise<string> {
  const made = await post(
    '/v1/user/',
    JSON.stringify({ email: uniqueEmail('journal'), first_name: first, last_name: last }),
  );
  expect(made.status, made.text).toBe(200);
  return made.json.username;
}

describe('the journal row of a request that wrote', () => {
  it("keeps an order's request and answer as they were sent", async () => {
    // A name the order's answer shows, with text that looks like a cart link: the user's own
    // words, not a token, and the journal shows what the client got.
    const username = await userNamed('Tess', 'Reader ?t=0a1b2c3d');
    const requestText = `{
  "username": "${username}",
  "digital_pricing": [ ${readme.pricing[0].id} ],
  "billing_address": { "full_name": "Tess Reader", "postal_code": "04101", "country": "US" },
  "order_type": "TestPlan", "org": "acme", "send_email": false
}`;
    const order = await post('/v1/order/external/', requestText);
    expect(order.status, order.text).toBe(200);
    expect(order.text).toContain('Tess Reader ?t=0a1b2c3d');
    const row = rowOf('/v1/order/external/');
    expect(row.request).toBe(requestText);
    expect(row.response).toBe(order.text);
    expect(JSON.parse(String(row.changes))).toEqual({ orders: [order.json.order.id], purchases: expect.any(Array) });
  });

  it('still redacts every secret: a password spelled with a JSON escape, the created password, the operator token', async () => {
    const password = `Pw-${Date.now()}-escaped`;
    // "pass\u0077d" is "passwd" once read: only reading the text finds it (the same for its confirmation).
    const made = await post(
      '/v1/user/',
      `{"email":"${uniqueEmail('journal')}","pass\\u0077d":"${password}","pass\\u0077d_confirm":"${password}"}`,
    );
    expect(made.status, made.text).toBe(200);
    expect(made.json.passwd).toBe(password);
    const created = rowOf('/v1/user/');
    expect(JSON.stringify(created)).not.toContain(password);
    expect(JSON.parse(String(created.request))).toMatchObject({ passwd: '[redacted]', passwd_confirm: '[redacted]' });
    expect(JSON.parse(String(created.response)).passwd).toBe('[redacted]');

    // The operator token as a Bearer token, on a write whose answer is kept as it was sent.
    const requestText = JSON.stringify({ hash_id: readme.hash_id, username: made.json.username, price: '1.00' });
    const allow = await post('/v1/access/allow/', requestText, { authorization: `Bearer ${sb.creds.operatorToken}` });
    expect(allow.status, allow.text).toBe(200);
    const granted = rowOf('/v1/access/allow/');
    expect(JSON.stringify(granted)).not.toContain(sb.creds.operatorToken);
    expect(JSON.parse(String(granted.headers)).authorization).toBe('Bearer [redacted]');
    expect(granted.request).toBe(requestText);
    expect(granted.response).toBe(allow.text);
  });
});
