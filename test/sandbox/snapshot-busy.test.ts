// A snapshot load into the live file of a serving sandbox (sandbox/snapshots) while another
// connection writes to it: the online backup's own connection has no busy handler, so a write
// lock held elsewhere failed the load at once as an internal error ("Internal error." from
// `snapshot load --url`; node:sqlite reports the refused step with errcode 0). The load waits
// for the lock as the store does, and answers "busy" (503) only when it never comes.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/sandbox/db/store.js';
import { HttpError } from '../../src/sandbox/errors.js';
import { loadSnapshot, snapshotDir, snapshotPath } from '../../src/sandbox/snapshots/snapshots.js';

let dir: string;
let dbPath: string;
let live: DatabaseSync;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bookdist-snapshot-busy-'));
  dbPath = join(dir, 'sandbox.db');
  live = new DatabaseSync(dbPath);
  live.exec("PRAGMA journal_mode = WAL; CREATE TABLE t(x TEXT); INSERT INTO t VALUES ('live')");
  mkdirSync(snapshotDir(dbPath));
  const snap = new DatabaseSync(snapshotPath(dbPath, 'base'));
  snap.exec("CREATE TABLE t(x TEXT); INSERT INTO t VALUES ('saved'), ('saved too')");
  snap.close();
});
afterEach(() => {
  live.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What loadSnapshot reads of a store on a file: its path. */
const store = () => ({ path: dbPath }) as Store;
const rows = () => (live.prepare('SELECT x FROM t ORDER BY x').all() as Array<{ x: string }>).map((r) => r.x);

describe('sandbox snapshot load while another connection writes', () => {
  it('waits for the write lock, then loads the whole snapshot', async () => {
    live.exec("BEGIN IMMEDIATE; INSERT INTO t VALUES ('in flight')");
    const loading = loadSnapshot(store(), 'base');
    const release = setTimeout(() => live.exec('ROLLBACK'), 100);
    try {
      expect(await loading).toMatchObject({ name: 'base' });
    } finally {
      clearTimeout(release);
      if (live.isTransaction) live.exec('ROLLBACK');
    }
    expect(rows()).toEqual(['saved', 'saved too']);
  });

  it('answers busy (503, retry) when the lock never comes, and changes nothing', async () => {
    live.exec("BEGIN IMMEDIATE; INSERT INTO t VALUES ('in flight')");
    try {
      const err = await loadSnapshot(store(), 'base', { busyMs: 30 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(HttpError);
      expect(err).toMatchObject({ status: 503, headers: { 'retry-after': '1' } });
      expect((err as Error).message).toMatch(/busy .*nothing was changed\. Retry\./);
    } finally {
      live.exec('ROLLBACK');
    }
    expect(rows()).toEqual(['live']);
  });
});
