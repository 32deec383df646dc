// Output for humans and scripts: tables/cards on a TTY, TSV when piped, JSON/NDJSON/CSV on request.
import type { Context, OutputFormat } from '../context.js';
import { cellText, columnsOf, csvCell, flatten, getPath, selectFields, truncateText, tsvCell } from './format.js';

export interface Column {
  /** Dotted path into the record. */
  key: string;
  /** Header text (defaults to the key). */
  label?: string;
  /** Render the value for tables. */
  format?: (value: unknown, record: any) => string;
}

export interface View {
  /** For list responses: the records (e.g. `d => d.results`). Without it the data is one object. */
  list?: (data: any) => any[];
  /** Columns of the human table (lists) — default: all flattened keys. */
  columns?: Column[];
  /** A human card for one object (table mode only). */
  card?: (data: any, style: Style) => string;
  /** What to print in table mode when a list is empty. */
  empty?: string;
}

export interface Style {
  color: boolean;
  width: number;
  bold(s: string): string;
  dim(s: string): string;
  green(s: string): string;
  red(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
}

export function outputFormat(ctx: Context): OutputFormat {
  if (ctx.globals.output) return ctx.globals.output;
  if (ctx.globals.json) return 'json';
  return ctx.io.stdout.isTTY ? 'table' : 'tsv';
}

export function useColor(ctx: Context, stream: 'stdout' | 'stderr' = 'stdout'): boolean {
  const c = ctx.globals.color;
  if (c === 'always') return true;
  if (c === 'never') return false;
  if (ctx.io.env.NO_COLOR !== undefined && ctx.io.env.NO_COLOR !== '') return false;
  if (ctx.io.env.FORCE_COLOR) return true;
  return Boolean(ctx.io[stream].isTTY);
}

export function style(ctx: Context, stream: 'stdout' | 'stderr' = 'stdout'): Style {
  const color = useColor(ctx, stream);
  const wrap = (open: number, close: number) => (s: string) => (color ? `\x1b[${open}m${s}\x1b[${close}m` : s);
  return {
    color,
    // A terminal's own width; $COLUMNS; otherwise (a table written to a pipe or file on request)
    // wide enough that nothing is cut.
    width: ctx.io[stream].columns || Number(ctx.io.env.COLUMNS) || (ctx.io[stream].isTTY ? 80 : 400),
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    green: wrap(32, 39),
    red: wrap(31, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
  };
}

/** Print one response: a list or one object, in the chosen format. */
export async function emit(ctx: Context, data: unknown, view: View = {}): Promise<void> {
  const fmt = outputFormat(ctx);
  const fields = ctx.globals.fields;
  if (fmt === 'json') {
    const value = fields ? (view.list ? view.list(data).map((r) => selectFields(r, fields)) : selectFields(data, fields)) : data;
    writeJson(ctx, value);
    return;
  }
  const records = view.list ? view.list(data) ?? [] : [data];
  // Everything is at hand here (unlike a stream), so CSV/TSV columns are the union of all records.
  const columns =
    view.columns ?? (fmt === 'csv' || fmt === 'tsv' ? columnsOf(records.map((r) => flatten(r))).map((key) => ({ key })) : undefined);
  const w = createRowWriter(ctx, { columns, format: fmt });
  if (fmt === 'table' && !view.list && view.card && !fields) {
    ctx.io.stdout.write(view.card(data, style(ctx)).replace(/\n?$/, '\n'));
    return;
  }
  if (fmt === 'table' && !view.list) {
    // One object without a card: a two-column key/value table.
    await keyValueTable(ctx, fields ? flatten(selectFields(data, fields)) : flatten(data));
    return;
  }
  if (fmt === 'table' && records.length === 0) {
    ctx.info(view.empty ?? 'No results.');
    return;
  }
  for (const r of records) w.write(r);
  await w.end();
}

export function writeJson(ctx: Context, value: unknown): void {
  const pretty = ctx.io.stdout.isTTY;
  ctx.io.stdout.write(JSON.stringify(value, null, pretty ? 2 : undefined) + '\n');
}

export interface RowWriter {
  write(record: any): void;
  end(): Promise<void>;
}

/**
 * A writer for a stream of records. NDJSON/CSV/TSV stream row by row; JSON writes an array
 * incrementally; tables buffer (they need column widths) up to a page at a time.
 */
export function createRowWriter(ctx: Context, opts: { columns?: Column[]; format?: OutputFormat } = {}): RowWriter {
  const fmt = opts.format ?? outputFormat(ctx);
  const fields = ctx.globals.fields;
  const out = ctx.io.stdout;
  const cols: Column[] | undefined = fields ? fields.map((key) => ({ key })) : opts.columns;
  let header: string[] | undefined = cols?.map((c) => c.key);
  let count = 0;
  const buffered: any[] = [];
  return {
    write(record: any) {
      count++;
      if (fmt === 'ndjson') {
        out.write(JSON.stringify(fields ? selectFields(record, fields) : record) + '\n');
      } else if (fmt === 'json') {
        const v = fields ? selectFields(record, fields) : record;
        const text = out.isTTY ? '\n  ' + JSON.stringify(v, null, 2).replace(/\n/g, '\n  ') : JSON.stringify(v);
        out.write((count === 1 ? '[' : ',') + text);
      } else if (fmt === 'csv' || fmt === 'tsv') {
        const flat = flatten(record);
        if (!header) header = columnsOf([flat]);
        const cell = fmt === 'csv' ? csvCell : tsvCell;
        const sep = fmt === 'csv' ? ',' : '\t';
        if (count === 1) out.write(header.map((h) => cell(h)).join(sep) + '\n');
        out.write(header.map((h) => cell(h in flat ? flat[h] : getPath(record, h))).join(sep) + '\n');
      } else {
        buffered.push(record);
      }
    },
    async end() {
      if (fmt === 'json') out.write(count === 0 ? '[]\n' : (out.isTTY ? '\n' : '') + ']\n');
      if (fmt === 'table' && buffered.length) await table(ctx, buffered, cols);
    },
  };
}

async function table(ctx: Context, records: any[], cols?: Column[]): Promise<void> {
  const { default: Table } = await import('cli-table3');
  const st = style(ctx);
  const flat = records.map((r) => flatten(r));
  const columns: Column[] = cols ?? columnsOf(flat).map((key) => ({ key }));
  const heads = columns.map((c) => c.label ?? c.key);
  const cells = records.map((r, i) =>
    columns.map((c) => oneLine(c.format ? c.format(getDotted(r, c.key, flat[i]), r) : cellText(flat[i][c.key]))),
  );
  const widths = fitWidths(
    heads.map((h, j) => Math.max(h.length, ...cells.map((row) => row[j].length))),
    st.width,
    heads.map((h) => h.length),
  );
  const t = new Table({
    head: heads.map((h, j) => st.bold(truncateText(h, widths[j]))),
    colWidths: widths.map((w) => w + 2),
    wordWrap: false,
    style: { head: [], border: [], compact: true },
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
  });
  for (const row of cells) t.push(row.map((v, j) => truncateText(v, widths[j])));
  ctx.io.stdout.write(t.toString() + '\n');
}

/** Cells of a table hold one line: newlines and tabs become spaces. */
function oneLine(s: string): string {
  return s.replace(/[\r\n\t]+/g, ' ');
}

/**
 * Column content widths that fit a terminal of `total` columns (a table draws 3 characters of
 * border and padding per column plus 1). Narrow columns keep their width; the widest ones are
 * cut to a common limit, but not below their floor (the header, up to 20) nor below 4.
 */
export function fitWidths(natural: number[], total: number, floors: number[] = []): number[] {
  const budget = total - 3 * natural.length - 1;
  const floor = (j: number) => Math.min(natural[j], Math.max(4, Math.min(20, floors[j] ?? 0)));
  const widths = (cap: number) => natural.map((w, j) => Math.max(floor(j), Math.min(w, cap)));
  const sum = (cap: number) => widths(cap).reduce((s, w) => s + w, 0);
  let cap = Math.max(...natural);
  while (cap > 4 && sum(cap) > budget) cap--;
  // Too many columns for the headers to stay whole: let them be cut too.
  if (sum(cap) > budget && floors.length) return fitWidths(natural, total);
  return widths(cap);
}

function getDotted(record: any, key: string, flat: Record<string, unknown>): unknown {
  if (key in flat) return flat[key];
  let cur = record;
  for (const p of key.split('.')) cur = cur?.[p];
  return cur;
}

async function keyValueTable(ctx: Context, flat: Record<string, unknown>): Promise<void> {
  const st = style(ctx);
  const keyWidth = Math.max(0, ...Object.keys(flat).map((k) => k.length));
  const valueWidth = Math.max(10, st.width - keyWidth - 2);
  const lines = Object.entries(flat).map(([k, v]) => `${st.bold(k.padEnd(keyWidth))}  ${truncateText(cellText(v), valueWidth)}`);
  ctx.io.stdout.write(lines.join('\n') + '\n');
}
