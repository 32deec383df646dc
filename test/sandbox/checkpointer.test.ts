// A connection that keeps writing checkpoints from a worker thread (src/sandbox/checkpointer.ts):
// its commits stop doing SQLite's automatic checkpoints, the worker still moves the WAL into the
// database file, and closing the store ends the worker and restores automatic checkpoints.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { Store } from '../../src/sandbox/db/store.js';

const dir = mkdtempSync(join(tmpdir(), 'bookdist-checkpoint-'));
// The checkpoint worker may still be closing its connection (which removes the -wal file):
// retry a removal that races it (ENOTEMPTY).
afterAll(() => rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }));

const autoPages = (store: Store) => (store.db.prepare('PRAGMA wal_autocheckpoint').get() as any).wal_autocheckpoint as number;

describe('background checkpoints', () => {
  it('move off the commits of a busy connection and still reach the database file', async () => {
    const path = join(dir, 'busy.db');
    const store = new Store(path);
    store.tx(() => store.createSchema());
    expect(autoPages(store)).toBe(1000);
    // A one-shot command's few commits keep SQLite's own checkpoints.
    for (let i = 0; i < 10; i++) store.tx(() => store.setMeta(`k${i}`, 'v'));
    await new Promise((r) => setTimeout(r, 100));
    expect(autoPages(store)).toBe(1000);

    // Sustained writes: the worker takes over.
    for (let i = 0; i < 100; i++) store.tx(() => store.setMeta(`k${i}`, 'v'));
    for (let i = 0; i < 250 && autoPages(store) !== 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(autoPages(store)).toBe(0);

    const before = statSync(path).size;
    const blob = 'x'.repeat(64 * 1024);
    for (let i = 0; i < 40; i++) store.tx(() => store.setMeta(`blob${i}`, blob)); // ~2.5 MB through the WAL
    // The worker checkpoints within a few ticks: the pages reach the database file.
    for (let i = 0; i < 300 && statSync(path).size < before + 2_000_000; i++) await new Promise((r) => setTimeout(r, 50));
    expect(statSync(path).size).toBeGreaterThan(before + 2_000_000);

    store.close();
    // Everything committed is there for the next reader.
    const db = new DatabaseSync(path, { readOnly: true, timeout: 10_000 }); // the worker may still be closing
    expect((db.prepare("SELECT count(*) AS n FROM meta WHERE key LIKE 'blob%'").get() as any).n).toBe(40);
    db.close();
  });

  it('closing the store stops the worker and restores automatic checkpoints', async () => {
    const path = join(dir, 'close.db');
    const store = new Store(path);
    store.tx(() => store.createSchema());
    for (let i = 0; i < 120; i++) store.tx(() => store.setMeta('k', String(i)));
    for (let i = 0; i < 250 && autoPages(store) !== 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(autoPages(store)).toBe(0);
    (store as any).checkpointer.stop();
    expect(autoPages(store)).toBe(1000);
    store.close();
    expect(store.db.isOpen).toBe(false);
  });
});
