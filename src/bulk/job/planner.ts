// The batches a run sends, in source order. On --resume, batches that earlier runs finished are
// skipped (their input checked against the journal's digests), partly finished ones are sent
// again for their unfinished positions only, and items they left to the second phase are
// collected; nothing is sent until the input has been checked up to the last batch done earlier,
// and FILE (its torn tail cut) is opened only then.
import { CliError, ExitCode } from '../../errors.js';
import { digestOf } from './journal.js';
import type { BatchRecord, JobState, Planned } from './types.js';

export interface Earlier {
  batches: Map<number, BatchRecord>;
  settled: Set<string>;
}

/** Ordered jobs: each batch gets a turn that opens when the batch before it has been written. */
function turns(): () => { wait: Promise<void>; done: () => void } {
  let last: Promise<void> = Promise.resolve();
  return () => {
    const wait = last;
    let done!: () => void;
    last = new Promise<void>((r) => (done = r));
    return { wait, done };
  };
}

export async function* plan<I, R extends Record<string, unknown>>(
  s: JobState<I, R>,
  src: AsyncIterator<I[]>,
  first: IteratorResult<I[]>,
  earlier: Earlier,
  /** Open FILE for the job; false when that failed (the job stops). */
  opened: () => Promise<boolean>,
  onEarlier: () => void,
  fileJob: boolean,
): AsyncGenerator<Planned<I>> {
  const turn = turns();
  const lastDone = Math.max(0, ...earlier.batches.keys());
  let held: Planned<I>[] = [];
  let r = first;
  try {
    for (let n = 1; !r.done; n++) {
      const items = r.value;
      const digest = fileJob ? digestOf(s.spec.digestOf?.(items) ?? items) : undefined;
      const key = `${s.jobId}-${n}`;
      const prev = earlier.batches.get(n);
      if (prev === undefined) {
        held.push({ number: n, items, key, turn: s.spec.ordered ? turn() : undefined, digest });
      } else {
        if (prev.digest !== undefined && prev.digest !== digest) throw inputChanged(s, n, items);
        const again = resumed(s, n, items, prev, earlier.settled);
        onEarlier();
        if (again) held.push({ ...again, key, digest });
      }
      if (n >= lastDone) {
        if (!(await opened())) return;
        s.yielded += held.length;
        yield* held;
        held = [];
      }
      if (s.signal.aborted) return;
      r = await src.next();
    }
    if (!(await opened())) return;
    s.yielded += held.length;
    yield* held;
    s.sourceDone = true;
  } catch (e) {
    s.sourceError = e;
    s.stop.abort();
  }
}

/** A batch an earlier run did: its pending items collected, its done units counted, its unfinished positions to send again. */
function resumed<I, R extends Record<string, unknown>>(
  s: JobState<I, R>,
  n: number,
  items: I[],
  prev: BatchRecord,
  settled: Set<string>,
): Pick<Planned<I>, 'number' | 'items' | 'positions'> | undefined {
  const open = prev.pending.filter((p) => !settled.has(`${n}:${p}`) && items[p] !== undefined);
  for (const p of open) s.pending.push({ item: items[p], batch: n, position: p });
  const some = (ps: number[]) => (ps.length ? s.weight(ps.map((i) => items[i]).filter((x) => x !== undefined)) : 0);
  s.earlier += s.weight(items) - some(prev.redo) - some(open);
  if (!prev.redo.length) return undefined;
  return { number: n, items: prev.redo.map((i) => items[i]).filter((x) => x !== undefined), positions: prev.redo };
}

/** "lines 12-40" of a batch whose items carry their input line, else "". */
function linesOf(items: unknown[]): string {
  const lineOf = (x: unknown, end: boolean): unknown => {
    const o = x as { line?: unknown; rows?: Array<{ line?: unknown }> } | null | undefined;
    // Stryker disable next-line OptionalChaining: equivalent, a batch has at least one item and an item with rows at least one row (the -1 and the last line's type check are killed: job-planner.test.ts)
    return o?.line ?? (end ? o?.rows?.at?.(-1)?.line : o?.rows?.[0]?.line);
  };
  const a = lineOf(items[0], false);
  const b = lineOf(items[items.length - 1], true);
  if (typeof a !== 'number') return '';
  return typeof b === 'number' && b !== a ? `lines ${a}-${b}` : `line ${a}`;
}

/** The input marker on errors that --resume found a changed input (reported as they are). */
export class InputChanged extends CliError {}

/** --resume over an input that differs from the first run's in a batch done earlier: exit 2, nothing sent. */
function inputChanged<I, R extends Record<string, unknown>>(s: JobState<I, R>, n: number, items: unknown[]): CliError {
  const why = s.spec.changedPlan?.(n);
  if (why) return new InputChanged(why, ExitCode.USAGE);
  const lines = linesOf(items);
  return new InputChanged(
    `--resume: ${s.spec.input ?? 'the input'} is not what the job was started with: batch ${n}${lines ? ` (${lines})` : ''} differs from the rows sent then ` +
      `(the file was edited, or other rows were piped in). Nothing was sent. Give the same input, or start over with --restart.`,
    ExitCode.USAGE,
  );
}
