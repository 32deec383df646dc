// A long codes generate keeps what it holds per code small (bench row (f): 1,000,000 codes under
// 150 MB peak RSS). The codes the job holds live in a compact exact set (src/commands/codes/
// code-set.ts) instead of a Set of strings, and the job's file is counted on its bytes before the
// journal goes (countRows) instead of being decoded row by row. Both must say exactly what the
// structures they replace said.
import { describe, expect, it } from 'vitest';
import { CodeSet } from '../../src/commands/codes/parts/code-set.js';
import { countRows, decodeRows, encodeRows, fileHeader } from '../../src/bulk/job/encode.js';
import type { FileFormat } from '../../src/bulk/job/types.js';

/** `n` distinct sandbox-shaped codes (XXXX-XXXX-XXXX), scattered; the same `seed` gives the same ones. */
function codes(n: number, seed = 1): string[] {
  const A = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  return Array.from({ length: n }, (_, i) => {
    // A bijection of the index (odd multiplier mod 2^32), written as 7 base-32 digits after the seed's.
    let x = Math.imul(i + 1, 0x9e3779b1) >>> 0;
    let s = A[seed % 32]!.repeat(5);
    for (let d = 0; d < 7; d++, x = Math.floor(x / 32)) s += A[x % 32];
    return `${s.slice(0, 4)}-${s.slice(4, 8)}-${s.slice(8)}`;
  });
}

describe('CodeSet', () => {
  it('answers as a Set of strings does, over growth, repeats and strings that are not codes', () => {
    const set = new CodeSet(4);
    const ref = new Set<string>();
    const all = [
      ...codes(50_000),
      ...codes(5_000, 7),
      ...codes(5_000, 1),
      '',
      'é-not-ascii',
      'a b',
      'x'.repeat(300),
      'é-not-ascii',
      'A',
      'AB',
      'A',
    ];
    const wrong: string[] = [];
    for (const c of all) {
      if (set.has(c) !== ref.has(c) || set.add(c) !== !ref.has(c)) wrong.push(c);
      ref.add(c);
      if (!set.has(c)) wrong.push(c);
    }
    expect(wrong).toEqual([]);
    expect(set.size).toBe(ref.size);
    // Codes that differ in one character, or are a prefix of another, are different codes.
    for (const c of ['A-', 'B', 'AB-', 'ABC']) expect(set.has(c)).toBe(false);
  });

  it('holds a code in a few dozen bytes outside the heap, where a Set of strings took about 60', () => {
    const set = new CodeSet();
    for (const c of codes(200_000)) set.add(c);
    expect(set.size).toBe(200_000);
    expect(set.bytes / set.size).toBeLessThan(40);
  });
});

describe('countRows', () => {
  const columns = ['code', 'note', 'n'];
  const rows = [
    { code: 'AAAA-BBBB', note: 'plain', n: 1 },
    { code: 'CCCC', note: 'a "quoted", comma\nand a line break\r\nand CR', n: 2 },
    { code: 'DDDD', note: '', n: null },
    { code: 'EEEE', note: 'tab\there, backslash \\ and é', n: 3 },
    { code: 'FFFF', note: '"', n: 4 },
  ];

  async function* chunked(bytes: Buffer, size: number): AsyncGenerator<Buffer> {
    for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
  }
  async function decoded(fmt: FileFormat, bytes: Buffer): Promise<number> {
    let n = 0;
    for await (const _ of decodeRows(fmt, columns, chunked(bytes, 7))) n++;
    return n;
  }

  for (const fmt of ['csv', 'tsv', 'ndjson', 'json'] as FileFormat[]) {
    it(`counts what decodeRows reads in ${fmt}, whole, torn at every byte and split into chunks anywhere`, async () => {
      const text =
        fileHeader(fmt, columns) +
        encodeRows(fmt, columns, rows.slice(0, 2), true) +
        encodeRows(fmt, columns, rows.slice(2), false) +
        (fmt === 'json' ? ']\n' : '');
      const bytes = Buffer.from(text);
      expect(await countRows(fmt, chunked(bytes, bytes.length))).toBe(rows.length);
      for (let end = 0; end <= bytes.length; end++) {
        const part = bytes.subarray(0, end);
        const want = await decoded(fmt, part);
        for (const size of [1, 3, 64])
          expect(await countRows(fmt, chunked(part, size)), `${fmt}, ${end} bytes in chunks of ${size}`).toBe(want);
      }
    });
  }
});
