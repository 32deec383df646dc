// The journal rows of requests that wrote are written by the turn's group commit itself
// (Turn.atGroupCommit, src/sandbox/journal/journal.ts): in its transaction, just before its
// COMMIT. A request is answered only once its writes and its journal row are both committed: an
// order whose row cannot be written is not acknowledged, nor kept; a group that fails takes its
// requests' rows with it.
import { DatabaseSync } from 'node:sqlite';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Store } from '../../src/sandbox/db/store.js';
import { Journal } from '../../src/sandbox/journal/journal.js';
import { listRequests } from '../../src/sandbox/journal/query.js';

const dir = mkdtempSync(join(tmpdir(), 'bookdist-journal-group-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function open(name: string): { store: Store; journal: Journal; path: string } {
  const path = join(dir, name);
  const store = new Store(path);
  store.tx(() => store.createSchema());
  return { store, journal: new Journal(store), path };
}

/** A request that writes meta `key` in the turn's group commit and is journaled; resolves with its answer's error (undefined: committed). */
function writingRequest(store: Store, journal: Journal, key: string): Promise<unknown> {
  const n = journal.start('POST', `/v1/test/${key}/`, { host: 'sandbox' });
  n.endpoint = 'test.write';
  store.serve(() => n.capture(() => store.tx(() => store.setMeta(key, 'v'))));
  n.requestText = JSON.stringify({ key });
  n.responseText = JSON.stringify({ code: 200, success: true });
  n.finish(200);
  return new Promise((resolve) => store.afterCommit(resolve));
}

describe('the journal rows of a group commit', () => {
  it('are committed with the writes of their requests, in one transaction, before any of them is answered', async () => {
    const { store, journal, path } = open('together.db');
    const other = new DatabaseSync(path, { timeout: 10_000 });
    try {
      const count = (sql: string) => (other.prepare(sql).get() as { n: number }).n;
      const answers = ['a', 'b', 'c'].map((k) => writingRequest(store, journal, k));
      // Nothing is committed yet: another connection sees neither the writes nor the rows.
      expect(count('SELECT count(*) AS n FROM journal')).toBe(0);
      expect(count("SELECT count(*) AS n FROM meta WHERE key IN ('a', 'b', 'c')")).toBe(0);
      const seen = await Promise.all(
        answers.map((a) =>
          a.then((err) => ({
            err,
            rows: count('SELECT count(*) AS n FROM journal'),
            writes: count("SELECT count(*) AS n FROM meta WHERE key IN ('a', 'b', 'c')"),
          })),
        ),
      );
      expect(seen).toEqual(Array(3).fill({ err: undefined, rows: 3, writes: 3 }));
      const listed = listRequests(store, {}).requests;
      expect(listed.map((r) => [r.path, r.changes])).toEqual(
        ['a', 'b', 'c'].map((k) => [`/v1/test/${k}/`, { rows: { meta: 1 } }]),
      );
    } finally {
      other.close();
      await journal.close();
      await store.close();
    }
  });

  it('an order whose journal row cannot be written is not acknowledged, and not kept', async () => {
    const { store, journal } = open('refused.db');
    try {
      store.tx(() =>
        store.db.exec(
          "CREATE TRIGGER refuse_journal BEFORE INSERT ON journal BEGIN SELECT RAISE(ABORT, 'journal refused'); END",
        ),
      );
      const err = await writingRequest(store, journal, 'refused');
      expect(String(err)).toContain('journal refused');
      expect(store.meta('refused')).toBeUndefined();
      // The trigger gone, the next request is journaled as usual; the refused one left no row behind.
      store.tx(() => store.db.exec('DROP TRIGGER refuse_journal'));
      expect(await writingRequest(store, journal, 'next')).toBeUndefined();
      journal.flush();
      expect(listRequests(store, {}).requests.map((r) => r.path)).toEqual(['/v1/test/next/']);
    } finally {
      await journal.close();
      await store.close();
    }
  });

  it('a group that fails after the rows were written takes them with it', async () => {
    const { store, journal } = open('failed.db');
    try {
      const answer = writingRequest(store, journal, 'undone');
      // Another part of the same group fails at its end, after the journal wrote its rows.
      store.atGroupCommit((failed) => {
        if (failed === undefined) throw new Error('a later part of the group failed');
      });
      expect(String(await answer)).toContain('a later part of the group failed');
      expect(store.meta('undone')).toBeUndefined();
      journal.flush();
      expect(listRequests(store, {}).total).toBe(0);
    } finally {
      await journal.close();
      await store.close();
    }
  });
});
