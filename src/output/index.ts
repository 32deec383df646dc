// Output for humans and scripts: tables/cards on a TTY, TSV when piped, JSON/NDJSON/CSV on request.
import type { Context, OutputFormat } from '../context.js';
import { cellText, columnsOf, csvCell, flatten, selectFields, truncateText, tsvCell } from './format.js';

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
    width: ctx.io[stream].columns || Number(ctx.io.env.COLUMNS) || 100,
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
  const w = createRowWriter(ctx, { columns: view.columns, format: fmt });
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
        out.write((count === 1 ? '[' : ',') + (out.isTTY ? '\n  ' : '') + JSON.stringify(v));
      } else if (fmt === 'csv' || fmt === 'tsv') {
        const flat = flatten(record);
        if (!header) header = columnsOf([flat]);
        const cell = fmt === 'csv' ? csvCell : tsvCell;
        const sep = fmt === 'csv' ? ',' : '\t';
        if (count === 1) out.write(header.map((h) => cell(h)).join(sep) + '\n');
        out.write(header.map((h) => cell(flat[h])).join(sep) + '\n');
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
  const width = st.width;
  const maxCell = Math.max(8, Math.floor((width - 3 * columns.length) / Math.max(1, columns.length)));
  const t = new Table({
    head: columns.map((c) => st.bold(c.label ?? c.key)),
    style: { head: [], border: [], compact: true },
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
  });
  records.forEach((r, i) => {
    t.push(
      columns.map((c) => {
        const v = c.format ? c.format(getDotted(r, c.key, flat[i]), r) : cellText(flat[i][c.key]);
        return truncateText(v, maxCell);
      }),
    );
  });
  ctx.io.stdout.write(t.toString() + '\n');
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
