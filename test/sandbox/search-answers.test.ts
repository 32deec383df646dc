// The book search is made once per state of what it shows (domain/books.ts bookSearch, a memo of
// the store) and sent as the same text. A kept answer must be the one the search makes afresh,
// byte for byte, for every query and page, and it must change the moment that state does:
// a write of this connection, a commit of another process on the same file, the sandbox's day.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanupKeyFiles } from '../../src/sandbox/control.js';
import { Store } from '../../src/sandbox/db/store.js';
import { handlerCtx, runHandler } from '../../src/sandbox/domain/index.js';
import { holdBook } from '../../src/sandbox/fixtures/book-controls.js';
import { ensureSeeded, WELL_KNOWN } from '../../src/sandbox/seed.js';

let dir: string;
let store: Store;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bookdist-search-answers-'));
  store = new Store(join(dir, 'sandbox.db'));
  ensureSeeded(store);
});
afterEach(async () => {
  cleanupKeyFiles(store);
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

type Answer = { count: number; results: Array<Record<string, any>> };
const PATH = '/v1/book/search/';
const input = (payload: Record<string, unknown>) => ({ payload, origin: 'http://127.0.0.1:1', queued: () => {} });

/** A search as a served request makes it (inside `serve`: kept answers are used). */
const served = (payload: Record<string, unknown>): Answer =>
  store.serve(() => runHandler('book.search', PATH, handlerCtx(store, input(payload))).body as Answer);
/** The same search made afresh (outside a request nothing is kept). */
const fresh = (payload: Record<string, unknown>): Answer =>
  runHandler('book.search', PATH, handlerCtx(store, input(payload))).body as Answer;
/** The end of the event loop's turn: the read snapshot of `serve` ends. */
const nextTurn = () => new Promise((r) => setImmediate(r));

const readme = WELL_KNOWN.readme;
const QUERIES: Array<Record<string, unknown>> = [
  {},
  { title: 'the' },
  { title: 'THE' },
  { title: ' the ' },
  { title: 'the', limit: 2 },
  { title: 'the', limit: 2, offset: 2 },
  { title: 'the', limit: 2, offset: 4 },
  { title: 'the', limit: 2, offset: 500 },
  { title: 'a' },
  { title: 'ha' },
  { title: 'harbor' },
  { title: 'salt cedar' },
  { title: 'winter', limit: 1 },
  { author: 'a' },
  { title: 'the', author: 'e' },
  { isbn: [readme.isbn13] },
  { isbn: [readme.isbn13, WELL_KNOWN.limitedPricing.isbn13] },
  { hash_ids: [readme.hash_id.toUpperCase()] },
  { title: 'nothing-matches-this' },
  { limit: 500 },
  { offset: 3, limit: 5 },
];

describe('a kept search answer', () => {
  it('is the answer made afresh, byte for byte, for every query and page; the same query asked again is kept', async () => {
    const first = QUERIES.map(served);
    await nextTurn();
    for (const [i, q] of QUERIES.entries()) {
      const again = served(q);
      expect(again, JSON.stringify(q)).toBe(first[i]);
      expect(JSON.stringify(again), JSON.stringify(q)).toBe(JSON.stringify(fresh(q)));
    }
    // Pages of one query differ (the key holds limit and offset): not one answer for all.
    expect(first[5].results.map((b) => b.id)).not.toEqual(first[4].results.map((b) => b.id));
    expect(first[1].count).toBeGreaterThan(4);
  });

  it('is dropped oldest first past its bound, and made again the same', async () => {
    const all = { title: 'e', limit: 500 };
    const kept = served(all);
    expect(kept.results.length).toBeGreaterThan(20);
    // Another hundred answers of the whole list (limits 400..499): more books than are kept.
    for (let limit = 400; limit < 500; limit++) served({ title: 'e', limit });
    await nextTurn();
    const again = served(all);
    expect(again).not.toBe(kept);
    expect(JSON.stringify(again)).toBe(JSON.stringify(kept));
    expect(served({ title: 'e', limit: 499 })).toBe(served({ title: 'e', limit: 499 }));
  });
});

describe('a search after a write', () => {
  it("shows this connection's change of a title, a price, a publisher and a hold", async () => {
    const q = { isbn: [readme.isbn13] };
    const before = served(q).results[0];
    await nextTurn();
    store.run('UPDATE books SET title = ? WHERE id = ?', 'Renamed Here', before.id);
    expect(served(q).results[0].title).toBe('Renamed Here');
    await nextTurn();
    store.run('UPDATE pricing SET price = ? WHERE id = ?', '1.23', before.digital_pricing[0].id);
    expect(served(q).results[0].digital_pricing[0].price).toBe('1.23');
    await nextTurn();
    store.run(
      'UPDATE publishers SET title = ? WHERE id = (SELECT publisher_id FROM books WHERE id = ?)',
      'New Press',
      before.id,
    );
    expect(served(q).results[0].publisher.title).toBe('New Press');
    await nextTurn();
    holdBook(store, before.hash_id, 'kept back for the test');
    expect(served(q).results[0].status).toMatchObject({ is_held: true, held_reason: 'kept back for the test' });
    expect(JSON.stringify(served(q))).toBe(JSON.stringify(fresh(q)));
  });

  it('finds a book under its new title and no longer under its old one', async () => {
    expect(served({ title: 'zephyrine' }).count).toBe(0);
    const lighthouse = served({ title: 'lighthouse' });
    expect(lighthouse.count).toBe(1);
    await nextTurn();
    store.run('UPDATE books SET title = ? WHERE id = ?', 'The Zephyrine Ledger', lighthouse.results[0].id);
    expect(served({ title: 'zephyrine' }).count).toBe(1);
    expect(served({ title: 'lighthouse' }).count).toBe(0);
  });

  it("shows another process's commit at the next request", async () => {
    const q = { title: 'lighthouse' };
    const before = served(q).results[0];
    await nextTurn();
    const other = new DatabaseSync(join(dir, 'sandbox.db'), { timeout: 10_000 });
    try {
      other.prepare('UPDATE books SET subtitle = ? WHERE id = ?').run('Changed elsewhere', before.id);
      other.prepare('UPDATE pricing SET price = ? WHERE id = ?').run('4.56', before.digital_pricing[0].id);
    } finally {
      other.close();
    }
    const after = served(q).results[0];
    expect(after.subtitle).toBe('Changed elsewhere');
    expect(after.digital_pricing[0].price).toBe('4.56');
  });

  it("a rental's expiration date follows the sandbox clock's day", async () => {
    const q = { isbn: [WELL_KNOWN.limitedPricing.isbn13] };
    const before = served(q).results[0].digital_pricing[0].calculated_expiration_date;
    await nextTurn();
    store.advanceClock(86_400_000);
    const after = served(q).results[0].digital_pricing[0].calculated_expiration_date;
    expect(Date.parse(after) - Date.parse(before)).toBe(86_400_000);
  });
});
