// Output for humans and scripts, one model for the whole tree (see model.ts): tables and cards on
// a terminal, TSV when piped, JSON/NDJSON/CSV on request; `--fields` relative to the record in
// every format; `--query` (JMESPath) over exactly what --json prints.
import type { Context, OutputFormat } from '../context.js';
import { CliError, ExitCode, usageError } from '../errors.js';
import { ENVELOPE_KEYS, type OutputSpec } from './model.js';
import {
  cellOf,
  cellText,
  columnsOf,
  csvCell,
  fieldColumns,
  fieldPaths,
  flatten,
  nearestFields,
  selectFields,
  tsvCell,
  unmatchedFields,
} from './format.js';
import { renderTable, labelled } from './table.js';
import { asciiOnly, colorWanted, escapeControls, escapeDeep, loadTextFor } from './text.js';

export type { OutputSpec } from './model.js';

/** A record of the service's JSON as cards and columns read it: any member may be missing, or of any JSON type. */
export type Rec = Record<string, unknown>;

/** `v` as a record, or an empty one when it is not an object (cards read members of what may be absent). */
export function recOf(v: unknown): Rec {
  return v !== null && typeof v === 'object' ? (v as Rec) : {};
}

/** `v` as a list of records (each element through recOf), or an empty list when it is not an array. */
export function recsOf(v: unknown): Rec[] {
  return Array.isArray(v) ? v.map(recOf) : [];
}

/** A column of records of type `R` (a listing's rows as its verified answer holds them, or open records). */
export interface Column<R = Rec> {
  /** Dotted path into the record. */
  key: string;
  /** Header text (defaults to the key). Tables show it in upper case. */
  label?: string;
  /** Render the value for tables (a method: the columns of a listing's rows go where any columns go). */
  format?(value: unknown, record: R): string;
  /** An identifier column (never cut) or free text (shrinks); default: recognised by key and values. */
  id?: boolean;
  /** A column people can do without: left out of a table too narrow for it. */
  optional?: boolean;
  /** The least a free-text column is cut to in a table (default 10). */
  min?: number;
  /** The width a free-text column should keep before optional columns are shown (default: min). */
  want?: number;
  /** Left out of a table when every cell of it is empty (a status column that shows only exceptions). */
  dropEmpty?: boolean;
  /** Optional (left out when the table is too narrow) while a `dropEmpty` column has something to show. */
  givesWay?: boolean;
}

export interface View<B = unknown> {
  /** Columns of the human table (rows), and the default columns of CSV/TSV. */
  columns?: Column[];
  /**
   * A human card for one record (table format, without --fields), given the record and the whole
   * answer as people see them (control characters escaped): a card of a typed answer reads the
   * answer (`body.book`), typed as the caller's.
   */
  card?: (record: Rec, style: Style, body: B) => string;
  /** What to say on stderr in a table when there are no rows. */
  empty?: string;
  /** After the output, people (table/TSV/CSV) see the service's `message` on stderr. */
  message?: boolean;
}

export interface Style {
  color: boolean;
  width: number;
  /** An ASCII-only terminal (non-UTF-8 locale or BOOKDIST_ASCII=1): no `…`, no block characters. */
  ascii: boolean;
  bold(s: string): string;
  dim(s: string): string;
  green(s: string): string;
  red(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
}

/** The format of this run: -o, else --json, else the command's default, else table on a terminal and TSV piped. */
export function outputFormat(ctx: Context): OutputFormat {
  if (ctx.globals.output) return ctx.globals.output;
  if (ctx.globals.json) return 'json';
  if (ctx.output?.defaultFormat) return ctx.output.defaultFormat;
  return ctx.io.stdout.isTTY ? 'table' : 'tsv';
}

/** True when the output is for people (table, tsv, csv), false for json/ndjson. */
export function humanOutput(ctx: Context): boolean {
  const f = outputFormat(ctx);
  return f !== 'json' && f !== 'ndjson';
}

export function useColor(ctx: Context, stream: 'stdout' | 'stderr' = 'stdout'): boolean {
  return colorWanted(ctx.globals.color, ctx.io.env, ctx.io[stream].isTTY);
}

export function style(ctx: Context, stream: 'stdout' | 'stderr' = 'stdout'): Style {
  const color = useColor(ctx, stream);
  const wrap = (open: number, close: number) => (s: string) => (color ? `\x1b[${open}m${s}\x1b[${close}m` : s);
  return {
    color,
    // A terminal's own width; $COLUMNS; otherwise (a table written to a pipe or file on request)
    // wide enough that nothing is cut.
    width: ctx.io[stream].columns || Number(ctx.io.env.COLUMNS) || (ctx.io[stream].isTTY ? 80 : 400),
    ascii: asciiOnly(ctx.io.env),
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    green: wrap(32, 39),
    red: wrap(31, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
  };
}

/**
 * A response ready for a card or table drawn by a command itself: the width library loaded
 * when the data is not plain ASCII, and every string with its control characters escaped.
 */
export async function forPeople<T>(body: T): Promise<T> {
  await loadTextFor([JSON.stringify(body) ?? '']);
  return escapeDeep(body);
}

// ---------------------------------------------------------------------------------------------
// Records of a response

function specOf(ctx: Context): OutputSpec {
  return ctx.output ?? { kind: 'record', record: 'record' };
}

function lessEnvelope(body: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) if (!(ENVELOPE_KEYS as readonly string[]).includes(k)) out[k] = v;
  return out;
}

function at(body: unknown, path: string): unknown {
  if (path === '.') return body;
  let cur = body;
  for (const p of path.split('.')) cur = cur == null ? undefined : (cur as Record<string, unknown>)[p];
  return cur;
}

/** The service's `message` in a response, if it has one. */
function messageIn(body: unknown): unknown {
  return (body as { message?: unknown } | null | undefined)?.message;
}

/** The records of a response: the rows, or the one record (none when the response lacks it). */
export function recordsOf(spec: OutputSpec, body: unknown): unknown[] {
  let found: unknown;
  if (spec.at === undefined) found = spec.kind === 'rows' ? body : lessEnvelope(body);
  else {
    for (const p of Array.isArray(spec.at) ? spec.at : [spec.at]) {
      found = at(body, p);
      if (found !== undefined) break;
    }
  }
  if (spec.kind === 'rows') return Array.isArray(found) ? found : [];
  return found && typeof found === 'object' ? [found] : [];
}

/** A --fields value in a message: as given, at most about 200 characters of it. */
function quoteField(s: string): string {
  return s.length > 200 ? `${s.slice(0, 200)}… (${s.length} characters)` : s;
}

/** Check `--fields` against the records: a path that matches nothing is a usage error naming the fields. */
function checkFields(ctx: Context, records: unknown[], record?: string): void {
  const fields = ctx.globals.fields;
  if (!fields || records.length === 0) return;
  const missing = unmatchedFields(records, fields);
  if (!missing.length) return;
  const what = record ?? specOf(ctx).record ?? 'record';
  const paths = fieldPaths(records);
  const near = [...new Set(missing.flatMap((m) => nearestFields(m, paths)))];
  throw usageError(
    `--fields ${quoteField(missing.join(','))}: no such field in ${/^[aeiou]/i.test(what) ? 'an' : 'a'} ${what} (paths are relative to the ${what}). ` +
      (near.length ? `Did you mean ${near.join(' or ')}? ` : '') +
      `Fields: ${paths.join(', ') || '(none)'}.`,
    { unknown_fields: missing, fields: paths, ...(near.length ? { suggestions: near } : {}) },
  );
}

/** What `--json` prints for a whole response: the response, or the records once --fields is given. */
function jsonDocument(ctx: Context, body: unknown, records: unknown[]): unknown {
  const fields = ctx.globals.fields;
  if (!fields) return body;
  const spec = specOf(ctx);
  if (spec.kind === 'rows') return records.map((r) => selectFields(r, fields));
  return records.length ? selectFields(records[0], fields) : {};
}

// ---------------------------------------------------------------------------------------------
// Printing

/** Print a response of the running command, as its output spec says. */
export async function emit<B>(ctx: Context, body: B, view: View<B> = {}): Promise<void> {
  const spec = specOf(ctx);
  if (spec.kind === 'message' || spec.kind === 'text') {
    const m = messageIn(body);
    await emitMessage(ctx, body, typeof m === 'string' ? m : '');
    return;
  }
  const fmt = outputFormat(ctx);
  const fields = ctx.globals.fields;
  const records = recordsOf(spec, body);
  // A command for one value, piped with no format asked for: the value alone on its line.
  const g = ctx.globals;
  if (spec.value && records.length && !ctx.io.stdout.isTTY && !g.output && !g.json && !fields && !g.query) {
    const v = recOf(records[0])[spec.value];
    if (typeof v === 'string' && v) return void ctx.io.stdout.write(escapeControls(v) + '\n');
  }
  const missing = spec.kind === 'record' && !records.length;
  // The answer lacks the resource (a real deployment may answer with only a message): never an
  // empty `{}` or an empty row that looks like data.
  if (missing && fields)
    throw new CliError(
      `The answer has no ${spec.record ?? 'record'}, so --fields has nothing to select; run without --fields to see it.`,
      ExitCode.ERROR,
    );
  checkFields(ctx, records);
  if (missing && !ctx.globals.query && (fmt === 'table' || fmt === 'csv' || fmt === 'tsv')) {
    const m = messageIn(body);
    ctx.info(
      typeof m === 'string' && m ? escapeControls(m) : `The answer has no ${spec.record ?? 'record'}; --json shows it.`,
    );
    return;
  }
  if (ctx.globals.query) {
    await printQuery(ctx, jsonDocument(ctx, body, records));
  } else if (fmt === 'json') {
    writeJson(ctx, jsonDocument(ctx, body, records));
  } else if (fmt === 'ndjson') {
    for (const r of records) ctx.io.stdout.write(JSON.stringify(fields ? selectFields(r, fields) : r) + '\n');
  } else if (fmt === 'csv' || fmt === 'tsv') {
    writeDelimited(ctx, fmt, records, flatColumns(records, view.columns, fields));
  } else if (spec.kind === 'record') {
    // People see the data with its control characters escaped; JSON keeps it as it is.
    const shown = await forPeople(records[0]);
    if (view.card && !fields) {
      ctx.io.stdout.write(view.card(recOf(shown), style(ctx), await forPeople(body)).replace(/\n?$/, '\n'));
    } else {
      keyValueTable(ctx, flatten(fields ? selectFields(shown, fields) : shown));
    }
  } else if (records.length === 0) {
    ctx.info(view.empty ?? 'No results.');
  } else {
    await table(ctx, records, fields ? fieldColumns(records, fields).map((key) => ({ key })) : view.columns);
  }
  if (view.message && humanOutput(ctx) && !ctx.globals.query) {
    const m = messageIn(body);
    if (typeof m === 'string' && m) ctx.info(escapeControls(m));
  }
}

/** A response that is only an outcome: `text` on stderr for people, the response for JSON/NDJSON/--query. */
export async function emitMessage(ctx: Context, body: unknown, text: string): Promise<void> {
  const fmt = outputFormat(ctx);
  if (ctx.globals.query) return printQuery(ctx, body);
  if (fmt === 'json') return writeJson(ctx, body);
  if (fmt === 'ndjson') return void ctx.io.stdout.write(JSON.stringify(body) + '\n');
  if (text) ctx.info(escapeControls(text));
}

function writeJson(ctx: Context, value: unknown): void {
  const pretty = ctx.io.stdout.isTTY;
  ctx.io.stdout.write(JSON.stringify(value, null, pretty ? 2 : undefined) + '\n');
}

/** Flat columns: --fields (objects expanded to their leaves), else the view's, else every key. */
function flatColumns(records: unknown[], columns: Column[] | undefined, fields: string[] | undefined): string[] {
  if (fields) return fieldColumns(records, fields);
  if (columns) return columns.map((c) => c.key);
  return columnsOf(records.map((r) => flatten(r)));
}

function writeDelimited(ctx: Context, fmt: 'csv' | 'tsv', records: unknown[], cols: string[]): void {
  const cell = fmt === 'csv' ? csvCell : tsvCell;
  const sep = fmt === 'csv' ? ',' : '\t';
  let text = cols.map((h) => cell(h)).join(sep) + '\n';
  for (const r of records) text += cols.map((h) => cell(cellOf(r, h))).join(sep) + '\n';
  ctx.io.stdout.write(text);
}

/** Print the result of `--query` over `doc` (what --json would print). */
async function printQuery(ctx: Context, doc: unknown): Promise<void> {
  const { runQuery } = await import('./query.js');
  const result = runQuery(ctx.globals.query!, doc);
  const fmt = ctx.globals.output ?? 'json';
  if (fmt === 'json') {
    // The AWS CLI convention: the result as JSON, unless a flat format is asked for with -o.
    writeJson(ctx, result);
    return;
  }
  if (fmt === 'ndjson') {
    for (const v of Array.isArray(result) ? result : [result]) ctx.io.stdout.write(JSON.stringify(v) + '\n');
    return;
  }
  // -o tsv/csv/table: a scalar prints bare, a list of scalars one per line, objects as rows.
  const list = Array.isArray(result) ? result : [result];
  if (list.every((v) => v === null || typeof v !== 'object')) {
    if (result !== null || fmt !== 'table')
      ctx.io.stdout.write(
        list.map((v) => (fmt === 'csv' ? csvCell(v) : fmt === 'tsv' ? tsvCell(v) : cellText(v))).join('\n') +
          (list.length ? '\n' : ''),
      );
    return;
  }
  const rows = list.map((v) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? v : { value: v }));
  if (fmt === 'table') await table(ctx, rows);
  else writeDelimited(ctx, fmt as 'csv' | 'tsv', rows, columnsOf(rows.map((r) => flatten(r))));
}

// ---------------------------------------------------------------------------------------------
// Streams of rows (listings with --all, bulk jobs)

export interface RowWriter {
  write(record: unknown): void;
  end(): Promise<void>;
}

export interface RowWriterOptions {
  /** Table columns, and the default columns of CSV/TSV (else the first record's flattened keys). */
  columns?: Column[];
  format?: OutputFormat;
  /**
   * The response the rows belong to (e.g. the first page of a listing): without --fields, --json
   * prints it with the rows streamed into its `results` array, the same shape as one page.
   * Without it, --json prints an array of the rows.
   */
  envelope?: Record<string, unknown>;
  /** Where the rows go in the envelope (default `results`). */
  rowsKey?: string;
  /** What one row is, for messages (default: the command's bulk rows, else its record). */
  record?: string;
}

/**
 * A writer for a stream of records, the same model as `emit`: `--fields` checked on the first
 * record and relative to it; NDJSON/CSV/TSV stream row by row; JSON streams an array (or the
 * envelope's array); tables buffer (they need column widths); `--query` buffers the document.
 * Bulk jobs call this for their stdout.
 */
export function createRowWriter(ctx: Context, opts: RowWriterOptions = {}): RowWriter {
  const fmt = opts.format ?? outputFormat(ctx);
  const fields = ctx.globals.fields;
  const out = ctx.io.stdout;
  const query = ctx.globals.query;
  let cols: string[] | undefined;
  let count = 0;
  const buffered: unknown[] = [];
  const rowsKey = opts.rowsKey ?? 'results';
  const framed = Boolean(opts.envelope && !fields);
  const [open, close] = framed ? frameOf(opts.envelope!, rowsKey) : ['[', ']'];
  return {
    write(record: unknown) {
      count++;
      if (count === 1) checkFields(ctx, [record], opts.record ?? ctx.output?.bulk ?? ctx.output?.record);
      if (query || fmt === 'table') {
        buffered.push(record);
        return;
      }
      const v = fields ? selectFields(record, fields) : record;
      if (fmt === 'ndjson') out.write(JSON.stringify(v) + '\n');
      else if (fmt === 'json') out.write((count === 1 ? open : ',') + JSON.stringify(v));
      else {
        if (!cols) cols = flatColumns([record], opts.columns, fields);
        const cell = fmt === 'csv' ? csvCell : tsvCell;
        const sep = fmt === 'csv' ? ',' : '\t';
        if (count === 1) out.write(cols.map((h) => cell(h)).join(sep) + '\n');
        out.write(cols.map((h) => cell(cellOf(record, h))).join(sep) + '\n');
      }
    },
    async end() {
      if (query) {
        const rows = fields ? buffered.map((r) => selectFields(r, fields)) : buffered;
        await printQuery(ctx, framed ? { ...opts.envelope, [rowsKey]: rows } : rows);
        return;
      }
      if (fmt === 'json') out.write(count === 0 ? open + close + '\n' : close + '\n');
      if (fmt === 'table' && buffered.length) {
        await table(ctx, buffered, fields ? fieldColumns(buffered, fields).map((key) => ({ key })) : opts.columns);
      }
    },
  };
}

/** The JSON text before and after the rows array of an envelope (the rows key written last). */
function frameOf(envelope: Record<string, unknown>, rowsKey: string): [string, string] {
  const rest = { ...envelope };
  delete rest[rowsKey];
  const s = JSON.stringify({ ...rest, [rowsKey]: [] });
  const i = s.lastIndexOf('[]');
  return [s.slice(0, i + 1), s.slice(i + 1)];
}

// ---------------------------------------------------------------------------------------------
// Tables

async function table(ctx: Context, records: unknown[], cols?: Column[]): Promise<void> {
  const st = style(ctx);
  let columns: Column[] = cols ?? columnsOf(records.map((r) => flatten(r))).map((key) => ({ key }));
  records = escapeDeep(records);
  let cells = records.map((r) =>
    columns.map((c) => (c.format ? c.format(cellOf(r, c.key), recOf(r)) : cellText(cellOf(r, c.key)))),
  );
  const shown = columns.map((c, j) => !c.dropEmpty || cells.some((r) => r[j] !== ''));
  if (shown.includes(false)) {
    columns = columns.filter((_, j) => shown[j]);
    cells = cells.map((r) => r.filter((_, j) => shown[j]));
  }
  if (columns.some((c) => c.dropEmpty)) columns = columns.map((c) => (c.givesWay ? { ...c, optional: true } : c));
  await loadTextFor(cells.flat());
  const text = renderTable(
    st,
    columns.map((c) => ({
      head: c.label ?? c.key.replace(/_/g, ' '),
      key: c.key,
      fixed: c.id,
      optional: c.optional,
      min: c.min,
      want: c.want,
    })),
    cells,
  );
  ctx.io.stdout.write(text + '\n');
}

/** One record as `key  value` lines (--fields in a table): values wrap, never cut. */
function keyValueTable(ctx: Context, flat: Record<string, unknown>): void {
  ctx.io.stdout.write(
    labelled(
      style(ctx),
      Object.keys(flat).map((k) => [k, cellText(flat[k])]),
    ) + '\n',
  );
}
