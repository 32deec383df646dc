// The job engine's own steps (src/bulk/job/run.ts), in-process: runJob with a spec written here,
// a real Context (src/cli/context.ts) whose client answers from a list, and FILE in a temporary
// directory. What it checks: the usage errors before anything opens, a finished job's --resume,
// --dry-run, the journal's service, the output error trap of stdout jobs, the breaker's warning,
// FILE checked before each commit and at the end, the second phase, the row count checked on
// --resume, and where the summary goes. Whole verbs are in engine.test.ts; these take milliseconds.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import type { ApiClient } from '../../src/api/client.js';
import { createContext } from '../../src/cli/context.js';
import type { Context, GlobalOptions } from '../../src/context.js';
import { CliError, ExitCode } from '../../src/errors.js';
import { JOURNAL_SUFFIX } from '../../src/bulk/job/journal.js';
import { runJob } from '../../src/bulk/job/run.js';
import { nodeFs, type Fs } from '../../src/util/fs-safe.js';
import type { BatchResult, JobSpec, JobTools, Planned, SettleTools } from '../../src/bulk/job/types.js';

const QUICK = { timeout: 10_000 };

type Row = { code: string; status: string };

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bookdist-run-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

interface Setup {
  batches?: number[][];
  process?: (b: Planned<number>, t: JobTools, ctl: Ctl) => Promise<BatchResult<Row>>;
  settle?: JobSpec<number, Row>['settle'];
  file?: string;
  resume?: boolean;
  restart?: boolean;
  fileFlag?: string;
  quiet?: boolean;
  dryRun?: boolean;
  concurrency?: number;
  config?: Record<string, unknown>;
  replies?: number[];
  extra?: Partial<JobSpec<number, Row>>;
  fs?: Fs;
  /** stderr is a terminal (the progress bar is drawn). */
  tty?: boolean;
}

interface Ctl {
  ctx: Context;
  interrupt: AbortController;
  outputTrap?: (e: NodeJS.ErrnoException) => void;
  processed: number[];
  sent: number;
}

function job(o: Setup = {}) {
  let stderr = '';
  let stdout = '';
  const stdin = new PassThrough();
  stdin.end();
  const io = {
    stdin,
    stdout: new Writable({ write: (c, _e, cb) => ((stdout += c.toString()), cb()) }),
    stderr: Object.assign(
      new Writable({ write: (c, _e, cb) => ((stderr += c.toString()), cb()) }),
      o.tty ? { isTTY: true, columns: 100 } : {},
    ),
    env: { XDG_STATE_HOME: join(dir, 'state'), NO_COLOR: '1' },
    cwd: dir,
    fs: o.fs,
  };
  const globals: GlobalOptions = {
    json: false,
    color: 'never',
    timeout: 30_000,
    retries: 0,
    debug: false,
    quiet: Boolean(o.quiet),
    yes: true,
    dryRun: Boolean(o.dryRun),
  };
  const interrupt = new AbortController();
  const ctl: Ctl = { interrupt, processed: [], sent: 0 } as unknown as Ctl;
  const ctx = createContext({
    io,
    globals,
    signal: interrupt.signal,
    cleanups: [],
    trapOutputError: (h) => void (ctl.outputTrap = h),
  });
  ctl.ctx = ctx;
  const replies = [...(o.replies ?? [])];
  const api = {
    announceAhead: () => {},
    call: async () => {
      ctl.sent++;
      const status = replies.shift() ?? 200;
      return { status, headers: {}, body: { message: `status ${status}` }, format: 'json', request: {} };
    },
  } as unknown as ApiClient;
  Object.assign(ctx, {
    config: async () => o.config ?? { username: { value: 'acme' }, baseUrl: { value: 'https://api.example' } },
    api: async () => api,
  });
  const path = o.file === undefined ? undefined : join(dir, o.file);
  const spec: JobSpec<number, Row> = {
    verb: 'test run',
    columns: ['code', 'status'],
    unit: 'codes',
    source: async function* () {
      for (const b of o.batches ?? [
        [1, 2],
        [3, 4],
      ])
        yield b;
    },
    process: async (b, t) => {
      ctl.processed.push(b.number);
      if (o.process) return o.process(b as Planned<number>, t, ctl);
      return { rows: b.items.map((i) => ({ code: `c${i}`, status: 'ok' })) };
    },
    status: (r) => r.status,
    describe: (counts, stats) => `${stats.earlier + (counts.ok ?? 0)} codes`,
    file: path ? { path, flag: '--out', display: o.file!, format: 'csv' } : undefined,
    fileFlag: o.fileFlag,
    identity: {},
    resume: Boolean(o.resume),
    restart: Boolean(o.restart),
    concurrency: o.concurrency ?? 1,
    command: 'bookdist test run',
    settle: o.settle,
    ...o.extra,
  };
  return {
    ctl,
    spec,
    ctx,
    run: () => runJob(spec, ctx),
    stderr: () => stderr,
    stdout: () => stdout,
  };
}

async function usage(p: Promise<unknown>): Promise<string> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(CliError);
  expect((e as CliError).exitCode, (e as CliError).message).toBe(ExitCode.USAGE);
  return (e as CliError).message;
}

const journalOf = (name: string) => readFileSync(join(dir, name + JOURNAL_SUFFIX), 'utf8');

describe('before anything opens', QUICK, () => {
  it('--resume or --restart without a file: the flag that names it', async () => {
    expect(await usage(job({ resume: true, fileFlag: '--out' }).run())).toBe(
      '--resume continues a job that wrote to a file: give the same --out FILE.',
    );
    expect(await usage(job({ restart: true }).run())).toBe(
      '--restart continues a job that wrote to a file: give the same --results FILE.',
    );
  });

  it('--resume and --restart together', async () => {
    const j = job({ resume: true, restart: true, file: 'c.csv' });
    expect(await usage(j.run())).toBe('Give --resume or --restart, not both.');
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('a file job', QUICK, () => {
  it('writes its rows, says so on stderr (not as a warning), and leaves only FILE', async () => {
    const j = job({ file: 'c.csv' });
    expect(await j.run()).toBe(ExitCode.OK);
    expect(readFileSync(join(dir, 'c.csv'), 'utf8')).toBe('code,status\nc1,ok\nc2,ok\nc3,ok\nc4,ok\n');
    expect(j.stderr()).toMatch(/^test run: 4 codes in .* → c\.csv\.\n$/);
    expect(readdirSync(dir).filter((f) => f !== 'state')).toEqual(['c.csv']);
    // The notices go to stderr again once the job is over (not above a bar that is gone).
    j.ctx.warn('later');
    expect(j.stderr()).toMatch(/warning: later\n$/);
  });

  it('the journal names the service (its base URL without the trailing slash) and the account', async () => {
    const headers: unknown[] = [];
    const seen = (cfg: Record<string, unknown>) =>
      job({
        file: `j${headers.length}.csv`,
        config: cfg,
        batches: [[1]],
        process: async (b) => {
          headers.push(JSON.parse(journalOf(`j${headers.length}.csv`).split('\n')[0]!).service);
          return { rows: b.items.map((i) => ({ code: `c${i}`, status: 'ok' })) };
        },
      }).run();
    await seen({ username: { value: 'acme' }, baseUrl: { value: 'https://api.example/v2//' } });
    await seen({ embedded: true, dataDir: '/data/sb' });
    await seen({});
    expect(headers).toEqual([
      { base_url: 'https://api.example/v2', account: 'acme' },
      { base_url: 'embedded sandbox (/data/sb)', account: null },
      { base_url: '', account: null },
    ]);
  });

  it('a finished job on --resume: nothing to do, said, exit 0, nothing sent, the lock released', async () => {
    writeFileSync(join(dir, 'c.csv'), 'code,status\nc1,ok\n');
    const j = job({ file: 'c.csv', resume: true });
    expect(await j.run()).toBe(ExitCode.OK);
    expect(j.ctl.processed).toEqual([]);
    expect(j.stderr()).toContain('c.csv: no interrupted job to resume');
    expect(readdirSync(dir).filter((f) => f !== 'state')).toEqual(['c.csv']);
  });

  it('FILE deleted while the job runs: found before the next commit, nothing more is sent', async () => {
    const j = job({
      file: 'c.csv',
      batches: [[1], [2], [3], [4]],
      process: async (b) => {
        if (b.number === 2) rmSync(join(dir, 'c.csv'));
        return { rows: b.items.map((i) => ({ code: `c${i}`, status: 'ok' })) };
      },
    });
    const e = await j.run().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(CliError);
    expect(j.ctl.processed).toEqual([1, 2]);
  });

  it('FILE deleted after the last commit: found by the check before the summary, the rows rescued', async () => {
    const j = job({
      file: 'c.csv',
      batches: [[1]],
      process: async () => ({ rows: [], pending: [0] }),
      settle: async () => {
        rmSync(join(dir, 'c.csv'));
      },
    });
    const e = await j.run().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(CliError);
    expect((e as CliError).exitCode).toBe(ExitCode.ERROR);
    expect((e as CliError).message).toMatch(/^test run: c\.csv was deleted while the job was writing it/);
  });

  it('FILE that cannot be checked at the end: that error, not a summary', async () => {
    let broken = false;
    const eio = Object.assign(new Error('EIO: i/o error, fstat'), { code: 'EIO' });
    const fs: Fs = {
      ...nodeFs,
      async createNew(p, opts) {
        const fh = await nodeFs.createNew(p, opts);
        if (!p.endsWith('.csv')) return fh;
        // FILE's handle, whose stat fails once `broken`.
        return new Proxy(fh, {
          get(t, k) {
            if (k === 'stat') return () => (broken ? Promise.reject(eio) : t.stat());
            const v = Reflect.get(t, k) as unknown;
            return typeof v === 'function' ? v.bind(t) : v;
          },
        });
      },
    };
    const j = job({
      file: 'c.csv',
      fs,
      batches: [[1]],
      process: async () => ({ rows: [], pending: [0] }),
      settle: async () => void (broken = true),
    });
    await expect(j.run()).rejects.toBe(eio);
  });
});

describe('--resume: FILE holds the rows the journal accounts for', QUICK, () => {
  /** An interrupted first run (batch 2 of 3 in flight), which leaves the journal. */
  async function interrupted(expectedRows?: (n: number) => number) {
    const first = job({
      file: 'c.csv',
      batches: [
        [1, 2],
        [3, 4],
        [5, 6],
      ],
      extra: expectedRows ? { expectedRows: (st) => expectedRows(st.earlier + st.done) } : {},
      process: async (b, _t, ctl) => {
        if (b.number === 2) ctl.interrupt.abort();
        return { rows: b.items.map((i) => ({ code: `c${i}`, status: 'ok' })) };
      },
    });
    expect(await first.run()).toBe(ExitCode.INTERRUPTED);
    expect(existsSync(join(dir, 'c.csv' + JOURNAL_SUFFIX))).toBe(true);
  }

  it('as the journal says: the rest is sent; what earlier runs did is handed to the verb first', async () => {
    await interrupted((n) => n);
    let earlier: number[] = [];
    const j = job({
      file: 'c.csv',
      resume: true,
      batches: [
        [1, 2],
        [3, 4],
        [5, 6],
      ],
      extra: { expectedRows: (st) => st.earlier + st.done, earlierBatches: (m) => void (earlier = [...m.keys()]) },
    });
    expect(await j.run()).toBe(ExitCode.OK);
    expect(earlier).toEqual([1, 2]);
    expect(j.ctl.processed).toEqual([3]);
    expect(readFileSync(join(dir, 'c.csv'), 'utf8').split('\n').filter(Boolean)).toHaveLength(7);
  });

  it('a row removed by hand: refused (exit 2) before anything is sent, naming both counts', async () => {
    await interrupted((n) => n);
    const path = join(dir, 'c.csv');
    // Two rows made one, the bytes the same (the journal's byte count alone cannot see it).
    writeFileSync(path, readFileSync(path, 'utf8').replace('c1,ok\nc2,ok\n', '"c1,\nc2",ok\n'));
    const j = job({
      file: 'c.csv',
      resume: true,
      batches: [
        [1, 2],
        [3, 4],
        [5, 6],
      ],
      extra: { expectedRows: (st) => st.earlier + st.done, earlierRow: () => {} },
    });
    expect(await usage(j.run())).toBe(
      '--resume: c.csv holds 3 row(s) where its job journal accounts for 4: the journal or the file was edited. ' +
        'Nothing was sent. Restore both as the job left them, or start over with --restart (the file is kept with a .abandoned suffix).',
    );
    expect(j.ctl.processed).toEqual([]);
  });

  it('a verb that does not count its rows is not checked', async () => {
    await interrupted();
    const path = join(dir, 'c.csv');
    // Two rows made one, the bytes the same (the journal's byte count alone cannot see it).
    writeFileSync(path, readFileSync(path, 'utf8').replace('c1,ok\nc2,ok\n', '"c1,\nc2",ok\n'));
    const j = job({
      file: 'c.csv',
      resume: true,
      batches: [
        [1, 2],
        [3, 4],
        [5, 6],
      ],
      extra: { earlierRow: () => {} },
    });
    expect(await j.run()).toBe(ExitCode.OK);
    expect(j.ctl.processed).toEqual([3]);
  });

  it("the bar counts what earlier runs did as done, not as this run's speed", async () => {
    // Each item weighs a million units: counted as this run's, they would show as millions a second.
    const weight = { weight: (items: number[]) => items.length * 1_000_000 };
    const first = job({
      file: 'w.csv',
      extra: weight,
      process: async (b, _t, ctl) => {
        if (b.number === 2) ctl.interrupt.abort();
        return { rows: b.items.map((i) => ({ code: `c${i}`, status: 'ok' })) };
      },
    });
    expect(await first.run()).toBe(ExitCode.INTERRUPTED);
    // Every batch was written; the job had not seen the input's end.
    const j = job({ file: 'w.csv', resume: true, tty: true, extra: weight });
    expect(await j.run()).toBe(ExitCode.OK);
    expect(j.ctl.processed).toEqual([]);
    const rates = j.stderr().match(/[\d,]+\/s/g);
    expect(rates?.length).toBeGreaterThan(0);
    expect(new Set(rates)).toEqual(new Set(['0/s']));
    expect(j.stderr()).toContain('test run 4,000,000 codes  0/s');
  });

  it('without --resume the earlier batches are not handed over', async () => {
    let called = false;
    const j = job({ file: 'n.csv', extra: { earlierBatches: () => void (called = true) } });
    expect(await j.run()).toBe(ExitCode.OK);
    expect(called).toBe(false);
  });
});

describe('--dry-run', QUICK, () => {
  it('the note, then the first batch only, with a key of the job; its lines are notices; no file', async () => {
    const keys: string[] = [];
    const j = job({
      dryRun: true,
      file: 'c.csv',
      extra: { dryRunNote: '(dry run: the first batch is shown)' },
      process: async (b, t) => {
        keys.push(b.key);
        t.log('would send 2 codes');
        return { rows: [] };
      },
    });
    expect(await j.run()).toBe(ExitCode.OK);
    expect(j.ctl.processed).toEqual([1]);
    expect(keys[0]).toMatch(/^[0-9a-f]{16}-1$/);
    expect(j.stderr()).toBe('(dry run: the first batch is shown)\nwould send 2 codes\n');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('an empty input: nothing to show; no note without one', async () => {
    const j = job({ dryRun: true, batches: [] });
    expect(await j.run()).toBe(ExitCode.OK);
    expect(j.ctl.processed).toEqual([]);
    expect(j.stderr()).toBe('');
  });
});

describe('a stdout job', QUICK, () => {
  it('an input refused before the first request: its own error, nothing sent', async () => {
    const j = job({
      extra: {
        // eslint-disable-next-line require-yield
        source: async function* () {
          throw new CliError('line 1: not a number', ExitCode.USAGE);
        },
      },
    });
    expect(await usage(j.run())).toBe('line 1: not a number');
  });

  it('stdout that fails (EPIPE): the trap stops the job at the batch in flight, the first error kept', async () => {
    const j = job({
      batches: [[1], [2], [3]],
      process: async (b, _t, ctl) => {
        if (b.number === 1) {
          ctl.outputTrap!(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
          ctl.outputTrap!(Object.assign(new Error('write ENOSPC'), { code: 'ENOSPC' }));
        }
        return { rows: b.items.map((i) => ({ code: `c${i}`, status: 'ok' })) };
      },
    });
    const e = await j.run().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(CliError);
    expect((e as CliError).message).toMatch(
      /^test run: writing stdout failed: EPIPE \(the reader closed the pipe\)\. 0 codes; the job stopped there/,
    );
    expect(j.ctl.processed).toEqual([1]);
  });

  it('a file job leaves stdout to the process (no trap)', async () => {
    const j = job({ file: 'c.csv' });
    await j.run();
    expect(j.ctl.outputTrap).toBeUndefined();
  });

  it('failures: the summary is a warning, shown under --quiet; a clean job is quiet', async () => {
    const failing = job({
      quiet: true,
      batches: [[1]],
      process: async (b) => ({
        rows: [{ code: 'c1', status: 'failed' }],
        failures: [{ kind: 'unavailable', message: 'c1: 503', exitCode: ExitCode.UNAVAILABLE }],
        redo: [0],
      }),
    });
    expect(await failing.run()).toBe(ExitCode.UNAVAILABLE);
    expect(failing.stderr()).toMatch(/^warning: test run: 0 codes in /);
    const clean = job({ quiet: true });
    expect(await clean.run()).toBe(ExitCode.OK);
    expect(clean.stderr()).toBe('');
  });

  it("the breaker's warning is shown under --quiet", async () => {
    const j = job({
      quiet: true,
      batches: [[1], [2], [3], [4]],
      replies: [503, 503, 503, 503],
      process: async (b, t) => {
        const r = await t.call('codes.generate' as never, {} as never);
        return r.ok
          ? { rows: b.items.map((i) => ({ code: `c${i}`, status: 'ok' })) }
          : { rows: [], notDone: { failure: r.failure } };
      },
    });
    await j.run();
    expect(j.stderr()).toContain('test run: the service stayed unavailable for 3 requests in a row');
  });
});

describe('the second phase', QUICK, () => {
  const pendingBatch = async (b: Planned<number>) => ({ rows: [], pending: b.items.map((_, i) => i) });

  it('runs over the pending items once every batch is written', async () => {
    const seen: number[] = [];
    const j = job({
      file: 'p.csv',
      process: pendingBatch,
      settle: async (pending, t: SettleTools<number, Row>) => {
        seen.push(...pending.map((p) => p.item));
        await t.commit(pending.map((of) => ({ of, row: { code: `c${of.item}`, status: 'ok' } })));
      },
    });
    expect(await j.run()).toBe(ExitCode.OK);
    expect(seen).toEqual([1, 2, 3, 4]);
    expect(existsSync(join(dir, 'p.csv' + JOURNAL_SUFFIX))).toBe(false);
  });

  it('interrupted before it: skipped, and the items left pending keep the journal for --resume', async () => {
    let settled = false;
    const j = job({
      file: 'p.csv',
      batches: [[1, 2]],
      process: async (b, _t, ctl) => {
        ctl.interrupt.abort();
        return pendingBatch(b);
      },
      settle: async () => void (settled = true),
    });
    expect(await j.run()).toBe(ExitCode.INTERRUPTED);
    expect(settled).toBe(false);
    expect(existsSync(join(dir, 'p.csv' + JOURNAL_SUFFIX))).toBe(true);
  });

  it('interrupted once every batch is written: skipped, and the items left pending keep the journal', async () => {
    let ended!: () => void;
    const sourceEnded = new Promise<void>((r) => (ended = r));
    let settled = false;
    const j = job({
      file: 'p.csv',
      concurrency: 2,
      extra: {
        source: async function* () {
          yield [1, 2];
          ended();
        },
      },
      process: async (b, _t, ctl) => {
        // The other lane has found the input's end: the first phase is complete but for this batch.
        await sourceEnded;
        await new Promise((r) => setImmediate(r));
        ctl.interrupt.abort();
        return pendingBatch(b);
      },
      settle: async () => void (settled = true),
    });
    expect(await j.run()).toBe(ExitCode.INTERRUPTED);
    expect(settled).toBe(false);
    expect(j.stderr()).toContain('interrupted: 0 codes → p.csv. To continue, run:\n  bookdist test run --resume');
    expect(existsSync(join(dir, 'p.csv' + JOURNAL_SUFFIX))).toBe(true);
  });

  it('a verb without a second phase is never asked to settle, and what it left pending is its own', async () => {
    const j = job({
      file: 'n.csv',
      batches: [[1, 2]],
      process: async () => ({ rows: [{ code: 'c1', status: 'ok' }], pending: [1] }),
    });
    expect(await j.run()).toBe(ExitCode.OK);
    expect(existsSync(join(dir, 'n.csv' + JOURNAL_SUFFIX))).toBe(false);
  });
});
