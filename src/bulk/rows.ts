// Streamed row inputs of bulk jobs: CSV (csv-parse, RFC 4180 with quoted line breaks, a BOM
// ignored) and NDJSON, read record by record so that a file of any size is never held whole.
// The first CSV record is the header: its names are trimmed and lower-cased, and the required
// columns are checked before any row is handed on (so before the job's first request).
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Context } from '../context.js';
import type { InfoRecord } from 'csv-parse';
import { CliError, ExitCode, messageOf, usageError } from '../errors.js';
import { inputError, openInput } from './lines.js';

export interface InputRow<V = Record<string, unknown>> {
  /** 1-based line of the input where the record ends (the line a spreadsheet shows for one-line rows). */
  line: number;
  values: V;
  /** Why the record cannot be used as it is (wrong number of fields, not JSON), when it cannot. */
  problem?: string;
}

/**
 * What identifies an input file for --resume: its absolute path ('-' for stdin). Checked up front
 * (exists, not a directory). Its content is checked batch by batch against the journal's digests.
 */
export async function inputFingerprint(file: string, ctx: Context, flag: string): Promise<string> {
  if (file === '-') return '-';
  try {
    const st = await stat(resolve(ctx.io.cwd, file));
    if (st.isDirectory()) throw usageError(`${flag} ${file}: is a directory, not a file.`);
    return resolve(ctx.io.cwd, file);
  } catch (e) {
    throw inputError(e, file, flag);
  }
}

/** CSV records as objects keyed by the header's column names. */
export async function* csvRows(
  file: string,
  ctx: Context,
  opts: { flag: string; required: string[]; optional?: string[] },
): AsyncGenerator<InputRow<Record<string, string>>> {
  const { parse, CsvError } = await import('csv-parse');
  const input = openInput(file, ctx, opts.flag);
  // The line of each record from on_record's context (far cheaper than `info: true`, which copies it).
  // `last`: where the last good record ended, so that a bad one is reported where it starts, and
  // the header's names (a parser error drops the records not yet read, the header among them).
  const last: { line: number; empty: number; names?: string[] } = { line: 0, empty: 0 };
  const onRecord = (record: string[], context: InfoRecord) => {
    last.names ??= record.map((h) => h.trim().toLowerCase());
    last.line = context.lines;
    last.empty = context.empty_lines;
    return Object.assign(record, { line: context.lines });
  };
  const parser = parse({ bom: true, skip_empty_lines: true, relax_column_count: true, on_record: onRecord });
  // pipe() does not pass on the source's errors (a missing file): the parser fails with them.
  input.on('error', (e) => parser.destroy(e));
  input.pipe(parser);
  let header: string[] | undefined;
  try {
    for await (const record of parser as AsyncIterable<string[] & { line: number }>) {
      if (!header) {
        header = last.names!;
        const missing = opts.required.filter((r) => !header!.includes(r));
        if (missing.length) {
          const all = [...opts.required, ...(opts.optional ?? []).map((o) => `[${o}]`)].join(',');
          throw usageError(
            `${opts.flag} ${file}: the header row lacks the column${missing.length > 1 ? 's' : ''} ${missing.join(', ')} (it has: ${header.join(', ')}; expected: ${all}).`,
          );
        }
        continue;
      }
      const values: Record<string, string> = {};
      for (let i = 0; i < header.length; i++) values[header[i]] = (record[i] ?? '').trim();
      const problem =
        record.length > header.length ? `the row has ${record.length} fields, the header ${header.length}` : undefined;
      yield { line: record.line, values, problem };
    }
  } catch (e) {
    if (e instanceof CliError) throw e;
    // Every error of the parser, not only the codes that start with CSV_ (a quote inside an
    // unquoted field is INVALID_OPENING_QUOTE); the sandbox's catalogue reader does the same.
    if (e instanceof CsvError) throw csvError(e, file, opts.flag, last);
    throw inputError(e, file, opts.flag);
  }
  if (!header)
    throw usageError(`${opts.flag} ${file}: empty; the first row must name the columns (${opts.required.join(',')}).`);
}

/** What csv-parse's CsvError carries besides its message. */
interface CsvProblem {
  code: string;
  message: string;
  empty_lines?: number;
  records?: number;
  /** 0-based index of the field in its record. */
  column?: number | string;
  /** The field as read up to the error. */
  field?: string;
}

/**
 * A CSV syntax error where the bad record starts (csv-parse reports where it noticed, which for an
 * unclosed quote is the end of the file), with its number (the header row is record 1).
 */
function csvError(
  e: CsvProblem,
  file: string,
  flag: string,
  last: { line: number; empty: number; names?: string[] },
): CliError {
  // The blank lines skipped since the last good record come before the bad one.
  const start =
    last.line + 1 + (Number.isInteger(e.empty_lines) ? Math.max(0, (e.empty_lines as number) - last.empty) : 0);
  const what =
    e.code === 'CSV_QUOTE_NOT_CLOSED'
      ? 'a quoted field is never closed (the file ends inside it)'
      : e.code === 'INVALID_OPENING_QUOTE'
        ? `a quote inside the unquoted ${fieldName(e, last.names)} (after ${JSON.stringify(String(e.field ?? '').slice(0, 40))}); to keep the quote, enclose the whole field in double quotes and double each quote inside it, e.g. "The ""Best"" Tides"`
        : String(e.message)
            .replace(/^Invalid (Record|Closing Quote|Opening Quote)[^:]*: /, '')
            .replace(/ at line \d+/, '');
  const record = Number.isInteger(e.records) ? ` (record ${(e.records as number) + 1}, counting the header row)` : '';
  return new CliError(`${flag} ${file}: line ${start}${record}: ${what}.`, ExitCode.USAGE);
}

/** The field by its column's name (`field first_name`), else by its 1-based position (`field 2`). */
function fieldName(e: CsvProblem, header: string[] | undefined): string {
  const i = Number(e.column);
  if (!Number.isInteger(i) || i < 0) return 'field';
  return `field ${header?.[i] || i + 1}`;
}

/** NDJSON records: one JSON object per line; blank lines skipped; a bad line is a row with a problem. */
export async function* ndjsonRows(file: string, ctx: Context, opts: { flag: string }): AsyncGenerator<InputRow> {
  const input = openInput(file, ctx, opts.flag);
  const rl = createInterface({ input, crlfDelay: Infinity });
  let n = 0;
  try {
    for await (const raw of rl) {
      n++;
      const text = (n === 1 ? raw.replace(/^\uFEFF/, '') : raw).trim();
      if (!text) continue;
      try {
        const v = JSON.parse(text);
        if (v === null || typeof v !== 'object' || Array.isArray(v))
          yield { line: n, values: {}, problem: 'not a JSON object' };
        else yield { line: n, values: v };
      } catch (e) {
        yield { line: n, values: {}, problem: `not JSON (${messageOf(e)})` };
      }
    }
  } catch (e) {
    throw inputError(e, file, opts.flag);
  }
}

/** One message for the issues of a zod validation, naming each column: `email: Invalid email address`. */
export function issuesText(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>): string {
  return issues.map((i) => `${i.path.length ? i.path.map(String).join('.') : 'row'}: ${i.message}`).join('; ');
}
