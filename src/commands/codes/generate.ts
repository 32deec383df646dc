// `bookdist codes generate`: any number of codes, in batches, with bounded concurrency, streamed
// to stdout or a file, durable per batch, resumable after a crash, kill -9 or Ctrl-C.
//
// Durability and resume (with --out FILE):
// - FILE.bookdist-job (NDJSON; its first line written atomically before the first request) records
//   the job's parameters and the service's code summary before the job, then one line per request
//   *before* it is sent: batch number, size and an Idempotency-Key. It is removed on completion.
// - Each batch's codes are appended to FILE in one write and fdatasync'ed before the batch counts
//   as done; batches are written in the order their responses arrive.
// - --resume checks the parameters, keeps every complete line of FILE (a torn last line from a
//   kill mid-write is cut off), and generates exactly count minus the codes already in FILE.
// - Requests in flight when the process died were (or will be) processed by the service, but
//   their codes never reached FILE. --resume first repeats every such request with its recorded
//   Idempotency-Key and size, so a service that honours the key answers with the codes it already
//   generated (exactly once); retries after a dropped connection reuse the key the same way.
//   The specification has no idempotency key; a service that ignores the header generates new
//   codes instead, and the final comparison of the code summary with the codes received (the
//   summary recorded at the start) reports how many were generated but never delivered.
import { rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { Context } from '../../context.js';
import type { VerbInput } from '../define.js';
import { CliError, ExitCode, usageError } from '../../errors.js';
import * as v from '../../validate/index.js';
import { DurableFile, fileSize, writeFileDurably } from '../../bulk/durable.js';
import { runPool } from '../../bulk/pool.js';
import { callWithRetry, failureOf, type Failure } from '../../bulk/retry.js';
import { createProgress } from '../../bulk/progress.js';
import { csvLine } from '../../bulk/csv.js';
import { tsvCell } from '../../output/format.js';
import { createRowWriter } from '../../output/index.js';
import { drained } from '../paging.js';
import { formatDuration } from '../../util/duration.js';

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
  format: Fmt;
  /** Flags to repeat in the resume hint. */
  argv: string[];
}

const COLUMNS = ['code', 'deactivation_date', 'limit_days', 'hash_id', 'batch'] as const;
const JOB_SUFFIX = '.bookdist-job';
/** Values that need no CSV quoting. */
const SAFE = /^[A-Za-z0-9:+.\-]*$/;

export function parse({ opts }: VerbInput, ctx: Context): Options {
  if (opts.hashId === undefined) throw usageError('Give the book with --hash-id.');
  if (opts.org === undefined || !String(opts.org).trim()) throw usageError('Give the organization with --org.');
  if (opts.count === undefined) throw usageError('Give the number of codes with --count.');
  const hashId = v.hashId(opts.hashId, '--hash-id');
  const count = v.positiveInt(opts.count, '--count', 100_000_000);
  const limitDays = opts.limitDays !== undefined ? v.nonNegativeInt(opts.limitDays, '--limit-days', 36_500) : undefined;
  const expires = opts.expires !== undefined ? v.dateTime(opts.expires, '--expires') : undefined;
  const batchSize = v.positiveInt(opts.batchSize ?? '1000', '--batch-size', 100_000);
  const concurrency = v.positiveInt(opts.concurrency ?? '4', '--concurrency', 64);
  const resume = Boolean(opts.resume);
  const out = opts.out !== undefined ? String(opts.out) : undefined;
  if (resume && !out) throw usageError('--resume continues a job that wrote to a file: give the same --out FILE.');
  let format: Fmt;
  const g = ctx.globals;
  // stdout follows the tree's output model (a table on a terminal, TSV piped, rows through the
  // shared row writer); an --out file is CSV unless -o says otherwise.
  if (g.output && (g.output !== 'table' || !out)) format = g.output;
  else if (g.json) format = 'json';
  else if (!out && ctx.io.stdout.isTTY && count <= 1000) format = 'table';
  else format = out ? 'csv' : 'tsv';
  if (out && (g.fields || g.query)) throw usageError('--fields and --query shape what is printed on stdout; with --out the file keeps every column. Drop --out, or select columns from the file afterwards.');
  const unknown = (g.fields ?? []).filter((f) => !(COLUMNS as readonly string[]).includes(f));
  if (unknown.length) throw usageError(`--fields ${unknown.join(',')}: no such field in a code. Fields: ${COLUMNS.join(', ')}.`);
  const argv = ['--hash-id', hashId, '--org', shellQuote(String(opts.org)), '--count', String(count)];
  if (limitDays !== undefined) argv.push('--limit-days', String(limitDays));
  if (opts.expires !== undefined) argv.push('--expires', shellQuote(String(opts.expires)));
  if (opts.samples) argv.push('--samples');
  if (opts.label !== undefined) argv.push('--label', shellQuote(String(opts.label)));
  if (batchSize !== 1000) argv.push('--batch-size', String(batchSize));
  if (concurrency !== 4) argv.push('--concurrency', String(concurrency));
  if (format !== 'csv' && format !== 'table') argv.push('-o', format);
  if (out) argv.push('--out', shellQuote(out));
  return {
    hashId,
    org: String(opts.org),
    count,
    limitDays,
    expires,
    samples: Boolean(opts.samples),
    label: opts.label !== undefined ? String(opts.label) : undefined,
    batchSize,
    concurrency,
    out,
    resume,
    format,
    argv,
  };
}

function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

interface JobState {
  version: 1;
  kind: 'codes.generate';
  params: {
    hash_id: string;
    org: string;
    count: number;
    limit_days: number | null;
    expiration_date: string | null;
    samples: boolean;
    label: string | null;
  };
  format: Fmt;
  started_at: string;
  /** Prefix of the Idempotency-Key of each request. */
  job_id: string;
  /** codes_generated of the account before the job, when the summary could be read. */
  summary_before: number | null;
}

interface CodeRow {
  code: string;
  deactivation_date: string | null;
  limit_days: number;
  hash_id: string;
  batch: number;
}

/** How rows look in each streaming format; `json` is an array with one element per line. */
const formats = {
  header(fmt: Fmt): string {
    if (fmt === 'csv') return csvLine([...COLUMNS]);
    if (fmt === 'tsv') return COLUMNS.join('\t') + '\n';
    if (fmt === 'json') return '[\n';
    return '';
  },
  row(fmt: Fmt, r: CodeRow, first: boolean): string {
    if (fmt === 'csv') return csvLine(COLUMNS.map((c) => r[c]));
    if (fmt === 'tsv') return COLUMNS.map((c) => tsvCell(r[c])).join('\t') + '\n';
    if (fmt === 'json') return (first ? '' : ',') + JSON.stringify(r) + '\n';
    return JSON.stringify(r) + '\n';
  },
  footer(fmt: Fmt): string {
    return fmt === 'json' ? ']\n' : '';
  },
  /** A complete line of a file: a code row (its code and batch), the header/footer, or junk. */
  parse(fmt: Fmt, line: string): { code: string; batch: number } | 'header' | 'footer' | undefined {
    if (fmt === 'csv' || fmt === 'tsv') {
      const sep = fmt === 'csv' ? ',' : '\t';
      const cells = line.split(sep);
      if (cells[0] === 'code') return 'header';
      if (cells.length !== COLUMNS.length || !cells[0]) return undefined;
      return { code: cells[0], batch: Number(cells[4]) || 0 };
    }
    if (fmt === 'json' && line === '[') return 'header';
    if (fmt === 'json' && line === ']') return 'footer';
    try {
      const o = JSON.parse(fmt === 'json' ? line.replace(/^,/, '') : line);
      return typeof o?.code === 'string' ? { code: o.code, batch: Number(o.batch) || 0 } : undefined;
    } catch {
      return undefined;
    }
  },
};

/** Scan FILE: the codes in complete lines, the last batch number, where the valid part ends. */
async function scanOutput(path: string, fmt: Fmt): Promise<{ codes: number; maxBatch: number; batches: Set<number>; validEnd: number; hasHeader: boolean; footer: boolean; junk: number }> {
  const batches = new Set<number>();
  let codes = 0;
  let maxBatch = 0;
  let validEnd = 0;
  let hasHeader = false;
  let footer = false;
  let junk = 0;
  let offset = 0;
  let rest: Buffer = Buffer.alloc(0);
  for await (const chunk of createReadStream(path)) {
    let buf: Buffer = rest.length ? Buffer.concat([rest, chunk as Buffer]) : (chunk as Buffer);
    let start = 0;
    for (;;) {
      const nl = buf.indexOf(10, start);
      if (nl < 0) break;
      const line = buf.toString('utf8', start, nl).replace(/\r$/, '');
      const lineEnd = offset + nl + 1;
      const p = formats.parse(fmt, line);
      if (p === 'header') {
        hasHeader = true;
        validEnd = lineEnd;
      } else if (p === 'footer') {
        footer = true;
      } else if (p) {
        codes++;
        maxBatch = Math.max(maxBatch, p.batch);
        batches.add(p.batch);
        validEnd = lineEnd;
      } else if (line.trim()) {
        junk++;
      }
      start = nl + 1;
    }
    offset += start;
    rest = buf.subarray(start);
  }
  return { codes, maxBatch, batches, validEnd, hasHeader, footer, junk };
}

interface Intent {
  b: number;
  n: number;
  k: string;
}

/** The job file: the state on its first line, then one intent per request (a torn last line is ignored). */
async function readState(path: string): Promise<{ state: JobState; intents: Intent[] } | undefined> {
  const { readFile } = await import('node:fs/promises');
  try {
    const lines = (await readFile(path, 'utf8')).split('\n');
    const state = JSON.parse(lines[0]) as JobState;
    const intents: Intent[] = [];
    for (const l of lines.slice(1)) {
      try {
        const i = JSON.parse(l);
        if (typeof i?.b === 'number' && typeof i?.n === 'number' && typeof i?.k === 'string') intents.push(i);
      } catch {
        /* torn line */
      }
    }
    return { state, intents };
  } catch (e: any) {
    if (e?.code === 'ENOENT') return undefined;
    throw new CliError(`${path}: unreadable job file (${e.message}). Remove it and the output file to start over.`, ExitCode.ERROR);
  }
}

function paramsOf(o: Options): JobState['params'] {
  return {
    hash_id: o.hashId,
    org: o.org,
    count: o.count,
    limit_days: o.limitDays ?? null,
    expiration_date: o.expires ?? null,
    samples: o.samples,
    label: o.label ?? null,
  };
}

async function summaryCount(ctx: Context, api: Awaited<ReturnType<Context['api']>>): Promise<number | null> {
  const r = await callWithRetry(api, 'codes.summary', {}, { retries: ctx.globals.retries, sleep: ctx.clock.sleep, signal: ctx.signal });
  if (r.ok && r.response.status < 400 && typeof r.response.body?.codes_generated === 'number') return r.response.body.codes_generated;
  return null;
}

export async function run(o: Options, ctx: Context): Promise<number> {
  ctx.noticesOnTtyOnly = true; // bulk job: a script's stderr holds only errors
  const api = await ctx.api();
  const started = Date.now();
  const payloadBase = {
    hash_id: o.hashId,
    org: o.org,
    limit_days: o.limitDays,
    expiration_date: o.expires,
    samples: o.samples ? true : undefined,
    label: o.label,
  };
  if (ctx.globals.dryRun) {
    // Prints the first request as a curl line and sends nothing (the client throws DryRun).
    ctx.info(`(dry run: ${Math.ceil(o.count / o.batchSize)} request(s) of at most ${o.batchSize} codes would be sent)`);
    await api.call('codes.generate', { payload: { ...payloadBase, count: Math.min(o.batchSize, o.count) } });
    return 0;
  }

  // ---- where the codes go
  const outPath = o.out ? resolve(ctx.io.cwd, o.out) : undefined;
  const jobPath = outPath ? outPath + JOB_SUFFIX : undefined;
  let file: DurableFile | undefined;
  let already = 0;
  let nextBatch = 1;
  let wroteRows = false;
  let state: JobState | undefined;
  let jobLog: DurableFile | undefined;
  const pending: Intent[] = [];
  if (outPath && jobPath) {
    const saved = await readState(jobPath);
    state = saved?.state;
    const size = await fileSize(outPath);
    if (o.resume) {
      if (!state) {
        if (size !== undefined) throw new CliError(`${o.out}: no interrupted job to resume (no ${basename(jobPath)}; the job may have completed).`, ExitCode.USAGE);
        throw new CliError(`${o.out}: no such file and no job to resume. Run without --resume to start.`, ExitCode.USAGE);
      }
      const want = paramsOf(o);
      const diff = (Object.keys(want) as Array<keyof typeof want>).filter((k) => JSON.stringify(want[k]) !== JSON.stringify(state!.params[k]));
      if (diff.length) {
        throw usageError(
          `--resume: the job in ${o.out} was started with different options (${diff.map((k) => `${k}: ${JSON.stringify(state!.params[k])}`).join(', ')}). Give the same options.`,
        );
      }
      if (state.format !== o.format) throw usageError(`--resume: ${o.out} was written as ${state.format}; give the same output format (${state.format === 'csv' ? 'no -o' : `-o ${state.format}`}).`);
      if (size === undefined) {
        // The output file is gone but the job is on record: start the file again.
        file = await DurableFile.open(outPath, { fresh: true });
        await file.appendDurably(formats.header(o.format));
      } else {
        const scan = await scanOutput(outPath, o.format);
        if (scan.junk) ctx.warn(`${o.out}: ignoring ${scan.junk} line(s) that are not codes.`);
        already = scan.codes;
        nextBatch = scan.maxBatch + 1;
        wroteRows = scan.codes > 0;
        for (const i of saved!.intents) if (!scan.batches.has(i.b)) pending.push(i);
        file = await DurableFile.open(outPath, { truncateTo: scan.validEnd });
        if (scan.validEnd < size && !scan.footer) ctx.info(`${o.out}: cut ${size - scan.validEnd} byte(s) of an incomplete last line.`);
        if (!scan.hasHeader) await file.append(formats.header(o.format));
      }
      if (size === undefined) pending.push(...saved!.intents);
      for (const i of saved!.intents) nextBatch = Math.max(nextBatch, i.b + 1);
      if (already > o.count) ctx.warn(`${o.out} already holds ${already} codes, more than --count ${o.count}.`);
      jobLog = await DurableFile.open(jobPath);
    } else {
      if (state) throw usageError(`${o.out}: an interrupted job left ${basename(jobPath)}; continue it with --resume, or remove both files to start over.`);
      if (size !== undefined && size > 0) throw usageError(`${o.out} exists; codes are valuable, so it is never overwritten. Choose another --out or remove the file.`);
      const before = await summaryCount(ctx, api);
      state = {
        version: 1,
        kind: 'codes.generate',
        params: paramsOf(o),
        format: o.format,
        started_at: new Date().toISOString(),
        job_id: randomBytes(8).toString('hex'),
        summary_before: before,
      };
      await writeFileDurably(jobPath, JSON.stringify(state) + '\n');
      jobLog = await DurableFile.open(jobPath);
      file = await DurableFile.open(outPath, { truncateTo: 0 });
      await file.appendDurably(formats.header(o.format));
    }
  }
  const toStdout = !file;
  // stdout: every format goes through the shared row writer (--fields, --query, one table style).
  const table = toStdout ? createRowWriter(ctx, { format: o.format, columns: COLUMNS.map((key) => ({ key })) }) : undefined;

  const remaining = Math.max(0, o.count - already);
  ctx.trapInterrupt();
  const progress = createProgress(ctx, { total: o.count, initial: already, unit: 'codes', label: 'codes' });
  let delivered = 0;
  let requested = 0;
  let uncertain = 0;
  let batches = 0;
  const failures: Array<Failure & { batch: number; size: number }> = [];
  let fatal: (Failure & { batch: number }) | undefined;
  let interruptedBatches = 0;

  // Batches are planned lazily: the next request asks for what is still neither delivered nor in
  // flight, so a service that answers with fewer codes than asked is still filled up.
  let inFlight = 0;
  let failedCodes = 0;
  const keyPrefix = state?.job_id ?? randomBytes(8).toString('hex');
  function* plan(): Generator<{ batch: number; size: number; key?: string }> {
    // First the requests an interrupted run sent without recording their codes: same key, same size.
    while (pending.length) {
      const i = pending.shift()!;
      if (remaining - delivered - inFlight - failedCodes <= 0) break;
      inFlight += i.n;
      yield { batch: i.b, size: i.n, key: i.k };
    }
    for (;;) {
      const open = remaining - delivered - inFlight - failedCodes;
      if (open <= 0) return;
      const size = Math.min(o.batchSize, open);
      inFlight += size;
      yield { batch: nextBatch++, size };
    }
  }

  /** One request (with retries); the codes come back already encoded, so the parsed answer dies here. */
  const fetchBatch = async (batch: number, size: number, key: string): Promise<{ bytes?: Buffer; rows?: CodeRow[]; got: number } | undefined> => {
    const r = await callWithRetry(
      api,
      'codes.generate',
      { payload: { ...payloadBase, count: size } },
      {
        retries: ctx.globals.retries,
        headers: { 'idempotency-key': key },
        sleep: ctx.clock.sleep,
        signal: ctx.signal,
        onRetry: (i) => {
          if (ctx.globals.debug) progress.log(`batch ${batch}: retry ${i.attempt} in ${formatDuration(i.waitMs)} (${i.reason})`);
        },
      },
    );
    uncertain += r.uncertainRetries;
    if (!r.ok) {
      if (r.interrupted) {
        interruptedBatches++;
        return undefined;
      }
      failures.push({ ...r.failure, batch, size });
      failedCodes += size;
      progress.log(`batch ${batch} (${size} codes) failed: ${r.failure.message}`);
      return undefined;
    }
    const res = r.response;
    if (res.status >= 400) {
      const f = failureOf(res);
      failedCodes += size;
      if (!fatal) fatal = { ...f, batch };
      // The service refused (bad book, no permission, invalid options): every batch would.
      throw new CliError(f.message, f.exitCode, undefined, f.status);
    }
    const codes: any[] = Array.isArray(res.body?.codes) ? res.body.codes : [];
    if (codes.length > size) ctx.warn(`batch ${batch}: the service returned ${codes.length} codes for ${size} asked; keeping all.`);
    let text = '';
    if (!table && o.format === 'csv') {
      // Fast path for the common case (fewer short-lived objects at 100,000s of codes): codes,
      // ISO dates and numbers never need CSV quoting; anything else goes through csvLine.
      const tail = `,${o.hashId},${batch}\n`;
      for (const c of codes) {
        const code = String(c.code);
        const dd = c.deactivation_date ?? '';
        const ld = typeof c.limit_days === 'number' ? c.limit_days : Number(c.limit_days ?? 0);
        text += SAFE.test(code) && SAFE.test(String(dd)) ? `${code},${dd},${ld}${tail}` : csvLine([code, c.deactivation_date ?? null, ld, o.hashId, batch]);
      }
      if (text) wroteRows = true;
      return { bytes: text ? Buffer.from(text, 'utf8') : undefined, got: codes.length };
    }
    const rows: CodeRow[] = [];
    for (const c of codes) {
      const row: CodeRow = {
        code: String(c.code),
        deactivation_date: c.deactivation_date ?? null,
        limit_days: typeof c.limit_days === 'number' ? c.limit_days : Number(c.limit_days ?? 0),
        hash_id: o.hashId,
        batch,
      };
      if (table) rows.push(row);
      else text += formats.row(o.format, row, !wroteRows && text === '');
    }
    if (text) wroteRows = true;
    return { bytes: text ? Buffer.from(text, 'utf8') : undefined, rows, got: codes.length };
  };

  const worker = async ({ batch, size, key: k }: { batch: number; size: number; key?: string }) => {
    requested++;
    const key = k ?? `${keyPrefix}-${batch}`;
    try {
      // Write-ahead: the request is on record (with its key) before the service can act on it.
      if (jobLog && !k) await jobLog.appendDurably(JSON.stringify({ b: batch, n: size, k: key }) + '\n');
      const done = await fetchBatch(batch, size, key);
      if (!done) return;
      if (done.bytes) {
        if (file) await file.appendDurably(done.bytes);
        else await writeStdout(ctx, done.bytes);
      }
      if (table && done.rows?.length) {
        for (const r of done.rows) table.write(r);
        await drained(ctx.io.stdout, ctx.signal);
      }
      delivered += done.got;
      batches++;
      progress.tick(done.got);
    } finally {
      // A short answer leaves the rest open again for a later request.
      inFlight -= size;
    }
  };

  let poolError: unknown;
  let rounds = 0;
  try {
    // More than one round only when the service answered with fewer codes than asked.
    for (;;) {
      rounds++;
      const before = delivered;
      const res = await runPool(plan(), worker, { concurrency: o.concurrency, signal: ctx.signal });
      if (res.interrupted || ctx.signal.aborted) break;
      if (delivered === before || remaining - delivered - failedCodes <= 0 || rounds > 1000) break;
    }
  } catch (e) {
    poolError = e;
  }
  progress.stop();
  if (table) await table.end();

  const total = already + delivered;
  const complete = total >= o.count;
  const where = o.out ?? 'stdout';
  const elapsed = formatDuration(Date.now() - started);
  const resumeHint = o.out ? `bookdist codes generate ${o.argv.join(' ')} --resume` : `bookdist codes generate ${o.argv.join(' ')}`.replace(/--count \d+/, `--count ${o.count - total}`);

  await jobLog?.close();
  if (file) {
    if (complete) {
      await file.append(formats.footer(o.format));
      await file.close();
      await rm(jobPath!, { force: true });
    } else {
      await file.close();
    }
  } else if (!table && complete) {
    await writeStdout(ctx, formats.footer(o.format));
  }

  // The service's summary should have grown by exactly what we received.
  if (complete && state?.summary_before !== null && state?.summary_before !== undefined) {
    const after = await summaryCount(ctx, api);
    if (after !== null) {
      const extra = after - state.summary_before - total;
      if (extra > 0) {
        ctx.warn(
          `the service's code summary grew by ${after - state.summary_before} during this job, but ${total} codes were received ` +
            `(codes generated but not delivered: ${extra}). Requests repeated after a dropped connection, timeout or kill ` +
            `(${uncertain} in this run) generate new codes when the service ignores Idempotency-Key; another job for this ` +
            'account may also have generated codes meanwhile. Undelivered codes cannot be recovered or redeemed by anyone.',
        );
      }
    }
  } else if (complete && uncertain) {
    ctx.warn(`${uncertain} request(s) were repeated after a dropped connection or timeout; if the service had processed them, it generated codes that never arrived (compare \`bookdist codes summary\`).`);
  }

  if (poolError) {
    if (fatal) {
      const msg = `codes generate: ${fatal.message}` + (total ? ` (${total} of ${o.count} codes were written to ${where})` : '');
      throw new CliError(msg, fatal.exitCode, undefined, fatal.status);
    }
    throw poolError;
  }
  if (ctx.signal.aborted && !complete) {
    ctx.warn(
      `interrupted: ${total} of ${o.count} codes written to ${where}` +
        (interruptedBatches ? ` (${interruptedBatches} batch(es) waiting to retry were abandoned)` : '') +
        `. To generate the remaining ${o.count - total}, run:\n  ${resumeHint}`,
    );
    return ExitCode.INTERRUPTED;
  }
  if (!complete) {
    const unavailable = failures.length > 0 && failures.every((f) => f.kind === 'unavailable');
    ctx.warn(
      `${failures.length} batch(es) failed (${o.count - total} codes not generated; last error: ${failures[failures.length - 1]?.message ?? 'unknown'}). ` +
        `${total} of ${o.count} codes were written to ${where}. To generate the rest, run:\n  ${resumeHint}`,
    );
    return delivered === 0 && unavailable ? ExitCode.UNAVAILABLE : ExitCode.PARTIAL;
  }
  // Not a TTY: nothing on stderr but errors.
  if (ctx.io.stderr.isTTY) ctx.info(
    `${o.resume && already ? `Resumed: ${already} codes were already in ${where}; generated ${delivered} more` : `Generated ${delivered} codes`}` +
      ` for ${o.hashId} in ${batches} request(s), ${o.concurrency} at a time, ${elapsed}` +
      (file ? ` → ${o.out}` : '') +
      '.',
  );
  return ExitCode.OK;
}

async function writeStdout(ctx: Context, text: string | Buffer): Promise<void> {
  if (!text.length) return;
  const out = ctx.io.stdout;
  if (!out.write(text)) {
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
}
