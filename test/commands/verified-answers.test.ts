// Believe only a verified answer (issue 28, item 1), against the hostile server on loopback: a
// redirect, an empty or HTML 200 (a captive portal), truncated JSON, `success: false` and a body
// missing a used field are never a success. A read is exit 1 "the service's answer was not what
// the interface promises" with the status, the content type and the first bytes; a write is
// "outcome unknown" with the same facts, never "done". A redirect is never followed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answer, hostileEnv, hostileForFile, type HostileAnswer } from '../helpers/hostile-server.js';
import { run } from '../helpers/run.js';

const server = hostileForFile();
const target = hostileForFile();
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'bookdist-answers-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const HASH = 'fb02181f26270f72e261de20f8aadb9096f40802';
const USER = '0d72df20f23558620646fb3ea030f5';
const cli = (args: string[], env: Record<string, string | undefined> = {}) =>
  run(args, { env: hostileEnv(server.url, env) });

interface Family {
  name: string;
  args: string[];
  method: 'GET' | 'POST';
  path: string;
  write: boolean;
  /** What it says when it believes the answer. */
  done: RegExp;
  /** A body of the documented envelope in which a field the command uses has the wrong type or is missing. */
  broken: Record<string, unknown>;
}

const FAMILIES: Family[] = [
  {
    name: 'access revoke',
    args: ['access', 'revoke', '--hash-id', HASH, '--username', USER, '--yes'],
    method: 'POST',
    path: '/v1/access/revoke/',
    write: true,
    done: /revoked/i,
    broken: { success: 'yes' },
  },
  {
    name: 'access allow',
    args: ['access', 'allow', '--hash-id', HASH, '--username', USER, '--price', '1.00'],
    method: 'POST',
    path: '/v1/access/allow/',
    write: true,
    done: /granted/i,
    broken: { success: 1 },
  },
  {
    name: 'order refund',
    args: ['order', 'refund', '--order-id', '7', '--yes'],
    method: 'POST',
    path: '/v1/order/refund/',
    write: true,
    done: /Refunded/,
    broken: { refunds: [{ purchase_id: '12', success: 'yes' }] },
  },
  {
    name: 'book process',
    args: ['book', 'process', HASH],
    method: 'POST',
    path: `/v1/book/${HASH}/process/`,
    write: true,
    done: /\tqueued\t|1 queued/,
    broken: { message: { text: 'Book queued for processing.' } },
  },
  {
    name: 'book get',
    args: ['book', 'get', HASH],
    method: 'GET',
    path: `/v1/book/${HASH}/`,
    write: false,
    done: /Title/,
    broken: { book: { id: 1, title: 'No hash id' } },
  },
  {
    name: 'codes summary',
    args: ['codes', 'summary'],
    method: 'GET',
    path: '/v1/codes/summary/',
    write: false,
    done: /generated/i,
    broken: { codes_generated: '12', codes_redeemed: 1, redemption_percentage: 0.5 },
  },
];

/** Each case with the facts its error must give: the status, the content type, the first bytes, why. */
const CASES: Array<[string, (f: Family) => HostileAnswer, RegExp[]]> = [
  ['an empty 200', () => answer.empty(), [/HTTP 200/, /the body is empty/]],
  [
    "an HTML 200 (a captive portal's sign-in page)",
    () => answer.html(),
    [
      /HTTP 200, text\/html/,
      /the body is not JSON/,
      /it begins: <!DOCTYPE html><html><head><title>Guest Wi-Fi/,
      /captive portal/,
    ],
  ],
  [
    'truncated JSON',
    () => answer.truncated(),
    [/HTTP 200, application\/json/, /the body is not JSON/, /it begins: \{"code":200,"succ/],
  ],
  [
    '{"success": false}',
    () => answer.json(200, { success: false }),
    [/HTTP 200, application\/json/, /"success": false/],
  ],
  [
    'a body missing or mistyping a used field',
    (f) => answer.ok(f.broken),
    [/HTTP 200, application\/json/, /: (\S+: (missing|an? \w+, not \w+)|"success" is)/],
  ],
];

describe.each(FAMILIES)('$name', (f) => {
  it.each(CASES)('%s is not a success', async (_case, make, facts) => {
    server.on(f.method, f.path, make(f));
    const r = await cli(f.args);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).not.toMatch(f.done);
    expect(r.stderr).toMatch(/the service's answer was not what the interface promises/);
    for (const fact of facts) expect(r.stderr).toMatch(fact);
    if (f.write) {
      expect(r.stderr).toMatch(/outcome is unknown/);
      expect(r.stderr).not.toMatch(f.done);
    } else expect(r.stderr).not.toMatch(/outcome is unknown/);
    expect(server.hits(f.path)).toBe(1);
  });

  it('a 301 to https is not followed and names the fix', async () => {
    const https = server.url.replace('http:', 'https:');
    server.on(f.method, f.path, answer.redirect(`${https}${f.path}`, 301));
    const r = await cli(f.args);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).not.toMatch(f.done);
    expect(r.stderr).toContain(`redirects to ${https}${f.path}`);
    expect(r.stderr).toContain(`use ${https}`);
    if (f.write) expect(r.stderr).toMatch(/outcome is unknown/);
    expect(server.hits(f.path)).toBe(1);
  });

  it('a 302 to another host is not followed: no request (and no credential) reaches it', async () => {
    server.on(f.method, f.path, answer.redirect(`${target.url}/elsewhere/`, 302));
    const r = await cli(f.args);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(`redirects to ${target.url}/elsewhere/`);
    expect(target.hits()).toBe(0);
  });
});

describe('order create --from-csv', () => {
  const csv = () => {
    const file = join(dir, `orders-${Math.random().toString(36).slice(2)}.csv`);
    writeFileSync(
      file,
      `order_number,username,pricing_id,order_type,org,billing_full_name,billing_postal_code,billing_country\nN-1,${USER},3,TestPlan,acme,Ann Lee,10115,DE\n`,
    );
    return file;
  };
  it.each([
    ['an empty 200', answer.empty()],
    ['an HTML 200', answer.html()],
    ['{"success": false}', answer.json(200, { success: false })],
    ['an order with no id', answer.ok({ message: 'Order created.', order: { id: null, items: [] } })],
  ])('%s: the order is not "ok" with an empty order_id', async (_case, a) => {
    server.on('POST', '/v1/order/external/', a);
    const file = csv();
    const r = await cli(['order', 'create', '--from-csv', file, '-o', 'csv']);
    expect(r.code).not.toBe(0);
    const [head, row] = r.stdout.trim().split('\n');
    expect(head.split(',')).toContain('status');
    const status = row.split(',')[head.split(',').indexOf('status')];
    expect(status).not.toBe('ok');
    expect(r.stdout).toMatch(/outcome is unknown|not what the interface promises/);
    rmSync(file, { force: true });
  });
});

describe('profile add and profile check', () => {
  const cfgEnv = () => ({
    BOOKDIST_CONFIG_DIR: join(dir, `cfg-${Math.random().toString(36).slice(2)}`),
    BOOKDIST_BASE_URL: undefined,
    BOOKDIST_USERNAME: undefined,
    BOOKDIST_SHARED_KEY: undefined,
    BOOKDIST_TOKEN: undefined,
  });
  it.each([
    ['an HTML 200', answer.html()],
    ['an empty 200', answer.empty()],
    ['{"success": false}', answer.json(200, { success: false })],
    ['a 301 to https', answer.redirect('https://example.invalid/profile/', 301)],
    ['a profile that is not an object', answer.ok({ profile: 'guest', scopes: 'all' })],
  ])('%s: not verified, nothing saved (add); not "verified true" (check)', async (_case, a) => {
    server.on('GET', '/profile/', a);
    const env = cfgEnv();
    const add = await run(
      ['profile', 'add', '--name', 'p', '--base-url', server.url, '--username', USER, '--shared-key-stdin'],
      { env: hostileEnv(server.url, env), input: 'k3y' },
    );
    expect(add.code).not.toBe(0);
    expect(add.stderr).not.toMatch(/Verified/);
    expect(add.stderr).not.toMatch(/Saved profile/);
    // Stored without the check, then checked:
    const stored = await run(
      [
        'profile',
        'add',
        '--name',
        'p',
        '--base-url',
        server.url,
        '--username',
        USER,
        '--shared-key-stdin',
        '--no-verify',
      ],
      { env: hostileEnv(server.url, env), input: 'k3y' },
    );
    expect(stored.code, stored.stderr).toBe(0);
    const check = await run(['profile', 'check', 'p', '--json'], { env: hostileEnv(server.url, env) });
    expect(check.code).not.toBe(0);
    expect(check.stdout).not.toMatch(/"verified": true/);
    rmSync(env.BOOKDIST_CONFIG_DIR, { recursive: true, force: true });
  });
});

describe('a faithful answer is still a success', () => {
  it('access revoke with the documented envelope: done, exit 0', async () => {
    server.on('POST', '/v1/access/revoke/', answer.ok({ message: 'Access revoked.', extra: { any: 'thing' } }));
    const r = await cli(['access', 'revoke', '--hash-id', HASH, '--username', USER, '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/revoked/i);
  });
  it('book get with extra members of another deployment', async () => {
    server.on(
      'GET',
      `/v1/book/${HASH}/`,
      answer.ok({ book: { id: 1, hash_id: HASH, title: 'A Book', shelf: 'B2' }, region: 'eu' }),
    );
    const r = await cli(['book', 'get', HASH, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).book.title).toBe('A Book');
  });
  it('the escaped first bytes never carry a control sequence', async () => {
    server.on('GET', `/v1/book/${HASH}/`, answer.text(200, '\u001b[8mhidden\u001b[0m<html>', 'text/html'));
    const r = await cli(['book', 'get', HASH]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('\\x1b[8mhidden');
    // eslint-disable-next-line no-control-regex
    expect(r.stderr).not.toMatch(/\u001b/);
  });
});
