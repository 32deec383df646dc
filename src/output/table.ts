// The one table style of the tree: no borders, UPPERCASE headers, two spaces between columns.
// Widths are display columns (text.ts): wide CJK and emoji take two, combining marks none.
// Identifier columns (hash ids, ISBNs, usernames, codes, numeric ids, order numbers) are never
// cut; free-text columns (titles, names, messages...) share what is left, each down to a floor.
// When that cannot fit, optional columns are left out (rightmost first); when it still cannot,
// every row becomes a card of `LABEL  value` lines (as kubectl and gh do), wrapped, never cut.
// Cells are shown with control characters escaped (text.ts): data never drives the terminal.
import { cutToWidth, ellipsisFor, escapeKeepingStyle, padToWidth, textWidth, wrapToWidth } from './text.js';

/** Text without ANSI colour codes (for width computations). */
function visible(s: string): string {
  return s.replace(/\x1b\[[0-9;]*m/g, '');
}

/** Column keys that hold identifiers: never truncated. */
const ID_KEY =
  /(^|[._])(id|ids|hash_id|username|isbn\d*|eisbn\d*|parent_isbn|sku|code|codes|order_number|purchase_id|book_id|input|name|path|url|file|key_file)$/i;
/** Values that are numbers, dates or flags: short, and useless when cut. */
const SCALAR = /^(-?\d+([.,:/-]\d+)*|true|false|yes|no|-|\d{4}-\d\d-\d\d([ T][\d:.]+Z?)?)?$/i;

/** Is a column an identifier (never cut), given its key and the values it holds? */
function isIdentifierColumn(key: string, values: string[]): boolean {
  if (ID_KEY.test(key)) return true;
  return values.length > 0 && values.every((v) => SCALAR.test(visible(v).trim()));
}

export const GAP = 2;
/** The least a free-text column is cut to (its natural width when that is less). */
const MIN_TEXT = 10;

/**
 * Content widths for `total` columns, or undefined when the fixed columns and the free-text
 * floors do not fit. Fixed columns keep their natural width; the free-text columns share what
 * is left, the widest cut first (each gets the same cap), never below its floor.
 */
export function fitWidths(
  natural: number[],
  total: number,
  fixed: boolean[] = [],
  floors: number[] = [],
): number[] | undefined {
  const n = natural.length;
  const budget = total - GAP * Math.max(0, n - 1);
  const floor = (j: number) => Math.min(natural[j], Math.max(1, floors[j] ?? MIN_TEXT));
  const widths = (cap: number) => natural.map((w, j) => (fixed[j] ? w : Math.max(floor(j), Math.min(w, cap))));
  const sum = (cap: number) => widths(cap).reduce((s, w) => s + w, 0);
  if (sum(0) > budget) return undefined;
  let lo = 0;
  let hi = Math.max(0, ...natural);
  // The largest cap that fits (sum is monotonic in cap).
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (sum(mid) <= budget) lo = mid;
    else hi = mid - 1;
  }
  return widths(lo);
}

export interface TableStyle {
  width: number;
  bold(s: string): string;
  /** ASCII-only terminal: `...` for a cut. */
  ascii?: boolean;
}

export interface TableColumn {
  head: string;
  /** Key used to recognise identifier columns. */
  key: string;
  /** Force the column fixed (true) or shrinkable (false); default: recognised by key and values. */
  fixed?: boolean;
  /** Leave the column out when the table does not fit otherwise (rightmost first). */
  optional?: boolean;
  /** The least this free-text column is cut to (default 10, or its header's width). */
  min?: number;
  /**
   * A width this free-text column should have before optional columns are shown: while it
   * would be cut below it, optional columns are left out (default: its `min`).
   */
  want?: number;
}

/** A cell as one line of text: whitespace runs are one space, control characters escaped. */
function cleanCell(c: string): string {
  return escapeKeepingStyle(c.replace(/[\r\n\t]+/g, ' '));
}

function plan(columns: TableColumn[], cells: string[][], total: number) {
  const heads = columns.map((c) => c.head.toUpperCase());
  const natural = heads.map((h, j) => Math.max(textWidth(h), ...cells.map((r) => textWidth(r[j] ?? ''))));
  const fixed = columns.map(
    (c, j) =>
      c.fixed ??
      isIdentifierColumn(
        c.key,
        cells.map((r) => r[j] ?? ''),
      ),
  );
  const floors = columns.map((c, j) => c.min ?? Math.max(MIN_TEXT, textWidth(heads[j])));
  const widths = fitWidths(natural, total, fixed, floors);
  if (!widths) return undefined;
  // Do the columns that must be there get the width they want?
  const content = columns.every(
    (c, j) => c.optional || fixed[j] || widths[j] >= Math.min(natural[j], c.want ?? floors[j]),
  );
  return { heads, widths, content };
}

/** Render rows of cells (one line each) as the tree's table; rows become cards when it cannot fit. */
export function renderTable(s: TableStyle, columns: TableColumn[], rows: string[][], indent = ''): string {
  const all = rows.map((r) => r.map(cleanCell));
  const total = s.width - textWidth(indent);
  let cols = columns;
  let cells = all;
  for (;;) {
    const fit = plan(cols, cells, total);
    const j = cols.map((c) => c.optional).lastIndexOf(true);
    // Optional columns give way to the text of the others, and to a table that fits at all.
    if (fit && (fit.content || j < 0)) return draw(s, fit.heads, fit.widths, cells, indent);
    if (j < 0) break;
    cols = cols.filter((_, k) => k !== j);
    cells = cells.map((r) => r.filter((_, k) => k !== j));
  }
  // Cards have room for every column again.
  return renderCards(
    s,
    columns.map((c) => c.head.toUpperCase()),
    all,
    indent,
  );
}

function draw(s: TableStyle, heads: string[], widths: number[], cells: string[][], indent: string): string {
  const ellipsis = ellipsisFor(Boolean(s.ascii));
  const line = (r: string[], head = false) =>
    indent +
    r
      .map((c, j) => {
        const text = cutToWidth(c, widths[j], ellipsis);
        const shown = head ? s.bold(text) : text;
        return j === r.length - 1 ? shown : shown + ' '.repeat(Math.max(0, widths[j] - textWidth(text)));
      })
      .join(' '.repeat(GAP))
      .replace(/\s+$/, '');
  return [line(heads, true), ...cells.map((r) => line(r))].join('\n');
}

/**
 * Rows as cards: one `LABEL  value` line per non-empty cell, values wrapped (never cut) beside
 * their labels, a blank line between records.
 */
function renderCards(s: TableStyle, heads: string[], cells: string[][], indent = ''): string {
  return cells
    .map((r) =>
      labelled(
        s,
        heads.map((h, j) => [h, r[j] ?? ''] as [string, string]).filter(([, v]) => v !== ''),
        indent,
      ),
    )
    .join('\n\n');
}

/**
 * Aligned `label  value` lines within the style's width: values wrap at spaces (a word wider
 * than the room, such as a path, breaks across lines), continuation lines under the value.
 * Values are escaped; the colour codes of this tree in them stay (when they fit on one line).
 */
export function labelled(s: TableStyle, pairs: Array<[label: string, value: string]>, indent = ''): string {
  const w = Math.max(0, ...pairs.map(([k]) => textWidth(k)));
  const room = Math.max(20, s.width - textWidth(indent) - w - GAP);
  const hang = ' '.repeat(textWidth(indent) + w + GAP);
  return pairs
    .map(([k, raw]) => {
      const v = escapeKeepingStyle(raw, true);
      const head = `${indent}${s.bold(padToWidth(k, w))}  `;
      if (!v.includes('\n') && textWidth(v) <= room) return head + v;
      const lines = wrapToWidth(visible(v), room);
      return head + lines.join('\n' + hang);
    })
    .join('\n');
}
