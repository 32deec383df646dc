// book get --isbn-file / --hash-id-file: many lookups through the search endpoint, input order kept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestSandbox, SEED_BOOKS, type TestSandbox } from '../helpers/sandbox.js';
import { cliFor, type Cli } from './_support.js';

const hyphenate = (isbn13: string) =>
  `${isbn13.slice(0, 3)}-${isbn13.slice(3, 4)}-${isbn13.slice(4, 9)}-${isbn13.slice(9, 12)}-${isbn13.slice(12)}`;

describe('batch lookups', () => {
  let sb: TestSandbox;
  let cli: Cli;
  let dir: string;
  beforeAll(async () => {
    sb = await startTestSandbox({ faults: { rate: 0.15, kinds: ['503', '429', 'reset'] } });
    cli = cliFor(sb);
    dir = mkdtempSync(join(tmpdir(), 'bookdist-lookup-'));
  });
  afterAll(async () => {
    await sb.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints one record per input line, in input order, with the ones not found marked; exit 6', async () => {
    const b = SEED_BOOKS;
    const lines = [
      '# a comment line',
      b[3].isbn13,
      '',
      hyphenate(b[0].isbn13) + '   # trailing comment',
      '9780000000002',
      b[5].isbn10,
      b[7].eisbn13,
      'not-an-isbn',
      b[3].isbn13,
    ];
    const file = join(dir, 'isbns.txt');
    writeFileSync(file, lines.join('\n') + '\n');
    const r = await cli(['book', 'get', '--isbn-file', file, '-o', 'ndjson', '--retries', '6']);
    expect(r.code, r.stderr).toBe(6);
    const recs = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(recs.map((x) => [x.line, x.status])).toEqual([
      [2, 'found'],
      [4, 'found'],
      [5, 'not_found'],
      [6, 'found'],
      [7, 'found'],
      [8, 'invalid'],
      [9, 'found'],
    ]);
    expect(recs[0].book.hash_id).toBe(b[3].hash_id);
    expect(recs[1].book.hash_id).toBe(b[0].hash_id);
    expect(recs[3].book.hash_id).toBe(b[5].hash_id);
    expect(recs[4].book.hash_id).toBe(b[7].hash_id);
    expect(recs[6].book.hash_id).toBe(b[3].hash_id);
    expect(recs[2].book).toBeNull();
    expect(r.stderr).toMatch(/1 not found, 1 invalid/);
  });

  it('exits 0 when every ISBN is found, reading the list from stdin; CSV rows for scripts', async () => {
    const input = SEED_BOOKS.map((b) => b.isbn13).join('\n');
    const r = await cli(['book', 'get', '--isbn-file', '-', '-o', 'csv', '--retries', '6'], { input });
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.trim().split('\n');
    expect(rows[0]).toBe('line,input,status,book.hash_id,book.title,book.author,book.identifiers.isbn13,message');
    expect(rows).toHaveLength(SEED_BOOKS.length + 1);
    rows
      .slice(1)
      .forEach((row, i) =>
        expect(row.startsWith(`${i + 1},${SEED_BOOKS[i].isbn13},found,${SEED_BOOKS[i].hash_id},`)).toBe(true),
      );
  });

  it('--hash-id-file likewise, unknown hash ids marked', async () => {
    const unknown = 'f'.repeat(40);
    const input = [SEED_BOOKS[1].hash_id, unknown, SEED_BOOKS[2].hash_id.toUpperCase()].join('\n');
    const r = await cli(['book', 'get', '--hash-id-file', '-', '--json', '--retries', '6'], { input });
    expect(r.code, r.stderr).toBe(6);
    const recs = JSON.parse(r.stdout);
    expect(recs.map((x: any) => x.status)).toEqual(['found', 'not_found', 'found']);
    expect(recs[2].book.title).toBe(SEED_BOOKS[2].title);
  });

  it('a wrong check digit is invalid unless --no-check', async () => {
    const bad = SEED_BOOKS[0].isbn13.slice(0, 12) + String((Number(SEED_BOOKS[0].isbn13[12]) + 1) % 10);
    const r = await cli(['book', 'get', '--isbn-file', '-', '-o', 'ndjson', '--retries', '6'], { input: bad + '\n' });
    expect(r.code, r.stderr).toBe(6);
    expect(JSON.parse(r.stdout).status).toBe('invalid');
    const r2 = await cli(['book', 'get', '--isbn-file', '-', '-o', 'ndjson', '--no-check', '--retries', '6'], {
      input: bad + '\n',
    });
    expect(JSON.parse(r2.stdout).status).toBe('not_found');
  });

  it('an empty list or a missing file is a usage error', async () => {
    expect((await cli(['book', 'get', '--isbn-file', '-'], { input: '# nothing\n\n' })).code).toBe(2);
    expect((await cli(['book', 'get', '--isbn-file', join(dir, 'missing.txt')])).code).toBe(2);
  });
});
