// Small text layouts for the human cards of the resource commands (book, user, order, ...):
// aligned label/value lines and sub-tables in the tree's one table style. Pure string functions.
import type { Style } from '../output/index.js';
import { renderTable } from '../output/table.js';

export type Pair = [label: string, value: string | number | null | undefined | false];

/** Aligned `Label  value` lines; pairs whose value is undefined, null, false or '' are skipped. */
export function kv(s: Style, pairs: Pair[], indent = ''): string {
  const shown = pairs.filter(([, v]) => v !== undefined && v !== null && v !== false && v !== '');
  const w = Math.max(0, ...shown.map(([k]) => k.length));
  return shown.map(([k, v]) => `${indent}${s.bold(k.padEnd(w))}  ${v}`).join('\n');
}

/** A sub-table of a card, in the tree's one table style (UPPERCASE headers, ids never cut). */
export function grid(s: Style, head: string[], rows: Array<Array<string | number | null | undefined>>, indent = '  '): string {
  const cells = rows.map((r) => r.map((c) => (c === null || c === undefined ? '' : String(c))));
  return renderTable(s, head.map((h) => ({ head: h, key: h.toLowerCase().replace(/[ -]/g, '_') })), cells, indent);
}

export function yesNo(s: Style, v: unknown): string {
  return v === true ? s.green('yes') : v === false ? 'no' : '';
}

/** A list of the flags that are true, e.g. `active, published, processed`. */
export function flags(s: Style, o: Record<string, unknown> | undefined, names: Array<[key: string, word: string]>): string {
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

export function money(v: unknown, currency?: string): string {
  if (v === null || v === undefined || v === '') return '';
  const n = typeof v === 'number' ? v.toFixed(2) : String(v);
  return currency ? `${n} ${currency}` : n;
}

