// How result rows are written to a job's file: CSV and TSV with a header row, NDJSON, or a JSON
// array (closed when the job completes).
import { StringDecoder } from 'node:string_decoder';
import { csvCell, tsvCell } from '../../output/format.js';
import type { FileFormat } from './types.js';

export function fileHeader(fmt: FileFormat, columns: readonly string[]): string {
  if (fmt === 'csv') return columns.map(csvCell).join(',') + '\n';
  if (fmt === 'tsv') return columns.map(tsvCell).join('\t') + '\n';
  if (fmt === 'json') return '[\n';
  return '';
}

/** Rows as text; `first`: no row precedes them in a JSON array. */
export function encodeRows(
  fmt: FileFormat,
  columns: readonly string[],
  rows: Array<Record<string, unknown>>,
  first: boolean,
): string {
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

/** Something that reads at a position (an open file handle). */
interface Readable {
  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
}

/**
 * The bytes of `fh` from `start` to `end`, in chunks (memory stays flat in the file's size). With
 * `reuse`, each chunk is the same buffer read again: for a reader done with a chunk before it asks
 * for the next (countRows), which then makes no garbage per chunk.
 */
export async function* bytesOf(
  fh: Readable,
  start: number,
  end: number,
  size = 1 << 16,
  reuse = false,
): AsyncGenerator<Buffer> {
  const buf = Buffer.alloc(size);
  // Stryker disable next-line EqualityOperator: equivalent, at pos === end the read asks for 0 bytes, gets 0 and returns
  for (let pos = start; pos < end; ) {
    const { bytesRead } = await fh.read(buf, 0, Math.min(size, end - pos), pos);
    if (!bytesRead) return;
    pos += bytesRead;
    yield reuse ? buf.subarray(0, bytesRead) : Buffer.from(buf.subarray(0, bytesRead));
  }
}

/**
 * Rows of a job's file as encodeRows wrote them (the header row skipped), each cell as written
 * (CSV and TSV cells as text, JSON values as they are). Lines torn at the end are not rows.
 */
export async function* decodeRows(
  fmt: FileFormat,
  columns: readonly string[],
  chunks: AsyncIterable<Buffer>,
): AsyncGenerator<Record<string, unknown>> {
  // Stryker disable next-line StringLiteral: equivalent, the encoding '' is UTF-8
  const dec = new StringDecoder('utf8');
  const byName = (cells: unknown[]) => Object.fromEntries(columns.map((c, i) => [c, cells[i]]));
  const records = fmt === 'csv' ? csvRecords() : lineRecords();
  let header = fmt === 'csv' || fmt === 'tsv';
  for await (const chunk of chunks) {
    for (const rec of records(dec.write(chunk))) {
      if (header) {
        header = false;
        continue;
      }
      if (fmt === 'csv') yield byName(rec as string[]);
      else if (fmt === 'tsv') yield byName((rec as string).split('\t').map(unTsv));
      else {
        const line = (rec as string).replace(/^,/, '');
        if (line === '[' || line === ']' || line === '') continue;
        yield JSON.parse(line) as Record<string, unknown>;
      }
    }
  }
}

/**
 * How many rows decodeRows would yield from these bytes, counted on the bytes (no cell, string or
 * row is made: a million-row file is counted in flat memory). The same rules: the header row
 * skipped, a torn last line not a row, CSV records ending at a line break outside quotes.
 */
export async function countRows(fmt: FileFormat, chunks: AsyncIterable<Buffer>): Promise<number> {
  const QUOTE = 0x22,
    COMMA = 0x2c,
    LF = 0x0a,
    CR = 0x0d,
    OPEN = 0x5b,
    CLOSE = 0x5d;
  let lines = 0;
  // CSV: the state of decodeRows' csvRecords, on bytes (the bytes of a multi-byte character are
  // never one of the special ones, as its characters are not).
  let quoted = false;
  let quoteSeen = false;
  let cellEmpty = true;
  // JSON and NDJSON (read alike; a TSV line is a row whatever it holds): the current line's length after
  // one leading comma, and its first byte after it.
  let len = 0;
  // Stryker disable next-line UnaryOperator: equivalent, first is read only for a line of one byte, which set it
  let first = -1;
  let atStart = true;
  for await (const chunk of chunks) {
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i];
      if (fmt === 'csv') {
        if (quoted) {
          if (quoteSeen) {
            quoteSeen = false;
            if (b === QUOTE) {
              cellEmpty = false;
              continue;
            }
            quoted = false;
          } else if (b === QUOTE) {
            quoteSeen = true;
            continue;
          } else {
            cellEmpty = false;
            continue;
          }
        }
        if (b === QUOTE && cellEmpty) quoted = true;
        else if (b === COMMA) cellEmpty = true;
        else if (b === LF) {
          lines++;
          cellEmpty = true;
        } else if (b !== CR) cellEmpty = false;
      } else if (b === LF) {
        if (fmt === 'tsv' || (len > 0 && !(len === 1 && (first === OPEN || first === CLOSE)))) lines++;
        len = 0;
        atStart = true;
      } else {
        if (atStart && b === COMMA) {
          atStart = false;
          continue;
        }
        atStart = false;
        // Stryker disable next-line ConditionalExpression: equivalent (→ true), first is read only when it is the line's only byte
        if (len === 0) first = b;
        len++;
      }
    }
  }
  return fmt === 'csv' || fmt === 'tsv' ? Math.max(0, lines - 1) : lines;
}

function unTsv(cell: string): string {
  return cell.replace(/\\[\\tnr]/g, (e) => ({ '\\\\': '\\', '\\t': '\t', '\\n': '\n', '\\r': '\r' })[e]!);
}

/** Complete lines, across chunks. */
function lineRecords(): (text: string) => string[] {
  let rest = '';
  return (text) => {
    const lines = (rest + text).split('\n');
    rest = lines.pop()!;
    return lines;
  };
}

/** Complete CSV records (quoted cells may hold commas, quotes and line breaks), across chunks. */
function csvRecords(): (text: string) => string[][] {
  let cell = '';
  // Stryker disable next-line ArrayDeclaration: equivalent, only the first record (the header row, skipped) starts from it
  let cells: string[] = [];
  let quoted = false;
  let quoteSeen = false;
  return (text) => {
    const out: string[][] = [];
    for (const ch of text) {
      if (quoted) {
        if (quoteSeen) {
          quoteSeen = false;
          if (ch === '"') {
            cell += '"';
            continue;
          }
          quoted = false;
        } else if (ch === '"') {
          quoteSeen = true;
          continue;
        } else {
          cell += ch;
          continue;
        }
      }
      if (ch === '"' && cell === '') quoted = true;
      else if (ch === ',') {
        cells.push(cell);
        cell = '';
      } else if (ch === '\n') {
        cells.push(cell);
        out.push(cells);
        cells = [];
        cell = '';
      } else if (ch !== '\r') cell += ch;
    }
    return out;
  };
}
