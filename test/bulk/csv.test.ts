import { describe, expect, it } from 'vitest';
import { CsvError, csvLine, csvObjects, parseCsv, CsvParser } from '../../src/bulk/csv.js';

describe('parseCsv', () => {
  it('reads plain, quoted and empty fields, LF and CRLF, and skips blank lines', () => {
    const text = '\uFEFFa,b,c\r\n1,"two, with comma",\n\n"x ""quoted"" y","multi\nline",3\n';
    const r = parseCsv(text);
    expect(r.map((x) => x.fields)).toEqual([
      ['a', 'b', 'c'],
      ['1', 'two, with comma', ''],
      ['x "quoted" y', 'multi\nline', '3'],
    ]);
    expect(r.map((x) => x.line)).toEqual([1, 2, 4]);
  });

  it('keeps a last record without a final newline and an empty quoted field', () => {
    expect(parseCsv('a,""\nb,c').map((x) => x.fields)).toEqual([['a', ''], ['b', 'c']]);
  });

  it('rejects an unclosed quote and junk after a closing quote, naming the line', () => {
    expect(() => parseCsv('a,b\n"open,c\n')).toThrow(CsvError);
    expect(() => parseCsv('a,b\n"x"y,c\n')).toThrow(/line 2/);
    expect(() => parseCsv('a,b\nx"y,c\n')).toThrow(/quote inside an unquoted field/);
  });

  it('parses the same records when fed in arbitrary chunks', () => {
    const text = 'h1,h2\r\n"a,""b""",c\r\nd,"e\r\nf"\r\n';
    const whole = parseCsv(text);
    for (const size of [1, 2, 3, 7]) {
      const got: string[][] = [];
      const p = new CsvParser((r) => got.push(r.fields));
      for (let i = 0; i < text.length; i += size) p.push(text.slice(i, i + size));
      p.end();
      expect(got).toEqual(whole.map((r) => r.fields));
    }
  });

  it('round-trips values written by csvLine', () => {
    const values = ['plain', 'with,comma', 'with "quote"', 'new\nline', ' padded ', ''];
    expect(parseCsv(csvLine(values))[0].fields).toEqual(values);
  });
});

describe('csvObjects', () => {
  it('keys rows by the header (case-insensitive, trimmed) and flags extra fields', () => {
    const { header, rows } = csvObjects('Hash_ID , username,price\nh,u,1.00\nh2,u2,2,extra\n', ['hash_id', 'username']);
    expect(header).toEqual(['hash_id', 'username', 'price']);
    expect(rows[0]).toEqual({ line: 2, values: { hash_id: 'h', username: 'u', price: '1.00' }, extra: false });
    expect(rows[1].extra).toBe(true);
  });

  it('names missing required columns', () => {
    expect(() => csvObjects('hash_id,price\nh,1\n', ['hash_id', 'username'])).toThrow(/lacks the column username/);
  });
});
