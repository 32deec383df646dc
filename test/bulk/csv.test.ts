// Streamed CSV and NDJSON inputs of the bulk jobs (src/bulk/rows.ts, on csv-parse).
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { csvRows, ndjsonRows, type InputRow } from '../../src/bulk/rows.js';
import { CliError } from '../../src/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'bookdist-rows-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ctx: any = { io: { cwd: dir, stdin: Object.assign(new PassThrough(), { isTTY: false }) } };
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function rows(text: string, required = ['hash_id', 'username'], name = 'in.csv'): Promise<InputRow[]> {
  writeFileSync(join(dir, name), text);
  const out: InputRow[] = [];
  for await (const r of csvRows(name, ctx, { flag: '--from-csv', required })) out.push(r);
  return out;
}

describe('csvRows', () => {
  it('keys rows by the trimmed, lower-cased header; quoted commas, quotes and line breaks; a BOM; blank lines skipped', async () => {
    const r = await rows('\uFEFFHash_ID , username,price\nh1,u1,"1,5"\n\n"h""2","u\n2",3\n');
    expect(r.map((x) => x.values)).toEqual([
      { hash_id: 'h1', username: 'u1', price: '1,5' },
      { hash_id: 'h"2', username: 'u\n2', price: '3' },
    ]);
    expect(r[0].line).toBe(2);
    expect(r.every((x) => !x.problem)).toBe(true);
  });

  it('a row with more fields than the header carries a problem; fewer fields read as empty', async () => {
    const r = await rows('hash_id,username\nh,u,extra\nh2\n');
    expect(r[0].problem).toMatch(/3 fields, the header 2/);
    expect(r[1]).toMatchObject({ values: { hash_id: 'h2', username: '' } });
    expect(r[1].problem).toBeUndefined();
  });

  it('a header without a required column, an empty file and an unclosed quote are usage errors (exit 2)', async () => {
    await expect(rows('hash_id,price\nh,1\n')).rejects.toThrow(/lacks the column username/);
    await expect(rows('')).rejects.toThrow(/empty; the first row must name the columns/);
    const err = await rows('hash_id,username\n"open,u\n').catch((e) => e);
    expect(err).toBeInstanceOf(CliError);
    expect(err.exitCode).toBe(2);
    const missing = await (async () => {
      for await (const _ of csvRows('nope.csv', ctx, { flag: '--from-csv', required: [] }));
    })().catch((e) => e);
    expect(missing.message).toMatch(/--from-csv nope.csv: no such file/);
  });

  it('a syntax error is reported at the line where the bad record starts, with its record number', async () => {
    // An unclosed quote on line 3 of a 3,002-line file: csv-parse notices it at the end of the file.
    const body =
      ['hash_id,username', 'h1,u1', '"h2,u2', ...Array.from({ length: 2999 }, (_, i) => `h${i + 3},u`)].join('\n') +
      '\n';
    const err = await rows(body).catch((e) => e);
    expect(err.exitCode).toBe(2);
    expect(err.message).toBe(
      '--from-csv in.csv: line 3 (record 3, counting the header row): a quoted field is never closed (the file ends inside it).',
    );
    const bad = await rows('hash_id,username\nh1,u1\n\n"h2"x,u2\n').catch((e) => e);
    expect(bad.message).toMatch(
      /^--from-csv in\.csv: line 4 \(record 3, counting the header row\): got "x" instead of delimiter/,
    );
    // csv-parse's INVALID_OPENING_QUOTE (no CSV_ prefix): the field named by the header, or by its
    // place in the header row itself; a CliError (exit 2), not an unexpected error.
    const quote = await rows('hash_id,Username\nh1,u1\nh2,The "Best" Tides\n').catch((e) => e);
    expect(quote).toBeInstanceOf(CliError);
    expect(quote.exitCode).toBe(2);
    expect(quote.message).toBe(
      '--from-csv in.csv: line 3 (record 3, counting the header row): a quote inside the unquoted field username (after "The "); to keep the quote, enclose the whole field in double quotes and double each quote inside it, e.g. "The ""Best"" Tides".',
    );
    const inHeader = await rows('hash_id,user"name\nh1,u1\n').catch((e) => e);
    expect(inHeader.message).toMatch(
      /^--from-csv in\.csv: line 1 \(record 1, counting the header row\): a quote inside the unquoted field 2 \(after "user"\)/,
    );
  });

  it('streams: a 200,000-row file is read without holding it whole', async () => {
    writeFileSync(join(dir, 'big.csv'), 'hash_id,username\n' + 'h,u\n'.repeat(200_000));
    let n = 0;
    for await (const _ of csvRows('big.csv', ctx, { flag: '--from-csv', required: ['hash_id'] })) n++;
    expect(n).toBe(200_000);
  });
});

describe('ndjsonRows', () => {
  it('one object per line; a line that is not a JSON object is a row with a problem', async () => {
    writeFileSync(join(dir, 'in.ndjson'), '{"a":1}\n\n[1]\n{bad\n');
    const out: InputRow[] = [];
    for await (const r of ndjsonRows('in.ndjson', ctx, { flag: '--from-ndjson' })) out.push(r);
    expect(out[0]).toEqual({ line: 1, values: { a: 1 } });
    expect(out[1]).toMatchObject({ line: 3, problem: 'not a JSON object' });
    expect(out[2].problem).toMatch(/^not JSON/);
  });
});
