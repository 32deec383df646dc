// The checks of a job's file before anything is sent (src/bulk/job/output-checks.ts), in-process:
// FILE a regular file or nothing in a directory that exists (a link, a pipe, a device or a
// directory refused, each with its own usage error), and on --resume the same job (verb, options,
// format) against the same service and account, an older journal resumed with a warning. Whole
// jobs are in engine.test.ts; these take milliseconds (`npm run mutate` runs them first).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Context } from '../../src/context.js';
import { CliError, ExitCode } from '../../src/errors.js';
import type { Journal, JournalHeader, JobService } from '../../src/bulk/job/journal.js';
import { checkPath, checkSameJob, checkSameService } from '../../src/bulk/job/output-checks.js';
import type { FileFormat, JobFile, JobSpec } from '../../src/bulk/job/types.js';
import { nodeFs } from '../../src/util/fs-safe.js';

const QUICK = { timeout: 5_000 };

const fileAt = (path: string, format: FileFormat = 'csv'): JobFile => ({
  path,
  flag: '--out',
  display: 'out/codes.csv',
  format,
});

/** The usage error (exit 2) `run` fails with; its message. */
async function usageMessage(run: () => unknown): Promise<string> {
  let error: unknown;
  try {
    await run();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(CliError);
  expect((error as CliError).exitCode).toBe(ExitCode.USAGE);
  return (error as CliError).message;
}

describe('checkPath: FILE is a regular file or nothing, in a directory that exists', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'bookdist-output-checks-'));
    writeFileSync(join(dir, 'file.csv'), 'code\n');
    mkdirSync(join(dir, 'sub'));
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    symlinkSync(join(dir, 'file.csv'), join(dir, 'to-file'));
    symlinkSync(join(dir, 'sub'), join(dir, 'to-dir'));
    symlinkSync(join(dir, 'nothing'), join(dir, 'dangling'));
    symlinkSync('/dev/null', join(dir, 'to-device'));
    symlinkSync(join(dir, 'fifo'), join(dir, 'to-fifo'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a new file, or a regular file already there: no objection', QUICK, async () => {
    await expect(checkPath(fileAt(join(dir, 'new.csv')), nodeFs)).resolves.toBeUndefined();
    await expect(checkPath(fileAt(join(dir, 'file.csv')), nodeFs)).resolves.toBeUndefined();
  });

  it('a directory that does not exist: named, with the fix', QUICK, async () => {
    const missing = join(dir, 'no-such-dir');
    expect(await usageMessage(() => checkPath(fileAt(join(missing, 'codes.csv')), nodeFs))).toBe(
      `--out out/codes.csv: cannot write in ${missing} (missing or not writable). Choose another path.`,
    );
  });

  const notRegular =
    "--out out/codes.csv is not a regular file (a pipe or a device); a job's file must be one it can resume. To print the results, leave out --out.";
  const aLink =
    `--out out/codes.csv is a symbolic link; bookdist never writes results through one (someone who can write to DIR may have planted it). ` +
    'Give the path of a regular file, or remove the link. Nothing was written.';

  it(
    'a pipe, or a link to a pipe or a device (as /dev/stdout is): not a regular file, print to stdout instead',
    QUICK,
    async () => {
      for (const name of ['fifo', 'to-fifo', 'to-device'])
        expect(await usageMessage(() => checkPath(fileAt(join(dir, name)), nodeFs))).toBe(notRegular);
    },
  );

  it('a link to a file or a directory, or a dangling one: refused as a link that may be planted', QUICK, async () => {
    for (const name of ['to-file', 'to-dir', 'dangling'])
      expect(await usageMessage(() => checkPath(fileAt(join(dir, name)), nodeFs))).toBe(aLink.replace('DIR', dir));
  });

  it(
    'a descriptor of its own redirected to a file (`--out /dev/stdout > x.csv`): named as such, not as a planted link',
    QUICK,
    async () => {
      const own =
        "--out out/codes.csv is one of this command's own descriptors, here a file the shell opened; a job needs a file it can resume, with its journal beside it. " +
        "Give the file's own path as --out, or leave out --out to print the results. Nothing was written.";
      const file = join(dir, 'file.csv');
      const fd = openSync(file, 'r');
      try {
        for (const path of [`/dev/fd/${fd}`, `/proc/self/fd/${fd}`, `/proc/${process.pid}/fd/${fd}`])
          expect(await usageMessage(() => checkPath(fileAt(path), nodeFs))).toBe(own);
      } finally {
        closeSync(fd);
      }
      // The same names anywhere else, or a path through a descriptor, are still links that may have been planted.
      const dirFd = openSync(dir, 'r');
      try {
        for (const name of ['dev/stdout', 'proc/self/fd/3']) {
          mkdirSync(join(dir, name, '..'), { recursive: true });
          symlinkSync(file, join(dir, name));
        }
        for (const path of [
          join(dir, 'dev/stdout'),
          join(dir, 'proc/self/fd/3'),
          `/dev/fd/${dirFd}/to-file`,
          `/proc/self/fd/${dirFd}/to-file`,
        ])
          expect(await usageMessage(() => checkPath(fileAt(path), nodeFs))).toBe(aLink.replace('DIR', dirname(path)));
      } finally {
        closeSync(dirFd);
      }
      symlinkSync(`/proc/self/fd/0`, join(dir, 'fd-0'));
      expect(await usageMessage(() => checkPath(fileAt(join(dir, 'fd-0')), nodeFs))).not.toContain('descriptors');
    },
  );

  it('a directory: give a file path', QUICK, async () => {
    expect(await usageMessage(() => checkPath(fileAt(join(dir, 'sub')), nodeFs))).toBe(
      '--out out/codes.csv is a directory; give a file path.',
    );
  });
});

describe('checkSameJob: --resume continues the same job', () => {
  const spec = (identity: Record<string, unknown>, verb = 'codes generate') =>
    ({ verb, identity }) as unknown as JobSpec<unknown, Record<string, unknown>>;
  const header = (identity: Record<string, unknown>, more: Partial<JournalHeader> = {}): JournalHeader => ({
    v: 1,
    verb: 'codes generate',
    job_id: 'j1',
    started: '2026-11-28T06:00:00Z',
    format: 'csv',
    identity,
    ...more,
  });
  const identity = { '--book': 'B1', '--count': 3, '--tags': ['a', 'b'], '--note': null };

  it('the same verb, options and format: no objection (options compared by value)', () => {
    expect(() =>
      checkSameJob(spec({ ...identity, '--tags': ['a', 'b'] }), fileAt('/x'), header(identity)),
    ).not.toThrow();
    expect(() => checkSameJob(spec({}), fileAt('/x', 'json'), header({}, { format: 'json' }))).not.toThrow();
  });

  it('another verb: named, both of them', async () => {
    expect(await usageMessage(() => checkSameJob(spec(identity, 'access allow'), fileAt('/x'), header(identity)))).toBe(
      '--resume: out/codes.csv belongs to a `codes generate` job, not `access allow`.',
    );
  });

  it('an option changed, given only now, or given only then: the flag and both values, as the user wrote them', async () => {
    const differ = async (was: Record<string, unknown>, now: Record<string, unknown>) =>
      usageMessage(() => checkSameJob(spec(now), fileAt('/x'), header(was)));
    const advice = '(or start over with --restart).';
    expect(await differ(identity, { ...identity, '--book': 'B2' })).toBe(
      `--resume: the job in out/codes.csv was started with --book B1, not B2. Give the same --book ${advice}`,
    );
    expect(await differ(identity, { ...identity, '--count': 4 })).toBe(
      `--resume: the job in out/codes.csv was started with --count 3, not 4. Give the same --count ${advice}`,
    );
    expect(await differ(identity, { ...identity, '--tags': ['b', 'a'] })).toBe(
      `--resume: the job in out/codes.csv was started with --tags ["a","b"], not ["b","a"]. Give the same --tags ${advice}`,
    );
    expect(await differ(identity, { ...identity, '--note': 'hello' })).toBe(
      `--resume: the job in out/codes.csv was started with --note (not given), not hello. Give the same --note ${advice}`,
    );
    expect(await differ({ '--book': 'B1' }, { '--book': 'B1', '--limit': 10 })).toBe(
      `--resume: the job in out/codes.csv was started with --limit (not given), not 10. Give the same --limit ${advice}`,
    );
    expect(await differ({ '--book': 'B1', '--limit': 10 }, { '--book': 'B1' })).toBe(
      `--resume: the job in out/codes.csv was started with --limit 10, not (not given). Give the same --limit ${advice}`,
    );
  });

  it('another output format: give the one the file was written as', async () => {
    expect(await usageMessage(() => checkSameJob(spec(identity), fileAt('/x', 'tsv'), header(identity)))).toBe(
      '--resume: out/codes.csv was written as csv; give the same output format (-o csv).',
    );
  });
});

describe('checkSameService: --resume against the service and account the job started with', () => {
  const service = (base_url: string, account: string | null): JobService => ({ base_url, account });
  const journal = (svc: JobService | undefined, chain: string | undefined): Journal => ({
    header: {
      v: 1,
      verb: 'codes generate',
      job_id: 'j1',
      started: '2026-11-28T06:00:00Z',
      format: 'csv',
      identity: {},
      ...(svc ? { service: svc } : {}),
    },
    records: [],
    validEnd: 0,
    chain,
  });
  const ctxRecording = () => {
    const warnings: string[] = [];
    return { warnings, ctx: { warn: (m: string) => void warnings.push(m) } as unknown as Context };
  };
  const here = service('https://api.example', 'acme');
  const older =
    '--resume: the job journal of out/codes.csv was written by an older bookdist (no service, account or digest recorded): ' +
    'it cannot be checked against the service of this run, nor for edits. Resuming as before.';

  it('the same service and account, with a digest: resumes without a word', () => {
    const { warnings, ctx } = ctxRecording();
    checkSameService(fileAt('/x'), journal(here, 'digest'), service('https://api.example', 'acme'), ctx);
    checkSameService(fileAt('/x'), journal(service('https://b', null), 'd'), service('https://b', null), ctx);
    expect(warnings).toEqual([]);
  });

  it('another service or another account: refused, naming both and the fix', async () => {
    const refused = (was: JobService, now: JobService) =>
      usageMessage(() => checkSameService(fileAt('/x'), journal(was, 'digest'), now, ctxRecording().ctx));
    const fix =
      'A job belongs to one service and account (its codes would be mixed in one file): resume it with the same profile, ' +
      '--base-url and account, or start over with --restart.';
    expect(await refused(here, service('http://127.0.0.1:8080', 'acme'))).toBe(
      `--resume: the job in out/codes.csv was started against https://api.example as acme; this run would send to http://127.0.0.1:8080 as acme. ${fix}`,
    );
    expect(await refused(here, service('https://api.example', null))).toBe(
      `--resume: the job in out/codes.csv was started against https://api.example as acme; this run would send to https://api.example as (no account). ${fix}`,
    );
  });

  it('a journal of an older bookdist without a service: resumed anywhere, with a warning', () => {
    const { warnings, ctx } = ctxRecording();
    checkSameService(fileAt('/x'), journal(undefined, undefined), service('http://elsewhere', null), ctx);
    expect(warnings).toEqual([older]);
  });

  it('a journal with a service but no digest: the same warning, and the service still checked', async () => {
    const { warnings, ctx } = ctxRecording();
    checkSameService(fileAt('/x'), journal(here, undefined), here, ctx);
    expect(warnings).toEqual([older]);
    expect(
      await usageMessage(() =>
        checkSameService(fileAt('/x'), journal(here, undefined), service('https://b', 'acme'), ctx),
      ),
    ).toMatch(
      /^--resume: the job in out\/codes.csv was started against https:\/\/api.example as acme; this run would send to https:\/\/b as acme\./,
    );
    expect(warnings).toEqual([older, older]);
  });
});
