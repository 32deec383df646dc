// A batch's result committed before it counts, and the second phase (src/bulk/job/worker.ts),
// in-process with a committer and a progress bar that record what they are given: the journal
// record of each batch (rows left to --resume, pending ones, the input's digest, positions of a
// batch run again), the counts and progress that change only once rows are written, a batch with
// nothing to write left to --resume, a fatal failure that stops the job, and the second phase's
// commits. Whole jobs are in engine.test.ts; these take milliseconds.
import { describe, expect, it } from 'vitest';
import type { Context } from '../../src/context.js';
import type { Committer } from '../../src/bulk/job/commit.js';
import type { NewRecord } from '../../src/bulk/job/journal.js';
import type { Progress } from '../../src/bulk/progress.js';
import type { Failure } from '../../src/bulk/retry.js';
import {
  newJobState,
  type BatchResult,
  type JobSpec,
  type JobTools,
  type Planned,
  type SettleTools,
} from '../../src/bulk/job/types.js';
import { Worker } from '../../src/bulk/job/worker.js';

const QUICK = { timeout: 5_000 };

type Row = { code: string; status: string };
/** An item weighs its number (a batch of 3 and 4 is 7 units). */
type Item = number;

const row = (code: string, status = 'ok'): Row => ({ code, status });
const failure = (message: string, kind: Failure['kind'] = 'unavailable'): Failure => ({ kind, message, exitCode: 7 });

function setup(
  opts: {
    process?: (b: Planned<Item>, t: JobTools) => Promise<BatchResult<Row>>;
    settle?: (p: unknown[], t: SettleTools<Item, Row>) => Promise<void>;
    commitFails?: unknown;
  } = {},
) {
  const ctx = { signal: new AbortController().signal } as unknown as Context;
  const spec = {
    verb: 'access allow',
    status: (r: Row) => r.status,
    weight: (items: Item[]) => items.reduce((a, b) => a + b, 0),
    process: opts.process ?? (async () => ({ rows: [] })),
    settle: opts.settle,
  };
  const s = newJobState(spec as unknown as JobSpec<Item, Row>, ctx);
  const commits: Array<[NewRecord, Row[]]> = [];
  const committer: Committer<Row> = {
    commit: async (record, rows) => {
      if (opts.commitFails) throw opts.commitFails;
      commits.push([record, rows]);
    },
    end: async () => {},
  };
  const shown: number[] = [];
  const progress = { set: (n: number) => void shown.push(n) } as unknown as Progress;
  const tools = { log: () => {}, ctx } as unknown as JobTools;
  return { s, worker: new Worker(s, committer, tools, progress), commits, shown, tools };
}

const batch = (number: number, items: Item[], extra: Partial<Planned<Item>> = {}): Planned<Item> => ({
  number,
  items,
  key: `job-${number}`,
  ...extra,
});

describe('a batch written', QUICK, () => {
  it('its rows committed with the journal record, then counted; progress in units of weight', async () => {
    const t = setup({
      process: async () => ({
        rows: [row('a'), row('b', 'invalid'), row('c', 'failed'), row('d')],
        redo: [2],
        pending: [4],
        invalid: 1,
        failures: [failure('c: 503')],
      }),
    });
    t.s.earlier = 100;
    await t.worker.run(batch(3, [1, 2, 3, 4, 5], { digest: 'sha256:ab' }));
    expect(t.commits).toEqual([
      [
        { batch: 3, redo: [2], pending: [4], input_digest: 'sha256:ab' },
        [row('a'), row('b', 'invalid'), row('c', 'failed'), row('d')],
      ],
    ]);
    expect(t.s.counts).toEqual({ ok: 2, invalid: 1, failed: 1 });
    expect(t.s.batches).toBe(1);
    expect(t.s.invalid).toBe(1);
    expect(t.s.failures).toEqual([failure('c: 503')]);
    expect(t.s.redoLeft).toBe(true);
    expect(t.s.pending).toEqual([{ item: 5, batch: 3, position: 4 }]);
    // 15 units, less the one left to --resume (3) and the pending one (5).
    expect(t.s.done).toBe(7);
    expect(t.shown).toEqual([107]);
  });

  it('a batch of all good rows: a record of its number only, nothing left over', async () => {
    const t = setup({ process: async () => ({ rows: [row('a'), row('b')] }) });
    await t.worker.run(batch(1, [2, 3]));
    await t.worker.run(batch(2, [4]));
    expect(t.commits.map(([r]) => r)).toEqual([{ batch: 1 }, { batch: 2 }]);
    expect(t.s.counts).toEqual({ ok: 4 });
    expect(t.s).toMatchObject({ batches: 2, invalid: 0, redoLeft: false, done: 9, handled: 2, failures: [] });
    expect(t.s.pending).toEqual([]);
    expect(t.shown).toEqual([5, 9]);
  });

  it('a batch run again on --resume: its positions in the input batch are what the journal records', async () => {
    const t = setup({ process: async () => ({ rows: [row('x'), row('y')], redo: [1], pending: [0] }) });
    await t.worker.run(batch(4, [7, 8], { positions: [3, 9] }));
    expect(t.commits[0]![0]).toEqual({ batch: 4, redo: [9], pending: [3] });
    expect(t.s.pending).toEqual([{ item: 7, batch: 4, position: 3 }]);
  });

  it('a write that fails: the job stops, nothing counts', async () => {
    const t = setup({ process: async () => ({ rows: [row('a')] }), commitFails: new Error('ENOSPC') });
    await t.worker.run(batch(1, [1]));
    expect(t.s.stop.signal.aborted).toBe(true);
    expect(t.s).toMatchObject({ batches: 0, done: 0, counts: {} });
    expect(t.shown).toEqual([]);
  });
});

describe('a batch with nothing to write', QUICK, () => {
  it('failed as a whole: left to --resume, its units and failure counted as failed', async () => {
    const t = setup({ process: async () => ({ rows: [], notDone: { failure: failure('503 after retries') } }) });
    await t.worker.run(batch(1, [2, 3]));
    await t.worker.run(batch(2, [4]));
    expect(t.s).toMatchObject({
      notDone: 2,
      failedBatches: 2,
      failedUnits: 9,
      lastFailure: '503 after retries',
      batches: 0,
      done: 0,
    });
    expect(t.s.failures).toHaveLength(2);
    expect(t.commits).toEqual([]);
  });

  it('interrupted: left to --resume, not a failure', async () => {
    const t = setup({ process: async () => ({ rows: [], notDone: { interrupted: true } }) });
    await t.worker.run(batch(1, [2]));
    expect(t.s).toMatchObject({ notDone: 1, failedBatches: 0, failedUnits: 0, failures: [] });
    expect(t.s.lastFailure).toBeUndefined();
  });

  it('a failure for every batch (a bad key): the job stops, the first such failure kept', async () => {
    const first = failure('bad key', 'error');
    const t = setup({ process: async (b) => ({ rows: [], fatal: failure(`fatal ${b.number}`, 'error') }) });
    t.s.fatal = first;
    await t.worker.run(batch(1, [1]));
    expect(t.s.fatal).toBe(first);
    expect(t.s.stop.signal.aborted).toBe(true);
    const u = setup({ process: async () => ({ rows: [row('a')], fatal: first }) });
    await u.worker.run(batch(1, [1]));
    expect(u.s.fatal).toBe(first);
    expect(u.s.stop.signal.aborted).toBe(true);
    expect(u.commits).toEqual([]);
  });

  it('a spec that throws: the job stops with its message and exit code (1 when it has none), the first kept', async () => {
    const t = setup({
      process: async () => {
        throw Object.assign(new Error('the book is gone'), { exitCode: 3 });
      },
    });
    await t.worker.run(batch(1, [1]));
    expect(t.s.fatal).toEqual({ kind: 'error', message: 'the book is gone', exitCode: 3 });
    expect(t.s.stop.signal.aborted).toBe(true);
    await t.worker.run(batch(2, [1]));
    expect(t.s.fatal).toEqual({ kind: 'error', message: 'the book is gone', exitCode: 3 });
    for (const thrown of [new Error('odd'), null]) {
      const u = setup({
        process: async () => {
          throw thrown;
        },
      });
      await u.worker.run(batch(1, [1]));
      expect(u.s.fatal).toEqual({ kind: 'error', message: thrown ? 'odd' : 'null', exitCode: 1 });
    }
  });

  it('an ordered batch opens the next one when it is done, whatever came of it', async () => {
    for (const process of [
      async () => ({ rows: [row('a')] }),
      async () => ({ rows: [], notDone: { interrupted: true as const } }),
      async () => {
        throw new Error('x');
      },
    ]) {
      const t = setup({ process });
      let done = 0;
      await t.worker.run(batch(1, [1], { turn: { wait: Promise.resolve(), done: () => void done++ } }));
      expect(done).toBe(1);
    }
  });
});

describe('the second phase (settle)', QUICK, () => {
  const pendingOf = (t: ReturnType<typeof setup>) => t.s.pending;

  it('commits the settled items with their place in the input; a failed one is written and left to --resume', async () => {
    const t = setup({
      process: async () => ({ rows: [], pending: [0, 1, 2] }),
      settle: async (pending, tools) => {
        const [a, b, c] = pending as ReturnType<typeof pendingOf>;
        await tools.commit([]);
        await tools.commit([
          { of: a!, row: row('a') },
          { of: b!, row: row('b', 'failed'), failure: failure('b timed out') },
        ]);
        void c;
      },
    });
    t.s.earlier = 10;
    await t.worker.run(batch(2, [3, 4, 5], { positions: [0, 5, 6] }));
    t.shown.length = 0;
    await t.worker.settle();
    expect(t.commits.slice(1)).toEqual([[{ settled: [[2, 0]] }, [row('a'), row('b', 'failed')]]]);
    expect(t.s.done).toBe(3);
    expect(t.s.counts).toEqual({ ok: 1, failed: 1 });
    expect(t.s.failures).toEqual([failure('b timed out')]);
    expect(t.s.redoLeft).toBe(true);
    expect(t.shown).toEqual([13]);
    // c was never settled (b was written, failed: --resume settles it again, as redoLeft says).
    expect(t.s.unsettled).toBe(1);
  });

  it('every item settled: nothing left, nothing to redo', async () => {
    const t = setup({
      process: async () => ({ rows: [], pending: [0, 1] }),
      settle: async (pending, tools) =>
        tools.commit((pending as ReturnType<typeof pendingOf>).map((of) => ({ of, row: row(String(of.item)) }))),
    });
    await t.worker.run(batch(1, [3, 4]));
    await t.worker.settle();
    expect(t.commits[1]).toEqual([
      {
        settled: [
          [1, 0],
          [1, 1],
        ],
      },
      [row('3'), row('4')],
    ]);
    expect(t.s).toMatchObject({ unsettled: 0, redoLeft: false, done: 7 });
  });

  it('a settle that throws stops the job, unless it is the write error the job already has', async () => {
    const writeError = new Error('EPIPE');
    const t = setup({
      settle: async () => {
        throw writeError;
      },
    });
    t.s.writeError = writeError;
    await t.worker.settle();
    expect(t.s.fatal).toBeUndefined();
    const u = setup({
      settle: async () => {
        throw Object.assign(new Error('the queue is gone'), { exitCode: 3 });
      },
    });
    await u.worker.settle();
    expect(u.s.fatal).toEqual({ kind: 'error', message: 'the queue is gone', exitCode: 3 });
    expect(u.s.stop.signal.aborted).toBe(true);
  });
});
