// The one table style of the tree: no borders, UPPERCASE headers, two spaces between columns.
// Identifier columns (hash ids, ISBNs, usernames, codes, numeric ids, order numbers) are never
// cut; only free-text columns (titles, names, messages...) shrink to fit the terminal.

/** Text without ANSI colour codes (for width computations). */
export function visible(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/\x1b\[[0-9;]*m/g, '');
}

/** Column keys that hold identifiers: never truncated. */
const ID_KEY = /(^|[._])(id|ids|hash_id|username|isbn\d*|eisbn\d*|parent_isbn|sku|code|codes|order_number|purchase_id|book_id|input|name)$/i;
/** Values that are numbers, dates or flags: short, and useless when cut. */
const SCALAR = /^(-?\d+([.,:\/-]\d+)*|true|false|yes|no|-|\d{4}-\d\d-\d\d([ T][\d:.]+Z?)?)?$/i;

/** Is a column an identifier (never cut), given its key and the values it holds? */
export function isIdentifierColumn(key: string, values: string[]): boolean {
  if (ID_KEY.test(key)) return true;
  return values.length > 0 && values.every((v) => SCALAR.test(visible(v).trim()));
}

export const GAP = 2;

/**
 * Content widths for a terminal of `total` columns. Fixed columns keep their natural width;
 * the others share what is left, the widest cut first, never below min(natural, floor).
 */
export function fitWidths(natural: number[], total: number, fixed: boolean[] = [], floors: number[] = []): number[] {
  const n = natural.length;
  const budget = total - GAP * Math.max(0, n - 1);
  const floor = (j: number) => Math.min(natural[j], Math.max(4, floors[j] ?? 0));
  const widths = (cap: number) => natural.map((w, j) => (fixed[j] ? w : Math.max(floor(j), Math.min(w, cap))));
  const sum = (cap: number) => widths(cap).reduce((s, w) => s + w, 0);
  let cap = Math.max(0, ...natural);
  while (cap > 4 && sum(cap) > budget) cap--;
  return widths(cap);
}

function cut(s: string, width: number): string {
  const v = visible(s);
  if (v.length <= width) return s;
  return v.slice(0, Math.max(0, width - 1)) + '…';
}

export interface TableStyle {
  width: number;
  bold(s: string): string;
}

export interface TableColumn {
  head: string;
  /** Key used to recognise identifier columns. */
  key: string;
  /** Force the column fixed (true) or shrinkable (false); default: recognised by key and values. */
  fixed?: boolean;
  /** Leave the column out when the free-text columns would otherwise shrink below 10 characters. */
  optional?: boolean;
}

const MIN_TEXT = 10;

function layout(s: TableStyle, columns: TableColumn[], cells: string[][], indent: string) {
  const heads = columns.map((c) => c.head.toUpperCase());
  const natural = heads.map((h, j) => Math.max(h.length, ...cells.map((r) => visible(r[j] ?? '').length)));
  const fixed = columns.map((c, j) => c.fixed ?? isIdentifierColumn(c.key, cells.map((r) => r[j] ?? '')));
  const widths = fitWidths(natural, s.width - indent.length, fixed, heads.map((h) => Math.min(h.length, 12)));
  return { heads, natural, fixed, widths };
}

function tooNarrow(s: TableStyle, columns: TableColumn[], cells: string[][], indent: string): boolean {
  const { natural, fixed, widths } = layout(s, columns, cells, indent);
  return widths.some((w, j) => !fixed[j] && w < Math.min(natural[j], MIN_TEXT));
}

/** Render rows of cells (one line each) as the tree's table. */
export function renderTable(s: TableStyle, columns: TableColumn[], rows: string[][], indent = ''): string {
  let cells = rows.map((r) => r.map((c) => c.replace(/[\r\n\t]+/g, ' ')));
  // Narrow terminal: drop optional columns (rightmost first) while free text would be cut too short.
  for (;;) {
    const j = columns.map((c) => c.optional).lastIndexOf(true);
    if (j < 0 || !tooNarrow(s, columns, cells, indent)) break;
    columns = columns.filter((_, k) => k !== j);
    cells = cells.map((r) => r.filter((_, k) => k !== j));
  }
  const { heads, widths } = layout(s, columns, cells, indent);
  const line = (r: string[], head = false) =>
    indent +
    r
      .map((c, j) => {
        const text = cut(c, widths[j]);
        const pad = ' '.repeat(Math.max(0, widths[j] - visible(text).length));
        const shown = head ? s.bold(text) : text;
        return j === r.length - 1 ? shown : shown + pad;
      })
      .join(' '.repeat(GAP))
      .replace(/\s+$/, '');
  return [line(heads, true), ...cells.map((r) => line(r))].join('\n');
}
