// e2e: `bookdist user invite|create|get|orders|purchase` against a sandbox over HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, WELL_KNOWN, type TestSandbox } from '../helpers/sandbox.js';
import { cliFor, json, limitedEnv, uniqueEmail, type Cli } from './_support.js';

let sb: TestSandbox;
let cli: Cli;

beforeAll(async () => {
  sb = await startTestSandbox();
  cli = cliFor(sb, { COLUMNS: '220' });
});
afterAll(async () => {
  await sb?.close();
});

describe('user invite', () => {
  it('creates the user, prints the username and says "Invitation sent." on stderr', async () => {
    const email = uniqueEmail('invite');
    const r = await cli([
      'user',
      'invite',
      '--email',
      email,
      '--first-name',
      'Ada',
      '--last-name',
      'Byron',
      '-o',
      'table',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Username\s+[0-9a-f]{30}\nEmail\s+/);
    expect(r.stdout).toContain(email);
    expect(r.stderr).toContain('Invitation sent.');
    const mails = await sb.control.outbox(email);
    expect(mails.length).toBe(1);
  });

  it('gives the whole response with --json (no message on stderr)', async () => {
    const email = uniqueEmail('invite');
    const r = await cli(['user', 'invite', '--email', email, '--json']);
    expect(r.code).toBe(0);
    const body = json(r);
    expect(body.username).toMatch(/^[0-9a-f]{30}$/);
    expect(body.email).toBe(email);
    expect(body.message).toBe('Invitation sent.');
    expect(r.stderr).not.toContain('Invitation sent.');
  });

  it('exits 5 for an existing e-mail address and names the existing user', async () => {
    const email = WELL_KNOWN.user.email;
    const [text, asJson] = await Promise.all([
      cli(['user', 'invite', '--email', email]),
      cli(['user', 'invite', '--email', email, '--json']),
    ]);
    expect(text.code).toBe(5);
    expect(text.stderr).toContain('already exists');
    expect(text.stderr).toContain(WELL_KNOWN.user.username);
    expect(text.stdout).toBe('');
    expect(asJson.code).toBe(5);
    const err = JSON.parse(asJson.stderr.trim().split('\n').pop()!);
    expect(err.error.exit_code).toBe(5);
    expect(err.error.details.username).toBe(WELL_KNOWN.user.username);
  });
});

describe('user create', () => {
  it('shows a generated password once, with a warning, and never in --debug traces', async () => {
    const email = uniqueEmail('create');
    const r = await cli(['user', 'create', '--email', email, '--first-name', 'Grace', '-o', 'table', '--debug']);
    expect(r.code).toBe(0);
    const m = /Password\s+(\S+)/.exec(r.stdout);
    expect(m).not.toBeNull();
    const passwd = m![1];
    expect(passwd.length).toBeGreaterThanOrEqual(8);
    expect(r.stdout.split(passwd).length - 1).toBe(1);
    expect(r.stderr).toContain('User created.');
    expect(r.stderr).toMatch(/warning: the generated password is shown only this once/);
    expect(r.stderr).toContain('[debug]');
    expect(r.stderr).not.toContain(passwd);
    // No e-mail for a silent create.
    expect(await sb.control.outbox(email)).toEqual([]);
  });

  it('gives the whole response, password included, with --json', async () => {
    const email = uniqueEmail('create');
    const r = await cli(['user', 'create', '--email', email, '--json']);
    expect(r.code).toBe(0);
    const body = json(r);
    expect(body.username).toMatch(/^[0-9a-f]{30}$/);
    expect(typeof body.passwd).toBe('string');
    expect(r.stderr).not.toContain(body.passwd);
  });

  it('reads --password-stdin from stdin, never echoes it, and redacts it in --dry-run', async () => {
    const email = uniqueEmail('create');
    const secret = 'correct horse battery staple';
    const [real, dry] = await Promise.all([
      cli(['user', 'create', '--email', email, '--password-stdin', '-o', 'table', '--debug'], { input: secret + '\n' }),
      cli(['user', 'create', '--email', uniqueEmail('dry'), '--password-stdin', '--dry-run'], { input: secret }),
    ]);
    expect(real.code).toBe(0);
    expect(real.stdout).toMatch(/Password\s+\(the one given on stdin\)/);
    expect(real.stdout + real.stderr).not.toContain(secret);
    expect(real.stderr).not.toContain('shown only this once');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('curl -X POST');
    expect(dry.stdout).toContain('/v1/user/');
    expect(dry.stdout).not.toContain(secret);
  });

  it('exits 2 on an empty --password-stdin and 5 for an existing user', async () => {
    const [empty, exists] = await Promise.all([
      cli(['user', 'create', '--email', uniqueEmail('x'), '--password-stdin'], { input: '' }),
      cli(['user', 'create', '--email', WELL_KNOWN.user2.email]),
    ]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('--password-stdin');
    expect(exists.code).toBe(5);
    expect(exists.stderr).toContain(WELL_KNOWN.user2.username);
  });

  it('exits 4 for an account without the create_user scope', async () => {
    const r = await cli(['user', 'create', '--email', uniqueEmail('scope')], { env: limitedEnv(sb) });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('Missing scope: create_user');
  });
});

describe('user get', () => {
  it('shows a card by username and the whole response by e-mail', async () => {
    const u = WELL_KNOWN.user;
    const [card, out] = await Promise.all([
      cli(['user', 'get', u.username, '-o', 'table']),
      cli(['user', 'get', '--email', u.email, '--json']),
    ]);
    expect(card.code).toBe(0);
    expect(card.stdout).toMatch(new RegExp(`Username\\s+${u.username}`));
    expect(card.stdout).toMatch(new RegExp(`Name\\s+${u.first_name} ${u.last_name}`));
    expect(card.stdout).toMatch(new RegExp(`Email\\s+${u.email.replace('.', '\\.')}`));
    expect(card.stdout).toMatch(/Status\s+active/);
    expect(card.stdout).toMatch(/Owner\s+Harbor Lane Integrations/);
    expect(out.code).toBe(0);
    expect(json(out).user.username).toBe(u.username);
  });

  it('exits 3 for an unknown user and 2 for a malformed username', async () => {
    const [unknown, bad] = await Promise.all([
      cli(['user', 'get', '--email', 'nobody-here@example.com']),
      cli(['user', 'get', 'not-a-username']),
    ]);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain('HTTP 404');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('<username> not-a-username');
  });
});

describe('user orders and purchase', () => {
  let username: string;
  let itemId: number;

  beforeAll(async () => {
    const created = await cli([
      'user',
      'create',
      '--email',
      uniqueEmail('buyer'),
      '--first-name',
      'Bea',
      '--last-name',
      'Buyer',
      '--json',
    ]);
    username = json(created).username;
    const order = await cli([
      'order',
      'create',
      '--username',
      username,
      '--pricing-id',
      String(WELL_KNOWN.readme.pricing[0].id),
      '--order-type',
      'TestPlan',
      '--org',
      'harborlane',
      '--billing-name',
      'Bea Buyer',
      '--billing-postal-code',
      '04101',
      '--billing-country',
      'US',
      '--json',
    ]);
    expect(order.code).toBe(0);
    itemId = json(order).order.items[0].id;
  });

  it('lists completed orders with items and totals (table), one order per row (TSV) and the response (JSON)', async () => {
    const [table, tsv, out, items] = await Promise.all([
      cli(['user', 'orders', username, '-o', 'table']),
      cli(['user', 'orders', username]),
      cli(['user', 'orders', username, '--json']),
      cli(['user', 'orders', username, '--fields', 'id,items.id,items.refund_available']),
    ]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/Order\s+\d+/);
    expect(table.stdout).toMatch(/Totals\s+subtotal 14\.99 · taxes 0\.00 · total 14\.99/);
    expect(table.stdout).toMatch(/ITEM\s+BOOK\s+HASH ID\s+PRICE/);
    expect(table.stdout).toContain(WELL_KNOWN.readme.title);
    // The record is the order in every format; its item ids are one column (`;`-joined).
    const rows = tsv.stdout.trim().split('\n');
    const head = rows[0].split('\t');
    expect(rows.length).toBe(2);
    expect(rows[1].split('\t')[head.indexOf('items.id')]).toBe(String(itemId));
    expect(items.stdout.trim().split('\n')).toEqual([
      'id\titems.id\titems.refund_available',
      `${json(out).results[0].id}\t${itemId}\ttrue`,
    ]);
    const body = json(out);
    expect(body.count).toBe(1);
    expect(body.results[0].items[0].id).toBe(itemId);
  });

  it('shows one purchase; --refund-data asks for the real refund availability', async () => {
    const [card, out] = await Promise.all([
      cli(['user', 'purchase', username, String(itemId), '-o', 'table']),
      cli(['user', 'purchase', username, String(itemId), '--refund-data', '--json']),
    ]);
    expect(card.code).toBe(0);
    expect(card.stdout).toMatch(new RegExp(`Purchase\\s+${itemId}`));
    expect(card.stdout).toMatch(/Price\s+14\.99/);
    expect(card.stdout).toMatch(/Refundable\s+unknown \(ask with --refund-data\)/);
    expect(out.code).toBe(0);
    expect(json(out).refund_available).toBe(true);
  });

  it("exits 3 for an unknown purchase, with the service's message", async () => {
    const r = await cli(['user', 'purchase', username, '999999']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('Purchase not found');
  });
});
