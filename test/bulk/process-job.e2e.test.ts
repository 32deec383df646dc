// book process on the job engine, against a sandbox over HTTP whose request log shows every POST
// /process/: exclusive on its --results file, exact across SIGINT and --resume (one result per
// input book, each book queued once), a --wait interrupted and resumed (the books queued before
// the signal are waited for, never queued again), and --resume refused when stdin differs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SEED_BOOKS, startTestSandbox, WELL_KNOWN, type TestSandbox } from '../helpers/sandbox.js';
import { cliFor, storeProfile, spawnCli, waitUntil, type Cli } from './_support.js';
import { fullDisk } from './_fs.js';
import { run as runInProcess } from '../helpers/run.js';

let sb: TestSandbox;
let cli: Cli;
let dir: string;
const log: string[] = [];
/** The partner's books (the third publisher's answer 403). */
const BOOKS = SEED_BOOKS.filter((b) => b.publisher_id !== 3).map((b) => b.hash_id);

/** POST /process/ requests the sandbox answered, per book. */
function queuedCount(): Map<string, number> {
  const m = new Map<string, number>();
  for (const l of log) {
    const x = /^POST \/v1\/book\/([0-9a-f]{40})\/process\/ 200 /.exec(l);
    if (x) m.set(x[1], (m.get(x[1]) ?? 0) + 1);
  }
  return m;
}
const processPosts = () => log.filter((l) => /^POST \/v1\/book\/[0-9a-f]{40}\/process\//.test(l)).length;
const ndjson = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

beforeAll(async () => {
  // Requests take a little while (so that a signal lands mid-job); the worker processes a queued
  // book 300 ms after it reaches the head of the queue.
  sb = await startTestSandbox({
    processDelayMs: 300,
    faults: { rate: 0, kinds: [], latencyMs: 60 },
    log: (l) => log.push(l),
  });
  cli = cliFor(sb);
  dir = mkdtempSync(join(tmpdir(), 'bookdist-process-job-'));
  storeProfile(sb);
});
afterAll(async () => {
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('book process --from-file on the job engine', () => {
  it("exclusive: a second job on the same --results exits 2 naming the first one's pid; SIGINT during --wait prints the resume command and dies of SIGINT", async () => {
    const results = join(dir, 'held.ndjson');
    // The seed holds this book in the queue: --wait polls until --timeout.
    const args = ['book', 'process', '--from-file', '-', '--wait', '--interval', '100ms', '--results', results];
    const first = spawnCli(sb, args, {}, { input: `${WELL_KNOWN.queued.hash_id}\n` });
    await waitUntil(
      () =>
        existsSync(results + '.bookdist-job') && readFileSync(results + '.bookdist-job', 'utf8').includes('"pending"'),
      first.exited,
    );
    const posts = processPosts();
    const second = await cli(args, { input: `${WELL_KNOWN.queued.hash_id}\n` });
    expect(second.code, second.stderr).toBe(2);
    const owner = JSON.parse(readFileSync(results + '.bookdist-lock', 'utf8')).pid;
    expect(second.stderr).toContain(`in use by another bookdist job (pid ${owner}`);
    expect(processPosts()).toBe(posts);

    first.child.kill('SIGINT');
    const res = await first.exited;
    expect(res, res.stderr).toMatchObject({ code: null, signal: 'SIGINT' });
    expect(res.stderr).toMatch(
      /interrupted: 1 book: 1 already queued → \S+held\.ndjson\. To continue, run:\n {2}bookdist book process --from-file - --wait --interval 100ms --results \S+held\.ndjson --resume\n/,
    );
    expect(res.stderr).not.toMatch(/^Interrupted\.$/m);
    // Nothing final yet: the file holds no row, the journal holds the book to wait for.
    expect(readFileSync(results, 'utf8')).toBe('');
    expect(statSync(results).mode & 0o777).toBe(0o600);
    expect(existsSync(results + '.bookdist-lock')).toBe(false);
  });

  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    it(`${sig} mid-run, then --resume: exactly one result per input line, each book queued once`, async () => {
      const list = join(dir, 'books.txt');
      writeFileSync(list, "# the partner's books\n" + BOOKS.join('\n') + '\n');
      const results = join(dir, `forced-${sig}.ndjson`);
      // --force queues every book, even one already queued: a book sent twice would be queued twice.
      const args = [
        'book',
        'process',
        '--from-file',
        list,
        '--force',
        '--yes',
        '--results',
        results,
        '--concurrency',
        '2',
      ];
      const before = queuedCount();
      const p0 = processPosts();
      const run = spawnCli(sb, args);
      await waitUntil(() => processPosts() >= p0 + 5, run.exited);
      run.child.kill(sig);
      const res = await run.exited;
      expect(res, res.stderr).toMatchObject({ code: null, signal: sig });
      expect(res.stderr).toMatch(/interrupted: \d+ books: \d+ queued/);
      const resume = /To continue, run:\n {2}(.*)\n/.exec(res.stderr)?.[1];
      expect(resume).toBe(
        `bookdist book process --from-file ${list} --force --results ${results} --concurrency 2 --yes --resume`,
      );
      const firstRun = ndjson(results).length;
      expect(firstRun).toBeGreaterThan(0);
      expect(firstRun).toBeLessThan(BOOKS.length);

      const r = await cli([...args, '--resume']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(
        new RegExp(
          `book process: ${BOOKS.length} books: ${BOOKS.length - firstRun} queued, ${firstRun} done in an earlier run`,
        ),
      );
      const rows = ndjson(results);
      expect(rows.map((x) => x.hash_id).sort()).toEqual([...BOOKS].sort());
      expect(rows.every((x) => x.state === 'queued')).toBe(true);
      const after = queuedCount();
      for (const h of BOOKS) expect((after.get(h) ?? 0) - (before.get(h) ?? 0), h).toBe(1);
      expect(existsSync(results + '.bookdist-job')).toBe(false);
    });
  }

  it('--wait interrupted after the books were queued, then --resume: waits for them without queueing them again', async () => {
    const books = BOOKS.slice(0, 4);
    const list = join(dir, 'wait.txt');
    writeFileSync(list, books.join('\n') + '\n');
    const results = join(dir, 'wait.ndjson');
    const args = [
      'book',
      'process',
      '--from-file',
      list,
      '--force',
      '--yes',
      '--wait',
      '--interval',
      '100ms',
      '--results',
      results,
    ];
    const before = queuedCount();
    const run = spawnCli(sb, args);
    // All four queued (one journal line), before the worker can have processed them all (4 x 300 ms).
    await waitUntil(
      () =>
        existsSync(results + '.bookdist-job') && readFileSync(results + '.bookdist-job', 'utf8').includes('"pending"'),
      run.exited,
    );
    run.child.kill('SIGINT');
    const res = await run.exited;
    expect(res, res.stderr).toMatchObject({ code: null, signal: 'SIGINT' });
    expect(res.stderr).toMatch(/interrupted: 4 books: 4 queued.*--resume\n/s);
    expect(ndjson(results).length).toBeLessThan(4);

    const r = await cli([...args, '--resume']);
    expect(r.code, r.stderr).toBe(0);
    const rows = ndjson(results);
    expect(rows.map((x) => x.hash_id).sort()).toEqual([...books].sort());
    for (const x of rows)
      expect(x).toMatchObject({ state: 'processed', processed_date: expect.stringMatching(/^\d{4}-/) });
    const after = queuedCount();
    for (const h of books) expect((after.get(h) ?? 0) - (before.get(h) ?? 0), h).toBe(1);
    // The service agrees.
    const get = await cli(['book', 'get', books[0], '--json']);
    expect(JSON.parse(get.stdout).book.status).toMatchObject({ is_processed: true, is_queued: false });
  });

  it('--resume from stdin: the same list piped again resumes; a different one exits 2 before anything is sent', async () => {
    const results = join(dir, 'stdin.ndjson');
    const input = BOOKS.join('\n') + '\n';
    // The disk fills up in the second batch of ten books (a row is ~100 bytes): batch 1 is done.
    const args = ['book', 'process', '--from-file', '-', '--results', results, '--concurrency', '1'];
    const res = await runInProcess(args, {
      env: { ...sb.env, XDG_STATE_HOME: join(dir, 'state') },
      fs: fullDisk(results, 1500),
      input,
      cwd: dir,
    });
    expect(res.code, res.stderr).toBe(1);
    expect(res.stderr).toMatch(/ENOSPC/);
    expect(
      readFileSync(results + '.bookdist-job', 'utf8')
        .split('\n')
        .filter(Boolean),
    ).toHaveLength(2);

    // Another list (one book of the first batch changed): refused, naming the batch and its lines.
    const posts = processPosts();
    const other = [...BOOKS];
    other[3] = WELL_KNOWN.foreignPublisher.hash_id;
    const changed = await cli([...args, '--resume'], { input: other.join('\n') + '\n' });
    expect(changed.code, changed.stderr).toBe(2);
    expect(changed.stderr).toMatch(
      /--resume: --from-file - is not what the job was started with: batch 1 \(lines 1-10\) differs .*--restart/s,
    );
    expect(processPosts()).toBe(posts);
    // The refused run changed nothing: the torn second batch is still there, cut by the next run.
    expect(changed.stderr).not.toMatch(/cut \d+ byte/);
    expect(statSync(results).size).toBe(1500);

    const same = await cli([...args, '--resume'], { input });
    expect(same.code, same.stderr).toBe(0);
    expect(same.stderr).toMatch(/cut \d+ byte\(s\) after the last complete batch/);
    expect(
      ndjson(results)
        .map((x) => x.hash_id)
        .sort(),
    ).toEqual([...BOOKS].sort());
    // Only the second batch was sent again.
    expect(processPosts() - posts).toBe(BOOKS.length - 10);
  });

  it('a bad line late in a file (past the first batch) is exit 2 naming it, before any book is queued', async () => {
    const list = join(dir, 'bad-late.txt');
    writeFileSync(list, BOOKS.join('\n') + '\nnot-a-hash-id\n');
    const posts = processPosts();
    const r = await cli(['book', 'process', '--from-file', list, '--results', join(dir, 'bad-late.ndjson')]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`--from-file line ${BOOKS.length + 1}: `));
    expect(processPosts()).toBe(posts);
    expect(existsSync(join(dir, 'bad-late.ndjson'))).toBe(false);
  });

  it('--results needs a regular file: a pipe or a device is refused up front (no journal beside it)', async () => {
    const r = await cli(['book', 'process', BOOKS[0], '--results', '/dev/stdout']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/--results \/dev\/stdout is not a regular file/);
    expect(existsSync('/dev/stdout.bookdist-job')).toBe(false);
    expect(existsSync('/dev/stdout.bookdist-lock')).toBe(false);
  });
});
