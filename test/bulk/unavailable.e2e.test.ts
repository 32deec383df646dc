// A service that stays unavailable: every bulk verb records the failure, says how to retry, exits 7.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestSandbox, WELL_KNOWN, type TestSandbox } from '../helpers/sandbox.js';
import { cliFor, csvCodes, type Cli } from './_support.js';

describe('service unavailable throughout (every request answered 503)', () => {
  let sb: TestSandbox;
  let cli: Cli;
  let dir: string;
  const log: string[] = [];
  const requests = (path: string) => log.filter((l) => l.split(' ')[1] === path).length;
  beforeAll(async () => {
    sb = await startTestSandbox({ faults: { rate: 1, kinds: ['503'] }, log: (l) => log.push(l) });
    cli = cliFor(sb);
    dir = mkdtempSync(join(tmpdir(), 'bookdist-unavailable-'));
  });
  afterAll(async () => {
    await sb.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('codes generate: exit 7, nothing written but the header, and the resume command', async () => {
    const out = join(dir, 'codes.csv');
    const r = await cli([
      'codes',
      'generate',
      '--hash-id',
      WELL_KNOWN.readme.hash_id,
      '--org',
      'acme',
      '--count',
      '2500',
      '--out',
      out,
      '--retries',
      '1',
    ]);
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toMatch(
      /0 of 2500 codes generated .*; 3 batch\(es\) failed \(2500 codes not generated; last error: Service temporarily unavailable/,
    );
    expect(r.stderr).toMatch(/--out \S+codes\.csv --retries 1 --resume\n/);
    expect(csvCodes(out)).toHaveLength(0);
    expect(existsSync(out + '.bookdist-job')).toBe(true);
  });

  it("retries do not nest: with --retries 2 each batch request is sent 3 times (the client's policy, once), not 9", async () => {
    const before = requests('/v1/codes/generate/');
    const r = await cli([
      'codes',
      'generate',
      '--hash-id',
      WELL_KNOWN.readme.hash_id,
      '--org',
      'acme',
      '--count',
      '10',
      '--retries',
      '2',
    ]);
    expect(r.code, r.stderr).toBe(7);
    expect(requests('/v1/codes/generate/') - before).toBe(3);
  });

  it('book process: exit 7 with the books marked failed', async () => {
    const r = await cli([
      'book',
      'process',
      WELL_KNOWN.unprocessed.hash_id,
      WELL_KNOWN.readme.hash_id,
      '--json',
      '--retries',
      '0',
    ]);
    expect(r.code, r.stderr).toBe(7);
    expect(JSON.parse(r.stdout).summary).toMatchObject({ failed: 2, queued: 0 });
  });

  it('book get --isbn-file: exit 7, every record marked error', async () => {
    const r = await cli(['book', 'get', '--isbn-file', '-', '-o', 'ndjson', '--retries', '0'], {
      input: `${WELL_KNOWN.readme.isbn13}\n`,
    });
    expect(r.code, r.stderr).toBe(7);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'error' });
  });

  it('access allow --from-csv: exit 7, rows failed, the resume command given', async () => {
    const csv = join(dir, 'g.csv');
    writeFileSync(csv, `hash_id,username,price\n${WELL_KNOWN.readme.hash_id},${WELL_KNOWN.user.username},1\n`);
    const r = await cli(['access', 'allow', '--from-csv', csv, '--results', join(dir, 'r.ndjson'), '--retries', '0']);
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toMatch(/1 failed/);
    expect(r.stderr).toMatch(/--resume/);
  });
});

describe('rate limited throughout (every request answered 429)', () => {
  let sb: TestSandbox;
  const log: string[] = [];
  beforeAll(async () => {
    sb = await startTestSandbox({ faults: { rate: 1, kinds: ['429'] }, log: (l) => log.push(l) });
  });
  afterAll(() => sb.close());

  it('book get --isbn-file of one ISBN with --retries 3: 4 requests, not 16; exit 7', async () => {
    const r = await cliFor(sb)(['book', 'get', '--isbn-file', '-', '-o', 'ndjson', '--retries', '3'], {
      input: `${WELL_KNOWN.readme.isbn13}\n`,
    });
    expect(r.code, r.stderr).toBe(7);
    expect(log.filter((l) => / \/v1\/books?\//.test(l))).toHaveLength(4);
  });
});
