// The batches a job sends (src/bulk/job/planner.ts), in-process: numbered in source order with
// keys that stay the same on every run, and on --resume only what earlier runs left (their input
// checked against the journal's digests first, nothing sent before that), their pending items
// collected for the second phase. Whole jobs are in engine.test.ts; these take milliseconds.
import { describe, expect, it } from 'vitest';
import type { Context } from '../../src/context.js';
import { ExitCode } from '../../src/errors.js';
import { digestOf } from '../../src/bulk/job/journal.js';
import { InputChanged, plan, type Earlier } from '../../src/bulk/job/planner.js';
import { newJobState, type BatchRecord, type JobSpec, type Planned } from '../../src/bulk/job/types.js';

/**
 * These tests take milliseconds: a change of the code that leaves a promise unsettled (a commit
 * never resolved) fails here within 5 s, instead of hanging until the mutation run's timeout,
 * which restarts its test worker (tens of seconds on these machines).
 */
const QUICK = { timeout: 5_000 };

type Item = { line?: number; isbn: string } | { rows: Array<{ line: number }> };

function state(spec: Partial<JobSpec<Item, Record<string, unknown>>> = {}) {
  const ctl = new AbortController();
  const s = newJobState<Item, Record<string, unknown>>(
    { verb: 'book process', columns: [], identity: {}, ...spec } as JobSpec<Item, Record<string, unknown>>,
    { signal: ctl.signal } as unknown as Context,
  );
  s.jobId = 'job7';
  return { s, abort: () => ctl.abort() };
}

const item = (line: number): Item => ({ line, isbn: `978${line}` });
const batchesOf = (...sizes: number[]) => {
  let line = 1;
  return sizes.map((n) => Array.from({ length: n }, () => item(line++)));
};

interface Run {
  planned: Planned<Item>[];
  /** What happened, in order: `read N` (a batch read from the source), `open`, `yield N`, `earlier`. */
  events: string[];
}

async function run(
  s: ReturnType<typeof state>['s'],
  batches: Item[][],
  earlier: Partial<Earlier> = {},
  { fileJob = true, opens = true, abortAfter }: { fileJob?: boolean; opens?: boolean; abortAfter?: () => void } = {},
): Promise<Run> {
  const events: string[] = [];
  let read = 0;
  const src: AsyncIterator<Item[]> = {
    next: async () => {
      if (read >= batches.length) return { done: true, value: undefined };
      events.push(`read ${read + 1}`);
      if (read === 1) abortAfter?.();
      return { done: false, value: batches[read++] };
    },
  };
  const first = await src.next();
  const planned: Planned<Item>[] = [];
  const e: Earlier = { batches: new Map(), settled: new Set(), ...earlier };
  for await (const p of plan(
    s,
    src,
    first,
    e,
    async () => {
      events.push('open');
      return opens;
    },
    () => events.push('earlier'),
    fileJob,
  )) {
    events.push(`yield ${p.number}`);
    planned.push(p);
  }
  return { planned, events };
}

describe('the batches a job sends', QUICK, () => {
  it('a new job: every batch in source order, numbered from 1, its key the job id and number, its input digest (file jobs)', async () => {
    const { s } = state();
    const input = batchesOf(2, 2, 1);
    const r = await run(s, input);
    expect(r.planned.map((p) => [p.number, p.key, p.items, p.digest])).toEqual([
      [1, 'job7-1', input[0], digestOf(input[0])],
      [2, 'job7-2', input[1], digestOf(input[1])],
      [3, 'job7-3', input[2], digestOf(input[2])],
    ]);
    expect(r.planned.every((p) => p.turn === undefined && p.positions === undefined)).toBe(true);
    // Nothing to check: FILE is opened at once and each batch is sent as it is read.
    expect(r.events).toEqual([
      'read 1',
      'open',
      'yield 1',
      'read 2',
      'open',
      'yield 2',
      'read 3',
      'open',
      'yield 3',
      'open',
    ]);
    expect(s.yielded).toBe(3);
    expect(s.sourceDone).toBe(true);
    expect(s.sourceError).toBeUndefined();
  });

  it('a stdout job has no digests; a verb may digest its items otherwise (older journals stay valid)', async () => {
    const { s } = state();
    expect((await run(s, batchesOf(1), {}, { fileJob: false })).planned[0].digest).toBeUndefined();
    const other = state({ digestOf: (items) => items.map((i) => ('isbn' in i ? i.isbn : '')) });
    const input = batchesOf(2);
    expect((await run(other.s, input)).planned[0].digest).toBe(digestOf(['9781', '9782']));
  });

  it('an ordered job: each batch’s turn opens once the batch before it is done', async () => {
    const { s } = state({ ordered: true });
    const [a, b, c] = (await run(s, batchesOf(1, 1, 1))).planned.map((p) => p.turn!);
    const opened: string[] = [];
    void a.wait.then(() => opened.push('a'));
    void b.wait.then(() => opened.push('b'));
    void c.wait.then(() => opened.push('c'));
    await new Promise((r) => setImmediate(r));
    expect(opened).toEqual(['a']);
    a.done();
    await new Promise((r) => setImmediate(r));
    expect(opened).toEqual(['a', 'b']);
    b.done();
    await new Promise((r) => setImmediate(r));
    expect(opened).toEqual(['a', 'b', 'c']);
  });

  it('FILE that cannot be opened: nothing is sent', async () => {
    const { s } = state();
    const r = await run(s, batchesOf(1, 1), {}, { opens: false });
    expect(r.planned).toEqual([]);
    expect(r.events).toEqual(['read 1', 'open']);
    expect(s.yielded).toBe(0);
    expect(s.sourceDone).toBe(false);
    // The last batches held after the input ended: not sent either.
    const late = state();
    const input = batchesOf(1, 1, 1);
    const done = new Map<number, BatchRecord>([[1, { redo: [], pending: [], digest: digestOf(input[0]) }]]);
    let opens = 0;
    const src: AsyncIterator<Item[]> = { next: async () => ({ done: true, value: undefined }) };
    const out: Planned<Item>[] = [];
    for await (const p of plan(
      late.s,
      src,
      { done: false, value: input[0] },
      { batches: done, settled: new Set() },
      async () => ++opens < 1,
      () => {},
      true,
    ))
      out.push(p);
    expect(out).toEqual([]);
    expect(late.s.sourceDone).toBe(false);
  });

  it('an interrupt stops reading the input after the batch under way', async () => {
    const { s, abort } = state();
    const r = await run(s, batchesOf(1, 1, 1, 1), {}, { abortAfter: abort });
    expect(r.planned.map((p) => p.number)).toEqual([1, 2]);
    expect(s.sourceDone).toBe(false);
  });

  it('--resume: batches done earlier are skipped, the input checked up to the last of them before FILE is opened or anything sent', async () => {
    const { s } = state();
    const input = batchesOf(2, 2, 2, 2);
    const done = (n: number, more: Partial<BatchRecord> = {}): [number, BatchRecord] => [
      n,
      { redo: [], pending: [], digest: digestOf(input[n - 1]), ...more },
    ];
    const r = await run(s, input, { batches: new Map([done(1), done(3, { redo: [1] })]) });
    expect(r.events).toEqual([
      'read 1',
      'earlier',
      'read 2',
      'read 3',
      'earlier',
      'open',
      'yield 2',
      'yield 3',
      'read 4',
      'open',
      'yield 4',
      'open',
    ]);
    // Batch 3 again for its unfinished position only, with the key it had.
    const again = r.planned.find((p) => p.number === 3)!;
    expect(again).toMatchObject({ key: 'job7-3', items: [input[2][1]], positions: [1], digest: digestOf(input[2]) });
    // Done earlier: batch 1 whole and batch 3's first item.
    expect(s.earlier).toBe(3);
    expect(s.yielded).toBe(3);
    // A journal that goes further than the input: the batches read are held until the input ends, then sent.
    const short = state();
    const two = batchesOf(1, 1);
    const held = await run(short.s, two, {
      batches: new Map<number, BatchRecord>([[5, { redo: [], pending: [], digest: 'x' }]]),
    });
    expect(held.events).toEqual(['read 1', 'read 2', 'open', 'yield 1', 'yield 2']);
    expect(short.s.yielded).toBe(2);
    expect(short.s.sourceDone).toBe(true);
  });

  it('--resume: pending items earlier runs left go to the second phase, less those settled since; weights count what is done', async () => {
    const { s } = state({ weight: (items) => items.length * 10 });
    const input = batchesOf(3, 3);
    const r = await run(s, input, {
      batches: new Map<number, BatchRecord>([
        [1, { redo: [], pending: [0, 2, 7], digest: digestOf(input[0]) }],
        [2, { redo: [2, 5], pending: [1], digest: digestOf(input[1]) }],
      ]),
      settled: new Set(['1:2']),
    });
    expect(s.pending).toEqual([
      { item: input[0][0], batch: 1, position: 0 },
      { item: input[1][1], batch: 2, position: 1 },
    ]);
    // (Position 7 of batch 1 is not in the input: nothing to settle there.)
    // Batch 1: 3 items less 1 pending; batch 2: 3 less its redo (one that exists) and 1 pending.
    expect(s.earlier).toBe(20 + 10);
    expect(r.planned).toHaveLength(1);
    expect(r.planned[0]).toMatchObject({ number: 2, items: [input[1][2]], positions: [2, 5] });
  });

  it('--resume over an edited input: exit 2 naming the batch and its lines, nothing sent', async () => {
    const { s } = state({ input: '--from-csv books.csv' });
    const input = batchesOf(2, 3);
    const r = await run(s, input, {
      batches: new Map<number, BatchRecord>([
        [1, { redo: [], pending: [], digest: digestOf(input[0]) }],
        [2, { redo: [], pending: [], digest: 'another' }],
      ]),
    });
    expect(r.planned).toEqual([]);
    expect(s.sourceError).toBeInstanceOf(InputChanged);
    expect((s.sourceError as InputChanged).exitCode).toBe(ExitCode.USAGE);
    expect((s.sourceError as Error).message).toBe(
      '--resume: --from-csv books.csv is not what the job was started with: batch 2 (lines 3-5) differs from the rows sent then ' +
        '(the file was edited, or other rows were piped in). Nothing was sent. Give the same input, or start over with --restart.',
    );
    expect(s.stop.signal.aborted).toBe(true);
    // One item: its line alone; items of grouped rows: from the first row's line to the last's; no lines: none said.
    const one = state();
    await run(one.s, [[item(9)]], { batches: new Map([[1, { redo: [], pending: [], digest: 'x' }]]) });
    expect((one.s.sourceError as Error).message).toContain(
      'the input is not what the job was started with: batch 1 (line 9) differs',
    );
    const grouped = state();
    await run(grouped.s, [[{ rows: [{ line: 4 }, { line: 5 }] }, { rows: [{ line: 6 }, { line: 7 }, { line: 8 }] }]], {
      batches: new Map([[1, { redo: [], pending: [], digest: 'x' }]]),
    });
    expect((grouped.s.sourceError as Error).message).toContain('batch 1 (lines 4-8) differs');
    // The last item without a line: only the first's is said.
    const open = state();
    await run(open.s, [[item(3), { isbn: 'x' }]], { batches: new Map([[1, { redo: [], pending: [], digest: 'x' }]]) });
    expect((open.s.sourceError as Error).message).toContain('batch 1 (line 3) differs');
    const bare = state();
    await run(bare.s, [[{ isbn: 'x' }]], { batches: new Map([[1, { redo: [], pending: [], digest: 'x' }]]) });
    expect((bare.s.sourceError as Error).message).toContain('batch 1 differs');
    // A verb whose batches come from more than its input says why itself; an older journal without digests is not checked.
    const own = state({ changedPlan: (n) => `batch ${n}: the ledger changed` });
    await run(own.s, [[item(1)]], { batches: new Map([[1, { redo: [], pending: [], digest: 'x' }]]) });
    expect((own.s.sourceError as Error).message).toBe('batch 1: the ledger changed');
    const old = state();
    await run(old.s, [[item(1)]], { batches: new Map([[1, { redo: [], pending: [] }]]) });
    expect(old.s.sourceError).toBeUndefined();
    expect(old.s.sourceDone).toBe(true);
  });

  it('an input that fails while read (a bad CSV record) stops the job with that error', async () => {
    const { s } = state();
    const bad = new Error('line 3: bad quote');
    const src: AsyncIterator<Item[]> = {
      next: async () => {
        throw bad;
      },
    };
    const out: Planned<Item>[] = [];
    for await (const p of plan(
      s,
      src,
      { done: false, value: [item(1)] },
      { batches: new Map(), settled: new Set() },
      async () => true,
      () => {},
      true,
    ))
      out.push(p);
    expect(out.map((p) => p.number)).toEqual([1]);
    expect(s.sourceError).toBe(bad);
    expect(s.stop.signal.aborted).toBe(true);
    expect(s.sourceDone).toBe(false);
  });
});
