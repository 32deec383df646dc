// The one retry policy (src/api/retry.ts) and what a failed send means (src/api/send-failure.ts),
// decision by decision: which failures and answers are repeated, how long bookdist waits, and the
// error a user reads when it gives up. The same decisions end to end through the stub service:
// test/network/network.test.ts and test/bulk/retry.test.ts.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ApiResponse } from '../../src/api/answer.js';
import {
  backoff,
  hasIdempotencyKey,
  neverSent,
  retryAfterMs,
  retryPolicy,
  waitAfterAnswer,
  waitAfterFailure,
} from '../../src/api/retry.js';
import { failureCode, sendFailed, unmendable } from '../../src/api/send-failure.js';
import { ExitCode } from '../../src/errors.js';

afterEach(() => {
  vi.restoreAllMocks();
});

const answer = (status: number, headers: Record<string, string> = {}): ApiResponse => ({
  status,
  headers,
  body: {},
  format: 'json',
  request: { method: 'GET', url: 'https://api.example.test/v1/x/' },
});

describe('retryPolicy: which requests may be repeated after a lost connection or 502/503/504', () => {
  const KEY = { 'Idempotency-Key': 'k1' };
  it('reads always; writes only when the interface makes them idempotent or a key the service honours', () => {
    expect(retryPolicy({ method: 'GET' }, false, 3)).toEqual({ network: true, retries: 3 });
    expect(retryPolicy({ method: 'POST', idempotent: true }, false, 2)).toEqual({ network: true, retries: 2 });
    expect(retryPolicy({ method: 'POST', headers: KEY }, true, 3).network).toBe(true);
    expect(retryPolicy({ method: 'POST', headers: KEY }, false, 3).network).toBe(false);
    expect(retryPolicy({ method: 'POST' }, true, 3).network).toBe(false);
    expect(retryPolicy({ method: 'POST', headers: { other: 'x' } }, true, 3).network).toBe(false);
    expect(retryPolicy({ method: 'POST', idempotent: false }, false, 3).network).toBe(false);
    expect(retryPolicy({ method: 'DELETE' }, false, 3).network).toBe(false);
  });
  it('the Idempotency-Key header is found whatever its case', () => {
    expect(hasIdempotencyKey(undefined)).toBe(false);
    expect(hasIdempotencyKey({})).toBe(false);
    expect(hasIdempotencyKey({ 'idempotency-key': 'k' })).toBe(true);
    expect(hasIdempotencyKey({ 'IDEMPOTENCY-KEY': 'k' })).toBe(true);
    expect(hasIdempotencyKey({ 'x-idempotency-key': 'k', accept: 'x' })).toBe(false);
  });
  it('a connection that never opened was never sent; one lost after opening may have been', () => {
    for (const code of [
      'ECONNREFUSED',
      'ENOTFOUND',
      'EAI_AGAIN',
      'EHOSTUNREACH',
      'ENETUNREACH',
      'UND_ERR_CONNECT_TIMEOUT',
    ])
      expect(neverSent(code), code).toBe(true);
    for (const code of ['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'UND_ERR_SOCKET', ''])
      expect(neverSent(code), code).toBe(false);
  });
});

describe('waitAfterFailure and waitAfterAnswer: repeat, and after how long', () => {
  const read = retryPolicy({ method: 'GET' }, false, 2);
  const write = retryPolicy({ method: 'POST' }, false, 2);
  it('a send that never left is repeated for a write too; a lost one only under the policy; never past --retries', () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    expect(waitAfterFailure(write, 'ECONNREFUSED', 0)).toBe(125);
    expect(waitAfterFailure(write, 'ECONNRESET', 0)).toBeUndefined();
    expect(waitAfterFailure(read, 'ECONNRESET', 1)).toBe(250);
    expect(waitAfterFailure(read, 'ECONNRESET', 2)).toBeUndefined();
    expect(waitAfterFailure(write, 'ECONNREFUSED', 2)).toBeUndefined();
  });
  it('429 always (as long as Retry-After asks); 502, 503, 504 only under the policy; any other status never', () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    expect(waitAfterAnswer(write, answer(429, { 'retry-after': '3' }), 0)).toBe(3000);
    expect(waitAfterAnswer(write, answer(429), 1)).toBe(250);
    for (const status of [502, 503, 504]) {
      expect(waitAfterAnswer(read, answer(status), 0), String(status)).toBe(125);
      expect(waitAfterAnswer(write, answer(status), 0), String(status)).toBeUndefined();
    }
    for (const status of [200, 400, 404, 408, 500, 501, 505])
      expect(waitAfterAnswer(read, answer(status), 0)).toBeUndefined();
    expect(waitAfterAnswer(read, answer(503), 2)).toBeUndefined();
    expect(waitAfterAnswer(read, answer(429), 3)).toBeUndefined();
  });
  it('backoff: full jitter between half and all of 250 ms doubling per attempt, at most 8 s', () => {
    const at = (attempt: number, r: number) => {
      vi.spyOn(Math, 'random').mockReturnValue(r);
      return backoff(attempt);
    };
    expect([at(0, 0), at(0, 0.999999)]).toEqual([125, 250]);
    expect([at(3, 0), at(3, 0.5)]).toEqual([1000, 1500]);
    expect([at(5, 0), at(5, 0.999999)]).toEqual([4000, 8000]);
    expect([at(9, 0), at(9, 0.999999)]).toEqual([4000, 8000]);
  });
  it('Retry-After: whole or decimal seconds (spaces around them allowed), or an HTTP date (never negative)', () => {
    expect(retryAfterMs(undefined)).toBeUndefined();
    expect(retryAfterMs('')).toBeUndefined();
    expect(retryAfterMs(' 2 ')).toBe(2000);
    expect(retryAfterMs('1.25')).toBe(1250);
    expect(retryAfterMs('0')).toBe(0);
    expect(retryAfterMs('later', 0)).toBeUndefined();
    // Seconds are the whole value: not a number at its end or start (Date.parse takes '12' as a date).
    expect(retryAfterMs('12', 0)).toBe(12_000);
    expect(retryAfterMs('5x', 0)).toBeUndefined();
    expect(retryAfterMs('x5', 0)).toBeUndefined();
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(retryAfterMs(new Date(1_000).toUTCString(), 4_000)).toBe(0);
  });
});

const INFO = { method: 'POST', url: 'https://api.example.test:8443/v1/order/external/' };

describe('unmendable: failures retrying cannot mend', () => {
  it('the system code is the failure own or its cause', () => {
    expect(failureCode({ code: 'A', cause: { code: 'B' } })).toBe('A');
    expect(failureCode({ cause: { code: 'B' } })).toBe('B');
    expect(failureCode({})).toBe('');
    expect(failureCode(undefined)).toBe('');
  });
  it('an expired certificate: exit 8, the host, nothing sent, renew it (a CA file does not help)', () => {
    const e = unmendable({ code: 'CERT_HAS_EXPIRED' }, INFO, '/etc/ca.pem');
    expect(e?.exitCode).toBe(ExitCode.TLS);
    expect(e?.message).toBe(
      'Certificate problem: the certificate of api.example.test:8443 did not verify: it has expired (CERT_HAS_EXPIRED). Nothing was sent. ' +
        "Whoever runs api.example.test:8443 must renew its certificate (or, if it is not valid yet, check this machine's clock); " +
        'trusting a CA with --ca-file or BOOKDIST_CA_FILE does not mend a certificate outside its dates.',
    );
    expect(e?.details).toEqual({ code: 'CERT_HAS_EXPIRED', host: 'api.example.test:8443' });
    expect(unmendable({ cause: { code: 'CERT_NOT_YET_VALID' } }, INFO, undefined)?.message).toContain(
      'must renew its certificate',
    );
  });
  it('an untrusted issuer: the CA file given, or how to give one', () => {
    const withCa = unmendable({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' }, INFO, '/etc/ca.pem')?.message;
    expect(withCa).toContain(
      "Nothing was sent. The CA certificates of /etc/ca.pem (and Node's own) do not vouch for it",
    );
    const without = unmendable({ code: 'SELF_SIGNED_CERT_IN_CHAIN' }, INFO, undefined)?.message;
    expect(without).toContain("give that CA's certificate (PEM) with --ca-file FILE, BOOKDIST_CA_FILE");
  });
  it('a TLS handshake that failed: plain HTTP on the port, or the first line of why', () => {
    for (const message of ['wrong version number', 'PACKET LENGTH TOO LONG', 'x: http request']) {
      const e = unmendable({ code: 'EPROTO', message }, INFO, undefined);
      expect(e?.message, message).toContain(
        'did not verify: the server did not answer TLS (is it an http:// URL?) (EPROTO)',
      );
      expect(e?.exitCode).toBe(ExitCode.TLS);
    }
    const long = `${'x'.repeat(200)}\nsecond line`;
    const e = unmendable({ code: 'ERR_SSL_SOMETHING', message: long }, INFO, undefined);
    expect(e?.message).toContain(`the TLS handshake failed (${'x'.repeat(160)}) (ERR_SSL_SOMETHING)`);
    expect(unmendable({ code: 'ERR_SSLX', message: 'a\nb' }, INFO, undefined)).toBeUndefined();
    expect(unmendable({ code: 'X_ERR_SSL_Y', message: 'a' }, INFO, undefined)).toBeUndefined();
  });
  it('a proxy URL that is not usable: exit 2 with the setting named', () => {
    const e = unmendable(
      { code: 'BOOKDIST_PROXY_URL', message: 'HTTPS_PROXY is not a URL', setting: 'HTTPS_PROXY' },
      INFO,
      undefined,
    );
    expect(e?.exitCode).toBe(ExitCode.USAGE);
    expect(e?.message).toBe('HTTPS_PROXY is not a URL');
    expect(e?.details).toEqual({ setting: 'HTTPS_PROXY' });
  });
  it('a proxy that failed: exit 9, by what it answered', () => {
    const proxy = 'http://proxy.test:3128';
    const msg = (f: object) => unmendable({ proxy, ...f }, INFO, undefined);
    for (const status of [401, 407]) {
      const e = msg({ proxyStatus: status });
      expect(e?.exitCode).toBe(ExitCode.PROXY);
      expect(e?.message).toBe(
        `Proxy problem: the proxy http://proxy.test:3128 for POST https://api.example.test:8443/v1/order/external/ failed: it refused the credentials (it answered ${status}): ` +
          'put the right user name and password in the proxy URL (http://USER:PASSWORD@host:port) of HTTPS_PROXY/HTTP_PROXY.',
      );
    }
    expect(msg({ proxyStatus: 403, code: 'X' })?.message).toContain(
      'failed: it refused to connect to api.example.test:8443 (it answered 403): check that the proxy may reach the service, or name the service in NO_PROXY.',
    );
    expect(msg({ proxyStatus: 403, code: 'X' })?.details).toEqual({ code: 'X', proxy, proxy_status: 403 });
    expect(msg({ code: 'ECONNREFUSED' })?.message).toContain(
      'failed: it could not be reached (ECONNREFUSED): check HTTPS_PROXY/HTTP_PROXY, or name the service in NO_PROXY to go direct.',
    );
    expect(msg({ message: 'socket hang up' })?.message).toContain('it could not be reached (socket hang up)');
    expect(msg({ message: 'socket hang up' })?.details).toEqual({ code: undefined, proxy, proxy_status: undefined });
  });
  it('anything else may be mended by another attempt; a URL that does not parse is named as it is', () => {
    expect(unmendable({ code: 'ECONNRESET' }, INFO, undefined)).toBeUndefined();
    expect(unmendable(undefined, INFO, undefined)).toBeUndefined();
    expect(unmendable({ code: 'CERT_REVOKED' }, { method: 'GET', url: 'not a url' }, undefined)?.message).toContain(
      'the certificate of not a url did not verify',
    );
  });
});

describe('sendFailed: the error once the policy gives up', () => {
  const write = retryPolicy({ method: 'POST' }, false, 3);
  const read = retryPolicy({ method: 'GET' }, false, 3);
  it('a write that may have been sent: outcome unknown, exit 1, never "could not reach"', () => {
    const e = sendFailed({ code: 'ECONNRESET' }, INFO, write, 0, 30_000);
    expect(e.exitCode).toBe(ExitCode.ERROR);
    expect(e.message).toBe(
      'POST https://api.example.test:8443/v1/order/external/: the connection was lost (ECONNRESET) after the request was sent: the outcome is unknown. ' +
        'Check whether it took effect before sending it again (e.g. `bookdist user orders`, `bookdist codes summary`); not retried, as repeating it could do it twice.',
    );
    expect(e.details).toEqual({ code: 'ECONNRESET', outcome: 'unknown' });
    const timedOut = sendFailed({ name: 'TimeoutError', message: 'aborted' }, INFO, write, 0, 30_000);
    expect(timedOut.message).toContain(': no answer within 30s after the request was sent: the outcome is unknown.');
    expect(timedOut.details).toEqual({ code: undefined, outcome: 'unknown' });
    expect(sendFailed({ message: 'other side closed' }, INFO, write, 0, 1).message).toContain(
      'the connection was lost (other side closed)',
    );
  });
  it('a failure that carries nothing (a thrown undefined) is still the error of its kind, never a crash', () => {
    const write1 = sendFailed(undefined, INFO, write, 0, 1_000);
    expect(write1.exitCode).toBe(ExitCode.ERROR);
    expect(write1.details).toEqual({ code: undefined, outcome: 'unknown' });
    expect(sendFailed(undefined, INFO, read, 0, 1_000).exitCode).toBe(ExitCode.UNAVAILABLE);
  });
  it('a write that never left, or a request the policy repeats: could not reach the service, exit 7, with the attempts', () => {
    const e = sendFailed({ code: 'ECONNREFUSED' }, INFO, write, 3, 30_000);
    expect(e.exitCode).toBe(ExitCode.UNAVAILABLE);
    expect(e.message).toBe(
      'POST https://api.example.test:8443/v1/order/external/: could not reach the service (ECONNREFUSED) after 4 attempts',
    );
    expect(e.details).toEqual({ code: 'ECONNREFUSED' });
    // A repeatable request whose connection broke after sending: lost, not "could not reach".
    expect(sendFailed({ code: 'ECONNRESET' }, INFO, read, 2, 30_000).message).toBe(
      'POST https://api.example.test:8443/v1/order/external/: the connection was lost (ECONNRESET) after 3 attempts',
    );
    const timedOut = sendFailed({ name: 'TimeoutError', message: 'x' }, INFO, read, 1, 5_000);
    expect(timedOut.message).toBe(
      'POST https://api.example.test:8443/v1/order/external/: no answer within 5.0s (timed out; raise --timeout) after 2 attempts',
    );
    expect(timedOut.details).toEqual({ code: undefined });
    expect(sendFailed({ message: 'boom' }, INFO, read, 0, 1).message).toContain('could not reach the service (boom)');
  });
});
