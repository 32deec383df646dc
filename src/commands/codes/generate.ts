// `bookdist codes generate`: any number of codes in batches, streamed to stdout or --out FILE. A
// short spec on the bulk job engine (src/bulk/job/), which makes it exclusive (a lock on
// FILE), exact (each batch fsynced before it is journalled as done; a batch cut short by a crash,
// kill or full disk is fetched again on --resume with its original Idempotency-Key, so the
// service hands back the codes it already made), interruptible and resumable. Every code the
// service returns is checked before it is written (./parts/batch.ts). A batch's items are the positions
// of its codes, so that a batch completed only in part leaves exactly the missing ones to --resume.
import type { Column } from '../../output/index.js';
import { resolve } from 'node:path';
import type { Context } from '../../context.js';
import type { VerbInput } from '../define.js';
import type { generate } from './generate.cmd.js';
import { usageError } from '../../errors.js';
import * as v from '../../validate/index.js';
import { batchesAhead, runJob, type BatchRecord, type JobSpec, type JobTools } from '../../bulk/engine.js';
import { jobCommand } from '../given.js';
import { generateBatch, type CodeRow } from './parts/batch.js';
import type { Payload } from '../../spec/contract.js';
import { CodeSet } from './parts/code-set.js';

type Fmt = 'csv' | 'tsv' | 'ndjson' | 'json' | 'table';

export interface Options {
  hashId: string;
  org: string;
  count: number;
  limitDays?: number;
  expires?: string;
  samples: boolean;
  label?: string;
  batchSize: number;
  concurrency: number;
  out?: string;
  resume: boolean;
  restart: boolean;
  format: Fmt;
  /** The command that generates `count` codes of this job: as given, with that --count (the resume hint's). */
  commandFor: (count: number) => string;
}

const COLUMNS = ['code', 'deactivation_date', 'limit_days', 'hash_id', 'batch'] as const;
/** The table of codes on a terminal: code, limit, expiry, batch. */
const TABLE_COLUMNS: Column[] = [
  { key: 'code', id: true },
  {
    key: 'limit_days',
    label: 'limit',
    format: (v) => (Number(v) > 0 ? `${Number(v)} day${Number(v) === 1 ? '' : 's'}` : 'unlimited'),
  },
  { key: 'deactivation_date', label: 'expires', format: (v) => (typeof v === 'string' && v ? v : 'never') },
  { key: 'batch', id: true },
];
/** The service's maximum codes per request. */
const MAX_BATCH = 1000;

export function parse({ opts, command }: VerbInput<typeof generate>, ctx: Context): Options {
  if (opts.hashId === undefined) throw usageError('Give the book with --hash-id.');
  if (opts.org === undefined || !opts.org.trim()) throw usageError('Give the organization with --org.');
  if (opts.count === undefined) throw usageError('Give the number of codes with --count.');
  const hashId = v.hashId(opts.hashId, '--hash-id');
  const count = v.positiveInt(opts.count, '--count', 100_000_000);
  const limitDays = opts.limitDays !== undefined ? v.nonNegativeInt(opts.limitDays, '--limit-days', 36_500) : undefined;
  const expires = opts.expires !== undefined ? v.dateTime(opts.expires, '--expires') : undefined;
  const batchSize = v.positiveInt(opts.batchSize, '--batch-size', MAX_BATCH);
  const concurrency = v.positiveInt(opts.concurrency, '--concurrency', 64);
  const resume = Boolean(opts.resume);
  const restart = Boolean(opts.restart);
  const out = opts.out;
  if ((resume || restart) && !out)
    throw usageError(
      `--${resume ? 'resume' : 'restart'} continues a job that wrote to a file: give the same --out FILE.`,
    );
  let format: Fmt;
  const g = ctx.globals;
  // stdout follows the tree's output model (a table on a terminal, TSV piped, rows through the
  // shared row writer); an --out file is CSV unless -o says otherwise.
  if (g.output && (g.output !== 'table' || !out)) format = g.output;
  else if (g.json) format = 'json';
  else if (!out && ctx.io.stdout.isTTY && count <= 1000) format = 'table';
  else format = out ? 'csv' : 'tsv';
  if (out && (g.fields || g.query))
    throw usageError(
      '--fields and --query shape what is printed on stdout; with --out the file keeps every column. Drop --out, or select columns from the file afterwards.',
    );
  const unknown = (g.fields ?? []).filter((f) => !(COLUMNS as readonly string[]).includes(f));
  if (unknown.length)
    throw usageError(`--fields ${unknown.join(',')}: no such field in a code. Fields: ${COLUMNS.join(', ')}.`);
  return {
    hashId,
    org: opts.org,
    count,
    limitDays,
    expires,
    samples: Boolean(opts.samples),
    label: opts.label,
    batchSize,
    concurrency,
    out,
    resume,
    restart,
    format,
    // --resume and --restart are the summary's to add; -o and --json come with the global flags.
    commandFor: (n) => jobCommand(command, { set: { count: n } }),
  };
}

/**
 * Each batch's first call, told to the ledger ahead (one fdatasync for a window of batches), as
 * generateBatch makes it: every batch on a first run; on --resume (`earlier`, from the journal)
 * those earlier runs left, each asking for the codes it still misses from the first one missing,
 * with that position's key.
 */
function tellAhead(
  o: Options,
  payloadBase: Omit<Payload<'codes.generate'>, 'count'>,
  batchCount: number,
): {
  earlier(batches: ReadonlyMap<number, BatchRecord>): void;
  tell(batch: { number: number; key: string }, job: JobTools): void;
} {
  let jobKey = '';
  const size = (n: number) => Math.min(o.batchSize, o.count - (n - 1) * o.batchSize);
  /** The batches this run sends, in order: number, codes asked, position of the first (0: the whole batch). */
  let sends: Array<{ n: number; count: number; at: number }> | undefined;
  /** On --resume: a batch's place in `sends`. */
  const place = new Map<number, number>();
  let window: ReturnType<typeof batchesAhead> | undefined;
  return {
    earlier(batches) {
      sends = [];
      for (let n = 1; n <= batchCount; n++) {
        const prev = batches.get(n);
        if (prev && !prev.redo.length) continue;
        place.set(n, sends.length + 1);
        sends.push(prev ? { n, count: prev.redo.length, at: prev.redo[0] } : { n, count: size(n), at: 0 });
      }
    },
    tell(batch, job) {
      // The planner keys batch n `<job>-n` (planner.ts).
      jobKey ||= batch.key.slice(0, -String(batch.number).length - 1);
      const list = sends;
      window ??= batchesAhead(list?.length ?? batchCount, (i) => {
        const b = list ? list[i - 1] : { n: i, count: size(i), at: 0 };
        return {
          name: 'codes.generate',
          args: { payload: { ...payloadBase, count: b.count } },
          headers: { 'idempotency-key': b.at ? `${jobKey}-${b.n}-at${b.at}` : `${jobKey}-${b.n}` },
        };
      });
      const i = list ? place.get(batch.number) : batch.number;
      if (i !== undefined) window(i, job);
    },
  };
}

export async function run(o: Options, ctx: Context): Promise<number> {
  const payloadBase = {
    hash_id: o.hashId,
    org: o.org,
    limit_days: o.limitDays,
    expiration_date: o.expires,
    samples: o.samples ? true : undefined,
    label: o.label,
  };
  const batchCount = Math.ceil(o.count / o.batchSize);
  // Codes the job holds (those of earlier runs read back from FILE on --resume): each is written
  // once. A compact exact set: a Set of a million strings was most of a long job's memory.
  const seen = new CodeSet();
  /** Codes of batches completed only in part in this run (left to --resume). */
  let incomplete = 0;
  const ahead = tellAhead(o, payloadBase, batchCount);
  const spec: JobSpec<number, CodeRow> = {
    verb: 'codes generate',
    columns: COLUMNS,
    unit: 'codes',
    total: o.count,
    async *source() {
      for (let b = 1; b <= batchCount; b++)
        yield Array.from({ length: Math.min(o.batchSize, o.count - (b - 1) * o.batchSize) }, (_, i) => i);
    },
    // Journals of earlier versions digested a batch as [its size]: the same digest keeps them resumable.
    digestOf: (items) => [items.length],
    earlierRow: (row) => void seen.add(String(row.code)),
    earlierBatches: (batches) => ahead.earlier(batches),
    expectedRows: (st) => st.earlier + st.done,
    process: async (batch, job) => {
      ahead.tell(batch, job);
      const res = await generateBatch(
        { number: batch.number, asked: batch.items.length, first: batch.positions?.[0] ?? 0, key: batch.key },
        job,
        payloadBase,
        seen,
        (c) => ({
          code: c.code as string,
          deactivation_date: typeof c.deactivation_date === 'string' ? c.deactivation_date : null,
          limit_days: typeof c.limit_days === 'number' ? c.limit_days : (o.limitDays ?? 0),
          hash_id: o.hashId,
          batch: batch.number,
        }),
      );
      incomplete += res.redo?.length ?? 0;
      return res;
    },
    status: () => 'code',
    describe: (_counts, st) => {
      const now = st.done;
      const failed = st.failedBatches
        ? `; ${st.failedBatches} batch(es) failed (${st.failedUnits} codes not generated; last error: ${st.lastFailure})`
        : '';
      const missing = incomplete ? `; ${incomplete} code(s) of incomplete batches left to --resume` : '';
      if (st.earlier)
        return `${st.earlier + now} of ${o.count} codes (${st.earlier} from an earlier run, ${now} now)${failed}${missing}`;
      return `${now} of ${o.count} codes generated for ${o.hashId}${failed}${missing}`;
    },
    file: o.out
      ? {
          path: resolve(ctx.io.cwd, o.out),
          flag: '--out',
          display: o.out,
          format: o.format === 'table' ? 'csv' : o.format,
        }
      : undefined,
    fileFlag: '--out',
    stdoutFormat: o.format,
    // On a terminal one line per code, within 80 columns (the book is the same for every code: it
    // stays in TSV, CSV and JSON).
    stdoutColumns: o.format === 'table' && !ctx.globals.fields ? TABLE_COLUMNS : undefined,
    identity: {
      '--hash-id': o.hashId,
      '--org': o.org,
      '--count': o.count,
      '--limit-days': o.limitDays ?? null,
      '--expires': o.expires ?? null,
      '--samples': o.samples,
      '--label': o.label ?? null,
      '--batch-size': o.batchSize,
    },
    resume: o.resume,
    restart: o.restart,
    concurrency: o.concurrency,
    command: o.commandFor(o.count),
    stdoutResumeHint: (st) => ({
      command: o.commandFor(o.count - st.done),
      note: 'the codes printed so far are valid; add --out FILE to make a job resumable',
    }),
    dryRunNote: `(dry run: ${batchCount} request(s) of at most ${o.batchSize} codes would be sent)`,
  };
  return runJob(spec, ctx);
}
