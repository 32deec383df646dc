// The helpers of row jobs (src/bulk/job/items.ts), in-process: a stream cut into batches, the
// window of calls told to the ledger ahead (one group per 64 calls, the next told once half the
// window is used), a batch run one item at a time (invalid, failed, pending and interrupted rows),
// the row of a failed request and a row job's summary clause. Whole jobs are in engine.test.ts;
// these take milliseconds (`npm run mutate` runs them first).
import { describe, expect, it } from 'vitest';
import type { Context } from '../../src/context.js';
import {
  batchesAhead,
  chunks,
  countsText,
  eachItem,
  failedRow,
  perItem,
  type ItemOutcome,
} from '../../src/bulk/job/items.js';
import type { Failure } from '../../src/bulk/retry.js';
import type { AheadCall, JobStats } from '../../src/bulk/job/types.js';
import type { ApiResponse } from '../../src/api/answer.js';

const QUICK = { timeout: 5_000 };

async function collect<T>(g: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of g) out.push(x);
  return out;
}

/** A call told ahead, named by its item. */
const call = (n: number): AheadCall => ({ name: 'codes.generate', args: { n } }) as unknown as AheadCall;
const told = (calls: AheadCall[]) => calls.map((c) => (c.args as { n: number }).n);

/** Tools whose `ahead` records, per index the batch was at, the items told. */
function recorder(aborted = false) {
  const ac = new AbortController();
  if (aborted) ac.abort();
  const groups: Array<{ at: number; items: number[] }> = [];
  const logged: string[] = [];
  let at = -1;
  return {
    groups,
    logged,
    setAt: (i: number) => void (at = i),
    tools: {
      ctx: { signal: ac.signal } as unknown as Context,
      ahead: (calls: AheadCall[]) => void groups.push({ at, items: told(calls) }),
      log: (l: string) => void logged.push(l),
    },
    abort: () => ac.abort(),
  };
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, k) => from + k);

describe('chunks: a stream cut into batches', QUICK, () => {
  it('full batches of exactly `size`, then the rest; no empty batch at the end', async () => {
    expect(await collect(chunks([1, 2, 3, 4, 5], 2))).toEqual([[1, 2], [3, 4], [5]]);
    expect(await collect(chunks([1, 2, 3, 4], 2))).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(await collect(chunks([], 3))).toEqual([]);
  });
});

describe('the calls told to the ledger ahead', QUICK, () => {
  it('eachItem: 64 calls at first, 64 more once half the window is used, never past the batch', async () => {
    const r = recorder();
    const items = range(0, 149);
    const res = await eachItem(
      items,
      async (it, i) => {
        r.setAt(i);
        return { row: it };
      },
      {
        ...r.tools,
        ahead: (calls) => r.tools.ahead(calls),
      },
      (it) => call(it),
    );
    // Each group is told before the item at `at` runs: at item 0, then when 32 are left of the window.
    expect(r.groups).toEqual([
      { at: -1, items: range(0, 63) },
      { at: 31, items: range(64, 127) },
      { at: 95, items: range(128, 149) },
    ]);
    expect(res.rows).toEqual(items);
  });

  it('items that make no call are not told, and a group of none is not told at all', async () => {
    const r = recorder();
    await eachItem(
      range(0, 79),
      async (it, i) => {
        r.setAt(i);
        return { row: it };
      },
      r.tools,
      (it) => (it % 2 === 0 || it >= 64 ? undefined : call(it)),
    );
    expect(r.groups).toEqual([{ at: -1, items: range(0, 31).map((k) => 2 * k + 1) }]);
  });

  it('nothing is told once the job is interrupted', async () => {
    const r = recorder(true);
    const res = await eachItem(range(0, 3), async (it) => ({ row: it }), r.tools, call);
    expect(r.groups).toEqual([]);
    expect(res.redo).toEqual([0, 1, 2, 3]);
  });

  it('without a ledger (no `ahead`) or without the calls (no `callOf`) the batch runs and tells nothing', async () => {
    const r = recorder();
    const { ahead: _, ...noAhead } = r.tools;
    const a = await eachItem(range(0, 2), async (it) => ({ row: it }), noAhead, call);
    expect(a.rows).toEqual([0, 1, 2]);
    const b = await eachItem(range(0, 2), async (it) => ({ row: it }), r.tools);
    expect(b.rows).toEqual([0, 1, 2]);
    expect(r.groups).toEqual([]);
  });

  it('batchesAhead: batch n tells the calls of batches n.. (numbered from 1), 64 at a time', () => {
    const r = recorder();
    const before = batchesAhead(100, (n) => call(n));
    for (let n = 1; n <= 100; n++) {
      r.setAt(n);
      before(n, r.tools);
    }
    expect(r.groups).toEqual([
      { at: 1, items: range(1, 64) },
      { at: 33, items: range(65, 100) },
    ]);
  });
});

describe('perItem', QUICK, () => {
  it('computes once per item, and again for another item', () => {
    let runs = 0;
    const check = perItem((o: { v: number }) => {
      runs++;
      return o.v * 2;
    });
    const a = { v: 1 };
    const b = { v: 5 };
    expect([check(a), check(a), check(b), check(a)]).toEqual([2, 2, 10, 2]);
    expect(runs).toBe(2);
  });
});

describe('eachItem: a batch one item at a time', QUICK, () => {
  const failure = (m: string): Failure => ({ kind: 'error', message: m, exitCode: 1 });

  it('rows in order; invalid rows counted; failed rows written, logged and left to --resume; pending ones apart', async () => {
    const r = recorder();
    const outcomes: Array<ItemOutcome<string>> = [
      { row: 'a' },
      { row: 'b', invalid: true },
      { row: 'c', failure: failure('c refused') },
      { pending: true },
      { row: 'e', invalid: true },
      { row: 'f' },
    ];
    const res = await eachItem(outcomes, async (o) => o, r.tools);
    expect(res).toEqual({
      rows: ['a', 'b', 'c', 'e', 'f'],
      redo: [2],
      failures: [failure('c refused')],
      invalid: 2,
      pending: [3],
    });
    expect(r.logged).toEqual(['c refused']);
  });

  it('an item interrupted leaves it and the rest of the batch to --resume', async () => {
    const r = recorder();
    const ran: number[] = [];
    const res = await eachItem(
      range(0, 4),
      async (it): Promise<ItemOutcome<number>> => {
        ran.push(it);
        return it === 2 ? { interrupted: true } : { row: it };
      },
      r.tools,
    );
    expect(ran).toEqual([0, 1, 2]);
    expect(res.rows).toEqual([0, 1]);
    expect(res.redo).toEqual([2, 3, 4]);
  });

  it('an interrupt between two items: the item in flight is kept, the rest left', async () => {
    const r = recorder();
    const res = await eachItem(
      range(0, 3),
      async (it): Promise<ItemOutcome<number>> => {
        if (it === 1) r.abort();
        return { row: it };
      },
      r.tools,
    );
    expect(res.rows).toEqual([0, 1]);
    expect(res.redo).toEqual([2, 3]);
    expect(res.invalid).toBe(0);
  });
});

describe('failedRow', QUICK, () => {
  const make = (status: 'failed', message: string) => ({ status, message });

  it('a failure after retries: the row says why, the failure names where', () => {
    const f: Failure = { kind: 'unavailable', status: 503, message: 'Service Unavailable', exitCode: 5 };
    expect(failedRow({ ok: false, failure: f }, make, 'line 4')).toEqual({
      row: { status: 'failed', message: 'Service Unavailable' },
      failure: { ...f, message: 'line 4: Service Unavailable' },
    });
  });

  it('an interrupted request leaves the item (no row)', () => {
    const f: Failure = { kind: 'unavailable', message: 'x', exitCode: 5 };
    expect(failedRow({ ok: false, failure: f, interrupted: true }, make, 'line 4')).toEqual({ interrupted: true });
  });

  it("a refusal the verb does not claim: the service's message", () => {
    const res = {
      status: 409,
      headers: {},
      body: { message: 'Already granted' },
      format: 'json',
      request: { method: 'POST', url: 'https://x/y' },
    } as unknown as ApiResponse;
    const out = failedRow({ ok: true, response: res }, make, 'line 9');
    expect(out).toMatchObject({
      row: { status: 'failed', message: 'Already granted' },
      failure: { kind: 'error', status: 409, message: 'line 9: Already granted' },
    });
  });
});

describe('countsText', QUICK, () => {
  const stats = (earlier: number) => ({ earlier }) as JobStats;
  const parts: Array<[string, string]> = [
    ['ok', 'ok'],
    ['invalid', 'invalid'],
    ['failed', 'failed'],
  ];

  it('the total, each status, and what an earlier run did', () => {
    expect(countsText({ ok: 3, invalid: 1 }, stats(0), 'row', parts)).toBe('4 rows: 3 ok, 1 invalid, 0 failed');
    expect(countsText({ ok: 1 }, stats(0), 'row', parts)).toBe('1 row: 1 ok, 0 invalid, 0 failed');
    expect(countsText({ failed: 2 }, stats(5), 'grant', parts)).toBe(
      '7 grants: 0 ok, 0 invalid, 2 failed, 5 done in an earlier run',
    );
    expect(countsText({}, stats(1), 'row', parts)).toBe('1 row: 0 ok, 0 invalid, 0 failed, 1 done in an earlier run');
  });
});
