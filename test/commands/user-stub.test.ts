// user invite, create, get, orders and purchase in-process through the stub registry: the request
// each sends, its output as a table and as JSON, and its main error with its exit code; for the
// writes also an answer the verified-answers check refuses.
import { describe, expect, it } from 'vitest';
import { json, ok, refusal, sentOnce, stdoutJson, stubCli, StubRegistry } from './_stubs.js';

const cli = stubCli();

const USER = '6dda08c181e996f3a7b0afe6ae9ead';
const OTHER = 'a2c498d3a2f12ff53c1d2446a52ab2';
const HASH = 'aed38230e7613bbe87f4962a4294149072ee32a3';
const EXISTS = {
  message: 'User with email address already exists',
  value: 'ada@example.com',
  conflict: true,
  field: 'email',
  username: OTHER,
};
const ITEM = {
  id: 41,
  order: { id: 9 },
  book: { hash_id: HASH, title: 'Salt and Cedar' },
  user: { full_name: 'Ada Byron', username: USER },
  expiration_date: null,
  is_active: true,
  is_digital: true,
  is_print: false,
  is_refunded: false,
  purchase_date: '2026-11-20T10:15:00Z',
  purchase_price: '12.99',
  quantity: 1,
  refund_available: true,
};
const ORDER = {
  id: 9,
  username: USER,
  is_complete: true,
  item_count: 1,
  items: [ITEM],
  totals: { subtotal: 12.99, taxes: 0, shipping: 0, total: 12.99 },
};

describe('user invite', () => {
  it('POST /v1/user/invite/ with e-mail, names and label; the new username as a card and in JSON', async () => {
    const http = new StubRegistry().on(
      'POST',
      '/v1/user/invite/',
      ok({ email: 'ada@example.com', message: 'Invitation sent.', username: USER }),
      2,
    );
    const args = ['user', 'invite', '--email', 'ada@example.com', '--first-name', 'Ada', '--last-name', 'Byron'];
    const card = await cli(http, [...args, '--label', 'harborlane', '-o', 'table']);
    expect(card.code, card.stderr).toBe(0);
    expect(card.stdout).toMatch(new RegExp(`^Username +${USER}$`, 'm'));
    expect(card.stdout).toMatch(/^Email +ada@example\.com$/m);
    expect(http.requests[0]!.payload).toEqual({
      email: 'ada@example.com',
      first_name: 'Ada',
      last_name: 'Byron',
      label: 'harborlane',
    });
    const j = stdoutJson(await cli(http, [...args, '--json']));
    expect(j).toMatchObject({ username: USER, email: 'ada@example.com' });
  });

  it('an e-mail that has an account: exit 5 naming the existing user', async () => {
    const http = new StubRegistry().on('POST', '/v1/user/invite/', json(400, { code: 400, error: true, ...EXISTS }));
    const r = await cli(http, ['user', 'invite', '--email', 'ada@example.com']);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain(`username ${OTHER}; \`bookdist user get ${OTHER}\``);
  });

  it('a 200 without a username: outcome unknown (exit 1), recorded as unknown', async () => {
    const http = new StubRegistry().on('POST', '/v1/user/invite/', ok({ email: 'ada@example.com', message: 'ok' }));
    const r = await cli(http, ['user', 'invite', '--email', 'ada@example.com']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/the outcome is unknown/);
    const ledger = stdoutJson(await cli(new StubRegistry(), ['ledger', 'list', '--json']));
    expect(ledger.at(-1)).toMatchObject({ op: 'user invite', status: 'unknown' });
  });
});

describe('user create', () => {
  it('POST /v1/user/ with a password from stdin; the username as a card and in JSON, the password never shown', async () => {
    const http = new StubRegistry().on(
      'POST',
      '/v1/user/',
      ok({ email: 'grace@example.com', message: 'User created.', username: USER }),
      2,
    );
    const args = ['user', 'create', '--email', 'grace@example.com', '--first-name', 'Grace', '--password-stdin'];
    const card = await cli(http, [...args, '-o', 'table'], { input: 's3cret-Pw\n' });
    expect(card.code, card.stderr).toBe(0);
    expect(card.stdout).toMatch(new RegExp(`^Username +${USER}$`, 'm'));
    expect(http.requests[0]!.payload).toEqual({
      email: 'grace@example.com',
      first_name: 'Grace',
      passwd: 's3cret-Pw',
      passwd_confirm: 's3cret-Pw',
    });
    const j = await cli(http, [...args, '--json'], { input: 's3cret-Pw\n' });
    expect(stdoutJson(j)).toMatchObject({ username: USER, email: 'grace@example.com' });
    expect(card.output + j.output).not.toContain('s3cret-Pw');
  });

  it('a generated password is shown once, with a warning', async () => {
    const http = new StubRegistry().on(
      'POST',
      '/v1/user/',
      ok({ email: 'grace@example.com', passwd: 'Gen-Pw-0042', message: 'User created.', username: USER }),
    );
    const r = await cli(http, ['user', 'create', '--email', 'grace@example.com', '-o', 'table']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.match(/Gen-Pw-0042/g)).toHaveLength(1);
    expect(r.stderr).toMatch(/password/i);
    expect(http.requests[0]!.payload).toEqual({ email: 'grace@example.com' });
  });

  it('an e-mail that has an account: exit 5 naming the existing user', async () => {
    const http = new StubRegistry().on('POST', '/v1/user/', json(400, { code: 400, error: true, ...EXISTS }));
    const r = await cli(http, ['user', 'create', '--email', 'ada@example.com']);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain(`username ${OTHER}`);
  });

  it('`success: false` in a 200: outcome unknown (exit 1)', async () => {
    const http = new StubRegistry().on('POST', '/v1/user/', json(200, { code: 200, success: false, username: USER }));
    const r = await cli(http, ['user', 'create', '--email', 'ada@example.com']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/the outcome is unknown/);
    expect(r.stdout).toBe('');
  });
});

describe('user get', () => {
  const FOUND = {
    user: {
      username: USER,
      first_name: 'Ada',
      last_name: 'Byron',
      email: 'ada@example.com',
      status: { is_active: true, verified: false, over_18: true, date_joined: '2026-11-20T10:00:00Z' },
      owner: { username: 'stubpartner', full_name: 'Stub Integrations' },
      permissions: { html_posting: false, bdp_posting: false, can_post: false },
    },
  };

  it('by username and by e-mail: the endpoint of each; a card and JSON', async () => {
    const http = new StubRegistry()
      .on('GET', `/v1/user/${USER}/`, ok(FOUND))
      .on('GET', '/v1/user/email/ada%40example.com/', ok(FOUND));
    const card = await cli(http, ['user', 'get', USER, '-o', 'table']);
    expect(card.code, card.stderr).toBe(0);
    expect(card.stdout).toMatch(new RegExp(`^Username +${USER}$`, 'm'));
    expect(card.stdout).toMatch(/^Email +ada@example\.com$/m);
    expect(card.stdout).toMatch(/^Status +active, not verified, over 18$/m);
    expect(card.stdout).toMatch(/^Owner +Stub Integrations \(stubpartner\)$/m);
    const j = stdoutJson(await cli(http, ['user', 'get', '--email', 'ada@example.com', '--json']));
    expect(j.user.username).toBe(USER);
  });

  it('an unknown user: exit 3', async () => {
    const http = new StubRegistry().on('GET', `/v1/user/${USER}/`, refusal(404, 'User not found.'));
    const r = await cli(http, ['user', 'get', USER]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/User not found/);
  });
});

describe('user orders', () => {
  it('GET /v1/user/<username>/orders/; each order with its items as a table, and JSON', async () => {
    const http = new StubRegistry().on('GET', `/v1/user/${USER}/orders/`, ok({ count: 1, results: [ORDER] }), 2);
    const t = await cli(http, ['user', 'orders', USER, '-o', 'table']);
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout).toMatch(/^Order +9$/m);
    expect(t.stdout).toMatch(/^Totals +subtotal 12\.99 · taxes 0\.00 · total 12\.99$/m);
    expect(t.stdout).toMatch(
      new RegExp(`^ +41 +Salt and Cedar +${HASH} +12\\.99 +2026-11-20 10:15 +never +active +yes$`, 'm'),
    );
    const j = stdoutJson(await cli(http, ['user', 'orders', USER, '--json']));
    expect(j).toMatchObject({ count: 1, results: [{ id: 9, items: [{ id: 41 }] }] });
  });

  it('an unknown user: exit 3', async () => {
    const http = new StubRegistry().on('GET', `/v1/user/${USER}/orders/`, refusal(404, 'User not found.'));
    expect((await cli(http, ['user', 'orders', USER])).code).toBe(3);
  });
});

describe('user purchase', () => {
  it('POST /v1/user/<username>/purchase/<id>/ with refund_data; a card and JSON', async () => {
    const PURCHASE = { ...ITEM, digital_pricing: { description: 'Digital edition', id: 3 } };
    const http = new StubRegistry().on('POST', `/v1/user/${USER}/purchase/41/`, ok(PURCHASE), 2);
    const card = await cli(http, ['user', 'purchase', USER, '41', '--refund-data', '-o', 'table']);
    expect(card.code, card.stderr).toBe(0);
    expect(card.stdout).toMatch(/^Purchase +41$/m);
    expect(card.stdout).toMatch(new RegExp(`^Book +Salt and Cedar \\(${HASH}\\)$`, 'm'));
    expect(card.stdout).toMatch(/^Price +12\.99$/m);
    expect(card.stdout).toMatch(/^Refundable +yes$/m);
    expect(http.requests[0]!.payload).toMatchObject({ refund_data: true });
    const j = stdoutJson(await cli(http, ['user', 'purchase', USER, '41', '--json']));
    expect(j).toMatchObject({ id: 41, purchase_price: '12.99' });
  });

  it('an unknown purchase: exit 3', async () => {
    const http = new StubRegistry().on('POST', `/v1/user/${USER}/purchase/41/`, refusal(404, 'Purchase not found.'));
    const r = await cli(http, ['user', 'purchase', USER, '41']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/Purchase not found/);
    expect(sentOnce(http, 'POST', `/v1/user/${USER}/purchase/41/`)).toBeDefined();
  });
});
