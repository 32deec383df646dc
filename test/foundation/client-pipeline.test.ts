// The client's request pipeline in-process (src/api/client.ts), step by step through the stub
// handler: what the write hook (the ledger) is told and when, what --dry-run and --debug show,
// which answer is verified against which base URL, what a public endpoint is sent with, and the
// client's own wait before a retry (interruptible). The wire form and the retry policy have their
// own tests (client.test.ts, retry-policy.test.ts).
import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { ApiError, DryRun, UnverifiedAnswer } from '../../src/api/errors.js';
import type { HttpHandler } from '../../src/api/handler.js';
import type { Route } from '../../src/api/network.js';
import type { WriteRequest, WriteVerdict } from '../../src/api/write-hook.js';
import { json, StubRegistry } from '../helpers/stub-http.js';
import { STUB_URL } from '../helpers/run.js';

type Options = ConstructorParameters<typeof ApiClient>[0];

const SUMMARY = { code: 200, success: true, codes_generated: 0, codes_redeemed: 0, redemption_percentage: 0 };
const GENERATE = { hash_id: 'a'.repeat(40), org: 'o', count: 1 };

function client(http: HttpHandler, opts: Partial<Options> = {}) {
  const sleeps: number[] = [];
  const api = new ApiClient({
    baseUrl: STUB_URL,
    credentials: { kind: 'shared', username: 'partner', sharedKey: 'shared-key-1' },
    timeout: 5000,
    retries: 2,
    handler: http,
    sleep: async (ms) => void sleeps.push(ms),
    ...opts,
  });
  return Object.assign(api, { sleeps });
}

/** A write hook that records what it is told: the intents, the requests told ahead, the verdicts. */
function hookLog() {
  const before: WriteRequest[] = [];
  const ahead: WriteRequest[][] = [];
  const after: WriteVerdict[] = [];
  const hook = {
    before: (r: WriteRequest) => (before.push(r), { id: '7', after: (v: WriteVerdict) => void after.push(v) }),
    ahead: (rs: WriteRequest[]) => void ahead.push(rs),
  };
  return { hook, before, ahead, after };
}

const failure = (p: Promise<unknown>) =>
  p.then(
    (v) => {
      throw new Error(`expected a failure, got ${JSON.stringify(v)}`);
    },
    (e: unknown) => e,
  );

describe('the write hook (the ledger) is told of writes, never of reads', () => {
  it('writes told ahead: only the non-GET calls, as each will be sent (endpoint, path, payload, headers)', () => {
    const log = hookLog();
    const api = client(new StubRegistry(), { writeHook: log.hook });
    api.announceAhead([
      { name: 'codes.summary', args: {} },
      {
        name: 'codes.generate',
        args: { payload: { ...GENERATE, note: undefined }, headers: { 'Idempotency-Key': 'k1' } },
      },
      { name: 'book.process', args: { params: { hash_id: 'b'.repeat(40) }, payload: { force: true } } },
    ]);
    expect(log.ahead).toEqual([
      [
        {
          endpoint: 'codes.generate',
          method: 'POST',
          path: '/v1/codes/generate/',
          payload: GENERATE,
          headers: { 'Idempotency-Key': 'k1' },
        },
        {
          endpoint: 'book.process',
          method: 'POST',
          path: `/v1/book/${'b'.repeat(40)}/process/`,
          payload: { force: true },
          headers: {},
        },
      ],
    ]);
  });

  it('nothing is told ahead when every call is a read, under --dry-run, or to a hook that takes nothing ahead', () => {
    const log = hookLog();
    client(new StubRegistry(), { writeHook: log.hook }).announceAhead([{ name: 'codes.summary', args: {} }]);
    client(new StubRegistry(), { writeHook: log.hook, dryRun: () => {} }).announceAhead([
      { name: 'codes.generate', args: { payload: GENERATE } },
    ]);
    expect(log.ahead).toEqual([]);
    // A hook without `ahead`, or none at all: the call is a no-op, not an error.
    const before = hookLog().hook.before;
    client(new StubRegistry(), { writeHook: { before } }).announceAhead([{ name: 'codes.generate', args: {} }]);
    client(new StubRegistry()).announceAhead([{ name: 'codes.generate', args: {} }]);
  });

  it('a read is sent without an intent; a write gets one before it is sent and its verdict after', async () => {
    const log = hookLog();
    const http = new StubRegistry()
      .on('GET', '/v1/codes/summary/', json(200, SUMMARY))
      .on('POST', '/v1/codes/generate/', (req) => {
        expect(log.before).toHaveLength(1);
        expect(req.payload).toEqual(GENERATE);
        return json(200, { code: 200, success: true, codes: [] });
      });
    const api = client(http, { writeHook: log.hook });
    await api.call('codes.summary');
    expect(log.before).toEqual([]);
    await api.call('codes.generate', { payload: GENERATE });
    expect(log.before).toEqual([
      { endpoint: 'codes.generate', method: 'POST', path: '/v1/codes/generate/', payload: GENERATE, headers: {} },
    ]);
    expect(log.after).toMatchObject([{ status: 'done', http: 200 }]);
    http.verify();
  });

  it('a raw write (`bookdist api`, no endpoint of the table): the hook gets its path and parsed request, no endpoint', async () => {
    const log = hookLog();
    const http = new StubRegistry().on('POST', '/v1/not-in-the-table/', json(200, { code: 200, success: true }));
    const api = client(http, { writeHook: log.hook });
    const res = await api.request({
      method: 'POST',
      path: '/v1/not-in-the-table/',
      payload: { a: 1 },
      requestText: '{"a":1}',
      raw: true,
    });
    expect(res.verdict).toBe('done');
    expect(http.requests[0].body).toBe('request=%7B%22a%22%3A1%7D');
    expect(log.before).toEqual([
      { endpoint: undefined, method: 'POST', path: '/v1/not-in-the-table/', payload: { a: 1 }, headers: {} },
    ]);
  });
});

describe('ok(): the endpoint answer, or the ApiError of a refusal', () => {
  it('a 400 is a refusal (exit 1, the service message); a 200 is the answer', async () => {
    const http = new StubRegistry()
      .on('GET', '/v1/codes/summary/', json(400, { code: 400, error: true, message: 'Bad summary' }))
      .on('GET', '/v1/codes/summary/', json(200, SUMMARY));
    const api = client(http);
    const e = await failure(api.ok('codes.summary'));
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toMatchObject({ status: 400, message: 'Bad summary', exitCode: 1 });
    expect(await api.ok('codes.summary')).toEqual(SUMMARY);
  });
});

describe('the verdict: a call of the table is verified, a bare request is not', () => {
  it("a typed call's answer missing a member it promises is not taken: an UnverifiedAnswer that carries the answer", async () => {
    const http = new StubRegistry().on('GET', '/v1/codes/summary/', json(200, { code: 200, success: true }));
    const e = await failure(client(http).call('codes.summary'));
    expect(e).toBeInstanceOf(UnverifiedAnswer);
    expect((e as UnverifiedAnswer).verdict).toBe('failed');
    expect((e as UnverifiedAnswer).response).toMatchObject({ status: 200, body: { code: 200, success: true } });
  });

  it('the same answer to a raw call of that path is taken (nothing reads its members)', async () => {
    const http = new StubRegistry().on('GET', '/v1/codes/summary/', json(200, { code: 200, success: true }));
    const res = await client(http).request({ method: 'GET', path: '/v1/codes/summary/', raw: true });
    expect(res.verdict).toBe('done');
  });

  it('a request of neither kind (the sandbox control routes) is returned as it came, with no verdict', async () => {
    const http = new StubRegistry().on('GET', '/control/ping', {
      status: 200,
      headers: { 'content-type': 'text/html' },
      text: '<html>ok</html>',
    });
    const res = await client(http).request({ method: 'GET', path: '/control/ping' });
    expect(res).toMatchObject({ status: 200, format: 'text' });
    expect(res.verdict).toBeUndefined();
  });

  it('a redirect to https is told against the base URL of the host asked: the store URL for the store, the base URL else', async () => {
    const http = new StubRegistry()
      .on('GET', '/shop/api/offers.json', {
        status: 301,
        headers: { location: 'https://api.bookdist.test/shop/api/offers.json?isbn=1' },
        text: '',
      })
      .on('GET', '/v1/codes/summary/', {
        status: 301,
        headers: { location: 'https://api.bookdist.test/v1/codes/summary/' },
        text: '',
      });
    const api = client(http, { storeUrl: `${STUB_URL}/shop`, baseUrl: `${STUB_URL}/partner` });
    const store = await failure(api.call('offers', { payload: { isbn: '1' } }));
    expect((store as Error).message).toContain('use https://api.bookdist.test/shop as the base URL');
    const http2 = new StubRegistry().on('GET', '/partner/v1/codes/summary/', {
      status: 301,
      headers: { location: 'https://api.bookdist.test/partner/v1/codes/summary/' },
      text: '',
    });
    const partner = await failure(
      client(http2, { storeUrl: `${STUB_URL}/shop`, baseUrl: `${STUB_URL}/partner` }).call('codes.summary'),
    );
    expect((partner as Error).message).toContain('use https://api.bookdist.test/partner as the base URL');
  });
});

describe('what a request is sent with', () => {
  it("a public endpoint of the store carries no credentials, even when the store is the base URL's origin", async () => {
    const http = new StubRegistry().on(
      'GET',
      '/api/offers.json?isbn=9781614001379',
      json(200, { Status: 'OK', Isbn: '9781614001379', Offers: [] }),
    );
    await client(http).call('offers', { payload: { isbn: '9781614001379' } });
    const sent = http.requests[0].headers;
    expect(sent['api-key']).toBeUndefined();
    expect(sent['api-user']).toBeUndefined();
    expect(sent.authorization).toBeUndefined();
  });

  it('--dry-run checks the payload (method, path, host, the exact request text), prints the curl line, sends nothing', async () => {
    const checked: unknown[] = [];
    const printed: string[] = [];
    const http = new StubRegistry();
    const api = client(http, {
      dryRun: (line) => void printed.push(line),
      checkPayload: async (req) => void checked.push(req),
    });
    expect(await failure(api.call('codes.generate', { payload: GENERATE }))).toBeInstanceOf(DryRun);
    expect(checked).toEqual([
      {
        method: 'POST',
        path: '/v1/codes/generate/',
        host: 'api',
        requestText: `{"hash_id": "${'a'.repeat(40)}", "org": "o", "count": 1}`,
      },
    ]);
    expect(printed).toHaveLength(1);
    // A bare request (no host given) is checked as one to the API host.
    await failure(api.request({ method: 'POST', path: '/v1/x/', payload: {} }));
    expect(checked.at(-1)).toEqual({ method: 'POST', path: '/v1/x/', host: 'api', requestText: '{}' });
    expect(printed[0]).toMatch(/^curl -X POST 'http:\/\/api\.bookdist\.test\/v1\/codes\/generate\/'/);
    expect(http.requests).toEqual([]);
  });
});

describe('--debug: the route each request takes, the extra CA certificates, the pinned names', () => {
  const PIN = { host: 'api.bookdist.test', port: 443, address: '192.0.2.7' };
  /** The stub handler, with the route a transport would give. */
  const routed = (route: (url: string) => Route) =>
    Object.assign(new StubRegistry().on('GET', '/v1/codes/summary/', json(200, SUMMARY), Infinity), { route });

  it('a proxy, with why; the CA file for https only; each pin with where it came from', async () => {
    const lines: string[] = [];
    const http = routed(() => ({ proxy: new URL('http://p:3128'), shown: 'http://p:3128', why: 'HTTPS_PROXY' }));
    const opts = {
      debug: (l: string) => void lines.push(l),
      ca: { pem: '', file: '/etc/extra-ca.pem' },
      pins: { pins: [PIN], from: '--resolve' },
    };
    await client(http, { ...opts, baseUrl: 'https://api.bookdist.test' }).call('codes.summary');
    expect(lines).toContain('  proxy: http://p:3128 (HTTPS_PROXY)');
    expect(lines).toContain('  trusting also the CA certificates of /etc/extra-ca.pem');
    expect(lines).toContain('  api.bookdist.test:443 connects to 192.0.2.7 (--resolve)');
    lines.length = 0;
    await client(http, opts).call('codes.summary');
    expect(lines.some((l) => l.includes('trusting also'))).toBe(false);
  });

  it('a direct route says so, with why; without --debug nothing is traced', async () => {
    const lines: string[] = [];
    const http = routed(() => ({ why: 'NO_PROXY matches api.bookdist.test' }));
    await client(http, { debug: (l) => void lines.push(l) }).call('codes.summary');
    expect(lines).toContain('  proxy: none, direct (NO_PROXY matches api.bookdist.test)');
    const api = client(http);
    await api.call('codes.summary');
  });

  it("route(): the handler's route, or none when it has no routes or cannot route the URL", () => {
    const route = { why: 'direct' };
    expect(client(routed(() => route)).route(`${STUB_URL}/x`)).toBe(route);
    expect(
      client(
        routed(() => {
          throw new Error('HTTPS_PROXY uses socks5:');
        }),
      ).route(`${STUB_URL}/x`),
    ).toBeUndefined();
    expect(client(new StubRegistry()).route(`${STUB_URL}/x`)).toBeUndefined();
  });
});

describe('what the client tells of itself', () => {
  it('its base and store URLs, the account, the CA file and the pins', () => {
    const pins = { pins: [{ host: 'h', port: 1, address: '::1' }], from: 'BOOKDIST_RESOLVE' };
    const api = client(new StubRegistry(), { storeUrl: 'http://store.test', ca: { pem: '', file: 'ca.pem' }, pins });
    expect([api.baseUrl, api.storeUrl, api.username, api.caFile, api.pins]).toEqual([
      STUB_URL,
      'http://store.test',
      'partner',
      'ca.pem',
      pins,
    ]);
    expect(api.url('/v1/x/', 'store', { q: 'a b' })).toBe('http://store.test/v1/x/?q=a%20b');
    expect(api.url('v1/x/')).toBe(`${STUB_URL}/v1/x/`);
    expect(client(new StubRegistry(), { credentials: { kind: 'none' } }).username).toBeUndefined();
  });

  it("close() releases the handler's connections; a handler without any is fine", async () => {
    let closed = 0;
    await client(Object.assign(new StubRegistry(), { close: () => void closed++ })).close();
    expect(closed).toBe(1);
    await client(new StubRegistry()).close();
  });
});

describe("the client's own wait before a retry (no sleep given)", () => {
  it('waits as Retry-After asks, then sends again', async () => {
    const http = new StubRegistry()
      .on('GET', '/v1/codes/summary/', json(429, { code: 429, message: 'slow down' }, { 'retry-after': '0' }))
      .on('GET', '/v1/codes/summary/', json(200, SUMMARY));
    const api = new ApiClient({
      baseUrl: STUB_URL,
      credentials: { kind: 'none' },
      timeout: 5000,
      retries: 1,
      handler: http,
    });
    expect((await api.call('codes.summary')).status).toBe(200);
    http.verify();
  });

  it('an interrupt during the wait ends the request at once with its reason; nothing more is sent', async () => {
    const stop = new AbortController();
    const http = new StubRegistry().on('GET', '/v1/codes/summary/', () => {
      setImmediate(() => stop.abort(new Error('interrupted')));
      return json(429, { code: 429, message: 'slow down' }, { 'retry-after': '3600' });
    });
    const api = new ApiClient({
      baseUrl: STUB_URL,
      credentials: { kind: 'none' },
      timeout: 7_200_000,
      retries: 1,
      handler: http,
    });
    const e = await failure(api.call('codes.summary', { signal: stop.signal }));
    expect((e as Error).message).toBe('interrupted');
    expect(http.requests).toHaveLength(1);
  });
});

describe('the URL and headers prepare makes (prepare.ts)', () => {
  it('the base URL without its trailing slashes; a query after one already in the path; a POST with a query keeps it', async () => {
    const http = new StubRegistry().on('POST', '/v1/x/?a=1', json(200, { code: 200, success: true }));
    const api = client(http, { baseUrl: `${STUB_URL}//` });
    expect(api.url('/v1/x/')).toBe(`${STUB_URL}/v1/x/`);
    expect(api.url('/v1/x/?a=1', 'api', { b: 2, c: undefined })).toBe(`${STUB_URL}/v1/x/?a=1&b=2`);
    await api.request({ method: 'POST', path: '/v1/x/', query: { a: 1 }, payload: {}, raw: true });
    http.verify();
  });

  it("a GET's query is sent; the user agent is bookdist's unless given", async () => {
    const http = new StubRegistry().on('GET', '/v1/x/?q=1', json(200, { code: 200, success: true }), 2);
    await client(http).request({ method: 'GET', path: '/v1/x/', query: { q: 1 }, raw: true });
    await client(http, { userAgent: 'bookdist/9' }).request({
      method: 'GET',
      path: '/v1/x/',
      query: { q: 1 },
      raw: true,
    });
    expect(http.requests.map((r) => r.headers['user-agent'])).toEqual(['bookdist', 'bookdist/9']);
  });

  it("a partner request to the store host: credentials only at the base URL's origin, or when asked for", async () => {
    const sent = async (opts: Partial<Options>) => {
      const http = new StubRegistry().on('GET', /\/api\/x/, json(200, { code: 200, success: true }));
      await client(http, opts).request({ method: 'GET', path: '/api/x', host: 'store', auth: 'partner', raw: true });
      return http.requests[0].headers['api-key'];
    };
    expect(await sent({ storeUrl: `${STUB_URL}/shop` })).toBe('shared-key-1');
    expect(await sent({ storeUrl: 'http://store.bookdist.test' })).toBeUndefined();
    expect(await sent({ storeUrl: 'http://store.bookdist.test', storeCredentials: true })).toBe('shared-key-1');
    // A store URL that is no URL at all is no origin of the key's either (what would be sent, as the handler gets it).
    const seen: Array<Record<string, string>> = [];
    const recorder: HttpHandler = {
      send: async (req) => {
        seen.push(req.headers);
        return { status: 200, headers: { 'content-type': 'application/json' }, text: '{"code":200,"success":true}' };
      },
    };
    await client(recorder, { storeUrl: 'store host' }).request({
      method: 'GET',
      path: '/api/x',
      host: 'store',
      auth: 'partner',
      raw: true,
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]['api-key']).toBeUndefined();
    // A bad header on such a URL is named with the URL as it was given.
    const bad = await failure(
      client(recorder, { storeUrl: 'store host' }).request({
        method: 'GET',
        path: '/api/x',
        host: 'store',
        headers: { 'X-Job': 'a\tb' },
        raw: true,
      }),
    );
    expect((bad as Error).message).toContain(
      'The x-job header of GET store host/api/x would hold a control character (\\t)',
    );
    expect(seen).toHaveLength(1);
  });

  it('a store host elsewhere changes nothing for requests to the API host: they carry the key', async () => {
    const http = new StubRegistry().on('GET', '/v1/x/', json(200, { code: 200, success: true }));
    await client(http, { storeUrl: 'http://store.bookdist.test' }).request({
      method: 'GET',
      path: '/v1/x/',
      raw: true,
    });
    expect(http.requests[0].headers['api-key']).toBe('shared-key-1');
  });

  it('the operator token carries the partner username when there is one', async () => {
    const sent = async (credentials: Options['credentials']) => {
      const http = new StubRegistry().on('POST', '/v1/access/revoke/', json(200, { code: 200, success: true }));
      await client(http, { credentials, accessToken: 'operator-token-1' }).request({
        method: 'POST',
        path: '/v1/access/revoke/',
        payload: {},
        auth: 'access',
        raw: true,
      });
      const h = http.requests[0].headers;
      return [h['api-key'], h['api-user']];
    };
    expect(await sent({ kind: 'shared', username: 'partner', sharedKey: 'k' })).toEqual([
      'operator-token-1',
      'partner',
    ]);
    expect(await sent({ kind: 'none' })).toEqual(['operator-token-1', undefined]);
  });

  it('refused unsent: no credentials for a signed request (its setting named); a bad header (its name)', async () => {
    const http = new StubRegistry();
    const unsigned = await failure(
      client(http, { credentials: { kind: 'none' }, signedOnly: true }).request({ method: 'GET', path: '/v1/x/' }),
    );
    expect(unsigned).toMatchObject({ exitCode: 2, details: { setting: 'credentials' } });
    // A public request, or one to the store host, needs none.
    const open = new StubRegistry().on('GET', /\/v1\/x\//, json(200, { code: 200, success: true }), 2);
    const none = client(open, {
      credentials: { kind: 'none' },
      signedOnly: true,
      storeUrl: 'http://store.bookdist.test',
    });
    await none.request({ method: 'GET', path: '/v1/x/', auth: 'none', raw: true });
    await none.request({ method: 'GET', path: '/v1/x/', host: 'store', raw: true });
    const bad = await failure(client(http).request({ method: 'GET', path: '/v1/x/', headers: { 'X-Job': 'a\nb' } }));
    expect(bad).toMatchObject({ exitCode: 2, details: { header: 'x-job' } });
    expect((bad as Error).message).toContain('The x-job header of GET /v1/x/ would hold a control character (\\n)');
    expect(http.requests).toEqual([]);
  });
});
