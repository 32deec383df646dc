// `access allow|revoke --from-csv FILE`: one request per CSV row with bounded concurrency, one
// result per row (row, status, message) streamed to stdout or --results FILE, resumable.
//
// Statuses: ok; already (the row was already in the desired state: not a failure); invalid (bad
// values, nothing sent); failed (the service refused, or stayed unavailable after retries).
// Repeating a row is harmless by the access state table (allow on "has access" answers "already
// has access", revoke on "no access" answers "Purchase record not found"), so rows are retried
// after dropped connections too, and --resume re-sends every row without a final result. The
// status is what the service answered last: a row whose first answer was lost and whose repeat
// answered "already" is reported as already (its message says the first attempt may have done it).
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Context } from '../context.js';
import { ExitCode, usageError } from '../errors.js';
import * as v from '../validate/index.js';
import { readAll } from '../util/io.js';
import { createRowWriter, type Column } from '../output/index.js';
import { csvLine, csvObjects, CsvError, parseCsv } from './csv.js';
import { DurableFile, fileSize } from './durable.js';
import { runPool } from './pool.js';
import { callWithRetry, failureOf, type Failure } from './retry.js';
import { createProgress } from './progress.js';
import { inputError } from './lines.js';
import { confirm } from '../commands/confirm.js';

export type AccessAction = 'allow' | 'revoke';

export interface AccessCsvOptions {
  action: AccessAction;
  file: string;
  results?: string;
  resume: boolean;
  concurrency: number;
  /** The flags to repeat in the resume hint. */
  argv: string[];
}

type Status = 'ok' | 'already' | 'invalid' | 'failed';

interface Result {
  row: number;
  status: Status;
  message: string;
  hash_id: string;
  username: string;
}

const RESULT_COLUMNS = ['row', 'status', 'message', 'hash_id', 'username'] as const;
const FINAL: Status[] = ['ok', 'already', 'invalid'];

function bool(value: string, flag: string): boolean | undefined {
  const s = value.trim().toLowerCase();
  if (s === '') return undefined;
  if (['true', 'yes', 'y', '1'].includes(s)) return true;
  if (['false', 'no', 'n', '0'].includes(s)) return false;
  throw usageError(`${flag} ${value}: give true or false.`);
}

/** The payload of one row, or throws a usage error naming the column. */
function payloadOf(action: AccessAction, r: Record<string, string>): Record<string, unknown> {
  const hash_id = v.hashId(r.hash_id ?? '', 'hash_id');
  const username = v.username(r.username ?? '', 'username');
  if (action === 'revoke') return { hash_id, username };
  const p: Record<string, unknown> = { hash_id, username, price: v.price(r.price ?? '', 'price') };
  if (r.expiration_date) p.expiration_date = v.dateTime(r.expiration_date, 'expiration_date');
  if (r.email) p.email = v.email(r.email, 'email');
  const send = bool(r.send_email ?? '', 'send_email');
  if (send !== undefined) p.send_email = send;
  return p;
}

/** Rows with a final result in an earlier run's results file (NDJSON or CSV). */
async function finishedRows(path: string): Promise<{ done: Set<number>; validEnd: number; format: 'ndjson' | 'csv' }> {
  const text = await readFile(path, 'utf8');
  const done = new Set<number>();
  // Only complete lines count: a kill mid-write leaves a torn last line, cut off on resume.
  const validEnd = Buffer.byteLength(text.slice(0, text.lastIndexOf('\n') + 1), 'utf8');
  const complete = text.slice(0, text.lastIndexOf('\n') + 1);
  if (complete.startsWith('row,')) {
    const records = parseCsv(complete);
    const header = records[0]?.fields ?? [];
    const ri = header.indexOf('row');
    const si = header.indexOf('status');
    for (const r of records.slice(1)) if (FINAL.includes(r.fields[si] as Status)) done.add(Number(r.fields[ri]));
    return { done, validEnd, format: 'csv' };
  }
  for (const line of complete.split('\n')) {
    if (!line.trim()) continue;
    try {
      const o = JSON.parse(line);
      if (FINAL.includes(o.status)) done.add(Number(o.row));
    } catch {
      /* not a result line */
    }
  }
  return { done, validEnd, format: 'ndjson' };
}

export async function runAccessCsv(o: AccessCsvOptions, ctx: Context): Promise<number> {
  const required = o.action === 'allow' ? ['hash_id', 'username', 'price'] : ['hash_id', 'username'];
  let text: string;
  try {
    text = o.file === '-' ? await readAll(ctx.io.stdin) : await readFile(resolve(ctx.io.cwd, o.file), 'utf8');
  } catch (e) {
    throw inputError(e, o.file, '--from-csv');
  }
  let parsed;
  try {
    parsed = csvObjects(text, required);
  } catch (e) {
    if (e instanceof CsvError) throw usageError(`--from-csv ${o.file}: ${e.message}.`);
    throw e;
  }
  const rows = parsed.rows;
  if (!rows.length) throw usageError(`--from-csv ${o.file}: no rows under the header (columns: ${required.join(',')}${o.action === 'allow' ? '[,expiration_date,email,send_email]' : ''}).`);

  if (o.resume && !o.results) throw usageError('--resume needs the --results FILE of the interrupted run.');
  let skip = new Set<number>();
  let file: DurableFile | undefined;
  let fileFormat: 'ndjson' | 'csv' = 'ndjson';
  const resultsPath = o.results ? resolve(ctx.io.cwd, o.results) : undefined;
  if (resultsPath) {
    const size = await fileSize(resultsPath);
    const wantCsv = ctx.globals.output === 'csv' || /\.csv$/i.test(resultsPath);
    fileFormat = wantCsv ? 'csv' : 'ndjson';
    if (size && !o.resume) throw usageError(`--results ${o.results} exists. Continue that job with --resume, or choose another file.`);
    if (o.resume && size) {
      const prev = await finishedRows(resultsPath);
      skip = prev.done;
      fileFormat = prev.format;
      file = await DurableFile.open(resultsPath, { truncateTo: prev.validEnd });
      if (prev.validEnd === 0 && fileFormat === 'csv') await file.append(csvLine([...RESULT_COLUMNS]));
    } else {
      file = await DurableFile.open(resultsPath, { truncateTo: 0 });
      if (fileFormat === 'csv') await file.appendDurably(csvLine([...RESULT_COLUMNS]));
    }
  }
  const todo = rows.filter((r) => !skip.has(r.line));
  if (o.action === 'revoke' && todo.length) {
    await confirm(ctx, `Revoke access for ${todo.length} row(s) of ${o.file}?`);
  }
  ctx.noticesOnTtyOnly = true; // bulk job: a script's stderr holds only errors
  const api = await ctx.api();
  if (ctx.globals.dryRun) {
    const first = todo.find((r) => {
      try {
        payloadOf(o.action, r.values);
        return true;
      } catch {
        return false;
      }
    });
    ctx.info(`(dry run: ${todo.length} row(s) would be sent)`);
    if (first) await api.call(`access.${o.action}`, { payload: payloadOf(o.action, first.values) });
    return 0;
  }

  // Where results go: the durable file, or stdout in the chosen format.
  const columns: Column[] = RESULT_COLUMNS.map((key) => ({ key }));
  const out = file ? undefined : createRowWriter(ctx, { columns });
  const emitResult = async (x: Result) => {
    const r: Result = { row: x.row, status: x.status, message: x.message, hash_id: x.hash_id, username: x.username };
    if (file) {
      await file.appendDurably(fileFormat === 'csv' ? csvLine(RESULT_COLUMNS.map((c) => r[c])) : JSON.stringify(r) + '\n');
    } else {
      out!.write(r);
    }
  };

  ctx.trapInterrupt();
  const progress = createProgress(ctx, { total: rows.length, initial: rows.length - todo.length, unit: 'rows', label: o.action });
  const counts: Record<Status, number> = { ok: 0, already: 0, invalid: 0, failed: 0 };
  const failures: Failure[] = [];
  let interrupted = 0;
  const already = o.action === 'allow' ? /already has access/i : /purchase record not found/i;

  await runPool(
    todo,
    async (row) => {
      const base = { row: row.line, hash_id: row.values.hash_id ?? '', username: row.values.username ?? '' };
      let result: Result;
      let payload: Record<string, unknown>;
      try {
        if (row.extra) throw usageError('the row has more fields than the header');
        payload = payloadOf(o.action, row.values);
      } catch (e: any) {
        result = { ...base, status: 'invalid', message: String(e.message) };
        counts.invalid++;
        await emitResult(result);
        progress.tick();
        return;
      }
      const r = await callWithRetry(api, `access.${o.action}`, { payload }, { retries: ctx.globals.retries, sleep: ctx.clock.sleep, signal: ctx.signal });
      if (!r.ok) {
        if (r.interrupted) {
          interrupted++;
          return;
        }
        failures.push(r.failure);
        result = { ...base, status: 'failed', message: r.failure.message };
      } else if (r.response.status < 400) {
        result = { ...base, status: 'ok', message: String(r.response.body?.message ?? (o.action === 'allow' ? 'Access granted.' : 'Access revoked.')) };
      } else {
        const f = failureOf(r.response);
        if (already.test(f.message)) {
          // After a repeated request the lost first attempt may have done the work itself; the
          // status says what the service answered last, the message says it may have been us.
          result = {
            ...base,
            status: 'already',
            message: f.message + (r.uncertainRetries > 0 ? ' (after a repeated request: the first attempt, whose answer was lost, may have done it)' : ''),
          };
        } else {
          failures.push(f);
          result = { ...base, status: 'failed', message: f.message };
        }
      }
      counts[result.status]++;
      await emitResult(result);
      if (result.status === 'failed') progress.log(`row ${row.line}: ${result.message}`);
      progress.tick();
    },
    { concurrency: o.concurrency, signal: ctx.signal },
  );
  progress.stop();
  await out?.end();
  await file?.close();

  const skipped = rows.length - todo.length;
  const summary =
    `${rows.length} row(s): ${counts.ok} ok, ${counts.already} already ${o.action === 'allow' ? 'had access' : 'without access'}, ` +
    `${counts.invalid} invalid, ${counts.failed} failed` +
    (skipped ? `, ${skipped} done in an earlier run` : '') +
    '.';
  const resumeHint = o.results
    ? `bookdist access ${o.action} ${o.argv.join(' ')} --resume`
    : `bookdist access ${o.action} ${o.argv.join(' ')} (rows already done report "already"; add --results FILE to resume exactly)`;
  if (ctx.signal.aborted && (interrupted || counts.ok + counts.already + counts.invalid + counts.failed < todo.length)) {
    ctx.warn(`interrupted. ${summary} To continue, run:\n  ${resumeHint}`);
    return ExitCode.INTERRUPTED;
  }
  if (counts.failed || counts.invalid) {
    ctx.warn(
      summary +
        (counts.invalid ? ' Fix the invalid rows and run them again.' : '') +
        (counts.failed ? ` To retry just the failed rows, run:\n  ${o.results ? resumeHint : `${resumeHint}`}` : ''),
    );
    if (!counts.invalid && failures.every((f) => f.kind === 'unavailable')) return ExitCode.UNAVAILABLE;
    return ExitCode.PARTIAL;
  }
  ctx.info(summary);
  return ExitCode.OK;
}
