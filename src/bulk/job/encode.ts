// How result rows are written to a job's file: CSV and TSV with a header row, NDJSON, or a JSON
// array (closed when the job completes).
import { csvCell, tsvCell } from '../../output/format.js';
import type { FileFormat } from './types.js';

export function fileHeader(fmt: FileFormat, columns: readonly string[]): string {
  if (fmt === 'csv') return columns.map(csvCell).join(',') + '\n';
  if (fmt === 'tsv') return columns.map(tsvCell).join('\t') + '\n';
  if (fmt === 'json') return '[\n';
  return '';
}

/** Rows as text; `first`: no row precedes them in a JSON array. */
export function encodeRows(fmt: FileFormat, columns: readonly string[], rows: Array<Record<string, unknown>>, first: boolean): string {
  let s = '';
  for (const r of rows) {
    if (fmt === 'csv') s += columns.map((c) => csvCell(r[c])).join(',') + '\n';
    else if (fmt === 'tsv') s += columns.map((c) => tsvCell(r[c])).join('\t') + '\n';
    else if (fmt === 'json') {
      s += (first ? '' : ',') + JSON.stringify(r) + '\n';
      first = false;
    } else s += JSON.stringify(r) + '\n';
  }
  return s;
}

/** Fields in the order of the columns, whatever order the spec built them in. */
export function inColumnOrder<R extends Record<string, unknown>>(rows: R[], columns: readonly string[]): R[] {
  const row = rows[0];
  if (!row) return rows;
  const keys = Object.keys(row);
  if (keys.length === columns.length && keys.every((k, i) => k === columns[i])) return rows;
  return rows.map((r) => Object.fromEntries(columns.map((c) => [c, r[c]])) as R);
}
