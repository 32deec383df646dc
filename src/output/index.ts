// Output for humans and scripts, one model for the whole tree (see model.ts): tables and cards on
// a terminal, TSV when piped, JSON/NDJSON/CSV on request; `--fields` relative to the record in
// every format; `--query` (JMESPath) over exactly what --json prints.
import type { Context, OutputFormat } from '../context.js';
import { CliError, ExitCode } from '../errors.js';
import { cellOf, cellText, columnsOf, csvCell, fieldColumns, flatten, selectFields, tsvCell } from './format.js';
import { renderTable, labelled } from './table.js';
import { escapeControls, escapeDeep, loadTextFor } from './text.js';
import { checkFields, jsonDocument, messageIn, recOf, recordsOf, specOf, type Rec } from './records.js';
import { forPeople, humanOutput, outputFormat, style, type Style } from './style.js';

export { recOf, recordsOf, recsOf, type Rec } from './records.js';
export { forPeople, humanOutput, outputFormat, style, useColor, type Style } from './style.js';

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
   * answer (`body.book`), typed as the caller's. It may load its module first (a promise): the
   * cards' code is then loaded only by a run that prints one, not by a pipe or --json.
   */
  card?: (record: Rec, style: Style, body: B) => string | Promise<string>;
  /** What to say on stderr in a table when there are no rows. */
  empty?: string;
  /** After the output, people (table/TSV/CSV) see the service's `message` on stderr. */
  message?: boolean;
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
      const card = await view.card(recOf(shown), style(ctx), await forPeople(body));
      ctx.io.stdout.write(card.replace(/\n?$/, '\n'));
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
  else writeDelimited(ctx, fmt, rows, columnsOf(rows.map((r) => flatten(r))));
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
