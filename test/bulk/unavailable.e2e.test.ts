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
  beforeAll(async () => {
    sb = await startTestSandbox({ faults: { rate: 1, kinds: ['503'] } });
    cli = cliFor(sb);
    dir = mkdtempSync(join(tmpdir(), 'bookdist-unavailable-'));
  });
  afterAll(async () => {
    await sb.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('codes generate: exit 7, nothing written but the header, and the resume command', async () => {
    const out = join(dir, 'codes.csv');
    const r = await cli(['codes', 'generate', '--hash-id', WELL_KNOWN.readme.hash_id, '--org', 'acme', '--count', '2500', '--out', out, '--retries', '1']);
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toMatch(/0 of 2500 codes generated .*; 3 batch\(es\) failed \(2500 codes not generated; last error: Service temporarily unavailable/);
    expect(r.stderr).toMatch(/--out \S+codes\.csv --resume/);
    expect(csvCodes(out)).toHaveLength(0);
    expect(existsSync(out + '.bookdist-job')).toBe(true);
  });

  it('each retry wait of 2 s or more prints one line (status, attempt k of n, wait); shorter waits print nothing', async () => {
    // Backoff waits for attempts 1..5: 125-250, 250-500, 500-1000, 1000-2000, then 2000-4000 ms.
    const r = await cli(['codes', 'generate', '--hash-id', WELL_KNOWN.readme.hash_id, '--org', 'acme', '--count', '10', '--retries', '5']);
    expect(r.code, r.stderr).toBe(7);
    const lines = r.stderr.split('\n').filter((l) => / retry \d+ of \d+ in /.test(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^codes generate: Service temporarily unavailable.*; retry 5 of 5 in [234]\.\ds$/);
  });

  it('book process: exit 7 with the books marked failed', async () => {
    const r = await cli(['book', 'process', WELL_KNOWN.unprocessed.hash_id, WELL_KNOWN.readme.hash_id, '--json', '--retries', '0']);
    expect(r.code, r.stderr).toBe(7);
    expect(JSON.parse(r.stdout).summary).toMatchObject({ failed: 2, queued: 0 });
  });

  it('book get --isbn-file: exit 7, every record marked error', async () => {
    const r = await cli(['book', 'get', '--isbn-file', '-', '-o', 'ndjson', '--retries', '0'], { input: `${WELL_KNOWN.readme.isbn13}\n` });
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
