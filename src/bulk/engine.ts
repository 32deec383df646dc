// The one job engine behind every bulk verb: a streamed source of batches → a bounded pool that
// runs each batch (the verb's spec makes the requests, with the client's retries) → durable
// output plus a journal → progress → one summary line → the exit code (0, 6 partial,
// 7 unavailable, 130 interrupted). A verb supplies a JobSpec: how its input becomes batches, how a
// batch becomes requests and result rows, and what a row's status means. Every guarantee lives
// here, once:
//
// - Exclusive: with an output/results FILE the job holds FILE.bookdist-lock (pid) for its run.
// - Exact: FILE.bookdist-job (the journal) holds a header (job id, the options that define the
//   job) and one line per batch written *after* the batch's rows are fsynced to FILE: the batch
//   number and the byte offset where FILE then ended. Batches are written and journalled one at a
//   time, so the last journal line says where the valid part of FILE ends; bytes after it (a batch
//   torn by a crash or a full disk, or bytes added by hand) are cut and reported, and that batch is
//   run again with its original Idempotency-Key (`<job id>-<batch>`), so a service that honours the
//   key answers with what it already made: nothing is generated twice or lost.
// - Interruptible: the first SIGINT/SIGTERM/SIGHUP (ctx.signal) stops new batches; those in flight
//   are written; the job exits 130 naming the resume command. main exits at once on a second one.
// - Validated up front: FILE's directory (FILE a regular file), the lock, the journal, the options
//   of a resumed job and the first batch of the input are checked before the first request. Each
//   batch's journal line holds a digest of its input items: --resume re-reads the input and sends
//   nothing until every done batch has been found unchanged (exit 2 naming the batch otherwise).
// - Two phases when a verb needs them: a batch may leave items `pending` (journalled); once every
//   batch is done the spec's `settle` finishes them (book process --wait polls), committing rows
//   durably as they become final. --resume settles what earlier runs left.
// - Faults: a service that stays unavailable for concurrency+2 requests in a row stops the job
//   (exit 7, --resume sends the rest); a closed stdout (EPIPE) stops a stdout job with one line.
import { access, constants, rename, rm, stat } from 'node:fs/promises';
import { createHash, randomBytes } from 'node:crypto';
import { basename, dirname } from 'node:path';
import type { Context, OutputFormat } from '../context.js';
import type { ApiClient } from '../api/client.js';
import { CliError, ExitCode, usageError } from '../errors.js';
import { csvCell, tsvCell } from '../output/format.js';
import { createRowWriter, type Column, type RowWriter } from '../output/index.js';
import { formatDuration } from '../util/duration.js';
import { DurableFile, fileSize, writeFileDurably } from './durable.js';
import { acquireLock, type Lock } from './lock.js';
import { runPool } from './pool.js';
import { createProgress, type Progress } from './progress.js';
import { callWithRetry, failureOf, type Failure, type Outcome } from './retry.js';

export const JOURNAL_SUFFIX = '.bookdist-job';
export type FileFormat = 'csv' | 'tsv' | 'ndjson' | 'json';

export interface Batch<I> {
  /** 1-based, in source order; stable across runs of the same job. */
  number: number;
  items: I[];
  /** Idempotency-Key for the batch's request(s): the same on every run of the job. */
  key: string;
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

/** The tools of the second phase: JobTools plus `commit`, which makes results final. */
export interface SettleTools<I, R> extends JobTools {
  /**
   * Write the results of pending items (durably, with a journal line) before they count as done.
   * An entry with a failure is written and stays pending: --resume settles it again.
   */
  commit(results: Array<{ of: PendingItem<I>; row: R; failure?: Failure }>): Promise<void>;
}

export interface JobTools {
  api: ApiClient;
  ctx: Context;
  /** callWithRetry with the job's retries, signal and a line per long retry wait. */
  call(name: string, args: { params?: Record<string, string | number>; payload?: Record<string, unknown> }, headers?: Record<string, string>): Promise<Outcome>;
  /** A line above the progress bar. */
  log(line: string): void;
}

export interface JobSpec<I, R extends Record<string, unknown>> {
  /** `codes generate`, `access allow`: in messages and the resume command. */
  verb: string;
  /** Result columns, in order (files and stdout). */
  columns: readonly string[];
  /** What progress counts (`codes`, `rows`), and the expected total when known. */
  unit: string;
  total?: number;
  /** Progress units of a batch (default: its items). */
  weight?(items: I[]): number;
  /** Batches in a stable order: the same options and input give the same batches on resume. */
  source(): AsyncIterable<I[]>;
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
  file?: { path: string; flag: string; display: string; format: FileFormat };
  stdoutFormat?: OutputFormat;
  /** The input as the user gave it (`--from-csv grants.csv`), for messages. */
  input?: string;
  /** Options that define the job (flag → value): --resume with another value is refused. */
  identity: Record<string, unknown>;
  resume: boolean;
  restart: boolean;
  concurrency: number;
  /** The command that repeats the job (without --resume). */
  command: string;
  /** The resume advice without a file (stdout jobs), given the stats. */
  stdoutResumeHint?(stats: JobStats): string;
  /** Asked once the job is validated, before the first request (e.g. revoke's confirmation). */
  confirm?(): Promise<void>;
  /** Said after the summary when rows were invalid (default: fix them and run them again). */
  invalidHint?: string;
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
  /** Stdout rows go through this writer instead of the output layer's (e.g. to frame them with a summary). */
  stdoutWriter?(): RowWriter;
  /** The exit code, given the engine's (0/6/7) and the failures (e.g. one item alone exits as the service said). */
  exitCode?(code: number, failures: Failure[]): number;
}

export interface JobStats {
  /** Progress units done in earlier runs (resume). */
  earlier: number;
  /** Progress units done in this run. */
  done: number;
  total?: number;
  batches: number;
  /** Batches that failed as a whole (nothing written; --resume runs them again), and the last failure. */
  failedBatches: number;
  failedUnits: number;
  lastFailure?: string;
  elapsedMs: number;
}

interface JournalHeader {
  v: 1;
  verb: string;
  job_id: string;
  started: string;
  format: FileFormat;
  identity: Record<string, unknown>;
}

interface DoneLine {
  b: number;
  end: number;
  redo?: number[];
  /** Positions left to the second phase. */
  wait?: number[];
  /** Digest of the batch's input items: --resume checks that the input is the same. */
  h?: string;
}

/** What the journal says of a batch: positions to run again, to settle, and its input digest. */
interface BatchRecord {
  redo: number[];
  wait: number[];
  h?: string;
}

/** Digest of a batch's input items (the same input gives the same batches on resume). */
function digestOf(items: unknown[]): string {
  return createHash('sha256').update(JSON.stringify(items)).digest('base64url').slice(0, 22);
}

/** "lines 12-40" of a batch whose items carry their input line, else "". */
function linesOf(items: unknown[]): string {
  const first = (items[0] as any)?.line;
  const last = (items[items.length - 1] as any)?.line ?? (items[items.length - 1] as any)?.rows?.at?.(-1)?.line;
  const a = typeof first === 'number' ? first : (items[0] as any)?.rows?.[0]?.line;
  if (typeof a !== 'number') return '';
  return typeof last === 'number' && last !== a ? `lines ${a}-${last}` : `line ${a}`;
}

// ---------------------------------------------------------------------------------------- files

function header(fmt: FileFormat, columns: readonly string[]): string {
  if (fmt === 'csv') return columns.map(csvCell).join(',') + '\n';
  if (fmt === 'tsv') return columns.map(tsvCell).join('\t') + '\n';
  if (fmt === 'json') return '[\n';
  return '';
}

function encode(fmt: FileFormat, columns: readonly string[], rows: Array<Record<string, unknown>>, first: boolean): string {
  let s = '';
  for (const r of rows) {
    if (fmt === 'csv') s += columns.map((c) => csvCell(r[c])).join(',') + '\n';
    else if (fmt === 'tsv') s += columns.map((c) => tsvCell(r[c])).join('\t') + '\n';
    else if (fmt === 'json') {
      s += (first ? '' : ',') + JSON.stringify(r) + '\n';
      first = false;
    } else s += JSON.stringify(r) + '\n';
  }
  return s;
}

async function readJournal(path: string, flag: string, file: string): Promise<{ header: JournalHeader; done: DoneLine[]; settled: Set<string>; validEnd: number } | undefined> {
  let text: string;
  try {
    const { readFile } = await import('node:fs/promises');
    text = await readFile(path, 'utf8');
  } catch (e: any) {
    if (e?.code === 'ENOENT') return undefined;
    throw new CliError(`${basename(path)}: unreadable job journal (${e?.code ?? e?.message}).`, ExitCode.USAGE);
  }
  const damaged = (line: number, why: string) =>
    new CliError(
      `${flag} ${file}: the job journal ${basename(path)} is damaged at line ${line} (${why}); it was edited or written by something else. ` +
        `Start over with --restart (${basename(file)} is kept, renamed with a .abandoned suffix), or restore the journal.`,
      ExitCode.USAGE,
    );
  // Only complete lines count: a kill during the append of a line leaves it torn (cut on resume).
  const end = text.lastIndexOf('\n') + 1;
  const lines = text.slice(0, end).split('\n').slice(0, -1);
  if (!lines.length) throw damaged(1, 'no header');
  let h: JournalHeader;
  try {
    h = JSON.parse(lines[0]);
  } catch {
    throw damaged(1, 'not JSON');
  }
  if (h?.v !== 1 || typeof h.job_id !== 'string' || typeof h.identity !== 'object') throw damaged(1, 'not a job header');
  const done: DoneLine[] = [];
  const settled = new Set<string>();
  let lastEnd = 0;
  const positions = (x: unknown) => x === undefined || (Array.isArray(x) && x.every((p) => Number.isInteger(p) && p >= 0));
  for (let i = 1; i < lines.length; i++) {
    let d: any;
    try {
      d = JSON.parse(lines[i]);
    } catch {
      throw damaged(i + 1, 'not JSON');
    }
    if (!Number.isInteger(d?.end) || d.end < 0) throw damaged(i + 1, 'not a batch record');
    if (d.end < lastEnd) throw damaged(i + 1, 'the output offsets go backwards');
    lastEnd = d.end;
    if (Array.isArray(d.s)) {
      // Second-phase results: [batch, position] pairs settled, their rows ending at `end`.
      if (!d.s.every((x: unknown) => Array.isArray(x) && x.length === 2 && x.every((n) => Number.isInteger(n) && n >= 0))) throw damaged(i + 1, 'not a settle record');
      for (const [b, p] of d.s) settled.add(`${b}:${p}`);
      done.push({ b: 0, end: d.end });
      continue;
    }
    if (!Number.isInteger(d?.b) || d.b < 1 || !positions(d.redo) || !positions(d.wait) || (d.h !== undefined && typeof d.h !== 'string')) throw damaged(i + 1, 'not a batch record');
    done.push(d);
  }
  return { header: h, done, settled, validEnd: Buffer.byteLength(text.slice(0, end), 'utf8') };
}

function describeValue(v: unknown): string {
  return v === undefined || v === null ? '(not given)' : typeof v === 'string' ? v : JSON.stringify(v);
}

// ------------------------------------------------------------------------------------- the run

export async function runJob<I, R extends Record<string, unknown>>(spec: JobSpec<I, R>, ctx: Context): Promise<number> {
  const started = Date.now();
  const file = spec.file;
  const dry = Boolean(ctx.globals.dryRun);
  ctx.noticesOnTtyOnly = true;

  if ((spec.resume || spec.restart) && !file) throw usageError(`--${spec.resume ? 'resume' : 'restart'} continues a job that wrote to a file: give the same ${spec.verb === 'codes generate' ? '--out' : '--results'} FILE.`);
  if (spec.resume && spec.restart) throw usageError('Give --resume or --restart, not both.');

  // ---- validate the output side (no request yet)
  let lock: Lock | undefined;
  let out: DurableFile | undefined;
  /** On --resume FILE is opened (its torn tail cut) only once the input has been checked. */
  let openOut: (() => Promise<void>) | undefined;
  let journal: DurableFile | undefined;
  let header_: JournalHeader | undefined;
  const doneBefore = new Map<number, BatchRecord>(); // batch → what earlier runs left of it
  let settledBefore = new Set<string>(); // `batch:position` of pending items settled earlier
  let cleanup = async () => {};
  let finished: string | undefined;
  if (file && !dry) {
    const dir = dirname(file.path);
    try {
      await access(dir, constants.W_OK);
    } catch {
      throw usageError(`${file.flag} ${file.display}: cannot write in ${dir} (missing or not writable). Choose another path.`);
    }
    try {
      const st = await stat(file.path);
      if (st.isDirectory()) throw usageError(`${file.flag} ${file.display} is a directory; give a file path.`);
      // A pipe, a terminal, /dev/stdout: the job's file is cut back and re-read on --resume, and its
      // journal and lock go beside it. Print to stdout by leaving the flag out instead.
      if (!st.isFile()) throw usageError(`${file.flag} ${file.display} is not a regular file (a pipe or a device); a job's file must be one it can resume. To print the results, leave out ${file.flag}.`);
    } catch (e: any) {
      if (e instanceof CliError) throw e;
    }
    lock = acquireLock(file.path, file.flag, spec.resume || spec.restart);
    cleanup = async () => {
      await out?.close().catch(() => {});
      await journal?.close().catch(() => {});
      lock?.release();
    };
    try {
      const jpath = file.path + JOURNAL_SUFFIX;
      let saved = await readJournal(jpath, file.flag, file.display).catch(async (e) => {
        if (spec.restart) return undefined;
        throw e;
      });
      const size = await fileSize(file.path);
      if (spec.restart && (size !== undefined || (await fileSize(jpath)) !== undefined)) {
        if (size) {
          const aside = `${file.path}.abandoned-${new Date().toISOString().replace(/[:.]/g, '-')}`;
          await rename(file.path, aside);
          ctx.warn(`--restart: kept the earlier ${file.display} as ${basename(aside)}; starting over.`);
        }
        await rm(jpath, { force: true });
        saved = undefined;
      } else if (!saved && size && !spec.resume) {
        throw usageError(`${file.flag} ${file.display} exists and is never overwritten. Choose another file, or remove it.`);
      } else if (!saved && size && spec.resume) {
        // Nothing was interrupted: the job finished (a CI step that always adds --resume passes).
        finished = `${file.flag} ${file.display}: no interrupted job to resume (no ${basename(jpath)}): the job finished, nothing was sent. A new job needs another file.`;
      } else if (saved && !spec.resume) {
        throw usageError(`${file.flag} ${file.display}: an interrupted job left ${basename(jpath)}. Continue it with --resume, or start over with --restart.`);
      }
      if (finished) {
        // nothing to open
      } else if (saved) {
        // Resume: the same job, or refuse naming what changed.
        if (saved.header.verb !== spec.verb) throw usageError(`--resume: ${file.display} belongs to a \`${saved.header.verb}\` job, not \`${spec.verb}\`.`);
        for (const [flag, value] of Object.entries({ ...saved.header.identity, ...spec.identity })) {
          const was = saved.header.identity[flag];
          const now = spec.identity[flag];
          if (JSON.stringify(was) !== JSON.stringify(now)) {
            throw usageError(`--resume: the job in ${file.display} was started with ${flag} ${describeValue(was)}, not ${describeValue(now)}${value === undefined ? '' : ''}. Give the same ${flag} (or start over with --restart).`);
          }
        }
        if (saved.header.format !== file.format) throw usageError(`--resume: ${file.display} was written as ${saved.header.format}; give the same output format (-o ${saved.header.format}).`);
        header_ = saved.header;
        const hdr = header(file.format, spec.columns);
        let validEnd = saved.done.length ? saved.done[saved.done.length - 1].end : Buffer.byteLength(hdr);
        if (size === undefined) {
          if (saved.done.length) ctx.warn(`${file.display} is gone; its batches are fetched again with their original keys.`);
          await writeFileDurably(jpath, JSON.stringify(saved.header) + '\n');
          saved.done = [];
          saved.settled = new Set();
          validEnd = Buffer.byteLength(hdr);
        } else if (size < validEnd) {
          throw usageError(
            `${file.flag} ${file.display} holds ${size} bytes but the job journal recorded ${validEnd}: the file was cut or edited. ` +
              'Restore it, or start over with --restart (the file is kept with a .abandoned suffix).',
          );
        }
        const cut = size !== undefined && size > validEnd ? size - validEnd : 0;
        // A batch run again (its redo positions) adds a line: the last line's redo counts, waits add up.
        for (const d of saved.done) {
          if (!d.b) continue;
          const was = doneBefore.get(d.b);
          doneBefore.set(d.b, { redo: d.redo ?? [], wait: [...(was?.wait ?? []), ...(d.wait ?? [])], h: was?.h ?? d.h });
        }
        settledBefore = saved.settled;
        const journalEnd = saved.validEnd;
        const fileEnd = size === undefined || saved.done.length === 0 ? 0 : validEnd;
        openOut = async () => {
          if (journalEnd < ((await fileSize(jpath)) ?? 0)) {
            // A torn journal line: cut it so that the next line starts clean.
            const j = await DurableFile.open(jpath, { truncateTo: journalEnd });
            await j.close();
          }
          if (cut) ctx.warn(`${file.display}: cut ${cut} byte(s) after the last complete batch (a batch being written when the job stopped, or bytes added by hand); that batch is fetched again.`);
          out = await DurableFile.open(file.path, { truncateTo: fileEnd, failAfter: faultAt(ctx) });
          if (out.size === 0) await out.appendDurably(hdr);
        };
      } else {
        header_ = { v: 1, verb: spec.verb, job_id: randomBytes(8).toString('hex'), started: new Date().toISOString(), format: file.format, identity: spec.identity };
        await writeFileDurably(jpath, JSON.stringify(header_) + '\n');
        out = await DurableFile.open(file.path, { truncateTo: 0, failAfter: faultAt(ctx) });
        await out.appendDurably(header(file.format, spec.columns));
      }
      if (!finished) journal = await DurableFile.open(jpath);
    } catch (e) {
      await cleanup();
      throw e;
    }
    if (finished) {
      await cleanup();
      ctx.info(finished);
      return ExitCode.OK;
    }
  }
  const jobId = header_?.job_id ?? randomBytes(8).toString('hex');

  try {
    // ---- the input's first batch is read (and checked) before the first request
    const src = spec.source()[Symbol.asyncIterator]();
    let first: IteratorResult<I[]>;
    try {
      first = await src.next();
    } catch (e) {
      throw e;
    }
    const api = await ctx.api();
    if (dry) {
      if (spec.dryRunNote) ctx.info(spec.dryRunNote);
      if (!first.done) {
        const tools = makeTools(spec, ctx, api, (l) => ctx.info(l));
        await spec.process({ number: 1, items: first.value, key: `${jobId}-1` }, tools);
      }
      return ExitCode.OK;
    }
    await spec.confirm?.();
    ctx.trapInterrupt();

    // ---- run
    const weight = spec.weight ?? ((items: I[]) => items.length);
    let earlier = 0;
    const progress = createProgress(ctx, { total: spec.total ?? NaN, unit: spec.unit, label: spec.verb });
    const restoreNotices = routeNotices(ctx, progress);
    const breaker: Breaker = { consecutive: 0 };
    const tools = makeTools(spec, ctx, api, (l) => progress.log(l), breaker);
    const counts: Record<string, number> = {};
    const failures: Failure[] = [];
    let invalid = 0;
    let notDone = 0;
    let failedBatches = 0;
    let failedUnits = 0;
    let lastFailure: string | undefined;
    let fatal: Failure | undefined;
    let writeError: any;
    let sourceError: any;
    let done = 0;
    let batches = 0;
    const stop = new AbortController();
    const signal = AbortSignal.any([ctx.signal, stop.signal]);
    breaker.onOpen = (f) => {
      progress.log(`${spec.verb}: the service stayed unavailable for ${breakerLimit(spec.concurrency)} requests in a row (last: ${f.message}); no new requests are started.`, true);
      // Ordered jobs (lookups) promise one record per input line: the rest fail at once, unsent.
      if (!spec.ordered) stop.abort();
    };
    const fileJob = Boolean(out || openOut);
    let opening: Promise<void> | undefined;
    const ensureOpen = () => (opening ??= openOut ? openOut() : Promise.resolve());
    const writer: RowWriter | undefined = fileJob
      ? undefined
      : (spec.stdoutWriter?.() ?? createRowWriter(ctx, { columns: spec.stdoutColumns ?? spec.columns.map((key) => ({ key })), format: spec.stdoutFormat }));
    // A bulk job to stdout whose reader goes away (`| head`): the job stops like on a full disk,
    // saying what was written and how to go on (main's quiet exit would hide undelivered results).
    const stdoutClosed = (e: any) => {
      writeError ??= e;
      stop.abort();
    };
    if (writer) ctx.trapOutputError?.(stdoutClosed);
    let fileRows: boolean | undefined;
    let chain: Promise<unknown> = Promise.resolve();

    // Group commit: batches that complete while a write is under way are written together, with
    // one fdatasync of FILE and then one of the journal for all of them; each batch's journal line
    // still follows its rows onto the disk, in file order.
    type Queued = { record: Record<string, unknown>; rows: R[]; resolve: () => void; reject: (e: unknown) => void };
    let queue: Queued[] = [];
    let flushing = false;
    const flush = async () => {
      flushing = true;
      while (queue.length) {
        const group = queue;
        queue = [];
        try {
          if (writeError) throw writeError;
          let text = '';
          let lines = '';
          fileRows ??= file!.format === 'json' ? out!.size > 2 : false;
          let end = out!.size;
          for (const g of group) {
            const t = encode(file!.format, spec.columns, g.rows, !fileRows);
            if (g.rows.length) fileRows = true;
            text += t;
            end += Buffer.byteLength(t);
            lines += JSON.stringify({ ...g.record, end }) + '\n';
          }
          if (text) await out!.appendDurably(text);
          await journal!.appendDurably(lines);
          for (const g of group) g.resolve();
        } catch (e) {
          writeError ??= e;
          for (const g of group) g.reject(e);
        }
      }
      flushing = false;
    };
    /** Write rows durably, then journal them with `record` (file jobs), or print them (stdout jobs). */
    const commit = (record: Record<string, unknown>, rows: R[]): Promise<void> => {
      // Fields in the order of the columns, whatever order the spec built them in.
      if (!columnOrder(rows[0], spec.columns)) rows = rows.map((r) => Object.fromEntries(spec.columns.map((c) => [c, r[c]])) as R);
      if (fileJob) {
        return new Promise<void>((resolve, reject) => {
          queue.push({ record, rows, resolve, reject });
          if (!flushing) void flush();
        });
      }
      const p = chain.then(async () => {
        if (writeError) throw writeError;
        for (const r of rows) writer!.write(r);
        await drained(ctx);
        if (writeError) throw writeError;
      });
      chain = p.catch(() => {});
      return p;
    };
    const count = (rows: R[]) => {
      for (const r of rows) {
        const s = spec.status(r);
        counts[s] = (counts[s] ?? 0) + 1;
      }
    };

    let yielded = 0;
    let handled = 0;
    let sourceDone = false;
    let redoLeft = false;
    /** Items left to the second phase (settle), in input order of their batches' completion. */
    const pending: PendingItem<I>[] = [];
    // Ordered jobs: each batch gets a turn that opens when the batch before it has been written.
    let lastTurn: Promise<void> = Promise.resolve();
    const turn = (): { wait: Promise<void>; done: () => void } => {
      const wait = lastTurn;
      let done!: () => void;
      lastTurn = new Promise<void>((r) => (done = r));
      return { wait, done };
    };
    // On --resume nothing is sent until the input has been checked against the digests of the
    // batches done earlier (up to the last of them): batches to run before that point are held.
    const lastDone = Math.max(0, ...doneBefore.keys());
    type Planned = Batch<I> & { positions?: number[]; turn?: { wait: Promise<void>; done: () => void }; digest?: string };
    /** FILE open for the job (after the input was checked, on --resume); false when that failed. */
    const opened = async () => {
      try {
        await ensureOpen();
        return true;
      } catch (e) {
        writeError ??= e;
        stop.abort();
        return false;
      }
    };
    async function* plan(): AsyncGenerator<Planned> {
      let n = 0;
      let r: IteratorResult<I[]> = first;
      let held: Planned[] = [];
      try {
        for (;;) {
          if (r.done) break;
          n++;
          const prev = doneBefore.get(n);
          const digest = fileJob ? digestOf(r.value) : undefined;
          if (prev === undefined) {
            yielded++;
            held.push({ number: n, items: r.value, key: `${jobId}-${n}`, turn: spec.ordered ? turn() : undefined, digest });
          } else {
            if (prev.h !== undefined && prev.h !== digest) throw inputChanged(spec, n, r.value);
            const open = prev.wait.filter((p) => !settledBefore.has(`${n}:${p}`) && r.value[p] !== undefined);
            for (const p of open) pending.push({ item: r.value[p], batch: n, position: p });
            const some = (ps: number[]) => (ps.length ? weight(ps.map((i) => r.value[i]).filter((x) => x !== undefined)) : 0);
            earlier += weight(r.value) - some(prev.redo) - some(open);
            progress.set(earlier + done);
            if (prev.redo.length) {
              yielded++;
              held.push({ number: n, items: prev.redo.map((i) => r.value[i]).filter((x) => x !== undefined), key: `${jobId}-${n}`, positions: prev.redo, digest });
            }
          }
          if (n >= lastDone) {
            if (!(await opened())) return;
            for (const b of held) yield b;
            held = [];
          }
          if (signal.aborted) return;
          r = await src.next();
        }
        if (!(await opened())) return;
        for (const b of held) yield b;
        sourceDone = true;
      } catch (e) {
        sourceError = e;
        stop.abort();
      }
    }

    await runPool(
      plan(),
      async (batch) => {
        handled++;
        try {
          await work(batch);
        } finally {
          batch.turn?.done();
        }
      },
      { concurrency: spec.concurrency, signal },
    );
    async function work(batch: Planned): Promise<void> {
      let res: BatchResult<R>;
      try {
        res = await spec.process(batch, tools);
        await batch.turn?.wait;
      } catch (e: any) {
        fatal = { kind: 'error', message: String(e?.message ?? e), exitCode: e?.exitCode ?? ExitCode.ERROR };
        stop.abort();
        return;
      }
      if (res.fatal) {
        fatal ??= res.fatal;
        stop.abort();
        return;
      }
      if (res.notDone) {
        notDone++;
        if ('failure' in res.notDone) {
          failures.push(res.notDone.failure);
          failedBatches++;
          failedUnits += weight(batch.items);
          lastFailure = res.notDone.failure.message;
        }
        return;
      }
      const at = (i: number) => (batch.positions ? batch.positions[i] : i);
      const redo = res.redo?.map(at);
      const wait = res.pending?.map(at);
      if (redo?.length) redoLeft = true;
      try {
        await commit({ b: batch.number, ...(redo?.length ? { redo } : {}), ...(wait?.length ? { wait } : {}), ...(batch.digest ? { h: batch.digest } : {}) }, res.rows);
      } catch (e) {
        writeError ??= e;
        stop.abort();
        return;
      }
      for (const i of res.pending ?? []) pending.push({ item: batch.items[i], batch: batch.number, position: at(i) });
      batches++;
      count(res.rows);
      failures.push(...(res.failures ?? []));
      invalid += res.invalid ?? 0;
      const some = (ps: number[] | undefined) => (ps?.length ? weight(ps.map((i) => batch.items[i])) : 0);
      done += weight(batch.items) - some(res.redo) - some(res.pending);
      progress.set(earlier + done);
    }

    // ---- the second phase, once every batch is done
    let unsettled = 0;
    const firstPhaseDone = sourceDone && yielded === handled && !fatal && !writeError && !sourceError && notDone === 0 && !signal.aborted;
    if (spec.settle && pending.length && firstPhaseDone) {
      const open = new Set(pending);
      const settleTools: SettleTools<I, R> = {
        ...tools,
        async commit(results) {
          if (!results.length) return;
          const s = results.filter((x) => !x.failure).map((x) => [x.of.batch, x.of.position]);
          await commit({ s }, results.map((x) => x.row));
          for (const x of results) {
            open.delete(x.of);
            if (x.failure) {
              failures.push(x.failure);
              redoLeft = true;
            } else done += weight([x.of.item]);
          }
          count(results.map((x) => x.row));
          progress.set(earlier + done);
        },
      };
      try {
        await spec.settle(pending, settleTools);
      } catch (e: any) {
        if (e === writeError) {
          // reported below
        } else fatal ??= { kind: 'error', message: String(e?.message ?? e), exitCode: e?.exitCode ?? ExitCode.ERROR };
      }
      unsettled = open.size;
    } else if (spec.settle) unsettled = pending.length;
    await chain;
    progress.stop();
    restoreNotices();
    if (!writeError) {
      try {
        await writer?.end();
        await drained(ctx);
      } catch (e) {
        writeError ??= e;
      }
    }

    const stats: JobStats = { earlier, done, total: spec.total, batches, failedBatches, failedUnits, lastFailure, elapsedMs: Date.now() - started };
    const where = file ? file.display : 'stdout';
    const text = spec.describe(counts, stats);
    const resume = file ? `${spec.command} --resume` : spec.stdoutResumeHint?.(stats);
    const how = resume ? ` To continue, run:\n  ${resume}` : '';
    const complete = sourceDone && yielded === handled && !fatal && !writeError && !sourceError && notDone === 0 && unsettled === 0;

    // A usage error from the output layer (e.g. --fields naming no field of the rows) is the user's to fix.
    if (writeError instanceof CliError) throw writeError;
    if (writeError) {
      const closed = !fileJob && writeError.code === 'EPIPE';
      throw new CliError(
        `${spec.verb}: writing ${where} failed: ${writeError.code ? `${writeError.code} (${closed ? 'the reader closed the pipe' : String(writeError.message).replace(/^[A-Z]+: /, '')})` : writeError.message}. ${text}; ` +
          (closed ? `the job stopped there (results of requests in flight were not printed). ` : `every batch written before it is kept. Make room (or fix the file's disk), then continue:`) +
          (resume ? `${closed ? 'To continue, run:' : ''}\n  ${resume}` : ''),
        ExitCode.ERROR,
      );
    }
    if (sourceError?.inputChanged) throw sourceError;
    if (sourceError) {
      const msg = sourceError instanceof CliError ? sourceError.message : String(sourceError?.message ?? sourceError);
      throw new CliError(`${msg} ${text} before it.${file ? ` Fix the input, then continue:\n  ${resume}` : ''}`, sourceError?.exitCode ?? ExitCode.USAGE);
    }
    if (fatal) {
      throw new CliError(`${spec.verb}: ${fatal.message} (${text}).${file && batches ? how : ''}`, fatal.exitCode, undefined, fatal.status);
    }
    if (ctx.signal.aborted && (!complete || redoLeft)) {
      ctx.warn(`interrupted: ${text} → ${where}.${how}`);
      return ExitCode.INTERRUPTED;
    }
    if (complete && !redoLeft) {
      // Nothing left for --resume: close the job (the journal and lock go, a JSON array is closed).
      if (out && file) {
        if (file.format === 'json') await out.appendDurably(']\n');
        await journal?.close();
        await rm(file.path + JOURNAL_SUFFIX, { force: true });
      }
    }
    const failed = failures.length > 0 || invalid > 0 || notDone > 0 || unsettled > 0;
    const line = `${spec.verb}: ${text} in ${formatDuration(stats.elapsedMs)}${file ? ` → ${file.display}` : ''}.`;
    const exit = (code: number) => spec.exitCode?.(code, failures) ?? code;
    if (!failed) {
      ctx.info(line);
      return exit(ExitCode.OK);
    }
    const redoable = failures.length > 0 || notDone > 0 || unsettled > 0;
    ctx.warn(line + (invalid ? (spec.invalidHint ?? ' Fix the invalid rows and run them again.') : '') + (redoable && resume ? ` To retry what failed, run:\n  ${resume}` : ''));
    if (!invalid && failures.length && failures.every((f) => f.kind === 'unavailable')) return exit(ExitCode.UNAVAILABLE);
    return exit(ExitCode.PARTIAL);
  } finally {
    await cleanup();
  }
}

/** --resume over an input that differs from the first run's in a batch done earlier: exit 2, nothing sent. */
function inputChanged(spec: JobSpec<any, any>, n: number, items: unknown[]): CliError {
  const lines = linesOf(items);
  const e = new CliError(
    `--resume: ${spec.input ?? 'the input'} is not what the job was started with: batch ${n}${lines ? ` (${lines})` : ''} differs from the rows sent then ` +
      `(the file was edited, or other rows were piped in). Nothing was sent. Give the same input, or start over with --restart.`,
    ExitCode.USAGE,
  );
  (e as any).inputChanged = true;
  return e;
}

function faultAt(ctx: Context): number | undefined {
  const v = ctx.io.env.BOOKDIST_FAULT_ENOSPC_AT;
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
}

/**
 * Consecutive requests that stayed unavailable after their retries (no answer of any kind in
 * between) before a job stops starting new work: a service gone for good fails a few batches, not
 * every remaining one (which at several seconds of retries each could take hours).
 */
function breakerLimit(concurrency: number): number {
  return concurrency + 2;
}

interface Breaker {
  consecutive: number;
  open?: Failure;
  onOpen?(f: Failure): void;
}

function makeTools<I, R extends Record<string, unknown>>(spec: JobSpec<I, R>, ctx: Context, api: ApiClient, log: (l: string) => void, breaker?: Breaker): JobTools {
  const retries = ctx.globals.retries;
  return {
    api,
    ctx,
    log,
    call: async (name, args, headers) => {
      // The service stayed unavailable: what is left fails at once, unsent (--resume sends it).
      if (breaker?.open) return { ok: false, failure: breaker.open, uncertainRetries: 0 };
      const r = await callWithRetry(api, name, args, {
        retries,
        sleep: ctx.clock.sleep,
        signal: ctx.signal,
        headers,
        onRetry: ({ attempt, reason, waitMs }) => {
          if (waitMs >= 2000) log(`${spec.verb}: ${reason}; retry ${attempt} of ${retries} in ${(waitMs / 1000).toFixed(1)}s`);
        },
      });
      if (breaker) {
        if (r.ok) breaker.consecutive = 0;
        else if (!r.interrupted && r.failure.kind === 'unavailable' && ++breaker.consecutive >= breakerLimit(spec.concurrency) && !breaker.open) {
          breaker.open = r.failure;
          breaker.onOpen?.(r.failure);
        }
      }
      return r;
    },
  };
}

/** While the bar is drawn, notices and warnings go above it instead of over it. */
function routeNotices(ctx: Context, progress: Progress): () => void {
  const { info, warn } = ctx;
  ctx.info = (m) => {
    if (!ctx.globals.quiet) progress.log(m);
  };
  ctx.warn = (m) => progress.log(m, true);
  return () => {
    ctx.info = info;
    ctx.warn = warn;
  };
}

async function drained(ctx: Context): Promise<void> {
  const out = ctx.io.stdout as any;
  if (!out.writableNeedDrain) return;
  await new Promise<void>((res) => {
    const done = () => {
      out.off('drain', done);
      out.off('error', done);
      out.off('close', done);
      res();
    };
    out.once('drain', done);
    out.once('error', done);
    out.once('close', done);
  });
}

function columnOrder(row: Record<string, unknown> | undefined, columns: readonly string[]): boolean {
  if (!row) return true;
  const keys = Object.keys(row);
  return keys.length === columns.length && keys.every((k, i) => k === columns[i]);
}

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

/** What one item of a one-request-per-item batch came to. */
export type ItemOutcome<R> = { row: R; invalid?: boolean; failure?: Failure } | { interrupted: true } | { pending: true };

/**
 * Run a batch one item at a time (row jobs: one request per row). Invalid rows count for exit 6;
 * failed rows are written with their failure and left for --resume to send again; an interrupt
 * (during a retry wait, or between two rows) leaves the rest of the batch to --resume, so a big
 * batch never delays a Ctrl-C by more than the request in flight.
 */
export async function eachItem<I, R>(items: I[], one: (item: I, index: number) => Promise<ItemOutcome<R>>, job: Pick<JobTools, 'log' | 'ctx'>): Promise<BatchResult<R>> {
  const rows: R[] = [];
  const redo: number[] = [];
  const pending: number[] = [];
  const failures: Failure[] = [];
  let invalid = 0;
  for (let i = 0; i < items.length; i++) {
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
export function failedRow<R>(r: Outcome, make: (status: 'failed', message: string) => R, where: string): ItemOutcome<R> {
  if (!r.ok && r.interrupted) return { interrupted: true };
  const f = r.ok ? failureOf(r.response) : r.failure;
  return { row: make('failed', f.message), failure: { ...f, message: `${where}: ${f.message}` } };
}

/** "N row(s): 3 ok, 1 invalid, ..., 7 done in an earlier run" from the counts of a row job. */
export function countsText(counts: Record<string, number>, stats: JobStats, noun: string, parts: Array<[status: string, label: string]>): string {
  const now = parts.reduce((a, [s]) => a + (counts[s] ?? 0), 0);
  return `${stats.earlier + now} ${noun}: ${parts.map(([s, label]) => `${counts[s] ?? 0} ${label}`).join(', ')}` + (stats.earlier ? `, ${stats.earlier} done in an earlier run` : '');
}
