// book process: queue many, --wait for the sandbox worker, summaries and exit codes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, WELL_KNOWN, SEED_BOOKS, type TestSandbox } from '../helpers/sandbox.js';
import { cliFor, type Cli } from './_support.js';

describe('book process', () => {
  let sb: TestSandbox;
  let cli: Cli;
  beforeAll(async () => {
    sb = await startTestSandbox({ processDelayMs: 150, faults: { rate: 0.1, kinds: ['503', '429', 'reset'] } });
    cli = cliFor(sb);
  });
  afterAll(() => sb.close());

  it('--wait: queues, waits for the worker, one line per state change, summary in --json; exit 6 on a partial failure', async () => {
    const books = [
      WELL_KNOWN.unprocessed.hash_id,
      WELL_KNOWN.unpublished.hash_id,
      WELL_KNOWN.readme.hash_id,
      '0'.repeat(40),
    ];
    const r = await cli(
      ['book', 'process', books[0], '--from-file', '-', '--wait', '--interval', '100ms', '--json', '--retries', '6'],
      {
        input: `# CI list\n${books[1]}\n${books[2]}\n${books[3]}\n${books[0]}\n`,
      },
    );
    expect(r.code, r.stderr).toBe(6);
    const out = JSON.parse(r.stdout);
    // One outcome per book: the counts add up to the books.
    expect(out.summary).toEqual({
      total: 4,
      queued: 0,
      already_queued: 0,
      processed: 2,
      already_processed: 1,
      failed: 1,
      held: 0,
      timed_out: 0,
      not_started: 0,
    });
    expect(r.stderr).toMatch(/book process: 4 books: 2 processed, 1 already processed, 1 failed in /);
    const by = Object.fromEntries(out.books.map((b: any) => [b.hash_id, b]));
    expect(by[books[0]].state).toBe('processed');
    expect(by[books[0]].processed_date).toMatch(/^\d{4}-/);
    expect(by[books[1]].state).toBe('processed');
    expect(by[books[2]].state).toBe('already_processed');
    expect(by[books[3]]).toMatchObject({ state: 'failed', message: 'Book not found' });
    // State changes on stderr: queued, then processed.
    expect(r.stderr).toMatch(new RegExp(`${books[0]}  queued`));
    expect(r.stderr).toMatch(new RegExp(`${books[0]}  processed`));
    // The one failure is a refusal for good (not found): no retry is suggested.
    expect(r.stderr).not.toMatch(/To retry what failed/);
  });

  it('exit 0 when all succeed; the service confirms the books are processed', async () => {
    const r = await cli([
      'book',
      'process',
      WELL_KNOWN.unprocessed.hash_id,
      WELL_KNOWN.readme.hash_id,
      '--wait',
      '--interval',
      '100ms',
      '-o',
      'ndjson',
      '--retries',
      '6',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows.map((x) => x.state).sort()).toEqual(['already_processed', 'already_processed']);
    const get = await cli(['book', 'get', WELL_KNOWN.unprocessed.hash_id, '--json', '--retries', '6']);
    expect(JSON.parse(get.stdout).book.status).toMatchObject({ is_processed: true, is_queued: false });
  });

  it('one book alone exits as the service said: 3 not found, 4 not authorized', async () => {
    expect((await cli(['book', 'process', '1'.repeat(40), '--retries', '6'])).code).toBe(3);
    const r = await cli(['book', 'process', WELL_KNOWN.foreignPublisher.hash_id, '--retries', '6']);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/Not Authorized for Book/);
  });

  it('--force needs confirmation in scripts (exit 2), and with --yes queues a processed book again', async () => {
    const no = await cli(['book', 'process', WELL_KNOWN.otherPublisher.hash_id, '--force']);
    expect(no.code).toBe(2);
    expect(no.stderr).toMatch(/--yes/);
    const yes = await cli([
      'book',
      'process',
      WELL_KNOWN.otherPublisher.hash_id,
      '--force',
      '--yes',
      '--wait',
      '--interval',
      '100ms',
      '--json',
      '--retries',
      '6',
    ]);
    expect(yes.code, yes.stderr).toBe(0);
    expect(JSON.parse(yes.stdout).books[0].state).toBe('processed');
  });

  it('bad hash ids are usage errors naming the line', async () => {
    const r = await cli(['book', 'process', '--from-file', '-'], { input: `${WELL_KNOWN.readme.hash_id}\nnope\n` });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/line 2/);
  });
});

describe('book process against a sandbox without faults', () => {
  let sb: TestSandbox;
  let quiet: Cli;
  beforeAll(async () => {
    sb = await startTestSandbox({ processDelayMs: 150 });
    quiet = cliFor(sb);
  });
  afterAll(() => sb.close());

  // Its own sandbox without faults: with --timeout 1s, an injected 429 (Retry-After: 1) leaves no
  // time for a retry, so a random fault would fail the other book instead of testing the held one.
  it('a held book that stays queued ends held at the explicit --timeout: exit 6; no retry of it, the --force --yes command instead', async () => {
    const r = await quiet([
      'book',
      'process',
      WELL_KNOWN.queued.hash_id,
      SEED_BOOKS[1].hash_id,
      '--wait',
      '--interval',
      '100ms',
      '--timeout',
      '1s',
      '--json',
      '--retries',
      '6',
    ]);
    expect(r.code, r.stderr).toBe(6);
    const out = JSON.parse(r.stdout);
    expect(out.summary).toMatchObject({ total: 2, held: 1, timed_out: 0 });
    expect(out.books[0]).toMatchObject({ hash_id: WELL_KNOWN.queued.hash_id, state: 'held' });
    expect(r.stderr).toMatch(/book process: 2 books: 1 already processed, 1 held in /);
    // Waiting again would not help: no retry command; the way to release it is said instead.
    expect(r.stderr).not.toMatch(/To retry what failed/);
    expect(r.stderr).toMatch(
      /held in the service's queue .*waiting again will not process it.*\n {2}bookdist book process --wait --force --yes /s,
    );
    expect(r.stderr).toContain(WELL_KNOWN.queued.hash_id);
  });
});
