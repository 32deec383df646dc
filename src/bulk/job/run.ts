// The one job engine behind every bulk verb: a streamed source of batches → a bounded pool that
// runs each batch (the verb's spec makes the requests; the client retries them) → durable output
// plus a journal → progress → one summary line → the exit code. Its parts:
//
//   output-file.ts  FILE checked (never a link), locked, started or resumed (the journal read)
//   planner.ts      the batches to send, the input checked against the journal on --resume
//   worker.ts       a batch's result committed before it counts; the second phase (settle)
//   commit.ts       group commit to FILE and the journal, or stdout with every write acknowledged;
//                   rows that could not be written go to the rescue file (rescue.ts)
//   summary.ts      the summary line, exit code, resume command, CI summary and annotations
//
// Guarantees: exclusive (a lock per FILE), exact (a batch counts once fsynced and journalled; a
// torn batch is cut and fetched again with its original Idempotency-Key), interruptible (the
// first SIGINT/SIGTERM stops new batches, those in flight are written, the resume command printed,
// then death by the signal: src/cli/signals.ts), validated up front (FILE, the lock, the journal, the options of a resumed job and the
// first batch of the input, before the first request; a job refused then leaves no file behind).
import { randomBytes } from 'node:crypto';
import type { Context } from '../../context.js';
import type { ApiClient } from '../../api/client.js';
import { CliError, ExitCode, usageError } from '../../errors.js';
import { nodeFs } from '../../util/fs-safe.js';
import { runPool } from '../pool.js';
import { createProgress, type Progress } from '../progress.js';
import { FileCommitter, StdoutCommitter, type Committer } from './commit.js';
import { FileGone, prepareOutput, type JobFiles } from './output-file.js';
import type { JobService } from './journal.js';
import { plan } from './planner.js';
import { Rescue } from './rescue.js';
import { ending, reportToCi } from './summary.js';
import { makeTools, type Breaker } from './tools.js';
import { firstPhaseComplete, newJobState, statsOf, type JobSpec, type JobState } from './types.js';
import { Worker } from './worker.js';

export async function runJob<I, R extends Record<string, unknown>>(spec: JobSpec<I, R>, ctx: Context): Promise<number> {
  ctx.beginBulkJob();
  if ((spec.resume || spec.restart) && !spec.file)
    throw usageError(
      `--${spec.resume ? 'resume' : 'restart'} continues a job that wrote to a file: give the same ${spec.fileFlag ?? '--results'} FILE.`,
    );
  if (spec.resume && spec.restart) throw usageError('Give --resume or --restart, not both.');
  const fs = ctx.io.fs ?? nodeFs;
  const s = newJobState(spec, ctx);
  const dry = Boolean(ctx.globals.dryRun);
  const files = spec.file && !dry ? await prepareOutput(spec, spec.file, ctx, fs, await serviceOf(ctx)) : undefined;
  if (files?.finished) {
    await files.close();
    ctx.info(files.finished);
    return ExitCode.OK;
  }
  // The ledger records each item's write with the job's id (`ledger list --job`).
  s.jobId = ctx.beginLedgerJob(files?.header.job_id ?? randomBytes(8).toString('hex'));
  try {
    // The input's first batch is read (and checked) before the first request.
    const src = spec.source()[Symbol.asyncIterator]();
    const first = await src.next();
    const api = await ctx.api();
    if (dry) return await dryRun(s, api, first);
    await spec.confirm?.();
    ctx.trapInterrupt();
    return await run(s, files, api, src, first);
  } catch (e) {
    // Refused before its first request: no journal, lock or results file is left behind.
    if (!s.sent) await files?.discard();
    throw e;
  } finally {
    await files?.close();
  }
}

async function dryRun<I, R extends Record<string, unknown>>(
  s: JobState<I, R>,
  api: ApiClient,
  first: IteratorResult<I[]>,
): Promise<number> {
  if (s.spec.dryRunNote) s.ctx.info(s.spec.dryRunNote);
  if (!first.done)
    await s.spec.process(
      { number: 1, items: first.value, key: `${s.jobId}-1` },
      makeTools(s, api, (l) => s.ctx.info(l)),
    );
  return ExitCode.OK;
}

async function run<I, R extends Record<string, unknown>>(
  s: JobState<I, R>,
  files: JobFiles | undefined,
  api: ApiClient,
  src: AsyncIterator<I[]>,
  first: IteratorResult<I[]>,
): Promise<number> {
  const { spec, ctx } = s;
  const progress = createProgress(ctx, { total: spec.total ?? NaN, unit: spec.unit, label: spec.verb });
  const restoreNotices = routeNotices(ctx, progress);
  const rescue = new Rescue(ctx.io.env, spec.verb, ctx.io.fs ?? nodeFs);
  const committer: Committer<R> = files
    ? new FileCommitter(
        s,
        spec.file!,
        () => files.out!,
        files.journal!,
        rescue,
        files.chain,
        () => files.check(),
      )
    : new StdoutCommitter(s, rescue);
  // Stdout's reader went away or its disk is full: the job stops and says what was written.
  if (!files)
    ctx.trapOutputError((e) => {
      s.writeError ??= e;
      s.stop.abort();
    });
  const breaker: Breaker = { consecutive: 0, warn: (l) => progress.log(l, true) };
  const worker = new Worker(
    s,
    committer,
    makeTools(s, api, (l) => progress.log(l), breaker, rescue),
    progress,
  );
  let opening: Promise<void> | undefined;
  const opened = async () => {
    try {
      await (opening ??= files?.openOut?.((rows) => checkEarlierRows(s, rows)) ?? Promise.resolve());
      return true;
    } catch (e) {
      s.writeError ??= e;
      s.stop.abort();
      // Stryker disable next-line BooleanLiteral: equivalent, the job is stopped on the line before, and the pool starts no batch pulled after the stop
      return false;
    }
  };
  try {
    const earlier = files?.earlier ?? { batches: new Map(), settled: new Set() };
    if (spec.resume) spec.earlierBatches?.(earlier.batches);
    const batches = plan(s, src, first, earlier, opened, () => progress.setEarlier(s.earlier), Boolean(files));
    await runPool(batches, (b) => worker.run(b), { concurrency: spec.concurrency, signal: s.signal });
    if (spec.settle && s.pending.length && firstPhaseComplete(s) && !s.signal.aborted) await worker.settle();
    else if (spec.settle) s.unsettled = s.pending.length;
    await committer.end();
    // Before the summary: FILE must still be the file the job wrote (not deleted, not replaced).
    await files?.check().catch(async (e) => {
      if (!(e instanceof FileGone)) throw e;
      s.writeError ??= e;
      await e.rescue(rescue);
    });
  } finally {
    progress.stop();
    restoreNotices();
    await rescue.close();
  }
  return conclude(s, files, rescue);
}

async function conclude<I, R extends Record<string, unknown>>(
  s: JobState<I, R>,
  files: JobFiles | undefined,
  rescue: Rescue,
): Promise<number> {
  const end = ending(s, rescue);
  if (end.complete) await files?.complete(statsOf(s));
  reportToCi(s, end);
  if (end.error) throw end.error;
  if (end.code === ExitCode.OK) s.ctx.info(end.message);
  else s.ctx.warn(end.message);
  return end.code;
}

/**
 * The service and account a job's requests go to, as the journal records them (never a secret):
 * the base URL as configured (the embedded sandbox by its data directory: it has no address of
 * its own) and the username signing the requests.
 */
async function serviceOf(ctx: Context): Promise<JobService> {
  const cfg = await ctx.config();
  const account = cfg.username?.value ?? null;
  if (cfg.embedded) return { base_url: `embedded sandbox (${cfg.dataDir})`, account };
  return { base_url: (cfg.baseUrl?.value ?? '').replace(/\/+$/, ''), account };
}

/**
 * --resume: FILE must hold the rows the journal accounts for (a line removed from a journal
 * without digests would otherwise have its batch fetched, and written, twice). Nothing is sent yet.
 */
function checkEarlierRows<I, R extends Record<string, unknown>>(s: JobState<I, R>, rows: number): void {
  if (!s.spec.expectedRows) return;
  const want = s.spec.expectedRows({ ...statsOf(s), done: 0 });
  if (rows === want) return;
  const f = s.spec.file!;
  throw new CliError(
    `--resume: ${f.display} holds ${rows} row(s) where its job journal accounts for ${want}: the journal or the file was edited. ` +
      'Nothing was sent. Restore both as the job left them, or start over with --restart (the file is kept with a .abandoned suffix).',
    ExitCode.USAGE,
  );
}

/** While the bar is drawn, notices and warnings go above it instead of over it. */
function routeNotices(ctx: Context, progress: Progress): () => void {
  ctx.routeNotices((m, warning) => progress.log(m, warning));
  return () => ctx.routeNotices(undefined);
}
