// A workspace sharing its catalogue with a base file (src/sandbox/db/overlay.ts): a write to a
// shared table copies the rows it changes from the base first and runs on the workspace's own
// table, with the statement's own changes and row id; the base is never written.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rewriteSharedWrite } from '../../src/sandbox/db/overlay.js';
import { Store } from '../../src/sandbox/db/store.js';

describe('rewriteSharedWrite', () => {
  it('leaves writes to other tables alone', () => {
    expect(rewriteSharedWrite('INSERT INTO orders(x) VALUES (?)')).toBeUndefined();
    expect(rewriteSharedWrite('UPDATE books_fts SET x = 1')).toBeUndefined();
  });

  it('copies the rows an UPDATE changes (its own condition and parameters) before running it on main', () => {
    expect(
      rewriteSharedWrite(
        "UPDATE books SET queued_at = coalesce(CASE WHEN is_queued = 1 THEN queued_at END, ?), note = 'a ? WHERE' WHERE id = ? AND processing_started_at IS NULL",
      ),
    ).toEqual({
      sql: "UPDATE main.books SET queued_at = coalesce(CASE WHEN is_queued = 1 THEN queued_at END, ?), note = 'a ? WHERE' WHERE id = ? AND processing_started_at IS NULL",
      copy: {
        sql: 'INSERT OR IGNORE INTO main.books SELECT * FROM base.books WHERE id = ? AND processing_started_at IS NULL',
        params: 1,
      },
    });
    expect(rewriteSharedWrite('UPDATE pricing SET deactivated_at = 1')?.copy).toEqual({
      sql: 'INSERT OR IGNORE INTO main.pricing SELECT * FROM base.pricing',
      params: 0,
    });
  });

  it('inserts into main, and refuses a delete (the base row would show again)', () => {
    expect(rewriteSharedWrite('INSERT INTO publishers(title) VALUES (?)')).toEqual({
      sql: 'INSERT INTO main.publishers(title) VALUES (?)',
    });
    expect(() => rewriteSharedWrite('DELETE FROM books WHERE id = ?')).toThrow(/cannot delete/);
  });
});

describe('a store on a workspace that shares a base', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'bookdist-overlay-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A base of three books and a workspace file holding the last one only. */
  function make(): string {
    const base = join(dir, 'base.db');
    const d = new DatabaseSync(base);
    d.exec(`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL);
      CREATE TABLE pricing (id INTEGER PRIMARY KEY, book_id INTEGER NOT NULL);
      CREATE TABLE publishers (id INTEGER PRIMARY KEY, title TEXT NOT NULL);
      INSERT INTO books VALUES (1, 'one'), (2, 'two'), (3, 'three');
      INSERT INTO pricing VALUES (1, 1);
      INSERT INTO publishers VALUES (1, 'p');`);
    d.close();
    const ws = join(dir, 'ws.db');
    copyFileSync(base, ws);
    const w = new DatabaseSync(ws);
    w.exec(`DELETE FROM books WHERE id < 3; INSERT INTO meta VALUES ('workspace_base', 'base.db')`);
    w.close();
    return ws;
  }

  it('reads the base through the workspace, and writes only the workspace', async () => {
    const store = new Store(make());
    try {
      expect(store.shared).toBe(true);
      expect(store.all('SELECT id, title FROM books ORDER BY id').map((r) => r.title)).toEqual(['one', 'two', 'three']);
      expect(store.tx(() => store.run('UPDATE books SET title = ? WHERE id = ?', 'ONE', 1))).toEqual({
        changes: 1,
        lastInsertRowid: expect.any(Number),
      });
      expect(store.tx(() => store.run('UPDATE books SET title = ? WHERE id = ?', 'none', 99)).changes).toBe(0);
      const added = store.tx(() => store.run('INSERT INTO books(title) VALUES (?)', 'four'));
      expect(added).toEqual({ changes: 1, lastInsertRowid: 4 });
      expect(store.all('SELECT title FROM books ORDER BY id').map((r) => r.title)).toEqual([
        'ONE',
        'two',
        'three',
        'four',
      ]);
      expect(store.get('SELECT count(*) AS n FROM main.books')!.n).toBe(3);
    } finally {
      await store.close();
    }
    const base = new DatabaseSync(join(dir, 'base.db'), { readOnly: true });
    try {
      expect(
        base
          .prepare('SELECT title FROM books ORDER BY id')
          .all()
          .map((r) => r.title),
      ).toEqual(['one', 'two', 'three']);
    } finally {
      base.close();
    }
  });

  it('says which file is missing when the base is gone', () => {
    const ws = make();
    rmSync(join(dir, 'base.db'));
    expect(() => new Store(ws)).toThrow(/shares its catalogue with .*base\.db, which is missing/);
  });
});
