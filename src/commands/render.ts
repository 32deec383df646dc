// Small text layouts for the human cards of the resource commands (book, user, order, ...):
// aligned label/value lines and sub-tables in the tree's one table style. Pure string functions.
import { formatAmount } from '../spec/currency.js';
import type { Style } from '../output/index.js';
import { labelled, renderTable } from '../output/table.js';
import { cellText as t } from '../output/format.js';

export type Pair = [label: string, value: unknown];

/**
 * Aligned `Label  value` lines in display columns, within the terminal's width: a long value
 * (a path, a list of scopes) wraps under itself, never cut; control characters in values are
 * escaped. Pairs whose value is undefined, null, false or '' are skipped.
 */
export function kv(s: Style, pairs: Pair[], indent = ''): string {
  const shown = pairs.filter(([, v]) => v !== undefined && v !== null && v !== false && v !== '');
  return labelled(
    s,
    shown.map(([k, v]) => [k, String(v)]),
    indent,
  );
}

/** A column of a card's sub-table: its header, or the header with how it gives way. */
export type GridColumn = string | { head: string; optional?: boolean; min?: number; fixed?: boolean };

/**
 * A sub-table of a card, in the tree's one table style (UPPERCASE headers, ids never cut); when
 * it cannot fit the terminal, optional columns go first, then each row becomes a small card.
 */
export function grid(s: Style, head: GridColumn[], rows: unknown[][], indent = '  '): string {
  const cells = rows.map((r) => r.map((c) => t(c)));
  const columns = head
    .map((h) => (typeof h === 'string' ? { head: h } : h))
    .map((c) => ({ ...c, key: c.head.toLowerCase().replace(/[ -]/g, '_') }));
  return renderTable(s, columns, cells, indent);
}

export function yesNo(s: Style, v: unknown): string {
  return v === true ? s.green('yes') : v === false ? 'no' : '';
}

/** A list of the flags that are true, e.g. `active, published, processed`. */
export function flags(
  s: Style,
  o: Record<string, unknown> | undefined,
  names: Array<[key: string, word: string]>,
): string {
  if (!o) return '';
  return names
    .map(([k, w]) => (o[k] === true ? s.green(w) : o[k] === false ? s.dim(`not ${w}`) : ''))
    .filter(Boolean)
    .join(', ');
}

/** `2025-01-02T12:00:00Z` → `2025-01-02 12:00`; dates stay dates. */
export function when(v: unknown): string {
  if (typeof v !== 'string' || !v) return '';
  const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}))?/.exec(v);
  if (!m) return v;
  return m[2] && m[2] !== '00:00' ? `${m[1]} ${m[2]}` : m[1];
}

/** An amount with its currency, in its minor unit (1200 JPY, 14.99 USD); as given when it is not a number. */
export function money(v: unknown, currency?: string): string {
  if (v === null || v === undefined || v === '') return '';
  const num = typeof v === 'number' ? v : /^-?\d+(\.\d+)?$/.test(t(v).trim()) ? Number(v) : NaN;
  const n = Number.isFinite(num) ? (currency || typeof v === 'number' ? formatAmount(num, currency) : t(v)) : t(v);
  return currency ? `${n} ${currency}` : n;
}
