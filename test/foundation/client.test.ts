import { createVerify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { ApiError, DryRun, exitCodeForStatus, toApiError } from '../../src/api/errors.js';
import { parseResponse } from '../../src/api/answer.js';
import { retryAfterMs, backoff } from '../../src/api/retry.js';
import { curlLine } from '../../src/api/curl.js';
import { loadRsaPrivateKey, type Credentials } from '../../src/api/wire.js';
import { CliError } from '../../src/errors.js';
import { json, rsaKeys, startRecorder, text } from './helpers.js';

const keys = rsaKeys();
const USER = '0d72df20f23558620646fb3ea030f5';
const verify = (message: string, sig: string) =>
  createVerify('RSA-SHA256').update(message, 'utf8').verify(keys.publicKey, sig, 'base64');

let srv: Awaited<ReturnType<typeof startRecorder>>;
beforeAll(async () => {
  srv = await startRecorder();
});
afterAll(async () => {
  await srv.close();
});

/** A payload order.external accepts (the stub server does not read it). */
const ORDER = {
  username: 'u',
  digital_pricing: [1],
  billing_address: { full_name: 'A B', postal_code: '1', country: 'DE' },
  order_type: 'TestPlan',
  org: 'o',
};

function client(opts: Partial<ConstructorParameters<typeof ApiClient>[0]> = {}, creds?: Credentials) {
  const sleeps: number[] = [];
  const c = new ApiClient({
    baseUrl: srv.url,
    credentials: creds ?? { kind: 'crypto', username: USER, key: loadRsaPrivateKey(keys.pkcs8) },
    timeout: 5000,
    retries: 3,
    sleep: async (ms) => void sleeps.push(ms),
    ...opts,
  });
  return Object.assign(c, { sleeps });
}

const header = (name: string) => srv.requests.at(-1)!.headers[name];

/** One answer that every endpoint the wire tests call takes as the promised one (the client verifies answers). */
const WIRE_OK = {
  code: 200,
  success: true,
  user: { username: USER },
  api: { current_version: 'v1' },
  codes_generated: 0,
  codes_redeemed: 0,
  redemption_percentage: 0,
  Status: 'OK',
  Isbn: '9780321',
  Offers: [],
};

describe('requests on the wire', () => {
  it('GET: signature over the username, auth headers, path encoded, trailing slash kept', async () => {
    // The user asked for (src/api/asked.ts: a lookup's answer must be about what was asked).
    srv.respond((_q, res) => json(res, 200, { ...WIRE_OK, user: { username: USER, email: 'a/b c@example.com' } }));
    const c = client();
    const res = await c.call('user.email', { params: { email: 'a/b c@example.com' } });
    await c.close();
    expect(res.status).toBe(200);
    const r = srv.requests.at(-1)!;
    expect(r.method).toBe('GET');
    expect(r.url).toBe('/v1/user/email/a%2Fb%20c%40example.com/');
    expect(r.body.length).toBe(0);
    expect(header('api-user')).toBe(USER);
    expect(header('user')).toBe(USER);
    expect(header('version')).toBe('v1');
    expect(header('authorization')).toBe('CryptoAuth');
    expect(header('api-key')).toBeUndefined();
    expect(verify(USER, String(header('signature')))).toBe(true);
  });

  it('POST: form body with the one `request` field, signature over its exact text (PKCS#1 key)', async () => {
    const c = client({}, { kind: 'crypto', username: USER, key: loadRsaPrivateKey(keys.pkcs1) });
    await c.call('book.process', {
      params: { hash_id: 'fb02181f26270f72e261de20f8aadb9096f40802' },
      payload: { force: true, urgent: false },
    });
    await c.close();
    const r = srv.requests.at(-1)!;
    expect(r.method).toBe('POST');
    expect(r.url).toBe('/v1/book/fb02181f26270f72e261de20f8aadb9096f40802/process/');
    expect(header('content-type')).toBe('application/x-www-form-urlencoded');
    expect(r.body.toString('latin1')).toBe('request=%7B%22force%22%3A+true%2C+%22urgent%22%3A+false%7D');
    expect(verify('{"force": true, "urgent": false}', String(header('signature')))).toBe(true);
  });

  it('SharedKeyAuth: api-key header, no signature', async () => {
    const c = client({}, { kind: 'shared', username: USER, sharedKey: 'shared-secret-1' });
    await c.call('codes.summary');
    await c.close();
    expect(header('authorization')).toBe('SharedKeyAuth');
    expect(header('api-key')).toBe('shared-secret-1');
    expect(header('signature')).toBeUndefined();
  });

  it('access endpoints send the operator token as a shared key', async () => {
    const c = client({ accessToken: 'operator-token-1' });
    await c.call('access.revoke', { payload: { hash_id: 'h', username: 'u' } });
    await c.close();
    expect(header('authorization')).toBe('SharedKeyAuth');
    expect(header('api-key')).toBe('operator-token-1');
    expect(header('signature')).toBeUndefined();
  });

  it('GET / is sent without auth headers; the store host takes its own base URL and query', async () => {
    const c = client({ storeUrl: srv.url + '/store' });
    await c.call('index');
    expect(header('signature')).toBeUndefined();
    expect(header('api-user')).toBeUndefined();
    await c.call('offers', { payload: { isbn: '978 0321' } });
    await c.close();
    expect(srv.requests.at(-1)!.url).toBe('/store/api/offers.json?isbn=978%200321');
  });
});

describe('retries', () => {
  it('retries a GET after 503 and honours Retry-After on 429', async () => {
    let n = 0;
    srv.respond((_q, res) => {
      n++;
      if (n === 1) return json(res, 503, { code: 503, error: true, message: 'busy' });
      if (n === 2) return json(res, 429, { code: 429, error: true, message: 'slow down' }, { 'retry-after': '2' });
      return json(res, 200, {
        code: 200,
        success: true,
        codes_generated: 1,
        codes_redeemed: 0,
        redemption_percentage: 0,
      });
    });
    const before = srv.requests.length;
    const c = client();
    const res = await c.call('codes.summary');
    await c.close();
    expect(res.status).toBe(200);
    expect(srv.requests.length - before).toBe(3);
    expect(c.sleeps[1]).toBe(2000);
    expect(c.sleeps[0]).toBeGreaterThanOrEqual(125);
    expect(c.sleeps[0]).toBeLessThanOrEqual(250);
  });

  it("a call's own timeout bounds it under the client's --timeout (book process --wait): a Retry-After that fits the client's but not the call's ends the request at once, naming the call's limit", async () => {
    srv.respond((_q, res) => json(res, 429, { code: 429, error: true, message: 'slow down' }, { 'retry-after': '3' }));
    const c = client({ timeout: 60_000 });
    let before = srv.requests.length;
    const err = await c.call('codes.summary', { timeout: 2000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).exitCode).toBe(7);
    expect((err as CliError).details).toMatchObject({ wait_ms: 3000, timeout_ms: 2000, attempts: 1 });
    expect(srv.requests.length - before).toBe(1);
    expect(c.sleeps).toEqual([]);
    // Without it, the client's own --timeout holds the wait.
    before = srv.requests.length;
    const res = await c.call('codes.summary');
    await c.close();
    expect(res.status).toBe(429);
    expect(srv.requests.length - before).toBe(4);
    expect(c.sleeps).toEqual([3000, 3000, 3000]);
  });

  it('gives up after --retries and returns the last answer', async () => {
    srv.respond((_q, res) => json(res, 503, { code: 503, error: true, message: 'down' }));
    const before = srv.requests.length;
    const c = client({ retries: 2 });
    const res = await c.call('codes.summary');
    await c.close();
    expect(res.status).toBe(503);
    expect(srv.requests.length - before).toBe(3);
    expect(exitCodeForStatus(res.status)).toBe(7);
  });

  it('does not retry a non-idempotent POST on 503, but does when the caller marks it idempotent', async () => {
    srv.respond((_q, res) => json(res, 503, { code: 503, error: true, message: 'down' }));
    let before = srv.requests.length;
    const c = client({ retries: 2 });
    await c.call('order.external', { payload: ORDER });
    expect(srv.requests.length - before).toBe(1);
    before = srv.requests.length;
    await c.call('order.external', { payload: { ...ORDER, order_number: 'A1' }, idempotent: true });
    await c.close();
    expect(srv.requests.length - before).toBe(3);
  });

  it('backoff grows exponentially with jitter; Retry-After as seconds or a date', () => {
    for (let a = 0; a < 6; a++) {
      const ceiling = Math.min(8000, 250 * 2 ** a);
      const b = backoff(a);
      expect(b).toBeGreaterThanOrEqual(ceiling / 2);
      expect(b).toBeLessThanOrEqual(ceiling);
    }
    expect(retryAfterMs('1')).toBe(1000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(retryAfterMs('soon')).toBeUndefined();
  });

  it('a connection refused is retried and then reported as unavailable (exit 7)', async () => {
    const c = client({ baseUrl: 'http://127.0.0.1:1', retries: 1 });
    const err = await c.call('codes.summary').catch((e) => e);
    await c.close();
    expect(err).toBeInstanceOf(CliError);
    expect(err.exitCode).toBe(7);
    expect(err.message).toMatch(/could not reach the service \(ECONNREFUSED\) after 2 attempts/);
    expect(c.sleeps).toHaveLength(1);
  });
});

describe('timeouts', () => {
  it('a server that never answers times out with a clear message (exit 7)', async () => {
    srv.respond(() => {});
    const c = client({ timeout: 300, retries: 0 });
    const started = Date.now();
    const err = await c.call('codes.summary').catch((e) => e);
    await c.close();
    expect(Date.now() - started).toBeLessThan(3000);
    expect(err).toBeInstanceOf(CliError);
    expect(err.exitCode).toBe(7);
    expect(err.message).toMatch(/no answer within 300ms \(timed out; raise --timeout\)/);
  });
});

describe('responses in one shape', () => {
  const info = { method: 'POST', url: 'http://x/v1/access/allow/' };
  it('JSON bodies are parsed', () => {
    const r = parseResponse(
      404,
      { 'content-type': 'application/json' },
      '{"code":404,"error":true,"message":"Book not found"}',
      info,
    );
    expect(r.format).toBe('json');
    const e = toApiError(r);
    expect(e).toBeInstanceOf(ApiError);
    expect([e.status, e.message, e.exitCode]).toEqual([404, 'Book not found', 3]);
    expect(e.request).toEqual(info);
  });
  it("the access API's XML error becomes the same shape", () => {
    const xml =
      '<?xml version="1.0"?><response><error>The following errors were detected:</error><message>The price field was supplied an invalid value</message></response>';
    const r = parseResponse(400, { 'content-type': 'application/xml' }, xml, info);
    expect(r.format).toBe('xml');
    expect(r.body).toMatchObject({ code: 400, error: true, message: 'The price field was supplied an invalid value' });
    expect(toApiError(r).message).toBe('The price field was supplied an invalid value');
  });
  it('text bodies keep their text', () => {
    const r = parseResponse(502, { 'content-type': 'text/html' }, 'Bad Gateway', info);
    expect(r).toMatchObject({ format: 'text', body: { code: 502, text: 'Bad Gateway' } });
    expect(toApiError(r).message).toBe('Bad Gateway');
    expect(parseResponse(204, {}, '', info)).toMatchObject({ format: 'empty', body: { code: 204 } });
  });
  it('maps statuses to exit codes', () => {
    expect(exitCodeForStatus(401)).toBe(4);
    expect(exitCodeForStatus(403)).toBe(4);
    expect(exitCodeForStatus(404)).toBe(3);
    expect(exitCodeForStatus(409)).toBe(5);
    expect(exitCodeForStatus(400, { conflict: true, message: 'User with email address already exists' })).toBe(5);
    expect(exitCodeForStatus(400, { message: 'The user already has access to this book' })).toBe(5);
    expect(exitCodeForStatus(400, { message: 'bad' })).toBe(1);
    expect(exitCodeForStatus(429)).toBe(7);
    expect(exitCodeForStatus(503)).toBe(7);
    expect(exitCodeForStatus(500)).toBe(1);
  });
  it('a text error over HTTP goes through the client', async () => {
    srv.respond((_q, res) => text(res, 500, 'Internal Server Error'));
    const c = client({ retries: 0 });
    const err = await c.ok('profile').catch((e) => e);
    await c.close();
    expect(err).toBeInstanceOf(ApiError);
    expect(err.message).toBe('Internal Server Error');
    expect(err.status).toBe(500);
  });
});

describe('--dry-run and --debug', () => {
  it('prints a curl line with the exact request text and secrets redacted, and sends nothing', async () => {
    const lines: string[] = [];
    const before = srv.requests.length;
    const c = client(
      { dryRun: (l) => lines.push(l) },
      { kind: 'shared', username: USER, sharedKey: 'shared-secret-2' },
    );
    const err = await c
      .call('book.process', { params: { hash_id: 'abc' }, payload: { force: true, urgent: false } })
      .catch((e) => e);
    await c.close();
    expect(err).toBeInstanceOf(DryRun);
    expect(srv.requests.length).toBe(before);
    expect(lines).toEqual([
      `curl -X POST '${srv.url}/v1/book/abc/process/' -H 'accept: application/json' -H 'api-user: ${USER}' -H 'user: ${USER}' -H 'version: v1' -H 'authorization: SharedKeyAuth' -H 'api-key: <redacted>' --data-urlencode 'request={"force": true, "urgent": false}'`,
    ]);
  });
  it('redacts secret payload fields in the curl line and the signature header', () => {
    const c = client();
    const p = c.prepare({
      method: 'POST',
      path: '/v1/user/',
      payload: { email: "o'neil@example.com", passwd: 'hunter2' },
    });
    const line = curlLine(p);
    expect(line).not.toContain('hunter2');
    expect(line).not.toContain(p.headers.signature);
    expect(line).toContain(`'signature: <redacted>'`);
    expect(line).toContain(`--data-urlencode 'request={"email": "o'\\''neil@example.com", "passwd": "[REDACTED]"}'`);
  });
  it('--debug traces requests and responses with secrets redacted', async () => {
    srv.respond((_q, res) =>
      json(res, 200, {
        code: 200,
        success: true,
        passwd: 'generated-pw-9',
        email: 'a@b.c',
        username: USER,
        message: 'User created.',
      }),
    );
    const lines: string[] = [];
    const c = client({ debug: (l) => lines.push(l) });
    await c.call('user.create', { payload: { email: 'a@b.c', passwd: 'chosen-pw-7' } });
    await c.close();
    const out = lines.join('\n');
    const sig = String(header('signature'));
    expect(out).toContain(`→ POST ${srv.url}/v1/user/`);
    expect(out).toContain('signature: [REDACTED]');
    expect(out).toMatch(/← 200 \(\d+ ms\)/);
    for (const secret of ['generated-pw-9', 'chosen-pw-7', sig]) expect(out).not.toContain(secret);
  });
});
