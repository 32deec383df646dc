// How a job ends (src/bulk/job/summary.ts), asked in-process of the job's state: the summary line,
// the exit code (0, 6 partial, 7 unavailable, 1 a failed write, 2 a bad input, 8/9 certificate or
// proxy, 130 interrupted), the command that continues the job, and the CI reports. Whole jobs
// through main() are in engine.test.ts and summaries.test.ts; these take milliseconds.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context } from '../../src/context.js';
import { CliError, ExitCode } from '../../src/errors.js';
import type { Failure } from '../../src/bulk/retry.js';
import { FileGone } from '../../src/bulk/job/output-file.js';
import { InputChanged } from '../../src/bulk/job/planner.js';
import type { Rescue } from '../../src/bulk/job/rescue.js';
import { bulkExitCode, ending, reportToCi, stopsAtOnce } from '../../src/bulk/job/summary.js';
import { newJobState, type JobSpec, type JobState } from '../../src/bulk/job/types.js';

/**
 * These tests take milliseconds: a change of the code that leaves a promise unsettled (a commit
 * never resolved) fails here within 5 s, instead of hanging until the mutation run's timeout,
 * which restarts its test worker (tens of seconds on these machines).
 */
const QUICK = { timeout: 5_000 };

type Row = Record<string, unknown>;
const NOW = 1_000_000;

beforeEach(() => void vi.spyOn(Date, 'now').mockReturnValue(NOW));
afterEach(() => vi.restoreAllMocks());

interface Made {
  s: JobState<unknown, Row>;
  stderr: string[];
  warnings: string[];
  abort(): void;
}

/** A finished job's state: everything ran and was written, unless `more` says otherwise. */
function job(spec: Partial<JobSpec<unknown, Row>> = {}, env: Record<string, string> = {}): Made {
  const ctl = new AbortController();
  const stderr: string[] = [];
  const warnings: string[] = [];
  const ctx = {
    signal: ctl.signal,
    io: { env, stderr: { write: (t: string) => stderr.push(t) } },
    warn: (m: string) => warnings.push(m),
  } as unknown as Context;
  vi.spyOn(Date, 'now').mockReturnValue(NOW - 65_000);
  const s = newJobState<unknown, Row>(
    {
      verb: 'codes generate',
      columns: ['code'],
      identity: {},
      command: 'bookdist codes generate --count 250 --out codes.csv',
      describe: (counts) => `${counts.ok ?? 0} codes`,
      file: { path: '/w/codes.csv', flag: '--out', display: 'codes.csv', format: 'csv' },
      ...spec,
    } as JobSpec<unknown, Row>,
    ctx,
  );
  vi.spyOn(Date, 'now').mockReturnValue(NOW);
  Object.assign(s, { sourceDone: true, yielded: 3, handled: 3, batches: 3, counts: { ok: 250 } });
  return { s, stderr, warnings, abort: () => ctl.abort() };
}

const noRescue = {} as Rescue;
const rescued = { path: '/st/rescue/x.ndjson', count: 40 } as Rescue;
const failure = (kind: Failure['kind'], more: Partial<Failure> = {}): Failure =>
  ({ kind, message: `a ${kind} failure`, exitCode: ExitCode.ERROR, ...more }) as Failure;
const err = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('how a job ends', QUICK, () => {
  it('everything written: exit 0, the summary with its time and FILE, complete (the journal may go)', () => {
    const { s } = job();
    expect(ending(s, noRescue)).toEqual({
      code: 0,
      message: 'codes generate: 250 codes in 1m05s → codes.csv.',
      complete: true,
    });
    // A stdout job names no file; a verb may choose its own exit code.
    const out = job({ file: undefined, exitCode: (c) => c + 40 });
    expect(ending(out.s, noRescue)).toEqual({
      code: 40,
      message: 'codes generate: 250 codes in 1m05s.',
      complete: true,
    });
  });

  it('not complete while anything is left: each open count keeps the journal', () => {
    const left: Array<Partial<JobState<unknown, Row>>> = [
      { sourceDone: false },
      { handled: 2 },
      { notDone: 1 },
      { unsettled: 1 },
      { redoLeft: true },
    ];
    for (const more of left) {
      const { s } = job();
      Object.assign(s, more);
      expect(ending(s, noRescue).complete, JSON.stringify(more)).toBe(false);
    }
  });

  it('failures: 6 when some failed, 7 when all that failed found the service unavailable; the command that retries them', () => {
    const { s } = job();
    s.failures.push(failure('error'), failure('unavailable'));
    expect(ending(s, noRescue)).toEqual({
      code: ExitCode.PARTIAL,
      message:
        'codes generate: 250 codes in 1m05s → codes.csv. To retry what failed, run:\n  bookdist codes generate --count 250 --out codes.csv --resume',
      resume: 'bookdist codes generate --count 250 --out codes.csv --resume',
      complete: true,
    });
    const down = job();
    down.s.failures.push(failure('unavailable'), failure('unavailable'));
    expect(ending(down.s, noRescue).code).toBe(ExitCode.UNAVAILABLE);
    // Invalid rows: said with the verb's hint (or the default), exit 6, nothing a retry mends.
    const bad = job({ invalidHint: ' Fix the ISBNs.' });
    bad.s.invalid = 2;
    expect(ending(bad.s, noRescue)).toEqual({
      code: ExitCode.PARTIAL,
      message: 'codes generate: 250 codes in 1m05s → codes.csv. Fix the ISBNs.',
      resume: undefined,
      complete: true,
    });
    const plain = job();
    plain.s.invalid = 1;
    expect(ending(plain.s, noRescue).message).toBe(
      'codes generate: 250 codes in 1m05s → codes.csv. Fix the invalid rows and run them again.',
    );
    // Unavailable failures with invalid rows too: partial, not "try later".
    plain.s.failures.push(failure('unavailable'));
    expect(ending(plain.s, noRescue).code).toBe(ExitCode.PARTIAL);
    // Batches not done or items not settled are retried alike.
    for (const more of [{ notDone: 1 }, { unsettled: 2 }]) {
      const j = job();
      Object.assign(j.s, more);
      expect(ending(j.s, noRescue)).toMatchObject({ code: ExitCode.OK, resume: expect.stringContaining('--resume') });
    }
  });

  it('a stdout job continues with the verb’s own hint, its note a shell comment on the first line', () => {
    const { s } = job({
      file: undefined,
      stdoutResumeHint: () => ({ command: 'bookdist book process - <<EOF\naaa\nEOF', note: '2 left' }),
    });
    s.failures.push(failure('error'));
    expect(ending(s, noRescue).resume).toBe('bookdist book process - <<EOF  # 2 left\naaa\nEOF');
    const bare = job({ file: undefined, stdoutResumeHint: () => ({ command: 'bookdist x --isbn 1' }) });
    bare.s.failures.push(failure('error'));
    expect(ending(bare.s, noRescue).resume).toBe('bookdist x --isbn 1');
    const none = job({ file: undefined, stdoutResumeHint: () => undefined });
    none.s.failures.push(failure('error'));
    expect(ending(none.s, noRescue)).toMatchObject({
      message: 'codes generate: 250 codes in 1m05s.',
      resume: undefined,
    });
  });

  it('results kept aside (more than asked, or malformed) are said even when the job succeeded', () => {
    const { s } = job();
    expect(ending(s, rescued).message).toBe(
      'codes generate: 250 codes in 1m05s → codes.csv. The 40 result(s) the service returned that were not written (more than asked, or malformed) are kept in /st/rescue/x.ndjson (readable only by you).',
    );
    expect(ending(s, { error: 'ENOSPC' } as Rescue).message).toBe(
      'codes generate: 250 codes in 1m05s → codes.csv. Results the service returned could not be kept either (ENOSPC).',
    );
  });

  it('a failed write: exit 1, what was written kept, the rows rescued, how to continue', () => {
    const { s } = job();
    s.writeError = err('ENOSPC', 'ENOSPC: no space left on device, write');
    const e = ending(s, rescued);
    expect(e.code).toBe(ExitCode.ERROR);
    expect(e.complete).toBe(false);
    expect(e.error).toBeInstanceOf(CliError);
    expect(e.message).toBe(
      'codes generate: writing codes.csv failed: ENOSPC (no space left on device, write). 250 codes; every batch written before it is kept. ' +
        'The 40 result(s) the service returned that could not be written are kept in /st/rescue/x.ndjson (readable only by you). ' +
        'Make room (or fix the disk), then continue:\n  bookdist codes generate --count 250 --out codes.csv --resume',
    );
    // A rescue file made but not written to (its disk full too): what could not be kept, not "0 results kept".
    const lost = job();
    lost.s.writeError = err('ENOSPC', 'ENOSPC: no space left on device, write');
    expect(ending(lost.s, { path: '/st/rescue/y.ndjson', count: 0, error: 'ENOSPC' } as Rescue).message).toContain(
      'every batch written before it is kept. Results the service returned could not be kept either (ENOSPC). Make room',
    );
    // Only a leading code is taken off the message.
    const mid = job();
    mid.s.writeError = err('EIO', 'the device said EIO: broken');
    expect(ending(mid.s, noRescue).message).toContain('writing codes.csv failed: EIO (the device said EIO: broken).');
    // An error without a code is said as it is.
    const odd = job();
    odd.s.writeError = new Error('the disk went away');
    expect(ending(odd.s, noRescue).message).toContain('writing codes.csv failed: the disk went away. 250 codes;');
    // A usage error of the output layer is the user's to fix: as it is.
    const usage = job();
    usage.s.writeError = new CliError('--fields: no field "x"', ExitCode.USAGE);
    expect(ending(usage.s, noRescue)).toMatchObject({ code: ExitCode.USAGE, message: '--fields: no field "x"' });
  });

  it('stdout closed by its reader (EPIPE): the job stopped there, no rescue said; other stdout errors are failed writes', () => {
    const { s } = job({ file: undefined, stdoutResumeHint: () => ({ command: 'bookdist again' }) });
    s.writeError = err('EPIPE', 'EPIPE: broken pipe, write');
    expect(ending(s, noRescue).message).toBe(
      'codes generate: writing stdout failed: EPIPE (the reader closed the pipe). 250 codes; the job stopped there (results of requests in flight were not printed). To continue, run:\n  bookdist again',
    );
    // Without a command to continue (no hint): the sentence ends there.
    const bare = job({ file: undefined });
    bare.s.writeError = err('EPIPE', 'EPIPE: broken pipe, write');
    expect(ending(bare.s, noRescue).message).toMatch(/results of requests in flight were not printed\)\.$/);
    const full = job({ file: undefined });
    full.s.writeError = err('ENOSPC', 'ENOSPC: no space');
    expect(ending(full.s, noRescue).message).toBe(
      'codes generate: writing stdout failed: ENOSPC (no space). 250 codes; every batch written before it is kept. Make room (or fix the disk), then continue:',
    );
  });

  it('FILE deleted or replaced: where its results are now, and the command that writes them again', () => {
    const gone = () =>
      new FileGone('replaced by another file', async function* () {
        /* nothing */
      });
    const { s } = job();
    s.writeError = gone();
    expect(ending(s, rescued).message).toBe(
      'codes generate: codes.csv was replaced by another file while the job was writing it: it does not hold the results. ' +
        'The 40 result(s) the service returned for it are kept in /st/rescue/x.ndjson (readable only by you). ' +
        "The job's journal is kept: to write every result to codes.csv again (fetched with the same keys), run:\n  bookdist codes generate --count 250 --out codes.csv --resume",
    );
    expect(ending(s, { error: 'EIO' } as Rescue).message).toContain('What it held could not be kept (EIO).');
    expect(ending(s, { path: '/st/rescue/z.ndjson', count: 0, error: 'EIO' } as Rescue).message).toContain(
      'What it held could not be kept (EIO).',
    );
    expect(ending(s, noRescue).message).toContain('it does not hold the results. It held no results yet. The job');
  });

  it('a bad input: an edited input as --resume said it; another error with its own exit code or 2, and how to continue', () => {
    const { s } = job();
    s.sourceError = new InputChanged('--resume: batch 2 differs', ExitCode.USAGE);
    expect(ending(s, noRescue)).toMatchObject({ code: ExitCode.USAGE, message: '--resume: batch 2 differs' });
    const csv = job();
    csv.s.sourceError = new Error('books.csv line 7: bad quote.');
    expect(ending(csv.s, noRescue)).toMatchObject({
      code: ExitCode.USAGE,
      message:
        'books.csv line 7: bad quote. 250 codes before it. Fix the input, then continue:\n  bookdist codes generate --count 250 --out codes.csv --resume',
    });
    const own = job({ file: undefined });
    own.s.sourceError = Object.assign(new Error('cannot read stdin.'), { exitCode: ExitCode.ERROR });
    expect(ending(own.s, noRescue)).toMatchObject({
      code: ExitCode.ERROR,
      message: 'cannot read stdin. 250 codes before it.',
    });
  });

  it('a certificate or proxy failure stops at once, exits 8 or 9 and says what continues once it is fixed; another fatal failure exits as it says', () => {
    expect(stopsAtOnce({ exitCode: ExitCode.TLS })).toBe(true);
    expect(stopsAtOnce({ exitCode: ExitCode.PROXY })).toBe(true);
    expect(stopsAtOnce({ exitCode: ExitCode.AUTH })).toBe(false);
    const tls = job({ file: undefined });
    tls.s.fatal = failure('error', { exitCode: ExitCode.TLS, message: 'the certificate is not trusted' });
    expect(ending(tls.s, noRescue)).toMatchObject({
      code: ExitCode.TLS,
      message:
        'codes generate: the certificate is not trusted\ncodes generate: 250 codes in 1m05s. Once that is fixed, continue with:\n  bookdist codes generate --count 250 --out codes.csv',
      resume: 'bookdist codes generate --count 250 --out codes.csv',
      complete: false,
    });
    const proxy = job();
    proxy.s.fatal = failure('error', { exitCode: ExitCode.PROXY, message: 'the proxy refused' });
    expect(ending(proxy.s, noRescue)).toMatchObject({
      code: ExitCode.PROXY,
      resume: 'bookdist codes generate --count 250 --out codes.csv --resume',
    });
    const auth = job();
    auth.s.fatal = failure('error', { exitCode: ExitCode.AUTH, message: 'the key was refused', status: 401 });
    const e = ending(auth.s, noRescue);
    expect(e).toMatchObject({
      code: ExitCode.AUTH,
      message:
        'codes generate: the key was refused (250 codes). To continue, run:\n  bookdist codes generate --count 250 --out codes.csv --resume',
    });
    expect(e.error?.status).toBe(401);
    // Before any batch ran, or with no file: no command to continue.
    auth.s.batches = 0;
    expect(ending(auth.s, noRescue).message).toBe('codes generate: the key was refused (250 codes).');
  });

  it('interrupted before the end: 130, what was written, how to continue; interrupted once complete: a success', () => {
    const { s, abort } = job();
    abort();
    s.sourceDone = false;
    expect(ending(s, noRescue)).toEqual({
      code: ExitCode.INTERRUPTED,
      message:
        'interrupted: 250 codes → codes.csv. To continue, run:\n  bookdist codes generate --count 250 --out codes.csv --resume',
      resume: 'bookdist codes generate --count 250 --out codes.csv --resume',
      complete: false,
    });
    s.sourceDone = true;
    expect(ending(s, noRescue).code).toBe(ExitCode.OK);
    const out = job({ file: undefined });
    out.abort();
    out.s.handled = 1;
    expect(ending(out.s, noRescue).message).toBe('interrupted: 250 codes → stdout.');
  });

  it('bulkExitCode: 0, 6 with extra partial, 7 only when every failure is the service unavailable', () => {
    expect(bulkExitCode([])).toBe(ExitCode.OK);
    expect(bulkExitCode([], true)).toBe(ExitCode.PARTIAL);
    expect(bulkExitCode([{ kind: 'unavailable' }])).toBe(ExitCode.UNAVAILABLE);
    expect(bulkExitCode([{ kind: 'unavailable' }], true)).toBe(ExitCode.PARTIAL);
    expect(bulkExitCode([{ kind: 'unavailable' }, { kind: 'error' }])).toBe(ExitCode.PARTIAL);
  });
});

describe('the CI reports of a job', QUICK, () => {
  let dir: string;
  beforeEach(() => void (dir = mkdtempSync(join(tmpdir(), 'bookdist-summary-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('GitHub Actions: an ::error:: annotation of a failed job, %, CR and LF escaped; none for a success or outside Actions', () => {
    const gha = job({}, { GITHUB_ACTIONS: 'true' });
    reportToCi(gha.s, { code: 6, message: '100% done\r\nretry: x', complete: false });
    expect(gha.stderr).toEqual(['::error title=bookdist codes generate (exit 6)::100%25 done%0D%0Aretry: x\n']);
    reportToCi(gha.s, { code: 0, message: 'ok', complete: true });
    expect(gha.stderr).toHaveLength(1);
    const other = job({}, { GITHUB_ACTIONS: '1' });
    reportToCi(other.s, { code: 6, message: 'x', complete: false });
    expect(other.stderr).toEqual([]);
  });

  it('GITHUB_STEP_SUMMARY: the outcome, the first line, the counts, earlier runs, the output and how to continue, appended', () => {
    const path = join(dir, 'summary.md');
    const { s } = job({}, { GITHUB_STEP_SUMMARY: path });
    s.counts = { ok: 240, failed: 10 };
    s.earlier = 50;
    reportToCi(s, {
      code: 6,
      message: 'codes generate: 240 codes.\nmore',
      resume: 'bookdist x --resume',
      complete: false,
    });
    const done = job({ file: undefined }, { GITHUB_STEP_SUMMARY: path });
    done.s.counts = {};
    reportToCi(done.s, { code: 0, message: 'codes generate: nothing.', resume: 'r', complete: true });
    expect(readFileSync(path, 'utf8')).toBe(
      [
        '### bookdist codes generate: exit 6',
        '',
        'codes generate: 240 codes.',
        '',
        '| status | count |',
        '| --- | ---: |',
        '| ok | 240 |',
        '| failed | 10 |',
        '| done in an earlier run | 50 |',
        '',
        'Output: `codes.csv`',
        '',
        'Unfinished. To continue:',
        '',
        '```sh',
        'bookdist x --resume',
        '```',
        '',
        '### bookdist codes generate: done',
        '',
        'codes generate: nothing.',
        '',
        '| status | count |',
        '| --- | ---: |',
        '| (none written) | 0 |',
        '',
        'Output: stdout',
        '',
        '',
      ].join('\n'),
    );
  });

  it('a summary file that cannot be written is a warning, not a failure', () => {
    const { s, warnings } = job({}, { GITHUB_STEP_SUMMARY: join(dir, 'no/such/dir/summary.md') });
    reportToCi(s, { code: 0, message: 'ok', complete: true });
    expect(warnings).toEqual([
      `GITHUB_STEP_SUMMARY ${join(dir, 'no/such/dir/summary.md')}: cannot append the job summary (ENOENT).`,
    ]);
  });
});
