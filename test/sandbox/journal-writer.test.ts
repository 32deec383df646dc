// The journal's writer thread (src/sandbox/journal/writer.ts): once a server's lookups keep
// coming, their rows are made and inserted by a worker thread. What the journal holds is the
// same as when the event loop writes them: every request once, in the order it came, with the
// rows of requests that wrote (in the request's own commit) among them, and no secret.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Store } from '../../src/sandbox/db/store.js';
import { Journal } from '../../src/sandbox/journal/journal.js';
import { clearRequests, getRequest, listRequests } from '../../src/sandbox/journal/query.js';

const dir = mkdtempSync(join(tmpdir(), 'bookdist-journal-writer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SIGNATURE = 'c2lnbmF0dXJlLW9mLWEtcmVxdWVzdC10aGF0LW11c3Qtbm90LWJlLWtlcHQ=';
const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('journal writer thread', () => {
  it('writes the rows of lookups from a worker: all of them, in order, redacted, with the writes among them', async () => {
    const store = new Store(join(dir, 'writer.db'));
    store.tx(() => store.createSchema());
    const journal = new Journal(store, { backgroundAfter: 0 });
    const lookup = (i: number) => {
      const n = journal.start('GET', `/v1/book/index/?offset=${i}`, {
        host: 'sandbox',
        signature: SIGNATURE,
        'api-user': 'partner',
        authorization: 'CryptoAuth',
      });
      n.endpoint = 'book.index';
      store.serve(() => n.capture(() => undefined));
      n.responseText = JSON.stringify({
        code: 200,
        success: true,
        results: [{ i, link: `/reader/${'a'.repeat(32)}/` }],
      });
      n.finish(200);
    };
    try {
      let i = 0;
      // The first flush starts the writer (its module and thread load meanwhile).
      for (; i < 5; i++) lookup(i);
      for (let t = 0; t < 200 && !(journal as unknown as { writer?: unknown }).writer; t++) await tick(10);
      expect((journal as unknown as { writer?: unknown }).writer).toBeDefined();
      for (let round = 0; round < 5; round++) {
        for (let k = 0; k < 20; k++) lookup(i++);
        if (round === 2) {
          // A request that wrote: its row is written by this thread, in its own commit.
          const w = journal.start('POST', '/v1/user/create/', { host: 'sandbox' });
          w.endpoint = 'user.create';
          store.serve(() => w.capture(() => store.tx(() => store.setMeta('made', String(i)))));
          w.requestText = JSON.stringify({ email: 'ada@example.com', passwd: 'hunter2hunter2' });
          w.responseText = JSON.stringify({ code: 200, success: true });
          w.finish(200);
        }
        await tick(30);
      }
      journal.flush(); // waits for the writer: what it was handed is in the database
      // Still running (a writer that failed would have handed its rows back to this thread).
      expect((journal as unknown as { writer?: { failed: boolean } }).writer?.failed).toBe(false);
      const { requests } = listRequests(store, {});
      expect(requests).toHaveLength(i + 1);
      const offsets = requests.filter((r) => r.method === 'GET').map((r) => Number(r.query.split('=')[1]));
      expect(offsets).toEqual([...Array(i).keys()]);
      const text = JSON.stringify(requests);
      expect(text).not.toContain(SIGNATURE);
      expect(text).not.toContain('a'.repeat(32));
      expect(text).not.toContain('hunter2hunter2');
      const write = requests.find((r) => r.method === 'POST');
      expect(write?.changes).toEqual({ rows: { meta: 1 } });
    } finally {
      await journal.close();
      await store.close();
    }
  });
  it('keeps an answer many lookups share once, and every row still shows it; pruned and cleared with the rows', async () => {
    const store = new Store(join(dir, 'bodies.db'));
    store.tx(() => store.createSchema());
    const journal = new Journal(store, { backgroundAfter: 0, size: 60 });
    const answer = (v: number) =>
      JSON.stringify({ code: 200, success: true, book: { id: 1, v, description: 'a long answer '.repeat(40) } });
    const lookup = (v: number) => {
      const n = journal.start('GET', '/v1/book/isbn/9780000000001/', { host: 'sandbox', signature: SIGNATURE });
      n.endpoint = 'book.isbn';
      store.serve(() => n.capture(() => undefined));
      n.responseText = answer(v);
      n.finish(200);
    };
    const bodies = () => store.all<{ id: number; text: string }>('SELECT id, text FROM journal_bodies');
    const inRows = () => store.get<{ n: number }>('SELECT count(*) AS n FROM journal WHERE response IS NOT NULL')!.n;
    try {
      lookup(0);
      for (let t = 0; t < 200 && !(journal as unknown as { writer?: unknown }).writer; t++) await tick(10);
      expect((journal as unknown as { writer?: unknown }).writer).toBeDefined();
      for (let i = 0; i < 40; i++) lookup(1);
      await tick(30);
      for (let i = 0; i < 40; i++) lookup(1);
      journal.flush();
      // 81 rows (the oldest dropped down to 60), the second answer written once in a row and once shared.
      const { requests, total } = listRequests(store, {});
      expect(total).toBe(60);
      expect(requests.every((r) => (r.response as { book: { v: number } }).book.v === 1)).toBe(true);
      expect(bodies()).toHaveLength(1);
      expect(bodies()[0].text).toBe(answer(1));
      expect(inRows()).toBeLessThanOrEqual(1);
      const last = requests.at(-1)!;
      expect(getRequest(store, last.id)?.response).toEqual(JSON.parse(answer(1)));
      // An answer that changes is written again; the old body goes once no row names it.
      for (let i = 0; i < 61; i++) lookup(2);
      journal.flush();
      await tick(30);
      for (let i = 0; i < 70; i++) lookup(2);
      journal.flush();
      expect(listRequests(store, {}).requests.every((r) => (r.response as { book: { v: number } }).book.v === 2)).toBe(
        true,
      );
      expect(bodies().map((b) => b.text)).toEqual([answer(2)]);
      // Cleared: rows and bodies; the writer makes its body again for the next rows.
      expect(clearRequests(store)).toBeGreaterThan(0);
      expect(bodies()).toHaveLength(0);
      for (let i = 0; i < 3; i++) lookup(2);
      journal.flush();
      expect(listRequests(store, {}).requests.map((r) => (r.response as { book: { v: number } }).book.v)).toEqual([
        2, 2, 2,
      ]);
    } finally {
      await journal.close();
      await store.close();
    }
  });
});
