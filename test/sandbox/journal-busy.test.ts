// The journal's timer flush (src/sandbox/journal/journal.ts) while another connection holds the
// database's write lock (a long catalogue load by another process): it gives up at once instead
// of blocking the event loop for the busy timeout, keeps its rows, and writes them once the lock
// is free, with no other request coming to start its timer again.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, expect, it, vi } from 'vitest';
import { Store } from '../../src/sandbox/db/store.js';
import { Journal } from '../../src/sandbox/journal/journal.js';

const dir = mkdtempSync(join(tmpdir(), 'bookdist-journal-busy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("a lookup's row waits for a write lock held elsewhere without blocking, and is written once it is free", async () => {
  const path = join(dir, 'busy.db');
  const store = new Store(path);
  store.tx(() => store.createSchema());
  const journal = new Journal(store);
  const other = new DatabaseSync(path, { timeout: 0 });
  const rows = () => (other.prepare('SELECT count(*) AS n FROM journal').get() as { n: number }).n;
  store.exec('PRAGMA busy_timeout = 7000'); // its own (a catalogue load over --url sets one): put back after
  const exec = vi.spyOn(store.db, 'exec');
  try {
    other.exec('BEGIN IMMEDIATE'); // the write lock, held as a catalogue load holds it
    const n = journal.start('GET', '/v1/book/index/', { host: 'sandbox', authorization: 'CryptoAuth' });
    n.endpoint = 'book.index';
    store.serve(() => n.capture(() => undefined));
    n.responseText = JSON.stringify({ code: 200, success: true, results: [] });
    n.finish(200);
    // The timer's flush tried and gave up (had it waited for the lock, held by this very thread,
    // it would have blocked for the busy timeout and this would never be seen before it).
    await vi.waitFor(() => expect(exec).toHaveBeenCalledWith('PRAGMA busy_timeout = 7000'), {
      timeout: 5000,
      interval: 5,
    });
    expect(exec).toHaveBeenCalledWith('PRAGMA busy_timeout = 0');
    expect(store.db.prepare('PRAGMA busy_timeout').get()).toEqual({ timeout: 7000 });
    other.exec('COMMIT');
    expect(rows()).toBe(0);
    // No other request comes: the flush tries again by itself.
    await vi.waitFor(() => expect(rows()).toBe(1), { timeout: 5000, interval: 5 });
  } finally {
    if (other.isTransaction) other.exec('ROLLBACK');
    other.close();
    await journal.close();
    await store.close();
  }
});

it("the rows of lookups are this connection's own commits: what it read stays remembered across flushes", async () => {
  // A worker thread writing them (tried, and removed for this) committed as another connection:
  // each of its flushes made this one drop its memos (the caller's account, the clock, a book's
  // answer) and read them again, a cost the journal put on every lookup after a flush.
  const path = join(dir, 'memo.db');
  const store = new Store(path);
  store.tx(() => store.createSchema());
  const journal = new Journal(store);
  const other = new DatabaseSync(path);
  const rows = () => (other.prepare('SELECT count(*) AS n FROM journal').get() as { n: number }).n;
  let computed = 0;
  const read = () => store.serve(() => store.memo('answer', ['books'], () => ++computed));
  try {
    // More flushes than the 50 after which the worker thread used to start.
    for (let i = 1; i <= 60; i++) {
      read();
      const n = journal.start('GET', `/v1/book/index/?offset=${i}`, { host: 'sandbox', authorization: 'CryptoAuth' });
      n.endpoint = 'book.index';
      store.serve(() => n.capture(() => undefined));
      n.responseText = JSON.stringify({ code: 200, success: true, results: [] });
      n.finish(200);
      await vi.waitFor(() => expect(rows()).toBe(i), { timeout: 5000, interval: 2 });
    }
    read();
    expect(computed).toBe(1);
  } finally {
    other.close();
    await journal.close();
    await store.close();
  }
});
