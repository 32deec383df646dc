// Bulk summaries add up and their hints fit (issue 29): one outcome per item, a retry hint that
// lists only what a retry can mend, durations echoed as the user wrote them, and plurals right.
// In-process against HTTP stubs.
import { describe, expect, it } from 'vitest';
import { run, stubEnv } from '../helpers/run.js';
import { json, StubRegistry } from '../helpers/stub-http.js';

const QUEUED = 'a'.repeat(40);
const GONE = 'b'.repeat(40);
const DONE = 'c'.repeat(40);
const book = (hash: string, status: Record<string, unknown>) => ({
  hash_id: hash,
  title: 'T',
  status: { is_processed: false, is_queued: true, ...status },
});

describe('book process summaries', () => {
  it('--wait: outcomes add up to the books; the retry hint names only the book that timed out, with --timeout as written', async () => {
    const reg = new StubRegistry()
      .on(
        'POST',
        `/v1/book/${QUEUED}/process/`,
        json(200, { code: 200, success: true, message: 'Book queued for processing.' }),
      )
      .on('POST', `/v1/book/${GONE}/process/`, json(404, { code: 404, error: true, message: 'Book not found' }))
      .on(
        'POST',
        `/v1/book/${DONE}/process/`,
        json(200, { code: 200, success: true, message: 'Book already processed.' }),
      )
      .on(
        'POST',
        '/v1/book/search/',
        json(200, { code: 200, success: true, results: [book(QUEUED, {})], count: 1 }),
        Infinity,
      );
    const r = await run(
      ['book', 'process', QUEUED, GONE, DONE, '--wait', '--interval', '200ms', '--timeout', '1s', '--retries', '0'],
      { env: stubEnv(), http: reg },
    );
    expect(r.code, r.stderr).toBe(6);
    expect(r.stderr).toMatch(/book process: 3 books: 1 already processed, 1 failed, 1 timed out in /);
    const hint = /To retry what failed, run:\n {2}(.*)\n/.exec(r.stderr)?.[1];
    expect(hint).toBe(`bookdist book process --wait --interval 200ms ${QUEUED} --timeout 1s --retries 0`);
    expect(r.stderr).not.toMatch(/\d{4,}ms/);
    const out = run(['book', 'process', QUEUED, '--json'], {
      env: stubEnv(),
      http: new StubRegistry().on(
        'POST',
        `/v1/book/${QUEUED}/process/`,
        json(200, { code: 200, success: true, message: 'Book already queued.' }),
      ),
    });
    const one = await out;
    expect(one.code, one.stderr).toBe(0);
    // "already queued" is an outcome of its own, not counted as queued; one book is a book.
    expect(JSON.parse(one.stdout).summary).toMatchObject({ total: 1, queued: 0, already_queued: 1 });
    expect(one.stderr).toMatch(/book process: 1 book: 1 already queued in /);
  });
});
