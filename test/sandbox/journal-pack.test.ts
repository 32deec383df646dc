// Requests that differ only in their time share one journal row (src/sandbox/journal/pack.ts):
// a run of the same lookup is one row. The journal still holds every request as before: each
// with its own id (never reused) and times, listed, shown, filtered, followed, bounded and cleared
// one by one.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { Store } from '../../src/sandbox/db/store.js';
import { Journal } from '../../src/sandbox/journal/journal.js';
import { clearRequests, getRequest, lastRequestId, listRequests } from '../../src/sandbox/journal/query.js';
import { JOURNAL_HEADERS, sameJournalHeaders } from '../../src/sandbox/journal/redact.js';

const dir = mkdtempSync(join(tmpdir(), 'bookdist-journal-pack-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SIGNATURE = 'c2lnbmF0dXJlLW9mLWEtcmVxdWVzdC10aGF0LW11c3Qtbm90LWJlLWtlcHQ=';
const ANSWER = JSON.stringify({ code: 200, success: true, book: { id: 1, title: 'A book', isbn13: '9780000000001' } });
const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The same signed lookup, `count` times, each a little later than the one before; the time each
 * came (ms). `headers(i)` changes the headers of the i-th.
 */
function lookups(
  store: Store,
  journal: Journal,
  count: number,
  status = 200,
  headers: (i: number) => Record<string, string> = () => ({}),
): number[] {
  const ats: number[] = [];
  for (let i = 0; i < count; i++) {
    const n = journal.start('GET', '/v1/book/isbn/9780000000001/', {
      host: 'sandbox',
      signature: SIGNATURE,
      'api-user': 'partner',
      authorization: 'CryptoAuth',
      ...headers(i),
    });
    n.endpoint = 'book.isbn';
    n.account = 'partner';
    store.serve(() => n.capture(() => undefined));
    n.responseText = ANSWER;
    const until = performance.now() + 0.05; // distinct times, in order
    while (performance.now() < until);
    n.finish(status);
    ats.push(n.at);
  }
  return ats;
}

const rowCount = (store: Store) => store.get<{ n: number }>('SELECT count(*) AS n FROM journal')!.n;

function open(name: string, opts: ConstructorParameters<typeof Journal>[1] = {}) {
  const store = new Store(join(dir, name));
  store.tx(() => store.createSchema());
  return { store, journal: new Journal(store, opts) };
}

describe('journal packing', () => {
  it('keeps a run of one lookup in one row, and still lists, shows, follows and clears each request', async () => {
    const { store, journal } = open('pack.db');
    try {
      const came = lookups(store, journal, 30);
      journal.flush();
      expect(rowCount(store)).toBe(1);
      const { requests, total } = listRequests(store, {});
      expect(total).toBe(30);
      // Each with the time it came, exactly (to the millisecond an entry shows).
      expect(requests.map((r) => Date.parse(r.at))).toEqual(came.map((at) => Math.floor(at)));
      expect(requests.map((r) => r.id)).toEqual([...Array(30).keys()].map((i) => i + 1));
      const ats = requests.map((r) => Date.parse(r.at));
      expect([...ats].sort((a, b) => a - b)).toEqual(ats);
      expect(new Set(requests.map((r) => r.at)).size).toBeGreaterThan(1);
      expect(JSON.stringify(requests)).not.toContain(SIGNATURE);
      expect(
        requests.every((r) => r.status === 200 && r.account === 'partner' && r.path === '/v1/book/isbn/9780000000001/'),
      ).toBe(true);
      expect(requests[17].response).toEqual(JSON.parse(ANSWER));
      // One of them alone, with its own times; the ones after an id (`tail`); since a time.
      expect(getRequest(store, 18)).toEqual(requests[17]);
      expect(getRequest(store, 31)).toBeUndefined();
      expect(lastRequestId(store)).toBe(30);
      expect(listRequests(store, { afterId: 25 }).requests.map((r) => r.id)).toEqual([26, 27, 28, 29, 30]);
      expect(listRequests(store, { since: Date.parse(requests[20].at) }).requests[0].id).toBeLessThanOrEqual(21);
      expect(listRequests(store, { since: Date.parse(requests[20].at) }).total).toBeGreaterThanOrEqual(10);
      expect(listRequests(store, {}, 3).requests.map((r) => r.id)).toEqual([28, 29, 30]);
      // A different request breaks the run; its id comes after the run's, never one of them.
      lookups(store, journal, 1, 404);
      journal.flush();
      expect(lastRequestId(store)).toBe(31);
      expect(getRequest(store, 31)?.status).toBe(404);
      expect(listRequests(store, { status: '2xx' }).total).toBe(30);
      expect(clearRequests(store)).toBe(31);
      lookups(store, journal, 2);
      journal.flush();
      expect(listRequests(store, {}).requests.map((r) => r.id)).toEqual([32, 33]);
    } finally {
      await journal.close();
      await store.close();
    }
  });

  it('packs requests that differ only in a header the row does not show (each its own signature), not in one it shows', async () => {
    const { store, journal } = open('headers.db');
    try {
      const signatures = [...Array(20).keys()].map((i) => `${SIGNATURE}${i}`);
      lookups(store, journal, 20, 200, (i) => ({ signature: signatures[i], 'x-request-id': `r${i}` }));
      journal.flush();
      expect(rowCount(store)).toBe(1);
      const { requests } = listRequests(store, {});
      expect(requests).toHaveLength(20);
      for (const r of requests) {
        expect(r.headers).toEqual({
          host: 'sandbox',
          'api-user': 'partner',
          authorization: 'CryptoAuth',
          signature: '[redacted]',
        });
      }
      // A header the row shows, another value: a row of its own.
      lookups(store, journal, 2, 200, () => ({ 'user-agent': 'other-client/1.0' }));
      journal.flush();
      expect(rowCount(store)).toBe(2);
      expect(listRequests(store, {}).requests.map((r) => r.headers['user-agent'] ?? null)).toEqual([
        ...Array(20).fill(null),
        'other-client/1.0',
        'other-client/1.0',
      ]);
    } finally {
      await journal.close();
      await store.close();
    }
  });

  it('sees a request as a repeat exactly when its headers give the same journal text', () => {
    // sameJournalHeaders names each header the row reads: every one of the lists counts, by value
    // when the row shows it, by presence when it is a secret; no other header does.
    const base: Record<string, string> = { host: 'sandbox', authorization: 'CryptoAuth', signature: SIGNATURE };
    expect(sameJournalHeaders(base, { ...base })).toBe(true);
    for (const name of JOURNAL_HEADERS.shown) {
      expect(sameJournalHeaders(base, { ...base, [name]: 'another value' }), name).toBe(false);
      expect(sameJournalHeaders({ ...base, [name]: 'one' }, { ...base, [name]: 'two' }), name).toBe(false);
    }
    for (const name of JOURNAL_HEADERS.secret) {
      expect(sameJournalHeaders({ ...base, [name]: 'one' }, { ...base, [name]: 'two' }), name).toBe(true);
      const { [name]: _, ...without } = { ...base, [name]: 'x' };
      expect(sameJournalHeaders({ ...base, [name]: 'x' }, without), name).toBe(false);
    }
    expect(sameJournalHeaders({ ...base, 'x-request-id': 'a' }, { ...base, 'x-trace': 'b' })).toBe(true);
  });

  it('keeps exactly the newest --journal-size requests, a packed row cut where the bound falls', async () => {
    const { store, journal } = open('bound.db', { size: 10 });
    try {
      lookups(store, journal, 25);
      journal.flush();
      const { requests, total } = listRequests(store, {});
      expect(total).toBe(10);
      expect(requests.map((r) => r.id)).toEqual([...Array(10).keys()].map((i) => i + 16));
      expect(getRequest(store, 15)).toBeUndefined();
      expect(getRequest(store, 16)?.id).toBe(16);
    } finally {
      await journal.close();
      await store.close();
    }
  });

  it("shows, prunes and clears the answers an earlier version's writer thread kept once in journal_bodies", async () => {
    // That thread (removed) wrote a lookup's answer once and rows naming it (response NULL,
    // response_body its id); a database it wrote must still read whole.
    const { store, journal } = open('bodies.db', { size: 40 });
    try {
      lookups(store, journal, 1);
      journal.flush();
      lookups(store, journal, 1, 404);
      journal.flush();
      const ids = listRequests(store, {}).requests.map((r) => r.id);
      expect(ids).toHaveLength(2);
      store.tx(() => {
        store.run('INSERT INTO journal_bodies(id, text, last_id) VALUES (7, ?, ?)', ANSWER, ids[1]);
        store.run('UPDATE journal SET response = NULL, response_body = 7');
      });
      expect(listRequests(store, {}).requests.map((r) => r.response)).toEqual([JSON.parse(ANSWER), JSON.parse(ANSWER)]);
      expect(getRequest(store, ids[0])?.response).toEqual(JSON.parse(ANSWER));
      const bodies = () => store.get<{ n: number }>('SELECT count(*) AS n FROM journal_bodies')!.n;
      // Pruned once no row names it: 70 more requests past a journal of 40.
      for (let round = 0; round < 70; round++) {
        lookups(store, journal, 1, 200 + (round % 2));
        journal.flush();
      }
      expect(listRequests(store, {}).requests.map((r) => r.id)).not.toContain(ids[1]);
      expect(bodies()).toBe(0);
      store.tx(() => store.run('INSERT INTO journal_bodies(id, text, last_id) VALUES (8, ?, ?)', ANSWER, 1e9));
      expect(clearRequests(store)).toBeGreaterThan(0);
      expect(bodies()).toBe(0);
    } finally {
      await journal.close();
      await store.close();
    }
  });

  it('keeps a stream of one lookup in memory until the timer, past 500 requests: one row per 1,000', async () => {
    // A repeat is three numbers, not a row: 500 of them (the bound on rows kept) do not write at
    // once, the timer's flush writes them all, as rows of PACK_MAX (1,000) requests.
    const { store, journal } = open('stream.db');
    try {
      const came = lookups(store, journal, 1200);
      expect(rowCount(store)).toBe(0);
      await vi.waitFor(() => expect(rowCount(store)).toBeGreaterThan(0), { timeout: 5000, interval: 5 });
      expect(rowCount(store)).toBe(2);
      const { requests, total } = listRequests(store, {});
      expect(total).toBe(1200);
      expect(requests.map((r) => Date.parse(r.at))).toEqual(came.map((at) => Math.floor(at)));
      expect(requests.map((r) => r.id)).toEqual(requests.map((_, i) => requests[0].id + i));
    } finally {
      await journal.close();
      await store.close();
    }
  });

  it('keeps the newest 500 requests, each with its own times, while the database stays busy', async () => {
    // A run's times are kept in one buffer (PendingRuns): it grows past its first size while the
    // rows cannot be written, and the oldest requests go, a run cut at its start, when the timer's
    // flush finds the write lock held elsewhere. What is written once it is free is exactly the
    // newest 500 requests, in order, each listed with the time it came.
    const { store, journal } = open('busy.db');
    const other = new DatabaseSync(join(dir, 'busy.db'), { timeout: 0 });
    store.exec('PRAGMA busy_timeout = 0');
    const exec = vi.spyOn(store.db, 'exec');
    try {
      other.exec('BEGIN IMMEDIATE');
      const came = [
        ...lookups(store, journal, 350),
        ...lookups(store, journal, 1, 404),
        ...lookups(store, journal, 349),
      ];
      await vi.waitFor(() => expect(exec).toHaveBeenCalledWith('PRAGMA busy_timeout = 0'), {
        timeout: 5000,
        interval: 5,
      });
      other.exec('COMMIT');
      await vi.waitFor(() => expect(rowCount(store)).toBeGreaterThan(0), { timeout: 5000, interval: 5 });
      const { requests, total } = listRequests(store, {});
      expect(total).toBe(500);
      expect(requests.map((r) => Date.parse(r.at))).toEqual(came.slice(-500).map((at) => Math.floor(at)));
      expect(requests.map((r) => r.status)).toEqual([...Array(500)].map((_, i) => (i === 150 ? 404 : 200)));
      expect(requests.map((r) => r.id)).toEqual(requests.map((_, i) => requests[0].id + i));
      expect(rowCount(store)).toBe(3);
      // The cut run's row says when its first kept request came (SQL filters read it before unpacking).
      expect(store.get<{ at: number }>('SELECT at FROM journal ORDER BY id LIMIT 1')!.at).toBe(came[came.length - 500]);
    } finally {
      if (other.isTransaction) other.exec('ROLLBACK');
      other.close();
      await journal.close();
      await store.close();
    }
  });
});
