// The schema stamp (issue 31): once ensureSeeded has found a database seeded and its schema this
// version's, it says so in the header (PRAGMA user_version = schemaStamp(schema cookie)), and the
// next open reads that instead of checking sqlite_master again. A database without this version's
// stamp (a new one, one an earlier or later version wrote, one `sandbox reset` dropped, one whose
// schema anything changed since) is checked and mended as before.
import { mkdtempSync, rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { schemaStamp } from '../../src/sandbox/db/schema.js';
import { Store } from '../../src/sandbox/db/store.js';
import { ensureSeeded, reseed } from '../../src/sandbox/seed.js';
import { startSandbox } from '../../src/sandbox/http/server.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bookdist-schema-stamp-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The header's user_version, what this version would stamp it with now, and whether an index exists. */
function header(path: string, index = 'books_by_isbn10'): { stamp: number; current: boolean; index: boolean } {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const stamp = Number((db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version);
    const cookie = Number((db.prepare('PRAGMA schema_version').get() as { schema_version: number }).schema_version);
    return {
      stamp,
      current: stamp === schemaStamp(cookie),
      index: !!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?").get(index),
    };
  } finally {
    db.close();
  }
}

/** A database seeded and stamped here, then changed behind the store's back with `sql`. */
async function seededThen(name: string, sql: string): Promise<string> {
  const path = join(dir, name);
  const store = new Store(path);
  ensureSeeded(store);
  await store.close();
  const raw = new DatabaseSync(path);
  raw.exec(sql);
  raw.close();
  return path;
}

describe('schema stamp', () => {
  it('is a positive 31-bit number, the same every time for one schema cookie, another for another', () => {
    const stamps = [0, 1, 2, 3, 40, 41, 2 ** 31 - 1].map((cookie) => schemaStamp(cookie));
    for (const s of stamps) {
      expect(s).toBeGreaterThan(0);
      expect(s).toBeLessThan(2 ** 31);
    }
    expect(new Set(stamps).size).toBe(stamps.length);
    expect(schemaStamp(41)).toBe(stamps[5]);
  });

  it('a database seeded here is stamped; opened again it is current and ensureSeeded has nothing to do', async () => {
    const path = join(dir, 'new.db');
    const store = new Store(path);
    expect(store.schemaIsCurrent()).toBe(false);
    expect(ensureSeeded(store)).toBe(true);
    await store.close();
    expect(header(path).current).toBe(true);
    const again = new Store(path);
    try {
      expect(again.schemaIsCurrent()).toBe(true);
      expect(ensureSeeded(again)).toBe(false);
    } finally {
      await again.close();
    }
  });

  it('a seeded database without the stamp (an earlier version left it) is checked, mended and stamped', async () => {
    // As an earlier version left it: no stamp, an index it did not have yet.
    const path = await seededThen('earlier.db', 'DROP INDEX books_by_isbn10; PRAGMA user_version = 0');
    const opened = new Store(path);
    try {
      expect(opened.schemaIsCurrent()).toBe(false);
      expect(ensureSeeded(opened)).toBe(false);
    } finally {
      await opened.close();
    }
    expect(header(path)).toMatchObject({ current: true, index: true });
  });

  it("another version's stamp is not this one's: the sandbox checks the database as it starts", async () => {
    const path = await seededThen('other.db', 'DROP INDEX books_by_isbn10; PRAGMA user_version = 12345');
    const sb = await startSandbox({ dbPath: path, port: 0, workspaces: false, inProcess: true });
    await sb.close();
    expect(header(path)).toMatchObject({ current: true, index: true });
  });

  it("a schema changed behind its back (an older bookdist's `sandbox reset`, another tool) is checked again, though the stamp stayed", async () => {
    // The stamp left as it was: only the schema cookie moved.
    const path = await seededThen('changed.db', 'DROP INDEX books_by_isbn10');
    expect(header(path)).toMatchObject({ current: false, index: false });
    const sb = await startSandbox({ dbPath: path, port: 0, workspaces: false, inProcess: true });
    await sb.close();
    expect(header(path)).toMatchObject({ current: true, index: true });
  });

  it('`sandbox reset` (reseed) drops the stamp with the tables; the next check stamps again', async () => {
    const path = join(dir, 'reset.db');
    const store = new Store(path);
    try {
      ensureSeeded(store);
      expect(store.schemaIsCurrent()).toBe(true);
      reseed(store);
      expect(store.schemaIsCurrent()).toBe(false);
      expect(ensureSeeded(store)).toBe(false);
      expect(store.schemaIsCurrent()).toBe(true);
    } finally {
      await store.close();
    }
  });
});
