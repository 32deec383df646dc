// A job's file before and while the job writes it (src/bulk/job/output-file.ts), in-process in a
// temporary directory through the file-system seam: a new job (FILE and journal created, an empty
// file of the user's taken over and emptied again when the job is refused), the refusals (a file
// that exists, an interrupted job without --resume, a stale lock), --restart (FILE kept aside),
// --resume (a torn tail cut, a torn journal line cut, FILE gone, FILE shorter than the journal
// says, earlier rows read back), FILE deleted or replaced while the job runs (FileGone and its
// rescue), and completion (the rows counted, a JSON array closed, the journal removed).
// Whole jobs are in engine.test.ts; these take milliseconds (`npm run mutate` runs them first).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import type { Stats } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context } from '../../src/context.js';
import { CliError, ExitCode } from '../../src/errors.js';
import { journalLine, JOURNAL_SUFFIX } from '../../src/bulk/job/journal.js';
import { FileGone, prepareOutput, type JobFiles } from '../../src/bulk/job/output-file.js';
import type { Rescue } from '../../src/bulk/job/rescue.js';
import type { FileFormat, JobFile, JobSpec, JobStats } from '../../src/bulk/job/types.js';
import { nodeFs, type Fs, type SafeHandle } from '../../src/util/fs-safe.js';

/** The tests take milliseconds: a promise left unsettled fails here in 5 s (test/mutation/sequencer.ts). */
const QUICK = { timeout: 5_000 };

type Row = Record<string, unknown>;

const SERVICE = { base_url: 'https://api.example', account: 'acme' };
const HEADER = 'code,status\n';

let dir: string;
let path: string;
let jpath: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bookdist-outfile-'));
  path = join(dir, 'codes.csv');
  jpath = path + JOURNAL_SUFFIX;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const fileOf = (format: FileFormat = 'csv'): JobFile => ({ path, flag: '--out', display: 'codes.csv', format });

function specOf(over: Partial<JobSpec<unknown, Row>> = {}): JobSpec<unknown, Row> {
  return {
    verb: 'codes generate',
    columns: ['code', 'status'],
    identity: { '--count': 3 },
    resume: false,
    restart: false,
    ...over,
  } as unknown as JobSpec<unknown, Row>;
}

const stats = (over: Partial<JobStats> = {}): JobStats => ({
  earlier: 0,
  done: 0,
  batches: 0,
  failedBatches: 0,
  failedUnits: 0,
  elapsedMs: 0,
  ...over,
});

async function prepare(
  over: Partial<JobSpec<unknown, Row>> = {},
  opts: { format?: FileFormat; fs?: Fs } = {},
): Promise<{ files: JobFiles; warnings: string[] }> {
  const warnings: string[] = [];
  const ctx = { warn: (m: string) => void warnings.push(m) } as unknown as Context;
  const files = await prepareOutput(specOf(over), fileOf(opts.format), ctx, opts.fs ?? nodeFs, SERVICE);
  return { files, warnings };
}

/** The error a promise rejects with (fails when it resolves). */
async function refusal(p: Promise<unknown>): Promise<CliError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(CliError);
  return e as CliError;
}

/** A job that wrote `batches` (each a list of codes) and stopped: FILE and its journal, as a run leaves them. */
async function interrupted(batches: string[][], format: FileFormat = 'csv'): Promise<void> {
  const { files } = await prepare({}, { format });
  let chain = files.chain;
  let first = true;
  for (const [i, codes] of batches.entries()) {
    const text = codes
      .map((c) =>
        format === 'json' ? `${first ? '' : ','}${JSON.stringify({ code: c, status: 'ok' })}\n` : `${c},ok\n`,
      )
      .join('');
    first = false;
    await files.out!.appendDurably(text);
    const line = journalLine({ batch: i + 1 }, files.out!.size, chain);
    chain = line.chain;
    await files.journal!.appendDurably(line.text);
  }
  await files.close();
}

/** `fh` through the seam, with some of its calls replaced. */
function handle(fh: SafeHandle, over: Partial<SafeHandle> = {}): SafeHandle {
  return {
    fd: fh.fd,
    write: (b, o, l, p) => fh.write(b, o, l, p),
    read: (b, o, l, p) => fh.read(b, o, l, p),
    datasync: () => fh.datasync(),
    sync: () => fh.sync(),
    truncate: (n) => fh.truncate(n),
    stat: () => fh.stat(),
    chmod: (m) => fh.chmod(m),
    readFile: (o) => fh.readFile(o),
    close: () => fh.close(),
    ...over,
  };
}

/** nodeFs, keeping the handles of existing files it opened until they are closed. */
function tracking(): { fs: Fs; open: Set<SafeHandle> } {
  const open = new Set<SafeHandle>();
  const fs: Fs = {
    ...nodeFs,
    async openExisting(p, how) {
      const fh = await nodeFs.openExisting(p, how);
      open.add(fh);
      return handle(fh, {
        close: () => {
          open.delete(fh);
          return fh.close();
        },
      });
    },
  };
  return { fs, open };
}

const lockPath = () => path + '.bookdist-lock';
const text = (p: string) => readFileSync(p, 'utf8');
const journalLines = () => text(jpath).split('\n');

describe('FileGone', () => {
  /** A rescue file that records what it is asked to keep, each call's rows as given. */
  function rescueRecorder(error?: string) {
    const kept: Row[][] = [];
    const r = { kept, error, keep: async (rows: Row[]) => void (rows.length && kept.push([...rows])) };
    return r;
  }
  async function* rowsOf(n: number, fail?: unknown) {
    for (let i = 0; i < n; i++) yield { code: `C${i}` };
    if (fail !== undefined) throw fail;
  }

  it('says how the file went', QUICK, () => {
    const e = new FileGone('replaced by another file', () => rowsOf(0));
    expect(e.message).toBe('the file was replaced by another file while the job was writing it');
    expect(e.how).toBe('replaced by another file');
  });

  it('keeps every row to the rescue file once, in order, at most 1,000 rows at a time', QUICK, async () => {
    const r = rescueRecorder();
    const e = new FileGone('deleted', () => rowsOf(2500));
    await e.rescue(r as unknown as Rescue);
    expect(e.rescued).toBe(true);
    expect(r.kept.map((k) => k.length)).toEqual([1000, 1000, 500]);
    expect(r.kept.flat().map((x) => x.code)).toEqual(Array.from({ length: 2500 }, (_, i) => `C${i}`));
    await e.rescue(r as unknown as Rescue);
    expect(r.kept).toHaveLength(3);
  });

  it('keeps the rows read before a read error, and says why the rest could not be', QUICK, async () => {
    const eio = Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' });
    const r = rescueRecorder();
    await new FileGone('deleted', () => rowsOf(3, eio)).rescue(r as unknown as Rescue);
    expect(r.kept.flat().map((x) => x.code)).toEqual(['C0', 'C1', 'C2']);
    expect(r.error).toBe('EIO');
    // An earlier reason (the rescue file's own disk full) is kept; a thrown value without a code is said as it is.
    const full = rescueRecorder('ENOSPC');
    await new FileGone('deleted', () => rowsOf(1, eio)).rescue(full as unknown as Rescue);
    expect(full.error).toBe('ENOSPC');
    const odd = rescueRecorder();
    await new FileGone('deleted', () => rowsOf(1, null)).rescue(odd as unknown as Rescue);
    expect(odd.error).toBe('null');
    expect(odd.kept).toEqual([[{ code: 'C0' }]]);
  });
});

describe('a new job', () => {
  it('creates FILE (0600, its header synced) and a journal naming the job and its service', QUICK, async () => {
    const { files } = await prepare();
    expect(text(path)).toBe(HEADER);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const header = JSON.parse(journalLines()[0]);
    expect(header).toMatchObject({
      v: 1,
      verb: 'codes generate',
      format: 'csv',
      identity: { '--count': 3 },
      service: SERVICE,
    });
    expect(header.job_id).toMatch(/^[0-9a-f]{16}$/);
    expect(files.chain).toBe(header.chain);
    expect(files.header).toEqual(header);
    expect(existsSync(lockPath())).toBe(true);
    await files.close();
    expect(existsSync(lockPath())).toBe(false);
  });

  it('refused before its first request, removes only what it created, once', QUICK, async () => {
    const removed: string[] = [];
    const fs: Fs = { ...nodeFs, remove: async (p) => void (removed.push(p), await nodeFs.remove(p)) };
    const { files } = await prepare({}, { fs });
    await files.discard();
    expect(removed.sort()).toEqual([path, jpath].sort());
    expect(readdirSync(dir)).toEqual([]);
    await files.discard();
    expect(removed).toHaveLength(2);
  });

  it('takes over an empty file of the user, and empties it again when the job is refused', QUICK, async () => {
    writeFileSync(path, '', { mode: 0o644 });
    const { fs, open } = tracking();
    const { files } = await prepare({}, { fs });
    expect(text(path)).toBe(HEADER);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    await files.discard();
    expect(readdirSync(dir)).toEqual(['codes.csv']);
    expect(text(path)).toBe('');
    expect(open.size).toBe(0);
  });

  it('refused, leaves the user empty file alone when it is gone meanwhile', QUICK, async () => {
    writeFileSync(path, '');
    const { files } = await prepare();
    unlinkSync(path);
    await files.discard();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('never overwrites a file that holds something', QUICK, async () => {
    writeFileSync(path, 'mine\n');
    const e = await refusal(prepare());
    expect(e.exitCode).toBe(ExitCode.USAGE);
    expect(e.message).toBe('--out codes.csv exists and is never overwritten. Choose another file, or remove it.');
    expect(text(path)).toBe('mine\n');
    expect(readdirSync(dir)).toEqual(['codes.csv']);
  });

  it('refuses to start over an interrupted job without --resume or --restart', QUICK, async () => {
    await interrupted([['A1']]);
    const e = await refusal(prepare());
    expect(e.exitCode).toBe(ExitCode.USAGE);
    expect(e.message).toBe(
      '--out codes.csv: an interrupted job left codes.csv.bookdist-job. Continue it with --resume, or start over with --restart.',
    );
    expect(text(path)).toBe(HEADER + 'A1,ok\n');
    expect(existsSync(lockPath())).toBe(false);
  });

  it('takes over the lock of a job whose process is gone only with --resume or --restart', QUICK, async () => {
    await interrupted([['A1']]);
    const stale = () =>
      writeFileSync(lockPath(), JSON.stringify({ pid: 99_999_999, host: hostname(), started: '2026-11-28T00:00:00Z' }));
    stale();
    const e = await refusal(prepare({ identity: { '--count': 3 } }));
    expect(e.message).toMatch(/a job \(pid 99999999\) stopped without finishing and left codes\.csv\.bookdist-lock/);
    const resumed = await prepare({ resume: true });
    await resumed.files.close();
    stale();
    const restarted = await prepare({ restart: true });
    await restarted.files.close();
  });

  it('says a resumed job whose journal is gone is finished, and leaves its file alone', QUICK, async () => {
    await interrupted([['A1']], 'json');
    rmSync(jpath);
    const before = text(path);
    const { files } = await prepare({ resume: true }, { format: 'json' });
    expect(files.finished).toBe(
      '--out codes.csv: no interrupted job to resume (no codes.csv.bookdist-job): the job finished, nothing was sent. A new job needs another file.',
    );
    expect(files.out).toBeUndefined();
    await files.complete(stats());
    await files.close();
    expect(text(path)).toBe(before);
    expect(readdirSync(dir)).toEqual(['codes.csv']);
  });
});

describe('--restart', () => {
  const ABANDONED = /^codes\.csv\.abandoned-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$/;

  async function restarted(): Promise<{ files: JobFiles; warnings: string[]; aside: string[] }> {
    const r = await prepare({ restart: true });
    const aside = readdirSync(dir).filter((n) => n.includes('abandoned'));
    return { ...r, aside };
  }

  it('keeps the interrupted job file aside and starts a new job', QUICK, async () => {
    await interrupted([['A1', 'A2']]);
    const old = JSON.parse(journalLines()[0]).job_id;
    const { files, warnings, aside } = await restarted();
    expect(aside).toHaveLength(1);
    expect(aside[0]).toMatch(ABANDONED);
    expect(text(join(dir, aside[0]))).toBe(HEADER + 'A1,ok\nA2,ok\n');
    expect(warnings).toEqual([`--restart: kept the earlier codes.csv as ${aside[0]}; starting over.`]);
    expect(text(path)).toBe(HEADER);
    expect(journalLines()).toHaveLength(2);
    expect(files.header.job_id).not.toBe(old);
    await files.close();
  });

  it('keeps a file without a journal aside too', QUICK, async () => {
    writeFileSync(path, 'mine\n');
    const { files, aside } = await restarted();
    expect(text(join(dir, aside[0]))).toBe('mine\n');
    expect(text(path)).toBe(HEADER);
    await files.close();
  });

  it('over a journal whose file is gone, or a damaged one, starts a new job', QUICK, async () => {
    await interrupted([['A1']]);
    rmSync(path);
    const gone = await restarted();
    expect(gone.aside).toEqual([]);
    expect(gone.warnings).toEqual([]);
    expect(text(path)).toBe(HEADER);
    expect(journalLines()).toHaveLength(2);
    await gone.files.close();
    rmSync(path);
    writeFileSync(jpath, 'not a journal\n');
    const damaged = await restarted();
    expect(text(path)).toBe(HEADER);
    expect(JSON.parse(journalLines()[0]).verb).toBe('codes generate');
    await damaged.files.close();
  });

  it('over an empty file of the user takes it over, nothing kept aside', QUICK, async () => {
    writeFileSync(path, '');
    const { files, aside, warnings } = await restarted();
    expect(aside).toEqual([]);
    expect(warnings).toEqual([]);
    expect(text(path)).toBe(HEADER);
    await files.close();
  });
});

describe('--resume', () => {
  it('reads back the rows earlier runs wrote, counts them, and cuts the torn batch after them', QUICK, async () => {
    await interrupted([['A1', 'A2'], ['B1']]);
    writeFileSync(path, 'C1,o', { flag: 'a' });
    const seen: Row[] = [];
    const { files, warnings } = await prepare({ resume: true, earlierRow: (r) => void seen.push(r) });
    expect(files.earlier.batches.size).toBe(2);
    expect(seen).toEqual([]);
    const counted: number[] = [];
    await files.openOut!((n) => void counted.push(n));
    expect(seen).toEqual([
      { code: 'A1', status: 'ok' },
      { code: 'A2', status: 'ok' },
      { code: 'B1', status: 'ok' },
    ]);
    expect(counted).toEqual([3]);
    expect(warnings).toEqual([
      'codes.csv: cut 4 byte(s) after the last complete batch (a batch being written when the job stopped, or bytes added by hand); that batch is fetched again.',
    ]);
    expect(text(path)).toBe(HEADER + 'A1,ok\nA2,ok\nB1,ok\n');
    expect(files.out!.size).toBe(Buffer.byteLength(text(path)));
    await files.close();
  });

  it('with nothing to cut, says nothing, and reads rows without being asked to count them', QUICK, async () => {
    await interrupted([['A1']]);
    const seen: Row[] = [];
    const { files, warnings } = await prepare({ resume: true, earlierRow: (r) => void seen.push(r) });
    await files.openOut!();
    expect(seen).toEqual([{ code: 'A1', status: 'ok' }]);
    expect(warnings).toEqual([]);
    expect(text(path)).toBe(HEADER + 'A1,ok\n');
    await files.close();
  });

  it('checks FILE only once it is open: before, and after the job, there is nothing to check', QUICK, async () => {
    await interrupted([['A1']]);
    const { files } = await prepare({ resume: true });
    rmSync(path);
    await files.check();
    writeFileSync(path, HEADER + 'A1,ok\n');
    await files.openOut!();
    await files.check();
    await files.close();
    rmSync(path);
    await files.check();
  });

  it('cuts a torn journal line so that the next line starts clean', QUICK, async () => {
    await interrupted([['A1']]);
    const whole = text(jpath);
    writeFileSync(jpath, '{"batch":2,"outp', { flag: 'a' });
    const { files } = await prepare({ resume: true });
    await files.openOut!();
    expect(text(jpath)).toBe(whole);
    await files.close();
  });

  it('refuses a file shorter than its journal says, leaving both alone', QUICK, async () => {
    await interrupted([['A1', 'A2']]);
    writeFileSync(path, HEADER + 'A1,ok\n');
    const journal = text(jpath);
    const e = await refusal(prepare({ resume: true }));
    expect(e.exitCode).toBe(ExitCode.USAGE);
    expect(e.message).toBe(
      '--out codes.csv holds 18 bytes but the job journal recorded 24: the file was cut or edited. ' +
        'Restore it, or start over with --restart (the file is kept with a .abandoned suffix).',
    );
    expect(text(path)).toBe(HEADER + 'A1,ok\n');
    expect(text(jpath)).toBe(journal);
  });

  it('fetches every batch again when FILE is gone: the journal keeps only its header', QUICK, async () => {
    await interrupted([['A1'], ['B1']]);
    const header = journalLines()[0];
    rmSync(path);
    const seen: Row[] = [];
    const { files, warnings } = await prepare({ resume: true, earlierRow: (r) => void seen.push(r) });
    expect(warnings).toEqual(['codes.csv is gone; its batches are fetched again with their original keys.']);
    expect(text(jpath)).toBe(header + '\n');
    expect(files.earlier.batches.size).toBe(0);
    expect(files.chain).toBe(JSON.parse(header).chain);
    await files.openOut!((n) => expect.fail(`asked to count ${n} rows`));
    expect(seen).toEqual([]);
    expect(text(path)).toBe(HEADER);
    await files.close();
  });

  it('FILE gone before any batch was done: no warning', QUICK, async () => {
    await interrupted([]);
    rmSync(path);
    const { files, warnings } = await prepare({ resume: true });
    expect(warnings).toEqual([]);
    await files.openOut!();
    expect(text(path)).toBe(HEADER);
    await files.close();
  });

  it(
    'with no batch journalled writes FILE from its header again (a header torn or edited is not kept)',
    QUICK,
    async () => {
      await interrupted([]);
      writeFileSync(path, 'CODE,STATUS\nX9,ok\n');
      const { files } = await prepare({ resume: true, earlierRow: () => expect.fail('no earlier row') });
      await files.openOut!((n) => expect.fail(`asked to count ${n} rows`));
      expect(text(path)).toBe(HEADER);
      await files.close();
    },
  );

  it('closes every file it opened to read back', QUICK, async () => {
    await interrupted([['A1']]);
    const { fs, open } = tracking();
    const { files } = await prepare({ resume: true, earlierRow: () => {} }, { fs });
    await files.openOut!();
    await files.close();
    expect(open.size).toBe(0);
  });
});

describe('while the job runs', () => {
  it('says FILE was deleted, and rescues what it held through the open descriptor', QUICK, async () => {
    const { files } = await prepare();
    await files.out!.appendDurably('A1,ok\nA2,ok\n');
    await files.check();
    unlinkSync(path);
    const e = await files.check().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(FileGone);
    expect((e as FileGone).how).toBe('deleted');
    const kept: Row[] = [];
    await (e as FileGone).rescue({ keep: async (rows: Row[]) => void kept.push(...rows) } as unknown as Rescue);
    expect(kept).toEqual([
      { code: 'A1', status: 'ok' },
      { code: 'A2', status: 'ok' },
    ]);
    await files.close();
  });

  it('says FILE was deleted when it was moved away', QUICK, async () => {
    const { files } = await prepare();
    renameSync(path, join(dir, 'elsewhere.csv'));
    await expect(files.check()).rejects.toMatchObject({ how: 'deleted' });
    await files.close();
  });

  it('says FILE was replaced when another file is at its path', QUICK, async () => {
    const { files } = await prepare();
    renameSync(path, join(dir, 'elsewhere.csv'));
    writeFileSync(path, HEADER);
    await expect(files.check()).rejects.toMatchObject({ how: 'replaced by another file' });
    await files.close();
  });

  it('says FILE was replaced by a file of the same inode number on another device', QUICK, async () => {
    let other = false;
    const fs: Fs = {
      ...nodeFs,
      async lstat(p) {
        const st = await nodeFs.lstat(p);
        return other && st ? ({ ...st, ino: st.ino, dev: st.dev + 1 } as Stats) : st;
      },
    };
    const { files } = await prepare({}, { fs });
    await files.check();
    other = true;
    await expect(files.check()).rejects.toMatchObject({ how: 'replaced by another file' });
    await files.close();
  });

  it('refuses a FILE swapped while it was being opened (another inode, or another device)', QUICK, async () => {
    for (const change of [{ ino: 1 }, { dev: 1 }]) {
      const fs: Fs = {
        ...nodeFs,
        async openExisting(p, how) {
          const fh = await nodeFs.openExisting(p, how);
          if (how !== 'read') return fh;
          const swapped = async () => {
            const st = await fh.stat();
            return { ...st, ino: st.ino + (change.ino ?? 0), dev: st.dev + (change.dev ?? 0) } as Stats;
          };
          return handle(fh, { stat: swapped });
        },
      };
      const e = await refusal(prepare({}, { fs }));
      expect(e.exitCode).toBe(ExitCode.USAGE);
      expect(e.message).toBe('--out codes.csv changed while it was being opened; run the command again.');
      expect(existsSync(lockPath())).toBe(false);
      rmSync(path);
      rmSync(jpath);
    }
  });
});

describe('complete', () => {
  it('removes the journal once FILE holds the rows the job counted', QUICK, async () => {
    const { files } = await prepare({ expectedRows: (st) => st.earlier + st.done });
    await files.out!.appendDurably('A1,ok\nA2,ok\n');
    await files.complete(stats({ earlier: 1, done: 1 }));
    await files.close();
    expect(readdirSync(dir)).toEqual(['codes.csv']);
    expect(text(path)).toBe(HEADER + 'A1,ok\nA2,ok\n');
  });

  it('keeps the journal when FILE holds other rows than the job counted (exit 1)', QUICK, async () => {
    const { files } = await prepare({ expectedRows: (st) => st.done });
    await files.out!.appendDurably('A1,ok\n');
    const e = await refusal(files.complete(stats({ done: 2 })));
    expect(e.exitCode).toBe(ExitCode.ERROR);
    expect(e.message).toBe(
      '--out codes.csv holds 1 row(s) but the job counted 2; its journal codes.csv.bookdist-job is kept. ' +
        'Check the file (was it written to by something else?), then continue with --resume, or start over with --restart.',
    );
    await files.close();
    expect(existsSync(jpath)).toBe(true);
  });

  it('closes a JSON array', QUICK, async () => {
    const { files } = await prepare({}, { format: 'json' });
    await files.out!.appendDurably('{"code":"A1","status":"ok"}\n,{"code":"A2","status":"ok"}\n');
    await files.complete(stats());
    await files.close();
    expect(text(path)).toBe('[\n{"code":"A1","status":"ok"}\n,{"code":"A2","status":"ok"}\n]\n');
    expect(JSON.parse(text(path))).toHaveLength(2);
    expect(existsSync(jpath)).toBe(false);
  });
});
