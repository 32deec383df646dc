// The storage side of a request (Store.serve): reads share the turn's snapshot, writes join the
// turn's group commit, one savepoint per request. What must hold: an answer waits for the commit,
// a failed request's writes are undone alone, another connection never sees half a turn, and a
// write from elsewhere in the process never waits for a group it would itself keep open.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Store } from '../../src/sandbox/db/store.js';

const dir = mkdtempSync(join(tmpdir(), 'bookdist-group-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const nextTurn = () => new Promise((r) => setImmediate(r));
const keys = (s: Store) => s.all("SELECT key FROM meta WHERE key LIKE 'g-%' ORDER BY key").map((r) => r.key);

function open(name: string): { a: Store; b: Store } {
  const path = join(dir, name);
  const a = new Store(path);
  a.tx(() => a.createSchema());
  return { a, b: new Store(path) };
}

describe('group commit (Store.serve)', () => {
  it('commits a turn of requests at once, answers after the commit, and undoes a failed request alone', async () => {
    const { a, b } = open('turn.db');
    const answered: string[] = [];
    const request = (key: string, fail = false) => {
      try {
        a.serve(() =>
          a.tx(() => {
            a.setMeta(key, 'v');
            if (fail) throw new Error('refused');
          }),
        );
        a.afterCommit((err) => answered.push(err ? `${key}: failed` : key));
      } catch {
        a.afterCommit(() => answered.push(`${key}: refused`));
      }
    };
    request('g-1');
    request('g-2', true);
    request('g-3');
    // Same turn: nothing answered, and another connection sees none of it yet.
    expect(answered).toEqual([]);
    expect(keys(b)).toEqual([]);
    // The turn's own requests read their writes (one connection, one transaction).
    expect(a.serve(() => keys(a))).toEqual(['g-1', 'g-3']);
    await nextTurn();
    expect(answered).toEqual(['g-1', 'g-2: refused', 'g-3']);
    expect(keys(b)).toEqual(['g-1', 'g-3']);
    a.close();
    b.close();
  });

  it('a write outside serve (worker, control route, another connection of the process) commits the open group first', async () => {
    const { a, b } = open('other.db');
    const answered: string[] = [];
    a.serve(() => a.tx(() => a.setMeta('g-req', 'v')));
    a.afterCommit(() => answered.push('g-req'));
    // Another connection of this process writes in the same turn: waiting for a's lock would
    // block the loop that ends a's group (a 10 s stall, then "database is locked"). It commits
    // a's group first, which answers its request. (Waiting instead could only end in SQLITE_BUSY:
    // nothing can release a's lock while this thread waits, so the write succeeding is the check.)
    b.tx(() => b.setMeta('g-other', 'v'));
    expect(answered).toEqual(['g-req']);
    expect(keys(b)).toEqual(['g-other', 'g-req']);
    // The same connection outside serve (the queue worker's tick): the group is committed first too.
    a.serve(() => a.tx(() => a.setMeta('g-req2', 'v')));
    a.afterCommit(() => answered.push('g-req2'));
    a.tx(() => a.setMeta('g-worker', 'v'));
    expect(answered).toEqual(['g-req', 'g-req2']);
    expect(keys(b)).toEqual(['g-other', 'g-req', 'g-req2', 'g-worker']);
    a.close();
    b.close();
  });

  it('a value kept for the turn is dropped by a write of the turn and by a commit of another connection', async () => {
    const { a, b } = open('memo.db');
    a.tx(() => a.setMeta('clock_offset_ms', '0'));
    expect(a.serve(() => a.clockOffset())).toBe(0);
    // Written in the turn's group: read back at once by the next request of the turn.
    a.serve(() => a.tx(() => a.setMeta('clock_offset_ms', '5')));
    expect(a.serve(() => a.clockOffset())).toBe(5);
    await nextTurn();
    expect(a.serve(() => a.clockOffset())).toBe(5);
    await nextTurn();
    // Another connection commits: the next turn's snapshot sees it.
    b.advanceClock(10);
    await nextTurn();
    expect(a.serve(() => a.clockOffset())).toBe(15);
    // A request that wrote, read its write, then failed: the value it read is not kept.
    expect(() =>
      a.serve(() =>
        a.tx(() => {
          a.setMeta('clock_offset_ms', '99');
          expect(a.clockOffset()).toBe(99);
          throw new Error('refused');
        }),
      ),
    ).toThrow('refused');
    expect(a.serve(() => a.clockOffset())).toBe(15);
    // A write to another table keeps a memo; one to its table drops it. Counted, since the value
    // read again would be the same either way.
    let computed = 0;
    const probe = () => a.memo('probe', ['meta'], () => ++computed);
    a.serve(() => {
      expect(probe()).toBe(1);
      a.tx(() => a.run('UPDATE books SET title = title WHERE id = -1'));
      expect(probe()).toBe(1);
      a.tx(() => a.setMeta('g-x', 'v'));
      expect(probe()).toBe(2);
    });
    await nextTurn();
    a.close();
    b.close();
  });

  it('closing the store commits the open group and answers its requests', () => {
    const { a, b } = open('close.db');
    const answered: string[] = [];
    a.serve(() => a.tx(() => a.setMeta('g-last', 'v')));
    a.afterCommit((err) => answered.push(err ? 'failed' : 'g-last'));
    a.close();
    expect(answered).toEqual(['g-last']);
    expect(keys(b)).toEqual(['g-last']);
    b.close();
  });
});
