// One batch of `codes generate`: every code the service returns is counted and checked before it
// is written. The answer must be the documented one (a 2xx JSON envelope with `success` true and
// a `codes` array), each code a string of the code shape, unique within the job. Then:
// - a short batch is completed by asking for the rest, with a new Idempotency-Key (the batch's key
//   and the position of the first code still missing, so that --resume asks again with the same
//   key and an honest service hands back the same codes);
// - a long one has only the asked number written, the others kept in the rescue file;
// - duplicates (of the batch or of codes the job already holds) are reported and not written;
// - entries that are not codes are kept in the rescue file (nothing the service returned is lost);
// - what cannot be completed stays pending in the journal (`redo`): --resume fetches it.
import type { ApiResponse } from '../../../api/answer.js';
import type { BatchResult, JobTools } from '../../../bulk/job/types.js';
import { failureOf, type Failure } from '../../../bulk/retry.js';
import { ExitCode } from '../../../errors.js';
import type { Payload } from '../../../spec/contract.js';
import type { CodeSet } from './code-set.js';

export interface CodeRow extends Record<string, unknown> {
  code: string;
  deactivation_date: string | null;
  limit_days: number;
  hash_id: string;
  batch: number;
}

/**
 * A redemption code as it can be typed and printed safely: letters, digits, `-` and `_` (the
 * sandbox's are `XXXX-XXXX-XXXX`; other deployments' are not shown, so the shape is not tied to it).
 */
const CODE_SHAPE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** Requests after the first that a short batch may take to be completed in one run. */
const COMPLETIONS = 3;

export interface BatchInput {
  number: number;
  /** How many codes the batch still needs. */
  asked: number;
  /** Position in the batch of the first code still needed (0 unless --resume completes it). */
  first: number;
  key: string;
}

interface Checked {
  rows: CodeRow[];
  /** Entries beyond those needed, and entries that are not codes: for the rescue file. */
  keep: Array<Record<string, unknown>>;
  notes: string[];
}

/** Why an answer is not the one the interface promises (undefined when it is). */
function answerProblem(res: ApiResponse): string | undefined {
  const b = res.body as { success?: unknown; codes?: unknown; text?: unknown } | undefined;
  if (res.status < 200 || res.status > 299)
    return `status ${res.status}${res.headers.location ? ` (Location: ${res.headers.location})` : ''}`;
  if (res.format !== 'json')
    return `status ${res.status} with a ${res.format} body (${res.headers['content-type'] ?? 'no content type'}): ${JSON.stringify(typeof b?.text === 'string' ? b.text.slice(0, 60) : '')}`;
  if (!b || b.success !== true) return `status ${res.status} with success ${JSON.stringify(b?.success)}`;
  if (!Array.isArray(b.codes)) return `status ${res.status} without a codes array`;
  return undefined;
}

function describeEntry(x: unknown): string {
  const s = x !== null && typeof x === 'object' && 'code' in x ? JSON.stringify(x.code) : JSON.stringify(x);
  return (s ?? String(x)).slice(0, 40);
}

/** The codes of one answer checked: those to write (at most `want`), what to keep aside, what to say. */
function checkCodes(
  codes: unknown[],
  want: number,
  seen: CodeSet,
  make: (c: Record<string, unknown>) => CodeRow,
  batch: number,
): Checked {
  const out: Checked = { rows: [], keep: [], notes: [] };
  const bad: unknown[] = [];
  let dups = 0;
  for (const c of codes) {
    const o = c as Record<string, unknown> | null;
    const ok =
      o !== null &&
      typeof o === 'object' &&
      typeof o.code === 'string' &&
      CODE_SHAPE.test(o.code) &&
      (o.deactivation_date === undefined || o.deactivation_date === null || typeof o.deactivation_date === 'string') &&
      (o.limit_days === undefined || Number.isInteger(o.limit_days));
    if (!ok) {
      bad.push(c);
      out.keep.push({ batch, not_a_code: c ?? null });
    } else if (seen.has(o.code as string)) dups++;
    else if (out.rows.length < want) {
      seen.add(o.code as string);
      out.rows.push(make(o));
    } else out.keep.push({ batch, extra: true, ...o });
  }
  if (bad.length)
    out.notes.push(
      `${bad.length} entr${bad.length === 1 ? 'y is' : 'ies are'} not a code (${bad.slice(0, 3).map(describeEntry).join(', ')}${bad.length > 3 ? ', ...' : ''}): kept in the rescue file, not written`,
    );
  if (dups) out.notes.push(`${dups} code(s) the job already holds (duplicates): not written`);
  const extra = out.keep.length - bad.length;
  if (extra)
    out.notes.push(
      `${extra} code(s) more than the ${want} asked: ${want} written, the other ${extra} kept in the rescue file`,
    );
  return out;
}

/**
 * Run a batch: ask, check, complete a short answer by asking for the rest (new key), and leave
 * what is still missing to --resume.
 */
export async function generateBatch(
  b: BatchInput,
  job: JobTools,
  payload: Omit<Payload<'codes.generate'>, 'count'>,
  seen: CodeSet,
  make: (c: Record<string, unknown>) => CodeRow,
): Promise<BatchResult<CodeRow>> {
  const rows: CodeRow[] = [];
  let failure: Failure | undefined;
  let interrupted = false;
  for (let attempt = 0; rows.length < b.asked && attempt <= COMPLETIONS && !failure; attempt++) {
    const at = b.first + rows.length;
    const want = b.asked - rows.length;
    const key = at === 0 ? b.key : `${b.key}-at${at}`;
    if (attempt > 0)
      job.log(`batch ${b.number}: asking for the ${want} code(s) still missing (Idempotency-Key ${key}).`);
    const r = await job.call('codes.generate', { payload: { ...payload, count: want } }, { 'idempotency-key': key });
    if (!r.ok) {
      interrupted = Boolean(r.interrupted);
      if (!interrupted) {
        failure = r.failure;
        job.log(`batch ${b.number} (${want} codes) failed: ${r.failure.message}`);
      }
      break;
    }
    // The service refused (bad book, no permission, invalid options): every batch would.
    if (r.response.status >= 400 && !rows.length && at === 0) return { rows: [], fatal: failureOf(r.response) };
    const problem = answerProblem(r.response);
    if (problem) {
      // The codes may have been made: --resume asks again with this key, which hands them back.
      failure = {
        kind: 'error',
        status: r.response.status,
        message: `the service's answer was not what the interface promises (${problem}); outcome unknown, asked again with the same key on --resume`,
        exitCode: ExitCode.PARTIAL,
      };
      job.log(`batch ${b.number}: ${failure.message}.`);
      break;
    }
    const got = checkCodes(r.response.body.codes as unknown[], want, seen, make, b.number);
    rows.push(...got.rows);
    await job.keep(got.keep);
    const count = (r.response.body.codes as unknown[]).length;
    if (got.rows.length < want || got.notes.length)
      job.log(
        `batch ${b.number}: the service answered ${count} for ${want} code(s) asked${got.notes.length ? `; ${got.notes.join('; ')}` : ''}.`,
      );
  }
  const missing = b.asked - rows.length;
  if (!missing) return { rows };
  if (!rows.length && !interrupted)
    return { rows: [], notDone: { failure: failure ?? withBatch(b, shortFailure(b, missing)) } };
  if (!rows.length) return { rows: [], notDone: { interrupted: true } };
  const redo = Array.from({ length: missing }, (_, i) => rows.length + i);
  return { rows, redo, failures: interrupted ? [] : [withBatch(b, failure ?? shortFailure(b, missing))] };
}

function shortFailure(b: BatchInput, missing: number): Failure {
  return {
    kind: 'error',
    message: `${b.asked - missing} of ${b.asked} codes after ${COMPLETIONS + 1} requests; the other ${missing} are left to --resume`,
    exitCode: ExitCode.PARTIAL,
  };
}

function withBatch(b: BatchInput, f: Failure): Failure {
  return { ...f, message: `batch ${b.number}: ${f.message}` };
}
