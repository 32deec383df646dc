// Helpers for verb specs: batching a stream, running a batch one item at a time (row jobs), the
// row of a failed request, and the summary clause of a row job.
import { failureOf, type Failure, type Outcome } from '../retry.js';
import type { AheadCall, BatchResult, JobStats, JobTools } from './types.js';

/** Group a stream of items into arrays of `size`. */
export async function* chunks<T>(items: AsyncIterable<T> | Iterable<T>, size: number): AsyncGenerator<T[]> {
  let buf: T[] = [];
  for await (const it of items) {
    buf.push(it);
    if (buf.length >= size) {
      yield buf;
      buf = [];
    }
  }
  if (buf.length) yield buf;
}

/**
 * Rows per batch of a row job: one durable write (and journal line) per batch, group-committed
 * with the batches that complete meanwhile. Interrupts do not wait for a whole batch (eachItem).
 */
export const ROWS_PER_BATCH = 250;

/**
 * How many items of a row job's batch have their calls told to the ledger ahead (JobTools.ahead):
 * one group, one fdatasync, for this many requests instead of one or two; a job stopped early
 * leaves at most this many and a half a lane recorded as not sent. 64: a batch of order create's
 * 50 orders is told whole, in one append instead of two (strace, 2,000 orders: 44 lock cycles
 * instead of 72; as many fdatasyncs, 43: the lanes' groups shared them already). Bench n2, rounds
 * alternating with 32 in the same run, load 8-12, 2 cores: 1.061x vs 1.089x and 1.052x vs 1.069x
 * at 1,500 orders, 1.070x vs 1.098x at 2,000 (system CPU 146 vs 179 ms); once 1.075x vs 1.064x
 * in 6 rounds of 3,000: a gain near this machine's noise. 16 read 1.084x. n1 the same (1.092x
 * vs 1.086x, 12 rounds).
 */
const AHEAD = 64;

/**
 * The window of calls told to the ledger ahead (JobTools.ahead) over `total` calls, `callOf(i)`
 * the i-th (undefined: none): AHEAD more whenever half the window or less is left before call
 * `i`, so that the next group's fdatasync runs while the calls told before are made.
 */
function aheadWindow(
  total: number,
  callOf: (i: number) => AheadCall | undefined,
): (i: number, job: Pick<JobTools, 'ahead' | 'ctx'>) => void {
  let told = 0;
  return (i, job) => {
    if (told - i > AHEAD / 2 || job.ctx.signal.aborted) return;
    const calls: AheadCall[] = [];
    for (const end = Math.min(total, told + AHEAD); told < end; told++) {
      const c = callOf(told);
      if (c) calls.push(c);
    }
    if (calls.length) job.ahead(calls);
  };
}

/**
 * A job whose batches make one call each (codes generate): the window of aheadWindow over its
 * batches 1..last. Returns what each batch calls before its own call; `callOf(n)`: batch n's
 * call, exactly as the batch will make it.
 */
export function batchesAhead(
  last: number,
  callOf: (n: number) => AheadCall,
): (n: number, job: Pick<JobTools, 'ahead' | 'ctx'>) => void {
  const window = aheadWindow(last, (i) => callOf(i + 1));
  return (n, job) => window(n - 1, job);
}

/**
 * `f` computed once an item: a row's check, which its call told ahead (eachItem's `callOf`) and
 * its run both need.
 */
export function perItem<I extends object, T>(f: (item: I) => T): (item: I) => T {
  const seen = new WeakMap<I, { v: T }>();
  return (item) => {
    let c = seen.get(item);
    if (!c) seen.set(item, (c = { v: f(item) }));
    return c.v;
  };
}

/** What one item of a one-request-per-item batch came to. */
export type ItemOutcome<R> =
  | { row: R; invalid?: boolean; failure?: Failure }
  | { interrupted: true }
  | { pending: true };

/**
 * Run a batch one item at a time (row jobs: one request per row). Invalid rows count for exit 6;
 * failed rows are written with their failure and left for --resume to send again; an interrupt
 * (during a retry wait, or between two rows) leaves the rest of the batch to --resume, so a big
 * batch never delays a Ctrl-C by more than the request in flight.
 */
export async function eachItem<I, R>(
  items: I[],
  one: (item: I, index: number) => Promise<ItemOutcome<R>>,
  job: Pick<JobTools, 'log' | 'ctx'> & Partial<Pick<JobTools, 'ahead'>>,
  /** The call an item will make (undefined: none), told to the ledger AHEAD items in advance. */
  callOf?: (item: I) => AheadCall | undefined,
): Promise<BatchResult<R>> {
  const rows: R[] = [];
  const redo: number[] = [];
  const pending: number[] = [];
  const failures: Failure[] = [];
  let invalid = 0;
  const { ahead } = job;
  const tools = ahead && { ahead, ctx: job.ctx };
  const window = callOf && tools ? aheadWindow(items.length, (k) => callOf(items[k])) : undefined;
  for (let i = 0; i < items.length; i++) {
    if (window && tools) window(i, tools);
    // Interrupted: the row in flight has finished; the rest of the batch is left to --resume.
    const x = job.ctx.signal.aborted ? ({ interrupted: true } as const) : await one(items[i], i);
    if ('interrupted' in x) {
      for (let k = i; k < items.length; k++) redo.push(k);
      break;
    }
    if ('pending' in x) {
      pending.push(i);
      continue;
    }
    rows.push(x.row);
    if (x.invalid) invalid++;
    if (x.failure) {
      failures.push(x.failure);
      redo.push(i);
      job.log(x.failure.message);
    }
  }
  return { rows, redo, failures, invalid, pending };
}

/**
 * The outcome of a row's request that did not succeed: interrupted, or failed (after retries, or
 * refused with a 4xx that `final` does not claim), as a row with status `failed`.
 */
export function failedRow<R>(
  r: Outcome,
  make: (status: 'failed', message: string) => R,
  where: string,
): ItemOutcome<R> {
  if (!r.ok && r.interrupted) return { interrupted: true };
  const f = r.ok ? failureOf(r.response) : r.failure;
  return { row: make('failed', f.message), failure: { ...f, message: `${where}: ${f.message}` } };
}

/** "5 rows: 3 ok, 1 invalid, ..., 7 done in an earlier run" (`noun` singular) from the counts of a row job. */
export function countsText(
  counts: Record<string, number>,
  stats: JobStats,
  noun: string,
  parts: Array<[status: string, label: string]>,
): string {
  const now = parts.reduce((a, [s]) => a + (counts[s] ?? 0), 0);
  const n = stats.earlier + now;
  return (
    `${n} ${n === 1 ? noun : `${noun}s`}: ${parts.map(([s, label]) => `${counts[s] ?? 0} ${label}`).join(', ')}` +
    (stats.earlier ? `, ${stats.earlier} done in an earlier run` : '')
  );
}
