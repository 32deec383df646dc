// The partner workflows on the bulk job engine, against a sandbox over HTTP: a roster of users
// (`user create --from-csv`), a nightly report of outside orders (`order create --from-csv` and
// `--from-ndjson`), and free orders (`order free --from-csv`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SEED_USERS, startTestSandbox, WELL_KNOWN, type TestSandbox } from '../helpers/sandbox.js';
import { cliFor, signedPost, type Cli } from './_support.js';

let sb: TestSandbox;
let cli: Cli;
let dir: string;
beforeAll(async () => {
  sb = await startTestSandbox();
  cli = cliFor(sb);
  dir = mkdtempSync(join(tmpdir(), 'bookdist-workflows-'));
});
afterAll(async () => {
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});

const ndjson = (s: string) =>
  s
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

describe('user create --from-csv ROSTER', () => {
  it('one user per row with its username; an existing e-mail is `exists` with the username from the conflict answer; bad rows named per column', async () => {
    const roster = join(dir, 'roster.csv');
    const existing = SEED_USERS[0];
    writeFileSync(
      roster,
      [
        'email,first_name,last_name,label',
        'new.one@example.com,New,One,',
        `${existing.email},Avery,Reader,`,
        'not-an-email,Bad,Row,',
        `new.two@example.com,"Two, Jr.",Two,${WELL_KNOWN.partner.label}`,
      ].join('\n') + '\n',
    );
    const results = join(dir, 'roster.results.csv');
    const r = await cli(['user', 'create', '--from-csv', roster, '--results', results]);
    expect(r.code, r.stderr).toBe(6); // one invalid row
    expect(statSync(results).mode & 0o777).toBe(0o600);
    const lines = readFileSync(results, 'utf8').trim().split('\n');
    expect(lines[0]).toBe('row,status,username,email,message');
    const by = Object.fromEntries(
      lines
        .slice(1)
        .map((l) => l.split(','))
        .map((f) => [f[0], f]),
    );
    expect(by['2'][1]).toBe('ok');
    expect(by['2'][2]).toMatch(/^[0-9a-f]{30}$/);
    expect(by['3'][1]).toBe('exists');
    expect(by['3'][2]).toBe(existing.username);
    expect(by['4'][1]).toBe('invalid');
    expect(lines.find((l) => l.startsWith('4,'))).toMatch(/email: .*not an e-mail address/);
    expect(by['5'][1]).toBe('ok');
    expect(r.stderr).toMatch(/user create: 4 rows: 2 created, 1 existed, 1 invalid, 0 failed/);
    // Not a password anywhere.
    expect(readFileSync(results, 'utf8')).not.toMatch(/passw/i);

    // Run again to stdout: every row that was created now reports `exists` with the same username.
    const again = await cli(['user', 'create', '--from-csv', roster, '-o', 'ndjson']);
    const rows = ndjson(again.stdout);
    expect(rows.find((x) => x.row === 2)).toMatchObject({ status: 'exists', username: by['2'][2] });
  });

  it('--email and --from-csv are exclusive; a roster without an email column is refused before any request', async () => {
    const bad = join(dir, 'nohead.csv');
    writeFileSync(bad, 'first_name\nAda\n');
    const r = await cli(['user', 'create', '--from-csv', bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/lacks the column email/);
    const both = await cli(['user', 'create', '--from-csv', bad, '--email', 'a@example.com']);
    expect(both.code).toBe(2);
    const none = await cli(['user', 'create']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--email/);
  });
});

describe('order create --from-csv | --from-ndjson', () => {
  const user = SEED_USERS[0].username;
  const p0 = WELL_KNOWN.readme.pricing[0].id;
  const p1 = WELL_KNOWN.otherPublisher.pricing[0].id;
  const bill = 'Ada Byron,EC1A 1BB,GB';

  it('rows sharing an order number form one order; a repeat reports `exists`; a row without order_number is invalid', async () => {
    const csv = join(dir, 'orders.csv');
    const n1 = `N1-${Date.now() % 1e8}`;
    const n2 = `N2-${Date.now() % 1e8}`;
    writeFileSync(
      csv,
      [
        'order_number,username,pricing_id,order_type,org,billing_full_name,billing_postal_code,billing_country',
        `${n1},${user},${p0},TestPlan,harborlane,${bill}`,
        `${n1},${user},${p1},TestPlan,harborlane,${bill}`,
        `${n2},${user},${p0},TestPlan,harborlane,${bill}`,
        `,${user},${p0},TestPlan,harborlane,${bill}`,
      ].join('\n') + '\n',
    );
    const results = join(dir, 'orders.results.ndjson');
    const r = await cli(['order', 'create', '--from-csv', csv, '--results', results]);
    expect(r.code, r.stderr).toBe(6);
    const rows = ndjson(readFileSync(results, 'utf8'));
    expect(rows).toHaveLength(3);
    const o1 = rows.find((x) => x.order_number === n1);
    expect(o1).toMatchObject({ status: 'ok', items: 2, rows: '2-3' });
    expect(o1.order_id).toEqual(expect.any(Number));
    expect(rows.find((x) => x.order_number === n2)).toMatchObject({ status: 'ok', items: 1 });
    expect(rows.find((x) => x.order_number === '')).toMatchObject({ status: 'invalid' });
    expect(rows.find((x) => x.order_number === '').message).toMatch(/order_number/);

    // The same report again (to stdout): the order numbers make it safe, both orders `exists`.
    const again = await cli(['order', 'create', '--from-csv', csv, '-o', 'ndjson']);
    const by = Object.fromEntries(ndjson(again.stdout).map((x) => [x.order_number, x]));
    expect(by[n1]).toMatchObject({ status: 'exists', order_id: o1.order_id });
    expect(by[n2].status).toBe('exists');
  });

  it("NDJSON: one object per line with the endpoint's fields; a bad line is an invalid order naming the field", async () => {
    const file = join(dir, 'orders.ndjson');
    const n = `J-${Date.now() % 1e8}`;
    const billing = { full_name: 'Ada Byron', postal_code: 'EC1A 1BB', country: 'GB' };
    writeFileSync(
      file,
      [
        JSON.stringify({
          order_number: n,
          username: user,
          digital_pricing: [p0, p1],
          order_type: 'TestPlan',
          org: 'harborlane',
          billing_address: billing,
        }),
        JSON.stringify({
          order_number: `${n}-b`,
          username: 'nope',
          digital_pricing: [p0],
          order_type: 'TestPlan',
          org: 'harborlane',
          billing_address: billing,
        }),
        '{not json',
      ].join('\n') + '\n',
    );
    const r = await cli(['order', 'create', '--from-ndjson', file, '-o', 'ndjson']);
    expect(r.code, r.stderr).toBe(6);
    const rows = ndjson(r.stdout);
    expect(rows[0]).toMatchObject({ order_number: n, status: 'ok', items: 2 });
    expect(rows[1]).toMatchObject({ status: 'invalid' });
    expect(rows[1].message).toMatch(/username/);
    expect(rows[2]).toMatchObject({ status: 'invalid' });
    expect(rows[2].message).toMatch(/not JSON/);
  });

  it('order free --from-csv: one free order per row, with --dry-run sending nothing', async () => {
    const csv = join(dir, 'free.csv');
    writeFileSync(
      csv,
      [
        'username,hash_id',
        `${SEED_USERS[1].username},${WELL_KNOWN.otherPublisher.hash_id}`,
        `${SEED_USERS[1].username},xyz`,
      ].join('\n') + '\n',
    );
    const dry = await cli(['order', 'free', '--from-csv', csv, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    const r = await cli(['order', 'free', '--from-csv', csv, '-o', 'ndjson']);
    expect(r.code, r.stderr).toBe(6);
    const rows = ndjson(r.stdout);
    expect(rows[0]).toMatchObject({ row: 2, status: 'ok' });
    expect(rows[0].order_id).toEqual(expect.any(Number));
    expect(rows[1]).toMatchObject({ row: 3, status: 'invalid' });
    expect(rows[1].message).toMatch(/hash_id/);
  });

  it('a free order repeated with its Idempotency-Key (a resumed batch) is answered with the first order, not a second one', async () => {
    const user = SEED_USERS[2].username;
    const send = (hashId: string, idem: string) =>
      signedPost(sb, '/v1/order/free/', { username: user, hash_id: hashId }, { 'idempotency-key': idem });
    const orders = async () => {
      const r = await cli(['user', 'orders', user, '--json']);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout).results.length as number;
    };
    const before = await orders();
    const idem = `free-${process.pid}-${Date.now()}`;
    const first = await send(WELL_KNOWN.otherPublisher.hash_id, idem);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const again = await send(WELL_KNOWN.otherPublisher.hash_id, idem);
    expect(again.status).toBe(200);
    expect(again.body.order.id).toBe(first.body.order.id);
    expect(await orders()).toBe(before + 1);
    // The same key with another request is refused and changes nothing.
    const other = await send(WELL_KNOWN.readme.hash_id, idem);
    expect(other.status).toBe(400);
    expect(other.body.message).toMatch(/Idempotency-Key was already used/);
    expect(await orders()).toBe(before + 1);
  });
});
