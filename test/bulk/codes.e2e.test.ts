// codes generate against a real sandbox: batching, streaming formats, faults, kill -9 and Ctrl-C.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestSandbox, WELL_KNOWN, type TestSandbox } from '../helpers/sandbox.js';
import {
  cliFor,
  codesGenerated,
  csvCodes,
  honoursIdempotencyKey,
  spawnCli,
  undeliveredReported,
  waitForCodes,
  type Cli,
} from './_support.js';

const BOOK = WELL_KNOWN.readme.hash_id;
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'bookdist-codes-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('codes generate (no faults)', () => {
  let sb: TestSandbox;
  let cli: Cli;
  beforeAll(async () => {
    sb = await startTestSandbox();
    cli = cliFor(sb);
  });
  afterAll(() => sb.close());

  it('streams NDJSON to stdout across several batches, each code once', async () => {
    const before = await codesGenerated(cli);
    const r = await cli([
      'codes',
      'generate',
      '--hash-id',
      BOOK,
      '--org',
      'acme',
      '--count',
      '2500',
      '--batch-size',
      '1000',
      '--limit-days',
      '30',
      '-o',
      'ndjson',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows).toHaveLength(2500);
    expect(new Set(rows.map((x) => x.code)).size).toBe(2500);
    expect(rows[0]).toMatchObject({ limit_days: 30, hash_id: BOOK, deactivation_date: null });
    expect(rows[0].code).toMatch(/^[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}$/);
    expect(new Set(rows.map((x) => x.batch))).toEqual(new Set([1, 2, 3]));
    expect(await codesGenerated(cli)).toBe(before + 2500);
    // Not a terminal: one summary line on stderr, for the CI log.
    expect(r.stderr).toMatch(/^codes generate: 2500 of 2500 codes generated for [0-9a-f]{40} in [\d.]+m?s\.\n$/);
  });

  it('writes a CSV file with a header by default, and -o json a valid JSON array', async () => {
    const csv = join(dir, 'plain.csv');
    const r = await cli([
      'codes',
      'generate',
      '--hash-id',
      BOOK,
      '--org',
      'acme',
      '--count',
      '1500',
      '--batch-size',
      '400',
      '--out',
      csv,
      '--expires',
      '2099-01-01',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const codes = csvCodes(csv);
    expect(codes).toHaveLength(1500);
    expect(new Set(codes).size).toBe(1500);
    expect(readFileSync(csv, 'utf8').split('\n')[1]).toContain('2099-01-01');
    expect(existsSync(csv + '.bookdist-job')).toBe(false);

    const js = join(dir, 'codes.json');
    const j = await cli([
      'codes',
      'generate',
      '--hash-id',
      BOOK,
      '--org',
      'acme',
      '--count',
      '30',
      '--batch-size',
      '7',
      '--out',
      js,
      '-o',
      'json',
    ]);
    expect(j.code, j.stderr).toBe(0);
    const arr = JSON.parse(readFileSync(js, 'utf8'));
    expect(arr).toHaveLength(30);
    expect(new Set(arr.map((x: any) => x.code)).size).toBe(30);
  });

  it('never overwrites an existing file, and --resume without an interrupted job does nothing and says so', async () => {
    const f = join(dir, 'exists.csv');
    writeFileSync(f, 'precious\n');
    const r = await cli(['codes', 'generate', '--hash-id', BOOK, '--org', 'acme', '--count', '5', '--out', f]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/never overwritten/);
    expect(readFileSync(f, 'utf8')).toBe('precious\n');
    // --resume with no interrupted job: nothing to do, nothing sent, the file untouched.
    const before = await codesGenerated(cli);
    const r2 = await cli([
      'codes',
      'generate',
      '--hash-id',
      BOOK,
      '--org',
      'acme',
      '--count',
      '5',
      '--out',
      f,
      '--resume',
    ]);
    expect(r2.code, r2.stderr).toBe(0);
    expect(r2.stderr).toMatch(/no interrupted job to resume .*the job finished, nothing was sent/);
    expect(readFileSync(f, 'utf8')).toBe('precious\n');
    expect(await codesGenerated(cli)).toBe(before);
  });

  it("reports the service's refusal with its exit code (book of a publisher the caller does not control: 4)", async () => {
    const r = await cli([
      'codes',
      'generate',
      '--hash-id',
      WELL_KNOWN.foreignPublisher.hash_id,
      '--org',
      'acme',
      '--count',
      '3000',
    ]);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/Not Authorized for Book/);
  });

  it('rejects bad options before sending (exit 2)', async () => {
    for (const args of [
      ['--count', '0'],
      ['--count', '10', '--batch-size', 'x'],
      ['--count', '10', '--concurrency', '0'],
    ]) {
      const r = await cli(['codes', 'generate', '--hash-id', BOOK, '--org', 'acme', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
    }
  });

  it('the sandbox answers a repeat with the same Idempotency-Key with the same codes, and generates them once', async () => {
    const before = await codesGenerated(cli);
    expect(await honoursIdempotencyKey(sb, BOOK)).toBe(true);
    expect((await codesGenerated(cli)) - before).toBe(1);
  });

  it('kill -9 mid-run, then --resume: exactly count unique codes, and the summary accounts for every code', async () => {
    const out = join(dir, 'killed.csv');
    const count = 20_000;
    const before = await codesGenerated(cli);
    const args = [
      'codes',
      'generate',
      '--hash-id',
      BOOK,
      '--org',
      'acme',
      '--count',
      String(count),
      '--batch-size',
      '500',
      '--out',
      out,
    ];
    const run = spawnCli(sb, args);
    await waitForCodes(out, 1000, run.exited);
    run.child.kill('SIGKILL');
    const killed = await run.exited;
    expect(killed.signal).toBe('SIGKILL');
    const partial = csvCodes(out).length;
    expect(partial).toBeLessThan(count);
    expect(existsSync(out + '.bookdist-job')).toBe(true);

    const r = await cli([...args, '--resume']);
    expect(r.code, r.stderr).toBe(0);
    const codes = csvCodes(out);
    expect(codes).toHaveLength(count);
    expect(new Set(codes).size).toBe(count);
    expect(existsSync(out + '.bookdist-job')).toBe(false);

    const grew = (await codesGenerated(cli)) - before;
    const undelivered = undeliveredReported(r.stderr);
    // The CLI's own accounting is exact either way ...
    expect(grew).toBe(count + undelivered);
    // ... and since the sandbox honours the Idempotency-Key the CLI sends, nothing is lost at all:
    // the requests in flight at the kill are repeated with their keys and answered with their codes,
    // so the service's code summary agrees with the file exactly.
    expect(undelivered).toBe(0);
    expect(grew).toBe(count);
  });

  it('-o json survives a kill -9 too: --resume completes one valid JSON array of exactly count codes', async () => {
    const out = join(dir, 'killed.json');
    const count = 12_000;
    const args = [
      'codes',
      'generate',
      '--hash-id',
      BOOK,
      '--org',
      'acme',
      '--count',
      String(count),
      '--batch-size',
      '300',
      '--out',
      out,
      '-o',
      'json',
    ];
    const run = spawnCli(sb, args);
    await waitForCodes(out, 600, run.exited);
    run.child.kill('SIGKILL');
    await run.exited;
    expect(() => JSON.parse(readFileSync(out, 'utf8'))).toThrow();
    // Resuming with other options or another format is refused rather than mixing jobs in one file.
    const other = await cli([
      'codes',
      'generate',
      '--hash-id',
      BOOK,
      '--org',
      'other',
      '--count',
      String(count),
      '--batch-size',
      '300',
      '--out',
      out,
      '-o',
      'json',
      '--resume',
    ]);
    expect(other.code).toBe(2);
    expect(JSON.parse(other.stderr).error.message).toMatch(/started with --org acme, not other/);
    const csv = await cli([
      'codes',
      'generate',
      '--hash-id',
      BOOK,
      '--org',
      'acme',
      '--count',
      String(count),
      '--batch-size',
      '300',
      '--out',
      out,
      '--resume',
    ]);
    expect(csv.code).toBe(2);
    expect(csv.stderr).toMatch(/was written as json/);
    const r = await cli([...args, '--resume']);
    expect(r.code, r.stderr).toBe(0);
    const arr = JSON.parse(readFileSync(out, 'utf8'));
    expect(arr).toHaveLength(count);
    expect(new Set(arr.map((x: any) => x.code)).size).toBe(count);
  });

  it('Ctrl-C stops new batches, keeps what arrived, prints the resume command and dies of SIGINT', async () => {
    const out = join(dir, 'interrupted.csv');
    const count = 50_000;
    const args = [
      'codes',
      'generate',
      '--hash-id',
      BOOK,
      '--org',
      'acme',
      '--count',
      String(count),
      '--batch-size',
      '250',
      '--concurrency',
      '2',
      '--out',
      out,
    ];
    const run = spawnCli(sb, args);
    await waitForCodes(out, 500, run.exited);
    run.child.kill('SIGINT');
    const res = await run.exited;
    expect(res, res.stderr).toMatchObject({ code: null, signal: 'SIGINT' });
    expect(res.stderr).toMatch(/--resume/);
    const kept = csvCodes(out);
    expect(kept.length).toBeLessThan(count);
    // Every batch that started was written whole: the file ends on a batch boundary.
    expect(kept.length % 250).toBe(0);
    expect(statSync(out).size).toBeGreaterThan(0);

    const before = await codesGenerated(cli);
    const r = await cli([...args, '--resume']);
    expect(r.code, r.stderr).toBe(0);
    const codes = csvCodes(out);
    expect(codes).toHaveLength(count);
    expect(new Set(codes).size).toBe(count);
    expect((await codesGenerated(cli)) - before).toBe(count - kept.length);
  });
});

describe('codes generate with faults (503, 429 with Retry-After, dropped connections)', () => {
  let sb: TestSandbox;
  let cli: Cli;
  beforeAll(async () => {
    sb = await startTestSandbox({ faults: { rate: 0.2, kinds: ['503', '429', 'reset'] } });
    cli = cliFor(sb);
  });
  afterAll(() => sb.close());

  it('10,000 codes: none lost, none doubled, and the code summary agrees', async () => {
    const before = await codesGenerated(cli);
    const out = join(dir, 'faults.csv');
    const r = await cli(
      [
        'codes',
        'generate',
        '--hash-id',
        BOOK,
        '--org',
        'acme',
        '--count',
        '10000',
        '--batch-size',
        '500',
        '--out',
        out,
        '--retries',
        '6',
      ],
      { timeoutMs: 120_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    const codes = csvCodes(out);
    expect(codes).toHaveLength(10_000);
    expect(new Set(codes).size).toBe(10_000);
    expect((await codesGenerated(cli)) - before).toBe(10_000);
  });
});
