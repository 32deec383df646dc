// No answer can exhaust the machine or outlast --timeout (issue 28, items 5 and 6), against the
// hostile server on loopback: a body over the documented cap (64 MiB) fails clearly, without a
// stack trace, and a write with such an answer is "outcome unknown"; the deadline covers the
// headers and the body; --timeout is one deadline for a request with its retries and Retry-After
// waits, a wait that cannot fit ends the request at once (exit 7, naming the wait), and each wait
// over a second is announced on stderr.
import { describe, expect, it } from 'vitest';
import { answer, hostileEnv, hostileForFile } from '../helpers/hostile-server.js';
import { run } from '../helpers/run.js';

const server = hostileForFile();

const HASH = 'fb02181f26270f72e261de20f8aadb9096f40802';
const USER = '0d72df20f23558620646fb3ea030f5';
const BOOK = `/v1/book/${HASH}/`;
const cli = (args: string[]) => run(args, { env: hostileEnv(server.url) });
const GiB = 1024 ** 3;

/** Nothing of a Node stack trace or its internal errors. */
function noTrace(stderr: string): void {
  expect(stderr).not.toMatch(/ERR_STRING_TOO_LONG|\n\s+at |unexpected error/);
}

describe('a body over the cap (64 MiB)', () => {
  it.each([
    ['1 GiB with its length', () => answer.huge(GiB)],
    ['one that never ends', () => answer.huge(Infinity)],
  ])('book get, %s: exit 1 naming the cap, not retried, the rest never read', async (_case, make) => {
    server.on('GET', BOOK, make());
    const r = await cli(['book', 'get', HASH, '--timeout', '60s']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/larger than 64 MiB/);
    expect(r.stderr).toContain(`GET ${server.url}${BOOK}`);
    noTrace(r.stderr);
    expect(server.hits(BOOK)).toBe(1);
    expect(server.bytesSent()).toBeLessThan(GiB / 4);
  });

  it('access revoke (a write): outcome unknown, never "revoked"', async () => {
    server.on('POST', '/v1/access/revoke/', answer.huge(Infinity));
    const r = await cli(['access', 'revoke', '--hash-id', HASH, '--username', USER, '--yes', '--timeout', '60s']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/larger than 64 MiB/);
    expect(r.stderr).toMatch(/outcome is unknown/);
    expect(r.stderr + r.stdout).not.toMatch(/Access revoked/);
    noTrace(r.stderr);
    expect(server.hits('/v1/access/revoke/')).toBe(1);
  });
});

describe('one deadline', () => {
  it('a body that drips for ever ends at --timeout (headers and body together): exit 7', async () => {
    server.on('GET', BOOK, answer.drip(50));
    const r = await cli(['book', 'get', HASH, '--timeout', '1s', '--retries', '0']);
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toMatch(/no answer within 1(\.0)?s/);
    noTrace(r.stderr);
  });

  it('429 with Retry-After: 999999 and --timeout 2s: ends at once with exit 7, naming the wait', async () => {
    server.on('GET', BOOK, answer.retryAfter(999999));
    const r = await cli(['book', 'get', HASH, '--timeout', '2s']);
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toMatch(/Retry-After/);
    expect(r.stderr).toMatch(/Retry-After: 999999/);
    expect(r.stderr).toMatch(/--timeout 2s/);
    expect(server.hits(BOOK)).toBe(1);
  });

  it('waits that fit are announced, and the retries stop when the next wait does not fit (not after --retries 10)', async () => {
    server.on('GET', BOOK, answer.retryAfter(2, 503));
    const r = await cli(['book', 'get', HASH, '--timeout', '5s', '--retries', '10']);
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toMatch(/waiting 2(\.0)?s \(Retry-After\) before retry 1 of 10/);
    expect(server.hits(BOOK)).toBeGreaterThanOrEqual(2);
    expect(server.hits(BOOK)).toBeLessThanOrEqual(3);
  });

  it('access revoke (a write, through the job engine): a wait beyond --timeout ends it at once, exit 7', async () => {
    server.on('POST', '/v1/access/revoke/', answer.retryAfter(999999));
    const r = await cli(['access', 'revoke', '--hash-id', HASH, '--username', USER, '--yes', '--timeout', '2s']);
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toMatch(/Retry-After/);
    expect(server.hits('/v1/access/revoke/')).toBe(1);
  });
});
