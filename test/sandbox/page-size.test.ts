// A new sandbox database gets 8 KB pages (a catalogue load writes half as many WAL frames); a
// database made before keeps its 4 KB pages, which WAL mode fixes for good, and works as before.
import { mkdtempSync, rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { Store } from '../../src/sandbox/db/store.js';
import { ensureSeeded } from '../../src/sandbox/seed.js';

it('a new database file gets 8 KB pages; one made with 4 KB pages keeps them, and seeds and serves as before', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bookdist-page-size-'));
  try {
    const fresh = new Store(join(dir, 'new.db'));
    ensureSeeded(fresh);
    expect(fresh.get('PRAGMA page_size')!.page_size).toBe(8192);
    fresh.close();

    // As an earlier version made it: 4 KB pages, in WAL mode.
    const before = new DatabaseSync(join(dir, 'before.db'));
    before.exec('PRAGMA page_size = 4096; PRAGMA journal_mode = WAL; CREATE TABLE earlier(x)');
    before.close();
    const old = new Store(join(dir, 'before.db'));
    ensureSeeded(old);
    expect(old.get('PRAGMA page_size')!.page_size).toBe(4096);
    expect(old.get('SELECT count(*) AS n FROM books')!.n).toBeGreaterThan(20);
    old.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
