// Small text layouts for the human cards of the resource commands (book, user, order, ...):
// aligned label/value lines and borderless sub-tables. Pure string functions, no imports.
import type { Context } from '../context.js';
import { emit, outputFormat } from '../output/index.js';
import type { Style } from '../output/index.js';

export type Pair = [label: string, value: string | number | null | undefined | false];

/** Aligned `Label  value` lines; pairs whose value is undefined, null, false or '' are skipped. */
export function kv(s: Style, pairs: Pair[], indent = ''): string {
  const shown = pairs.filter(([, v]) => v !== undefined && v !== null && v !== false && v !== '');
  const w = Math.max(0, ...shown.map(([k]) => k.length));
  return shown.map(([k, v]) => `${indent}${s.bold(k.padEnd(w))}  ${v}`).join('\n');
}

/** A borderless table: bold header, columns padded to their widest cell. */
export function grid(s: Style, head: string[], rows: Array<Array<string | number | null | undefined>>, indent = '  '): string {
  const cells = rows.map((r) => r.map((c) => (c === null || c === undefined ? '' : String(c))));
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((r) => visible(r[i] ?? '').length)));
  const line = (r: string[], bold = false) =>
    indent +
    r
      .map((c, i) => {
        const pad = ' '.repeat(Math.max(0, widths[i] - visible(c).length));
        const text = bold ? s.bold(c) : c;
        return i === r.length - 1 ? text : text + pad;
      })
      .join('  ')
      .replace(/\s+$/, '');
  return [line(head, true), ...cells.map((r) => line(r))].join('\n');
}

/** Text without ANSI colour codes (for width computations). */
function visible(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/\x1b\[[0-9;]*m/g, '');
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

/** True when the output is for people (table, tsv, csv), false for json/ndjson. */
export function humanOutput(ctx: Context): boolean {
  const f = outputFormat(ctx);
  return f !== 'json' && f !== 'ndjson';
}

/**
 * Print one resource of a response. JSON/NDJSON get the service's whole response; a table gets
 * the card; TSV/CSV get the resource's own fields flattened into one row. With `message`, the
 * service's success message (`Invitation sent.`, `Order created.`) goes to stderr for people.
 */
export async function emitResource(
  ctx: Context,
  body: any,
  resource: unknown,
  card: (data: any, s: Style) => string,
  opts: { message?: boolean } = {},
): Promise<void> {
  const human = humanOutput(ctx);
  await emit(ctx, human ? resource : body, { card: (d, s) => card(d, s) });
  if (opts.message && human && body && typeof body.message === 'string' && body.message) ctx.info(body.message);
}

/** A response that is only a message (free order, ...): stderr for people, the body for JSON. */
export async function emitMessage(ctx: Context, body: any, fallback: string): Promise<void> {
  if (humanOutput(ctx)) ctx.info(typeof body?.message === 'string' && body.message ? body.message : fallback);
  else await emit(ctx, body);
}
