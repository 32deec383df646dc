// How a job's rows are written to its file and read back (src/bulk/job/encode.ts), in-process: the
// header and rows of each format (CSV quoting, TSV escapes, NDJSON, a JSON array's commas), fields
// put in column order, a file read in chunks between two offsets, its rows decoded as written
// (across chunk boundaries, multi-byte characters and torn last lines), and countRows counting on
// the bytes exactly what decodeRows yields. Whole jobs writing files are in engine.test.ts; these
// take milliseconds (`npm run mutate` runs them first).
import { describe, expect, it } from 'vitest';
import { bytesOf, countRows, decodeRows, encodeRows, fileHeader, inColumnOrder } from '../../src/bulk/job/encode.js';
import type { FileFormat } from '../../src/bulk/job/types.js';

/** Milliseconds each: a change that loops forever fails here in 5 s (test/mutation/sequencer.ts). */
const QUICK = { timeout: 5_000 };

type Row = Record<string, unknown>;
const FORMATS: FileFormat[] = ['csv', 'tsv', 'ndjson', 'json'];

/** An open file held in memory: reads at a position, as a file handle does. */
function fileOf(bytes: Buffer) {
  return {
    async read(buf: Uint8Array, off: number, len: number, pos: number) {
      const n = Math.max(0, Math.min(len, bytes.length - pos));
      bytes.copy(buf, off, pos, pos + n);
      return { bytesRead: n };
    },
  };
}

/** Every item, failing (instead of looping on) a generator that never ends. */
async function all<T>(items: AsyncIterable<T>, most = 100_000): Promise<T[]> {
  const out: T[] = [];
  for await (const x of items) {
    out.push(x);
    if (out.length > most) throw new Error(`more than ${most} items`);
  }
  return out;
}

/** `bytes` as chunks cut at the given offsets. */
async function* cutAt(bytes: Buffer, ...at: number[]): AsyncGenerator<Buffer> {
  let from = 0;
  for (const to of [...at, bytes.length]) {
    yield bytes.subarray(from, to);
    from = to;
  }
}

/** `bytes` in chunks of `size`. */
async function* chunksOf(bytes: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

const decode = (fmt: FileFormat, columns: string[], chunks: AsyncIterable<Buffer>) =>
  all(decodeRows(fmt, columns, chunks));

/**
 * A file as a job writes it (header, rows in batches, a JSON array closed at the end), with the
 * byte offset where each row ends.
 */
function jobFile(fmt: FileFormat, columns: string[], batches: Row[][]): { bytes: Buffer; ends: number[] } {
  let text = fileHeader(fmt, columns);
  const ends: number[] = [];
  let first = true;
  for (const batch of batches)
    for (const row of batch) {
      // One row at a time, to know where each ends; the same text as the whole batch at once.
      text += encodeRows(fmt, columns, [row], first);
      first = false;
      ends.push(Buffer.byteLength(text));
    }
  expect(text).toBe(fileHeader(fmt, columns) + batches.map((b, i) => encodeRows(fmt, columns, b, i === 0)).join(''));
  if (fmt === 'json') text += ']\n';
  return { bytes: Buffer.from(text), ends };
}

describe('fileHeader and encodeRows: what each format writes', () => {
  it('CSV: a header row and one line a row, cells quoted where a comma, quote, line break or edge space needs it', () => {
    expect(fileHeader('csv', ['code', 'note, long', 'say "hi"'])).toBe('code,"note, long","say ""hi"""\n');
    const rows = [
      { code: 'A1', note: 'a, b', n: 7 },
      { n: true, code: 'say "hi"', note: 'two\nlines' },
      { code: ' edge', note: 'cr\rhere', n: null },
      { code: 'x', note: { nested: [1] } },
    ];
    expect(encodeRows('csv', ['code', 'note', 'n'], rows, true)).toBe(
      'A1,"a, b",7\n' + '"say ""hi""","two\nlines",true\n' + '" edge","cr\rhere",\n' + 'x,"{""nested"":[1]}",\n',
    );
  });

  it('TSV: a header row and one line a row, tab-separated, backslash, tab and line breaks escaped', () => {
    expect(fileHeader('tsv', ['code', 'a\tb', 'back\\slash'])).toBe('code\ta\\tb\tback\\\\slash\n');
    const rows = [
      { code: 'A1', note: 'tab\there', n: 1 },
      { note: 'two\nlines\r\n', code: 'back\\n', n: undefined },
    ];
    expect(encodeRows('tsv', ['code', 'note', 'n'], rows, true)).toBe(
      'A1\ttab\\there\t1\n' + 'back\\\\n\ttwo\\nlines\\r\\n\t\n',
    );
  });

  it('NDJSON: no header, one JSON object a line, the same whether rows came before or not', () => {
    expect(fileHeader('ndjson', ['code', 'status'])).toBe('');
    const rows = [
      { code: 'A1', status: 'ok' },
      { code: 'B2', status: null },
    ];
    const text = '{"code":"A1","status":"ok"}\n{"code":"B2","status":null}\n';
    expect(encodeRows('ndjson', ['code', 'status'], rows, true)).toBe(text);
    expect(encodeRows('ndjson', ['code', 'status'], rows, false)).toBe(text);
  });

  it('JSON: an array opened by the header, each row after the first preceded by a comma', () => {
    expect(fileHeader('json', ['code'])).toBe('[\n');
    const rows = [{ code: 'A1' }, { code: 'B2' }, { code: 'C3' }];
    expect(encodeRows('json', ['code'], rows, true)).toBe('{"code":"A1"}\n,{"code":"B2"}\n,{"code":"C3"}\n');
    // A later batch: rows precede it in the array.
    expect(encodeRows('json', ['code'], rows.slice(0, 2), false)).toBe(',{"code":"A1"}\n,{"code":"B2"}\n');
  });

  it('no rows: no text, in every format', () => {
    for (const fmt of FORMATS) expect(encodeRows(fmt, ['code'], [], true)).toBe('');
  });
});

describe('inColumnOrder', () => {
  const columns = ['code', 'status', 'note'];
  const keysOf = (rows: Row[]) => rows.map((r) => Object.keys(r).join(','));

  it('puts every row in column order, with every column, when the first row is out of order', () => {
    const rows = [
      { status: 'ok', code: 'A1', note: 'x' },
      { note: 'y', code: 'B2', status: 'ok' },
    ];
    const out = inColumnOrder(rows, columns);
    expect(keysOf(out)).toEqual(['code,status,note', 'code,status,note']);
    expect(out).toEqual(rows);
    expect(JSON.stringify(out[1])).toBe('{"code":"B2","status":"ok","note":"y"}');
  });

  it('a first row in order up to a point, or missing a column, or with a field more, is no reason to leave the rows as they are', () => {
    const later = { note: 'n', status: 's', code: 'Z9' };
    for (const first of [
      { code: 'A1', note: 'x', status: 'ok' },
      { code: 'A1', status: 'ok' },
      { code: 'A1', status: 'ok', note: 'x', extra: 1 },
    ]) {
      const out = inColumnOrder([first, later] as Row[], columns);
      expect(keysOf(out)).toEqual(['code,status,note', 'code,status,note']);
      expect(out[1]).toEqual(later);
      expect(out[0]).not.toHaveProperty('extra');
    }
  });

  it('passes rows already in column order on as they are: a page of rows is not copied', () => {
    const rows = [
      { code: 'A1', status: 'ok', note: 'x' },
      { code: 'B2', status: 'ok', note: 'y' },
    ];
    expect(inColumnOrder(rows, columns)).toBe(rows);
    const none: Row[] = [];
    expect(inColumnOrder(none, columns)).toBe(none);
  });
});

describe('bytesOf: a file read between two offsets', () => {
  const bytes = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));

  it(
    'yields exactly the bytes from start to end, in chunks of the size asked, each kept as it was read',
    QUICK,
    async () => {
      const chunks = await all(bytesOf(fileOf(bytes), 100, 900, 64));
      expect(chunks.map((c) => c.length)).toEqual([...Array<number>(12).fill(64), 32]);
      expect(Buffer.concat(chunks)).toEqual(bytes.subarray(100, 900));
    },
  );

  it('reusing one buffer: each chunk is right while it is read, before the next', QUICK, async () => {
    const seen: Buffer[] = [];
    for await (const c of bytesOf(fileOf(bytes), 10, 990, 100, true)) seen.push(Buffer.from(c));
    expect(Buffer.concat(seen)).toEqual(bytes.subarray(10, 990));
  });

  it('a file shorter than the end asked (cut since): what it holds, then the end', QUICK, async () => {
    const chunks = await all(bytesOf(fileOf(bytes.subarray(0, 150)), 0, 1000, 64));
    expect(Buffer.concat(chunks)).toEqual(bytes.subarray(0, 150));
  });

  it('a default chunk size: one chunk for a small file', QUICK, async () => {
    expect(await all(bytesOf(fileOf(bytes), 0, 1000))).toEqual([bytes]);
  });
});

describe('decodeRows and countRows: a job file read back', () => {
  const cases: Array<{ name: string; columns: string[]; rows: Row[][] }> = [
    {
      name: 'cells that need quoting and escapes, wide characters, brackets',
      columns: ['code', 'note', 'n'],
      rows: [
        [
          { code: 'A1', note: 'plain', n: '1' },
          { code: 'B2', note: 'comma, "quotes" and\nnew line\r\nand CRLF', n: '' },
        ],
        [
          { code: 'C3', note: ' padded ', n: '[' },
          { code: 'D4', note: 'back\\slash \\n tab\there', n: ']' },
          { code: 'E5', note: 'é 漢字 😀', n: '"' },
          { code: '', note: '', n: ',' },
        ],
      ],
    },
    {
      // The header itself quoted, with a line break in its first cell.
      name: 'column names that need quoting',
      columns: ['note\nline', 'code, "id"'],
      rows: [[{ 'note\nline': '"quoted"\nfirst', 'code, "id"': 'A1' }], [{ 'note\nline': 'x', 'code, "id"': ',' }]],
    },
    {
      name: 'one column: an empty cell, brackets and a comma alone on a line',
      columns: ['v'],
      rows: [[{ v: '' }, { v: '[' }, { v: ']' }, { v: ',' }, { v: '' }]],
    },
  ];

  for (const fmt of FORMATS)
    for (const c of cases) {
      const rows = c.rows.flat();

      it(`${fmt}, ${c.name}: every row back as written, however the bytes are cut into chunks`, QUICK, async () => {
        const { bytes } = jobFile(fmt, c.columns, c.rows);
        expect(await decode(fmt, c.columns, cutAt(bytes))).toEqual(rows);
        expect(await countRows(fmt, cutAt(bytes))).toBe(rows.length);
        for (let at = 0; at <= bytes.length; at++) {
          expect(await decode(fmt, c.columns, cutAt(bytes, at))).toEqual(rows);
          expect(await countRows(fmt, cutAt(bytes, at))).toBe(rows.length);
        }
        for (const size of [1, 2, 3, 5, 64]) {
          expect(await decode(fmt, c.columns, chunksOf(bytes, size))).toEqual(rows);
          expect(await countRows(fmt, bytesOf(fileOf(bytes), 0, bytes.length, size, true))).toBe(rows.length);
        }
      });

      it(`${fmt}, ${c.name}: a file cut anywhere holds the rows whose line is complete`, QUICK, async () => {
        const { bytes, ends } = jobFile(fmt, c.columns, c.rows);
        for (let cut = 0; cut < bytes.length; cut++) {
          const whole = ends.filter((e) => e <= cut).length;
          const part = bytes.subarray(0, cut);
          expect(await decode(fmt, c.columns, chunksOf(part, 7))).toEqual(rows.slice(0, whole));
          expect(await countRows(fmt, chunksOf(part, 7))).toBe(whole);
        }
      });
    }

  it('an empty file holds no rows', QUICK, async () => {
    for (const fmt of FORMATS) {
      expect(await decode(fmt, ['code'], cutAt(Buffer.alloc(0)))).toEqual([]);
      expect(await countRows(fmt, cutAt(Buffer.alloc(0)))).toBe(0);
    }
  });

  /** Both readers agree on `text`, in one chunk and in chunks of 1 and 2 bytes. */
  async function readsAs(fmt: FileFormat, columns: string[], text: string, rows: unknown[]) {
    const bytes = Buffer.from(text);
    for (const chunks of [() => cutAt(bytes), () => chunksOf(bytes, 1), () => chunksOf(bytes, 2)]) {
      expect(await decode(fmt, columns, chunks())).toEqual(rows);
      expect(await countRows(fmt, chunks())).toBe(rows.length);
    }
  }

  it(
    'CSV as a spreadsheet or an editor may leave it: CRLF line ends, a bare quote inside a cell, a stray carriage return, text after a closing quote',
    QUICK,
    async () => {
      await readsAs('csv', ['code', 'note'], 'code,note\r\nA1,x\r\n"B2","y\r\nz"\r\n', [
        { code: 'A1', note: 'x' },
        { code: 'B2', note: 'y\r\nz' },
      ]);
      await readsAs('csv', ['code', 'note'], 'code,note\nA"1,x\nB2,y\n', [
        { code: 'A"1', note: 'x' },
        { code: 'B2', note: 'y' },
      ]);
      await readsAs('csv', ['code', 'note'], 'code,note\nA1,\r"x\ny"\n', [{ code: 'A1', note: 'x\ny' }]);
      // After a closing quote: a quote is text again once the cell holds something, even a quote.
      await readsAs('csv', ['code', 'note'], 'code,note\nA1,"a"\r"x\ny"\n', [
        { code: 'A1', note: 'a"x' },
        { code: 'y"', note: undefined },
      ]);
      await readsAs('csv', ['code', 'note'], 'code,note\nA1,""""\r"x\ny"\n', [
        { code: 'A1', note: '""x' },
        { code: 'y"', note: undefined },
      ]);
      await readsAs('csv', ['code', 'note'], 'code,note\nA1,""\r"x\ny"\n', [{ code: 'A1', note: 'x\ny' }]);
    },
  );

  it(
    'NDJSON and JSON: blank lines, lone commas and brackets are not rows; any other JSON value on a line is',
    QUICK,
    async () => {
      for (const fmt of ['ndjson', 'json'] as const) {
        await readsAs(fmt, ['a'], ',\n{"a":1}\n\n,{"a":2,"b":3}\n,\n,]\n,[\n]\n', [{ a: 1 }, { a: 2, b: 3 }]);
        await readsAs(fmt, ['a'], '1\n[2]\n,3\n', [1, [2], 3]);
      }
    },
  );

  it(
    'countRows counts a line of junk as a row: a file written to by something else then holds more rows than the job counted',
    QUICK,
    async () => {
      for (const fmt of ['ndjson', 'json'] as const)
        expect(await countRows(fmt, cutAt(Buffer.from('[\n{"a":1}\n,,\n[,\n]]\n]\n')))).toBe(4);
    },
  );
});
