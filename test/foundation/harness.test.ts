// The in-process harness itself: a command run through main() against HTTP stubs, with what was
// sent recorded, and the registry failing on an unexpected request or an unused stub.
import { describe, expect, it } from 'vitest';
import { json, netError, StubRegistry } from '../helpers/stub-http.js';
import { runnerFor, stubEnv } from '../helpers/run.js';

const ISBN = '9781614001379';
const BOOK = {
  id: 7,
  hash_id: 'a'.repeat(40),
  title: 'Stubbed Title',
  identifiers: { isbn13: ISBN },
  digital_pricing: [],
};
const noSleep = { now: () => new Date('2026-11-25T12:00:00Z'), sleep: async () => {} };

describe('in-process harness', () => {
  it('runs a command against stubs and records the signed request', async () => {
    const http = new StubRegistry().on(
      'GET',
      `/v1/book/isbn/${ISBN}/`,
      json(200, { code: 200, success: true, book: BOOK }),
    );
    const r = await runnerFor(stubEnv(), http)(['book', 'get', '--isbn', ISBN, '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).book.title).toBe('Stubbed Title');
    const [sent] = http.sent(`/v1/book/isbn/${ISBN}/`, 'GET');
    expect(sent.headers['api-user']).toBe('stubpartner');
    http.verify();
  });

  it('fails verify() on a request no stub expected, and the command sees a network failure', async () => {
    const http = new StubRegistry();
    const r = await runnerFor(stubEnv(), http)(['book', 'get', '--isbn', ISBN, '--retries', '0']);
    expect(r.code).not.toBe(0);
    expect(() => http.verify()).toThrow(`unexpected request: GET /v1/book/isbn/${ISBN}/`);
  });

  it('fails verify() on a stub left unused', () => {
    const http = new StubRegistry().on('GET', '/v1/profile/', json(200, {}));
    expect(() => http.verify()).toThrow('stub GET /v1/profile/ answered 0 of 1');
  });

  it('serves stubs in order, so a test can script a retry', async () => {
    const http = new StubRegistry()
      .on('GET', `/v1/book/isbn/${ISBN}/`, json(429, { code: 429, message: 'slow down' }, { 'retry-after': '0' }))
      .on('GET', `/v1/book/isbn/${ISBN}/`, netError('ECONNRESET'))
      .on('GET', `/v1/book/isbn/${ISBN}/`, json(200, { code: 200, book: BOOK }));
    const r = await runnerFor(stubEnv(), http)(['book', 'get', '--isbn', ISBN, '--json'], { clock: noSleep });
    expect(r.code).toBe(0);
    expect(http.requests).toHaveLength(3);
    http.verify();
  });
});
