// The schema stamp (issue 31): once ensureSeeded has found a database seeded and its schema this
// version's, it says so in the header (PRAGMA user_version = schemaStamp()), and the next open
// reads that instead of checking sqlite_master again. A database without this version's stamp
// (a new one, one an earlier or later version wrote, one `sandbox reset` dropped) is checked and
// mended as before.
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

/** The header's user_version and whether an index exists, read by a connection of its own. */
function header(path: string, index = 'books_by_isbn10'): { stamp: number; index: boolean } {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return {
      stamp: Number((db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version),
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
  it('is a positive 31-bit number, the same every time', () => {
    expect(schemaStamp()).toBeGreaterThan(0);
    expect(schemaStamp()).toBeLessThan(2 ** 31);
    expect(schemaStamp()).toBe(schemaStamp());
  });

  it('a database seeded here is stamped; opened again it is current and ensureSeeded has nothing to do', async () => {
    const path = join(dir, 'new.db');
    const store = new Store(path);
    expect(store.schemaIsCurrent()).toBe(false);
    expect(ensureSeeded(store)).toBe(true);
    await store.close();
    expect(header(path).stamp).toBe(schemaStamp());
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
    expect(header(path)).toEqual({ stamp: schemaStamp(), index: true });
  });

  it("another version's stamp is not this one's: the sandbox checks the database as it starts", async () => {
    const other = (schemaStamp() % 1000) + 1;
    const path = await seededThen('other.db', `DROP INDEX books_by_isbn10; PRAGMA user_version = ${other}`);
    const sb = await startSandbox({ dbPath: path, port: 0, workspaces: false, inProcess: true });
    await sb.close();
    expect(header(path)).toEqual({ stamp: schemaStamp(), index: true });
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
