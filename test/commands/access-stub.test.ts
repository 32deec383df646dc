// access allow, revoke and sync in-process through the stub registry: the request each sends (with
// the operator token as the access API's credentials), what it prints as a table and as JSON, its
// main error with its exit code (the access API's XML errors too), and an answer the
// verified-answers check refuses. The bulk forms' fault matrix is in test/bulk/.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { json, ok, refusal, sentOnce, stdoutJson, stubCli, StubRegistry } from './_stubs.js';

const cli = stubCli();

const HASH = 'ab12cd34ef56ab12cd34ef56ab12cd34ef56ab12';
const U1 = '0d72df20f23558620646fb3ea030f5';
const U2 = '1e83ef31034669731757fc4fb141a6';
const env = { BOOKDIST_TOKEN: 'stub-operator-token' };
const xml = (status: number, message: string) => ({
  status,
  headers: { 'content-type': 'application/xml' },
  text: `<?xml version="1.0"?><response><error>The following errors were detected:</error><message>${message}</message></response>`,
});
const ledgerLast = async () => stdoutJson(await cli(new StubRegistry(), ['ledger', 'list', '--json'])).at(-1);

describe('access allow', () => {
  it('POST /v1/access/allow/ with the operator token; says what was granted, and JSON', async () => {
    const http = new StubRegistry().on('POST', '/v1/access/allow/', ok({ message: 'Access granted.' }), 2);
    const one = ['access', 'allow', '--hash-id', HASH, '--username', U1];
    const t = await cli(http, [...one, '--price', '4.99', '--expires', '2027-01-31', '-o', 'table'], { env });
    expect(t.code, t.stderr).toBe(0);
    expect(t.stderr).toContain(`Access granted. User ${U1}, book ${HASH}, price 4.99, until 2027-01-31`);
    const first = sentOnce(http, 'POST', '/v1/access/allow/');
    expect(first.payload).toEqual({
      hash_id: HASH,
      username: U1,
      price: '4.99',
      expiration_date: '2027-01-31 00:00:00',
    });
    expect(first.headers).toMatchObject({ authorization: 'SharedKeyAuth', 'api-key': 'stub-operator-token' });
    const j = await cli(http, [...one, '--price-cents', '1201', '--send-email', '--json'], { env });
    expect(stdoutJson(j)).toMatchObject({ success: true, message: 'Access granted.' });
    expect(http.requests[1]!.payload).toEqual({ hash_id: HASH, username: U1, price: '12.01', send_email: true });
  });

  it('a user who already has access: exit 5 with the service message', async () => {
    const http = new StubRegistry().on(
      'POST',
      '/v1/access/allow/',
      refusal(400, 'User already has access to this book.'),
    );
    const r = await cli(http, ['access', 'allow', '--hash-id', HASH, '--username', U1, '--price', '4.99'], { env });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/User already has access to this book\./);
    expect(await ledgerLast()).toMatchObject({ op: 'access allow', status: 'failed' });
  });

  it('an unknown book, said in the XML of the access API: exit 3 with its message', async () => {
    const http = new StubRegistry().on('POST', '/v1/access/allow/', xml(400, 'Book does not exist.'));
    const r = await cli(http, ['access', 'allow', '--hash-id', HASH, '--username', U1, '--price', '4.99'], { env });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/Book does not exist\./);
    expect(r.stderr).not.toMatch(/<message>/);
  });

  it("`success: 1` is not the interface's true: outcome unknown (exit 1), in the ledger", async () => {
    const http = new StubRegistry().on('POST', '/v1/access/allow/', json(200, { code: 200, success: 1 }));
    const r = await cli(http, ['access', 'allow', '--hash-id', HASH, '--username', U1, '--price', '4.99'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/the outcome is unknown/);
    expect(r.stderr).not.toMatch(/Access granted/);
    expect(await ledgerLast()).toMatchObject({ op: 'access allow', status: 'unknown' });
  });
});

describe('access revoke', () => {
  it('POST /v1/access/revoke/ with --yes; says what was revoked, and JSON', async () => {
    const http = new StubRegistry().on('POST', '/v1/access/revoke/', ok({ message: 'Access revoked.' }), 2);
    const one = ['access', 'revoke', '--hash-id', HASH, '--username', U1, '--yes'];
    const t = await cli(http, [...one, '-o', 'table'], { env });
    expect(t.code, t.stderr).toBe(0);
    expect(t.stderr).toContain(`Access revoked. User ${U1}, book ${HASH}.`);
    expect(http.requests[0]!.payload).toEqual({ hash_id: HASH, username: U1 });
    expect(http.requests[0]!.headers['api-key']).toBe('stub-operator-token');
    expect(stdoutJson(await cli(http, [...one, '--json'], { env }))).toMatchObject({ message: 'Access revoked.' });
  });

  it('no access to revoke: exit 3; without --yes in a script nothing is sent (exit 2)', async () => {
    const http = new StubRegistry().on('POST', '/v1/access/revoke/', refusal(404, 'Purchase record not found.'));
    const r = await cli(http, ['access', 'revoke', '--hash-id', HASH, '--username', U1, '--yes'], { env });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/Purchase record not found\./);
    const unconfirmed = await cli(new StubRegistry(), ['access', 'revoke', '--hash-id', HASH, '--username', U1], {
      env,
    });
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toMatch(/--yes/);
  });

  it('a refused token in XML (403 "Authentication failed"): exit 4', async () => {
    const http = new StubRegistry().on('POST', '/v1/access/revoke/', xml(403, 'Authentication failed'));
    const r = await cli(http, ['access', 'revoke', '--hash-id', HASH, '--username', U1, '--yes'], { env });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/Authentication failed/);
    expect(r.stderr).not.toContain('stub-operator-token');
  });
});

// Moved from test/bulk/access.e2e.test.ts, which started a sandbox for it: the sandbox's answers
// (400 "The user already has access to this book", 404 "Purchase record not found") are checked
// by test/sandbox/refunds-access.test.ts; what the CLI makes of them is checked here.
describe("access revoke, an answer that is not the interface's", () => {
  it('a 200 HTML page: outcome unknown (exit 1), never "revoked", in the ledger', async () => {
    const http = new StubRegistry().on('POST', '/v1/access/revoke/', {
      status: 200,
      headers: { 'content-type': 'text/html' },
      text: '<html>Sign in to the Wi-Fi</html>',
    });
    const r = await cli(http, ['access', 'revoke', '--hash-id', HASH, '--username', U1, '--yes'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/the outcome is unknown/);
    expect(r.stderr).not.toMatch(/Access revoked/);
    expect(await ledgerLast()).toMatchObject({ op: 'access revoke', status: 'unknown', http: 200 });
  });
});

describe('access single forms', () => {
  it('single forms: 5 when the user already has access, 3 when there is nothing to revoke', async () => {
    const http = new StubRegistry()
      .on('POST', '/v1/access/allow/', ok({ message: 'Access granted' }))
      .on('POST', '/v1/access/allow/', refusal(400, 'The user already has access to this book'))
      .on('POST', '/v1/access/revoke/', ok({ message: 'Access revoked' }))
      .on('POST', '/v1/access/revoke/', refusal(404, 'Purchase record not found'));
    const ok1 = await cli(
      http,
      ['access', 'allow', '--hash-id', HASH, '--username', U1, '--price-cents', '1201', '--json', '--retries', '6'],
      { env },
    );
    expect(ok1.code, ok1.stderr).toBe(0);
    expect(JSON.parse(ok1.stdout)).toMatchObject({ success: true });
    const dup = await cli(
      http,
      ['access', 'allow', '--hash-id', HASH, '--username', U1, '--price', '1', '--retries', '6'],
      { env },
    );
    expect(dup.code).toBe(5);
    expect(dup.stderr).toMatch(/already has access/);
    const rev = await cli(http, ['access', 'revoke', '--hash-id', HASH, '--username', U1, '--yes', '--retries', '6'], {
      env,
    });
    expect(rev.code, rev.stderr).toBe(0);
    const none = await cli(http, ['access', 'revoke', '--hash-id', HASH, '--username', U1, '--yes', '--retries', '6'], {
      env,
    });
    expect(none.code).toBe(3);
    expect(none.stderr).toMatch(/Purchase record not found/);
    expect(http.requests.map((q) => q.path)).toEqual([
      '/v1/access/allow/',
      '/v1/access/allow/',
      '/v1/access/revoke/',
      '/v1/access/revoke/',
    ]);
  });
});

describe('access sync', () => {
  it('plans an allow per roster user the ledger has no grant for, then sends them; a table of results and JSON', async () => {
    const roster = join(cli.dir(), 'roster.csv');
    writeFileSync(roster, `username\n${U1}\n${U2}\n`);
    const http = new StubRegistry().on('POST', '/v1/access/allow/', ok({ message: 'Access granted.' }), 2);
    const t = await cli(http, ['access', 'sync', roster, '--hash-id', HASH, '--price', '2.00', '-o', 'table'], { env });
    expect(t.code, t.stderr).toBe(0);
    expect(t.stderr).toMatch(/Plan: 2 to allow, 0 to revoke, 0 unchanged\./);
    expect(t.stdout).toMatch(/^ROW +ACTION +STATUS +USER +MESSAGE$/m);
    expect(t.stdout).toMatch(new RegExp(`^2 +allow +ok +${U1} +Access granted\\.$`, 'm'));
    expect(t.stdout).toMatch(new RegExp(`^3 +allow +ok +${U2} +Access granted\\.$`, 'm'));
    expect(http.requests.map((q) => q.payload).sort((a, b) => a.username.localeCompare(b.username))).toEqual([
      { hash_id: HASH, username: U1, price: '2.00' },
      { hash_id: HASH, username: U2, price: '2.00' },
    ]);

    // The ledger now knows both grants: U2 left the roster, so the next sync revokes U2 only.
    writeFileSync(roster, `username\n${U1}\n`);
    const revoke = new StubRegistry().on('POST', '/v1/access/revoke/', ok({ message: 'Access revoked.' }));
    const j = await cli(revoke, ['access', 'sync', roster, '--hash-id', HASH, '--price', '2.00', '--yes', '--json'], {
      env,
    });
    expect(j.code, j.stderr).toBe(0);
    expect(j.stderr).toMatch(/Plan: 0 to allow, 1 to revoke, 1 unchanged\./);
    expect(sentOnce(revoke, 'POST', '/v1/access/revoke/').payload).toEqual({ hash_id: HASH, username: U2 });
    expect(stdoutJson(j)).toEqual([
      { row: '', action: 'revoke', status: 'ok', username: U2, email: '', message: 'Access revoked.' },
    ]);
  });

  it('a change answered with something that is not the interface\'s is not "ok": exit 6, the write unknown in the ledger', async () => {
    const roster = join(cli.dir(), 'odd.csv');
    writeFileSync(roster, `username\n${U1}\n`);
    const http = new StubRegistry().on('POST', '/v1/access/allow/', json(200, { code: 200, success: 'yes' }));
    const r = await cli(http, ['access', 'sync', roster, '--hash-id', 'e'.repeat(40), '--price', '2.00', '--json'], {
      env,
    });
    expect(r.code, r.stderr).toBe(6);
    const [row] = stdoutJson(r);
    expect(row).toMatchObject({ action: 'allow', username: U1 });
    expect(row.status).not.toBe('ok');
    expect(row.message).toMatch(/the outcome is unknown/);
    expect(await ledgerLast()).toMatchObject({ op: 'access allow', status: 'unknown' });
  });

  it('a change the service refuses is counted as failed: exit 6', async () => {
    const roster = join(cli.dir(), 'one.csv');
    writeFileSync(roster, `username\n${U1}\n`);
    const http = new StubRegistry().on('POST', '/v1/access/allow/', refusal(404, 'Book not found.'));
    const r = await cli(http, ['access', 'sync', roster, '--hash-id', 'f'.repeat(40), '--price', '2.00', '--json'], {
      env,
    });
    expect(r.code, r.stderr).toBe(6);
    expect(r.stderr).toMatch(/1 failed/);
  });
});
