// The job journal, FILE.bookdist-job: one JSON header line (job id, the options that define the
// job, the service and account it talks to), then one line per batch written *after* the batch's
// rows are fsynced to FILE:
//
//   {"batch":3,"output_end":48213,"redo":[4],"pending":[0,2],"input_digest":"...","chain":"..."}
//   {"settled":[[3,0],[3,2]],"output_end":48390,"chain":"..."}          (second-phase results)
//
// `output_end` is the byte offset where FILE ended once the batch's rows were on disk, so the
// last line says where the valid part of FILE ends. `chain` is a digest of the line and of the
// line before it (the header's of the header alone): a line removed, changed or moved by hand is
// seen on --resume, which refuses the journal instead of fetching a batch twice. (A torn or
// removed *last* line is what a crash leaves: its batch is cut from FILE and fetched again with
// its original key.) The digest is no signature: it finds edits, not forgeries.
// Journals written before these names had `b`, `end`, `wait`, `h` and `s`, and journals written
// before `chain` and `service` have neither: they are read as well, so a job interrupted by an
// older bookdist resumes (with a warning that it cannot be checked). Only complete lines count
// (a kill while appending one leaves it torn).
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { CliError, errorCode, ExitCode, messageOf } from '../../errors.js';
import type { Fs } from '../../util/fs-safe.js';
import type { BatchRecord, FileFormat } from './types.js';

export const JOURNAL_SUFFIX = '.bookdist-job';

/** Where a job's requests go: the base URL and the account (never a secret). */
export interface JobService {
  base_url: string;
  account: string | null;
}

export interface JournalHeader {
  v: 1;
  verb: string;
  job_id: string;
  started: string;
  format: FileFormat;
  identity: Record<string, unknown>;
  /** Absent in journals written before it was recorded. */
  service?: JobService;
  /** The header's digest, which the first line's chains on (absent in older journals). */
  chain?: string;
}

/** One line after the header, as read (whichever names it was written with). */
export interface JournalRecord {
  /** The batch (absent on a second-phase line). */
  batch?: number;
  /** Where FILE ended once this line's rows were on disk. */
  outputEnd: number;
  redo: number[];
  pending: number[];
  digest?: string;
  /** Second phase: [batch, position] of pending items now settled. */
  settled?: Array<[number, number]>;
}

/** What a new line says (the engine writes these names). */
export type NewRecord =
  | { batch: number; redo?: number[]; pending?: number[]; input_digest?: string }
  | { settled: Array<[number, number]> };

export interface Journal {
  header: JournalHeader;
  records: JournalRecord[];
  /** Bytes of the complete lines (a torn last line is cut on resume). */
  validEnd: number;
  /** The last line's digest (undefined for a journal written before digests: it cannot be checked). */
  chain?: string;
}

/** A job id as bookdist makes them (hex); it becomes part of an Idempotency-Key header. */
const JOB_ID = /^[A-Za-z0-9_-]{1,64}$/;

function chained(prev: string, text: string): string {
  return createHash('sha256').update(prev).update('\n').update(text).digest('base64url').slice(0, 22);
}

/** The header line of a new journal, its digest included. */
export function headerLine(header: Omit<JournalHeader, 'chain'>): { text: string; header: JournalHeader } {
  const chain = chained('', JSON.stringify(header));
  const full = { ...header, chain };
  return { text: JSON.stringify(full) + '\n', header: full };
}

/**
 * The line of a record, once FILE ends at `outputEnd`, chained on the line before it (`prev`
 * undefined: a journal of an older bookdist, continued without digests).
 */
export function journalLine(record: NewRecord, outputEnd: number, prev?: string): { text: string; chain?: string } {
  const text = JSON.stringify({ ...record, output_end: outputEnd });
  if (prev === undefined) return { text: text + '\n' };
  const chain = chained(prev, text);
  return { text: JSON.stringify({ ...record, output_end: outputEnd, chain }) + '\n', chain };
}

/** A parsed line's digest checked against the line before it's: the next chain, or undefined when it does not match. */
function checkChain(line: Record<string, unknown>, prev: string): string | undefined {
  const { chain, ...rest } = line;
  // Stryker disable next-line ConditionalExpression: equivalent (→ false), a digest (a string) never equals a chain that is not one, so the next line returns undefined alike
  if (typeof chain !== 'string') return undefined;
  return chained(prev, JSON.stringify(rest)) === chain ? chain : undefined;
}

/** Digest of a batch's input items (the same input gives the same batches on resume). */
export function digestOf(items: unknown[]): string {
  return createHash('sha256').update(JSON.stringify(items)).digest('base64url').slice(0, 22);
}

const isCount = (x: unknown): x is number => Number.isInteger(x) && (x as number) >= 0;
const isPositions = (x: unknown): x is number[] | undefined =>
  x === undefined || (Array.isArray(x) && x.every(isCount));
const isPairs = (x: unknown): x is Array<[number, number]> =>
  Array.isArray(x) && x.every((p) => Array.isArray(p) && p.length === 2 && p.every(isCount));

/** The keys a record line may have, in the current names and the old ones. */
type RawRecord = Partial<
  Record<
    'output_end' | 'end' | 'settled' | 's' | 'batch' | 'b' | 'pending' | 'wait' | 'input_digest' | 'h' | 'redo',
    unknown
  >
>;

/** A record line in the current names or the old ones (`b`, `end`, `wait`, `h`, `s`), or why it is neither. */
function parseRecord(line: unknown): JournalRecord | string {
  // Stryker disable next-line ConditionalExpression: equivalent (the type check → false), a number, string or boolean line has no output_end either and is refused alike on the next check
  if (!line || typeof line !== 'object') return 'not a batch record';
  const d = line as RawRecord;
  const outputEnd = d.output_end ?? d.end;
  if (!isCount(outputEnd)) return 'not a batch record';
  const settled = d.settled ?? d.s;
  if (settled !== undefined)
    return isPairs(settled) ? { outputEnd, redo: [], pending: [], settled } : 'not a settle record';
  const batch = d.batch ?? d.b;
  const pending = d.pending ?? d.wait;
  const digest = d.input_digest ?? d.h;
  const redo = d.redo;
  if (
    !isCount(batch) ||
    batch < 1 ||
    !isPositions(redo) ||
    !isPositions(pending) ||
    (digest !== undefined && typeof digest !== 'string')
  )
    return 'not a batch record';
  return { batch, outputEnd, redo: redo ?? [], pending: pending ?? [], digest };
}

/** Read the journal at `path`; undefined when there is none. A damaged one is a usage error naming the line. */
export async function readJournal(fs: Fs, path: string, flag: string, file: string): Promise<Journal | undefined> {
  let text: string | undefined;
  try {
    text = await fs.readText(path);
  } catch (e) {
    const why =
      errorCode(e) === 'ELOOP' ? 'a symbolic link, not a journal bookdist wrote' : (errorCode(e) ?? messageOf(e));
    throw new CliError(
      `${flag} ${file}: unusable job journal ${basename(path)} (${why}). Remove it, or start over with --restart.`,
      ExitCode.USAGE,
    );
  }
  if (text === undefined) return undefined;
  const damaged = (line: number, why: string) =>
    new CliError(
      `${flag} ${file}: the job journal ${basename(path)} is damaged at line ${line} (${why}); it was edited or written by something else. ` +
        `Start over with --restart (${basename(file)} is kept, renamed with a .abandoned suffix), or restore the journal.`,
      ExitCode.USAGE,
    );
  const end = text.lastIndexOf('\n') + 1;
  // Stryker disable next-line MethodExpression: equivalent (the first slice removed), a torn tail after the last line break is dropped by slice(0, -1) anyway
  const lines = text.slice(0, end).split('\n').slice(0, -1);
  if (!lines.length) throw damaged(1, 'no header');
  const parse = (i: number) => {
    try {
      return JSON.parse(lines[i]);
    } catch {
      throw damaged(i + 1, 'not JSON');
    }
  };
  const header = parse(0) as JournalHeader;
  if (header?.v !== 1 || typeof header.job_id !== 'string' || typeof header.identity !== 'object')
    throw damaged(1, 'not a job header');
  // The job id goes into every request's Idempotency-Key: a line break in it would be refused by
  // the transport only once the request is under way.
  if (!JOB_ID.test(header.job_id))
    throw damaged(1, `its job_id ${JSON.stringify(header.job_id)} is not a job id bookdist makes`);
  // Digests: a journal that has them must match them all; one written before them cannot be checked.
  // Stryker disable next-line ConditionalExpression: equivalent (→ false), checkChain of a header without a chain gives undefined
  let chain = header.chain === undefined ? undefined : checkChain(header as unknown as Record<string, unknown>, '');
  if (header.chain !== undefined && chain === undefined) throw damaged(1, 'its digest does not match its content');
  const records: JournalRecord[] = [];
  let lastEnd = 0;
  for (let i = 1; i < lines.length; i++) {
    const line = parse(i);
    if (chain !== undefined) {
      chain = checkChain(line, chain);
      if (chain === undefined)
        throw damaged(i + 1, 'its digest does not match: a line before it, or this one, was removed, changed or moved');
    }
    const r = parseRecord(line);
    if (typeof r === 'string') throw damaged(i + 1, r);
    if (r.outputEnd < lastEnd) throw damaged(i + 1, 'the output offsets go backwards');
    lastEnd = r.outputEnd;
    records.push(r);
  }
  // Stryker disable next-line StringLiteral: equivalent, the encoding '' is UTF-8
  return { header, records, validEnd: Buffer.byteLength(text.slice(0, end), 'utf8'), chain };
}

/** What earlier runs left: per batch, what to run again and to settle; the settled `batch:position`s. */
export function earlierRuns(records: JournalRecord[]): { batches: Map<number, BatchRecord>; settled: Set<string> } {
  const batches = new Map<number, BatchRecord>();
  const settled = new Set<string>();
  for (const r of records) {
    for (const [b, p] of r.settled ?? []) settled.add(`${b}:${p}`);
    if (r.batch === undefined) continue;
    // A batch run again (its redo positions) adds a line: the last line's redo counts, pendings add up.
    const was = batches.get(r.batch);
    batches.set(r.batch, {
      redo: r.redo,
      pending: [...(was?.pending ?? []), ...r.pending],
      digest: was?.digest ?? r.digest,
    });
  }
  return { batches, settled };
}

/** Where FILE's valid part ends according to the journal (the header's bytes when no batch is done). */
export function outputEndOf(records: JournalRecord[], headerBytes: number): number {
  return records.length ? records[records.length - 1].outputEnd : headerBytes;
}
