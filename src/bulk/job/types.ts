// What a bulk verb gives the job engine (JobSpec) and what the engine's parts share while a job
// runs (JobState). A verb is a spec: how its input becomes batches, how a batch becomes requests
// and result rows, and what a row's status means; the engine owns every guarantee.
import type { Context, OutputFormat } from '../../context.js';
import type { ApiClient } from '../../api/client.js';
import type { Column, RowWriter } from '../../output/index.js';
import type { Failure, Outcome } from '../retry.js';
import type { CallArgs, EndpointName } from '../../spec/contract.js';

export type FileFormat = 'csv' | 'tsv' | 'ndjson' | 'json';

interface Batch<I> {
  /** 1-based, in source order; stable across runs of the same job. */
  number: number;
  items: I[];
  /** Idempotency-Key for the batch's request(s): the same on every run of the job. */
  key: string;
  /** On --resume of a partly done batch: the positions of `items` in the batch as first planned. */
  positions?: number[];
}

export interface BatchResult<R> {
  /** Result rows, written durably before the batch counts as done. */
  rows: R[];
  /** Positions in `items` whose rows are not final: --resume runs them again. */
  redo?: number[];
  /** What failed in the batch (for the exit code: 7 when every failure is `unavailable`). */
  failures?: Failure[];
  /** Rows refused as invalid before anything was sent (make the exit code 6). */
  invalid?: number;
  /** Nothing to write: the batch is not done (--resume runs it again). */
  notDone?: { interrupted: true } | { failure: Failure };
  /** A failure that applies to every batch (bad key, bad book): stop the job. */
  fatal?: Failure;
  /**
   * Positions in `items` whose result comes from the job's second phase (`settle`, e.g. books
   * queued and now to be waited for): no row now; journalled, so that --resume settles them
   * without running them again.
   */
  pending?: number[];
}

/** An item a batch left to the second phase: the input item and where it is in the input. */
export interface PendingItem<I> {
  item: I;
  batch: number;
  position: number;
}

/** A call an item is about to make (JobTools.ahead): the same arguments as its `call`. */
export interface AheadCall<N extends EndpointName = EndpointName> {
  name: N;
  args: CallArgs<N>;
  headers?: Record<string, string>;
}

export interface JobTools {
  api: ApiClient;
  ctx: Context;
  /** One request through the client (whose retry policy applies once); failures returned, not thrown. */
  call<N extends EndpointName>(name: N, args: CallArgs<N>, headers?: Record<string, string>): Promise<Outcome<N>>;
  /**
   * Tell the ledger of the calls the next items will make, before any is made (eachItem's
   * window): their intents are recorded in one group, durable together, instead of one group
   * per request. Each call must then be made with the same arguments; one never made is
   * recorded as not sent.
   */
  ahead(calls: AheadCall[]): void;
  /** A line above the progress bar. */
  log(line: string): void;
  /** Keep what the service returned that is not written to FILE (extra or malformed results): the rescue file. */
  keep(rows: Array<Record<string, unknown>>): Promise<void>;
}

/** The tools of the second phase: JobTools plus `commit`, which makes results final. */
export interface SettleTools<I, R> extends JobTools {
  /**
   * Write the results of pending items (durably, with a journal line) before they count as done.
   * An entry with a failure is written and stays pending: --resume settles it again.
   */
  commit(results: Array<{ of: PendingItem<I>; row: R; failure?: Failure }>): Promise<void>;
}

export interface JobFile {
  path: string;
  /** The flag that named it (`--out`, `--results`). */
  flag: string;
  /** As the user wrote it, for messages. */
  display: string;
  format: FileFormat;
}

export interface JobSpec<I, R extends Record<string, unknown>> {
  /** `codes generate`, `access allow`: in messages and the resume command. */
  verb: string;
  /** Result columns, in order (files and stdout). */
  columns: readonly string[];
  /** What progress counts (`codes`, `rows`), and the expected total when known. */
  unit: string;
  /**
   * Each request's own limit (ms) under --timeout, for a verb whose --timeout bounds more than one
   * request (`book process --wait` bounds the whole wait with it).
   */
  requestTimeout?: number;
  total?: number;
  /** Progress units of a batch (default: its items). */
  weight?(items: I[]): number;
  /** Batches in a stable order: the same options and input give the same batches on resume. */
  source(): AsyncIterable<I[]>;
  /**
   * What the journal's input digest of a batch is made of (default: its items). A verb whose items
   * changed representation keeps older journals' digests valid through it.
   */
  digestOf?(items: I[]): unknown[];
  /**
   * On --resume, before anything is sent: each row that earlier runs wrote to FILE, as read back
   * (e.g. so that codes stay unique within the job).
   */
  earlierRow?(row: Record<string, string>): void;
  /**
   * On --resume, before anything is sent: what earlier runs left of each batch (the journal's
   * records; a batch it does not name was never done), e.g. so that the calls of the batches
   * this run sends again are told to the ledger ahead (codes generate).
   */
  earlierBatches?(batches: ReadonlyMap<number, BatchRecord>): void;
  /**
   * The rows FILE must hold when the job is complete (e.g. the codes the summary counts): the
   * journal is removed only when FILE holds exactly that many.
   */
  expectedRows?(stats: JobStats): number;
  /** Run one batch. Must not throw for request failures (report them in the result). */
  process(batch: Batch<I>, tools: JobTools): Promise<BatchResult<R>>;
  /** Status of a row, counted in the summary. */
  status(row: R): string;
  /** One clause for the summary from the counts, e.g. "2500 codes" or "8 row(s): 3 ok, ...". */
  describe(counts: Record<string, number>, stats: JobStats): string;
  /** Write batches in source order (each waits for the batches before it), not as they complete. */
  ordered?: boolean;
  /** Columns for stdout when they differ from `columns` (labels, formatting in tables). */
  stdoutColumns?: Column[];
  /** Durable output; without it rows go to stdout through the output layer. */
  file?: JobFile;
  /** The flag that names the job's file (`--out`, `--results`), for messages when none is given. */
  fileFlag?: string;
  stdoutFormat?: OutputFormat;
  /** The input as the user gave it (`--from-csv grants.csv`), for messages. */
  input?: string;
  /** Options that define the job (flag → value): --resume with another value is refused. */
  identity: Record<string, unknown>;
  resume: boolean;
  restart: boolean;
  concurrency: number;
  /**
   * The command that repeats the job (without --resume), every flag of the run kept, global ones
   * included: the verb makes it from its parsed options (src/commands/given.ts).
   */
  command: string;
  /**
   * Without a file (stdout jobs): the command that repeats what is left, made as `command` is,
   * and a note printed after it as a shell comment, so the line runs as printed;
   * undefined when nothing a retry could mend is left.
   */
  stdoutResumeHint?(stats: JobStats): { command: string; note?: string } | undefined;
  /** Asked once the job is validated, before the first request (e.g. revoke's confirmation). */
  confirm?: () => Promise<void>;
  /** Said after the summary when rows were invalid (default: fix them and run them again). */
  invalidHint?: string;
  /**
   * --resume found batch `batch` planned otherwise than the journal recorded: why, and the fix,
   * when the verb's batches come from more than its input (access sync's from the ledger).
   * Default: the input was edited.
   */
  changedPlan?(batch: number): string;
  /** In --dry-run: the request of the first batch is printed by the client; this says how many. */
  dryRunNote?: string;
  /**
   * A second phase, run once every batch is done, over the items batches left `pending` (this
   * run's and, on --resume, those earlier runs left unsettled): e.g. polling until queued books are
   * processed. It commits results as they become final and returns when none is left, on the
   * interrupt (ctx.signal: what is left stays pending for --resume), or when it gives up on some
   * (committed with a failure). Skipped when the first phase stopped early.
   */
  settle?(pending: PendingItem<I>[], tools: SettleTools<I, R>): Promise<void>;
  /**
   * Stdout rows go through this writer instead of the output layer's (e.g. to frame them with a
   * summary). It must print through the `ctx` it is given (the engine checks every write).
   */
  stdoutWriter?(ctx: Context): RowWriter;
  /** The exit code, given the engine's (0/6/7) and the failures (e.g. one item alone exits as the service said). */
  exitCode?(code: number, failures: Failure[]): number;
}

export interface JobStats {
  /** Progress units done in earlier runs (resume). */
  earlier: number;
  /** Progress units done (written) in this run. */
  done: number;
  total?: number;
  batches: number;
  /** Batches that failed as a whole (nothing written; --resume runs them again), and the last failure. */
  failedBatches: number;
  failedUnits: number;
  lastFailure?: string;
  elapsedMs: number;
}

/** What the journal of earlier runs says of a batch: positions to run again, to settle, and its input digest. */
export interface BatchRecord {
  redo: number[];
  pending: number[];
  digest?: string;
}

/** A batch as the planner hands it to the pool. */
export type Planned<I> = Batch<I> & {
  /** On --resume: the positions in the input batch of `items` (a partial batch run again). */
  positions?: number[];
  /** Ordered jobs: opens when the batch before has been written. */
  turn?: { wait: Promise<void>; done: () => void };
  digest?: string;
};

/** The one state of a running job, shared by its parts (planner, worker, committer, summary). */
export interface JobState<I, R extends Record<string, unknown>> {
  readonly spec: JobSpec<I, R>;
  readonly ctx: Context;
  readonly started: number;
  jobId: string;
  weight(items: I[]): number;
  /** Stops new batches: a fatal failure, a write error, a bad input, the breaker. */
  readonly stop: AbortController;
  /** ctx.signal or stop. */
  readonly signal: AbortSignal;
  /** Units done in earlier runs, and written in this one. */
  earlier: number;
  done: number;
  /** Rows written, by status. */
  counts: Record<string, number>;
  batches: number;
  failures: Failure[];
  invalid: number;
  /** Batches that ended with nothing to write (failed as a whole, or interrupted). */
  notDone: number;
  failedBatches: number;
  failedUnits: number;
  lastFailure?: string;
  fatal?: Failure;
  writeError?: unknown;
  sourceError?: unknown;
  /** Batches handed out by the planner, and finished by a worker. */
  yielded: number;
  handled: number;
  sourceDone: boolean;
  /** Some rows are not final (their failure is written): --resume runs them again. */
  redoLeft: boolean;
  /** Items left to the second phase. */
  pending: PendingItem<I>[];
  unsettled: number;
  /** A request has been sent (files a refused job created are removed otherwise). */
  sent: boolean;
  /** Rows the service returned that could not be written, and where they were kept. */
  rescued: number;
  rescuePath?: string;
  rescueError?: string;
}

export function newJobState<I, R extends Record<string, unknown>>(spec: JobSpec<I, R>, ctx: Context): JobState<I, R> {
  const stop = new AbortController();
  return {
    spec,
    ctx,
    started: Date.now(),
    // Stryker disable next-line StringLiteral: equivalent, the engine sets the job's id (run.ts) before anything reads it
    jobId: '',
    weight: (items: I[]) => (spec.weight ? spec.weight(items) : items.length),
    stop,
    signal: AbortSignal.any([ctx.signal, stop.signal]),
    earlier: 0,
    done: 0,
    counts: {},
    batches: 0,
    failures: [],
    invalid: 0,
    notDone: 0,
    failedBatches: 0,
    failedUnits: 0,
    yielded: 0,
    handled: 0,
    sourceDone: false,
    redoLeft: false,
    pending: [],
    unsettled: 0,
    sent: false,
    rescued: 0,
  };
}

/** Every batch ran and was written (the second phase may still have work). */
export function firstPhaseComplete<I, R extends Record<string, unknown>>(s: JobState<I, R>): boolean {
  return s.sourceDone && s.yielded === s.handled && !s.fatal && !s.writeError && !s.sourceError && s.notDone === 0;
}

export function statsOf<I, R extends Record<string, unknown>>(s: JobState<I, R>): JobStats {
  return {
    earlier: s.earlier,
    done: s.done,
    total: s.spec.total,
    batches: s.batches,
    failedBatches: s.failedBatches,
    failedUnits: s.failedUnits,
    lastFailure: s.lastFailure,
    elapsedMs: Date.now() - s.started,
  };
}
