// The exchange step of the request pipeline (src/api/exchange.ts) in-process through the stub
// handler: an interrupt ends a request as itself, each wait before a retry is announced past a
// second (what, why, how long, which retry), a wait that does not fit in --timeout ends the
// request at once (exit 7) saying why, a body over the cap is an error (a write's outcome
// unknown), and what --debug traces of each attempt. Time is the test's: Date.now and
// Math.random are fixed, and the client's sleep records its waits.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import type { HttpHandler, HttpRequest } from '../../src/api/handler.js';
import { UnverifiedAnswer } from '../../src/api/errors.js';
import { CliError } from '../../src/errors.js';
import { json, netError, StubRegistry } from '../helpers/stub-http.js';
import { STUB_URL } from '../helpers/run.js';

type Options = ConstructorParameters<typeof ApiClient>[0];

const SUMMARY = { code: 200, success: true, codes_generated: 0, codes_redeemed: 0, redemption_percentage: 0 };
const GENERATE = { hash_id: 'a'.repeat(40), org: 'o', count: 1 };
const NOW = 1_800_000_000_000;

afterEach(() => {
  vi.restoreAllMocks();
});

/** A client on the stub whose waits are recorded (not waited), with its notices and --debug lines. */
function client(http: HttpHandler, opts: Partial<Options> = {}) {
  const sleeps: number[] = [];
  const notices: string[] = [];
  const api = new ApiClient({
    baseUrl: STUB_URL,
    credentials: { kind: 'shared', username: 'partner', sharedKey: 'shared-key-1' },
    timeout: 60_000,
    retries: 2,
    handler: http,
    sleep: async (ms) => void sleeps.push(ms),
    notice: (l) => void notices.push(l),
    ...opts,
  });
  return Object.assign(api, { sleeps, notices });
}

/** Time stands still (the deadline is exact), and every backoff is its ceiling (250, 500, 1000, 2000 ms...). */
function fixTime(): void {
  vi.spyOn(Date, 'now').mockReturnValue(NOW);
  vi.spyOn(Math, 'random').mockReturnValue(1);
}

const failure = (p: Promise<unknown>) =>
  p.then(
    (v) => {
      throw new Error(`expected a failure, got ${JSON.stringify(v)}`);
    },
    (e: unknown) => e,
  );

describe('which writes are repeated: by the profile, not by the request alone', () => {
  it('a write with an Idempotency-Key answered 503 is sent once where the service does not honour keys, repeated where it does', async () => {
    const busy = () =>
      new StubRegistry().on('POST', '/v1/codes/generate/', json(503, { code: 503, message: 'down' }), Infinity);
    const call = (http: StubRegistry, opts: Partial<Options>) =>
      client(http, opts).call('codes.generate', { payload: GENERATE, headers: { 'Idempotency-Key': 'k-1' } });
    const plain = busy();
    expect((await call(plain, {})).status).toBe(503);
    expect(plain.requests).toHaveLength(1);
    const honoured = busy();
    expect((await call(honoured, { idempotencyKeys: true })).status).toBe(503);
    expect(honoured.requests).toHaveLength(3);
  });
});

describe('an interrupt (Ctrl-C) during a send', () => {
  it('ends the request with the interrupt itself: not retried, not reported as a network failure', async () => {
    const stop = new AbortController();
    const http = new StubRegistry().on('GET', '/v1/codes/summary/', () => {
      stop.abort(new Error('interrupted'));
      throw stop.signal.reason;
    });
    const api = client(http);
    const e = await failure(api.call('codes.summary', { signal: stop.signal }));
    expect((e as Error).message).toBe('interrupted');
    expect(api.sleeps).toEqual([]);
  });

  it("reaches the handler's own signal, as does the request's deadline", async () => {
    const stop = new AbortController();
    const seen: AbortSignal[] = [];
    const hanging: HttpHandler = {
      send: (req: HttpRequest) =>
        new Promise((_, reject) => {
          seen.push(req.signal);
          req.signal.addEventListener('abort', () => reject(req.signal.reason));
          setImmediate(() => stop.abort(new Error('interrupted')));
        }),
    };
    const e = await failure(client(hanging).call('codes.summary', { signal: stop.signal }));
    expect((e as Error).message).toBe('interrupted');
    expect(seen).toHaveLength(1);
    expect(seen[0].aborted).toBe(true);
  });
});

describe('waits before a retry: announced past a second, and only when they fit in --timeout', () => {
  it('a lost connection: each backoff past a second is announced (why, how long, which retry); one of a second is not', async () => {
    fixTime();
    const http = new StubRegistry()
      .on('GET', '/v1/codes/summary/', netError('ECONNRESET'), 4)
      .on('GET', '/v1/codes/summary/', json(200, SUMMARY));
    const api = client(http, { retries: 5 });
    expect((await api.call('codes.summary')).status).toBe(200);
    expect(api.sleeps).toEqual([250, 500, 1000, 2000]);
    expect(api.notices).toEqual([
      'GET /v1/codes/summary/: the connection failed; waiting 2.0s (backoff) before retry 4 of 5.',
    ]);
  });

  it('an answer: why (status, its name, the Retry-After asked), how long, which retry; 1000 ms is not announced, 1001 is', async () => {
    fixTime();
    const http = new StubRegistry()
      .on('GET', '/v1/codes/summary/', json(429, { code: 429 }, { 'retry-after': '1' }))
      .on('GET', '/v1/codes/summary/', json(429, { code: 429 }, { 'retry-after': '1.001' }))
      .on('GET', '/v1/codes/summary/', json(503, { code: 503 }))
      .on('GET', '/v1/codes/summary/', json(200, SUMMARY));
    // The last backoff (attempt 2) is 1000 ms: not announced either.
    const api = client(http, { retries: 3 });
    expect((await api.call('codes.summary')).status).toBe(200);
    expect(api.sleeps).toEqual([1000, 1001, 1000]);
    expect(api.notices).toEqual([
      'GET /v1/codes/summary/: the service answered 429 (Too many requests) with Retry-After: 1.001; waiting 1.0s (Retry-After) before retry 2 of 3.',
    ]);
    const slow = new StubRegistry()
      .on('GET', '/v1/codes/summary/', json(503, { code: 503 }), 3)
      .on('GET', '/v1/codes/summary/', json(200, SUMMARY));
    const api2 = client(slow, { retries: 3 });
    await api2.call('codes.summary');
    expect(api2.notices).toEqual([]);
    const slower = new StubRegistry()
      .on('GET', '/v1/codes/summary/', json(502, { code: 502 }), 4)
      .on('GET', '/v1/codes/summary/', json(200, SUMMARY));
    const api3 = client(slower, { retries: 4 });
    await api3.call('codes.summary');
    expect(api3.notices).toEqual([
      'GET /v1/codes/summary/: the service answered 502 (Bad gateway); waiting 2.0s (backoff) before retry 4 of 4.',
    ]);
  });

  it('a Retry-After that ends exactly at the deadline does not fit: exit 7 at once, naming the wait, --timeout and what is left', async () => {
    fixTime();
    const http = new StubRegistry().on('GET', '/v1/codes/summary/', json(429, { code: 429 }, { 'retry-after': '2' }));
    const api = client(http, { timeout: 2000 });
    const e = (await failure(api.call('codes.summary'))) as CliError;
    expect(e).toBeInstanceOf(CliError);
    expect(e.exitCode).toBe(7);
    expect(e.status).toBe(429);
    expect(e.details).toEqual({ wait_ms: 2000, timeout_ms: 2000, attempts: 1 });
    expect(e.message).toBe(
      `GET ${STUB_URL}/v1/codes/summary/: the service answered 429 (Too many requests) with Retry-After: 2; waiting 2.0s before retry 1 does not fit in what is left of --timeout 2.0s (2.0s), ` +
        'so bookdist stops now rather than wait. Try again later, or raise --timeout (it bounds a request with its retries and waits).',
    );
    expect(api.sleeps).toEqual([]);
    // --timeout as the user wrote it; the second attempt's wait; what is left after the first wait.
    const now = vi.spyOn(Date, 'now');
    const twice = new StubRegistry()
      .on('GET', '/v1/codes/summary/', () => (now.mockReturnValue(NOW + 500), json(503, { code: 503 })))
      .on('GET', '/v1/codes/summary/', json(503, { code: 503 }));
    const e2 = (await failure(client(twice, { timeout: 900, timeoutText: '0.9s' }).call('codes.summary'))) as CliError;
    expect(e2.message).toContain(
      'the service answered 503 (Service unavailable); waiting 500ms before retry 2 does not fit in what is left of --timeout 0.9s (400ms)',
    );
    expect(e2.details).toEqual({ wait_ms: 500, timeout_ms: 900, attempts: 2 });
  });

  it('a backoff after a failed connection that ends at the deadline does not fit either: the failure is the answer', async () => {
    fixTime();
    const http = new StubRegistry().on('GET', '/v1/codes/summary/', netError('ECONNREFUSED'));
    const api = client(http, { timeout: 250 });
    const e = (await failure(api.call('codes.summary'))) as CliError;
    expect(e.exitCode).toBe(7);
    expect(e.message).toMatch(/could not reach the service \(ECONNREFUSED\)/);
    expect(api.sleeps).toEqual([]);
    expect(http.requests).toHaveLength(1);
  });
});

describe('a send that failed with nothing', () => {
  it('a handler that throws undefined: still a network failure a user can read (exit 7), traced under --debug', async () => {
    const lines: string[] = [];
    const nothing: HttpHandler = {
      send: () => Promise.reject(undefined),
    };
    const e = (await failure(
      client(nothing, { retries: 0, debug: (l) => void lines.push(l) }).call('codes.summary'),
    )) as CliError;
    expect(e).toBeInstanceOf(CliError);
    expect(e.exitCode).toBe(7);
    expect(lines.filter((l) => l.startsWith('←'))).toHaveLength(1);
  });
});

describe('a body over the cap (64 MiB): not read, not retried', () => {
  const tooLarge = () =>
    Object.assign(new Error('body too large'), { code: 'ERR_BODY_TOO_LARGE', status: 200, contentType: 'text/plain' });
  const over = (method: string, path: string) =>
    new StubRegistry().on(method, path, () => {
      throw tooLarge();
    });

  it("a read's is failed, naming the cap, the status and the content type", async () => {
    const e = (await failure(client(over('GET', '/v1/codes/summary/')).call('codes.summary'))) as UnverifiedAnswer;
    expect(e).toBeInstanceOf(UnverifiedAnswer);
    expect(e.verdict).toBe('failed');
    expect(e.message).toContain('larger than 64 MiB, the most bookdist reads (HTTP 200, text/plain)');
    expect(e.details).toMatchObject({ status: 200, content_type: 'text/plain', problem: 'body over 64 MiB' });
  });

  it("a write's outcome is unknown, by the endpoint, or for a raw request by its method", async () => {
    const w = (await failure(
      client(over('POST', '/v1/codes/generate/')).call('codes.generate', { payload: GENERATE }),
    )) as UnverifiedAnswer;
    expect(w.verdict).toBe('unknown');
    const raw = (await failure(
      client(over('POST', '/v1/anything/')).request({ method: 'POST', path: '/v1/anything/', raw: true }),
    )) as UnverifiedAnswer;
    expect(raw.verdict).toBe('unknown');
    const rawRead = (await failure(
      client(over('GET', '/v1/anything/')).request({ method: 'GET', path: '/v1/anything/', raw: true }),
    )) as UnverifiedAnswer;
    expect(rawRead.verdict).toBe('failed');
  });
});

describe('what an answer keeps of the exchange', () => {
  it('the TLS facts of the connection when there are some, else none', async () => {
    const tls = { protocol: 'TLSv1.3', subject: 'CN=api', issuer: 'CN=ca' };
    const http = new StubRegistry()
      .on('GET', '/v1/codes/summary/', { ...json(200, SUMMARY), tls })
      .on('GET', '/v1/codes/summary/', json(200, SUMMARY));
    const api = client(http);
    expect((await api.call('codes.summary')).tls).toEqual(tls);
    expect('tls' in (await api.call('codes.summary'))).toBe(false);
  });

  it("an unverified answer's error quotes the first 200 characters it came with, and counts them", async () => {
    const page = `<html>${'x'.repeat(300)}</html>`;
    const http = new StubRegistry().on('GET', '/v1/codes/summary/', {
      status: 200,
      headers: { 'content-type': 'text/html' },
      text: page,
    });
    const e = (await failure(client(http).call('codes.summary'))) as UnverifiedAnswer;
    expect(e.details?.begins).toBe(`${page.slice(0, 120)}… (200 characters)`);
  });
});

describe('--debug: each attempt and what came of it', () => {
  it('the request line (and the retry it is), the request text of a POST only, each answer with the time it took', async () => {
    const lines: string[] = [];
    const http = new StubRegistry()
      .on('GET', '/v1/codes/summary/', json(503, { code: 503 }))
      .on('GET', '/v1/codes/summary/', json(200, SUMMARY))
      .on(
        'POST',
        '/v1/user/',
        json(200, {
          code: 200,
          success: true,
          username: 'u1',
          email: 'a@b.c',
          passwd: 'generated-pw-9',
          message: 'User created.',
        }),
      );
    const api = client(http, { debug: (l) => void lines.push(l) });
    const started = Date.now();
    await api.call('codes.summary');
    await api.call('user.create', { payload: { email: 'a@b.c' } });
    const took = Date.now() - started;
    expect(lines.filter((l) => l.startsWith('→'))).toEqual([
      `→ GET ${STUB_URL}/v1/codes/summary/`,
      `→ GET ${STUB_URL}/v1/codes/summary/ (retry 1)`,
      `→ POST ${STUB_URL}/v1/user/`,
    ]);
    expect(lines.filter((l) => l.startsWith('  request='))).toEqual(['  request={"email": "a@b.c"}']);
    const answers = lines.filter((l) => l.startsWith('←'));
    expect(answers).toHaveLength(3);
    for (const l of answers) expect(Number(/^← \d+ \((\d+) ms\)/.exec(l)?.[1])).toBeLessThanOrEqual(took);
    // A generated password in an answer is cut like a code, not hidden whole.
    expect(answers[2]).toContain('"passwd":"gene…(14 chars)"');
  });

  it('a failed send: its code, a timeout as such, else its message, with the time it took', async () => {
    const lines: string[] = [];
    const http = new StubRegistry()
      .on('GET', '/v1/codes/summary/', netError('ECONNRESET'))
      .on('GET', '/v1/codes/summary/', () => {
        throw Object.assign(new Error('The operation was aborted due to timeout'), { name: 'TimeoutError' });
      })
      .on('GET', '/v1/codes/summary/', () => {
        throw new Error('socket hang up');
      });
    const started = Date.now();
    await failure(client(http, { debug: (l) => void lines.push(l), retries: 2 }).call('codes.summary'));
    const took = Date.now() - started;
    const failed = lines.filter((l) => l.startsWith('←'));
    expect(failed.map((l) => l.replace(/\(\d+ ms\)/, '(N ms)'))).toEqual([
      '← ECONNRESET (N ms)',
      '← timeout (N ms)',
      '← socket hang up (N ms)',
    ]);
    for (const l of failed) expect(Number(/\((\d+) ms\)/.exec(l)?.[1])).toBeLessThanOrEqual(took);
  });
});
