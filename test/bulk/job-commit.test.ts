// A job's rows made final (src/bulk/job/commit.ts), in-process. File jobs (FileCommitter), with a
// file and a journal that record what is appended and synced: rows durable in FILE before the
// journal line that counts them, the line's output_end where FILE then ends, batches that complete
// during a write committed together, a failed write ending the job with every row kept in the
// rescue file. Stdout jobs (StdoutCommitter), with a stdout that acknowledges or fails each write.
// Whole jobs are in engine.test.ts; these take milliseconds (`npm run mutate` runs them first).
import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import type { Context } from '../../src/context.js';
import { FileCommitter, StdoutCommitter } from '../../src/bulk/job/commit.js';
import type { DurableFile } from '../../src/bulk/job/durable.js';
import { journalLine, type NewRecord } from '../../src/bulk/job/journal.js';
import { FileGone } from '../../src/bulk/job/output-file.js';
import type { Rescue } from '../../src/bulk/job/rescue.js';
import { newJobState, type FileFormat, type JobSpec, type JobState } from '../../src/bulk/job/types.js';

/**
 * These tests take milliseconds: a change of the code that leaves a promise unsettled (a commit
 * never resolved) fails here within 5 s, instead of hanging until the mutation run's timeout,
 * which restarts its test worker (tens of seconds on these machines).
 */
const QUICK = { timeout: 5_000 };

type Row = Record<string, unknown>;

/** What happened, in order: `append FILE <text>`, `sync FILE`, `append journal <text>`... */
type Log = string[];

/** A durable file that records its appends and syncs; `failAt`: the append that fails with `error`. */
function durable(name: string, log: Log, size = 0, fail?: { at: number; error: unknown }) {
  let appends = 0;
  const f = {
    size,
    /** The next append waits for it (a write under way while more batches complete). */
    gate: undefined as Promise<void> | undefined,
    async appendDurably(text: string) {
      if (fail && ++appends === fail.at) throw fail.error;
      if (f.gate) {
        const g = f.gate;
        f.gate = undefined;
        await g;
      }
      log.push(`append ${name} ${text}`);
      f.size += Buffer.byteLength(text);
      log.push(`sync ${name}`);
    },
    async append(text: string) {
      log.push(`append ${name} ${text}`);
      f.size += Buffer.byteLength(text);
    },
  };
  return f;
}

function rescueRecorder() {
  const kept: Row[][] = [];
  const r = { kept, keep: async (rows: Row[]) => void (rows.length && kept.push(rows)) };
  return r;
}

function setup(
  format: FileFormat,
  opts: { size?: number; chain?: string; fail?: { at: number; error: unknown } } = {},
) {
  const log: Log = [];
  const out = durable('FILE', log, opts.size ?? 0, opts.fail);
  const journal = durable('journal', log, 0);
  const rescue = rescueRecorder();
  const s = { spec: { columns: ['code', 'status'] } } as unknown as JobState<unknown, Row>;
  let gone: unknown;
  const committer = new FileCommitter<Row>(
    s,
    { path: '/x/codes', flag: '--out', display: 'codes', format },
    () => out as unknown as DurableFile,
    journal as unknown as DurableFile,
    rescue as unknown as Rescue,
    opts.chain,
    async () => {
      if (gone) throw gone;
      log.push('check FILE');
    },
  );
  return { log, out, journal, rescue, s, committer, goneWith: (e: unknown) => (gone = e) };
}

const lineOf = (record: NewRecord, end: number, prev?: string) => journalLine(record, end, prev);

describe('a file job commits its rows', QUICK, () => {
  it('rows (in column order) appended and synced to FILE, checked, then the journal line saying where FILE ends, synced', async () => {
    const t = setup('csv', { size: 12, chain: 'c0' });
    await t.committer.commit({ batch: 1 }, [
      { status: 'ok', code: 'A1' },
      { status: 'ok', code: 'B,2' },
    ]);
    const rows = 'A1,ok\n"B,2",ok\n';
    const l1 = lineOf({ batch: 1 }, 12 + rows.length, 'c0');
    expect(t.log).toEqual([
      `append FILE ${rows}`,
      'sync FILE',
      'check FILE',
      `append journal ${l1.text}`,
      'sync journal',
    ]);
    // The next batch chains on that line and counts from where FILE now ends.
    await t.committer.commit({ batch: 2, redo: [1] }, [{ code: 'C3', status: 'failed' }]);
    const l2 = lineOf({ batch: 2, redo: [1] }, 12 + rows.length + 10, l1.chain);
    expect(t.log.slice(5)).toEqual([
      `append FILE C3,failed\n`,
      'sync FILE',
      'check FILE',
      `append journal ${l2.text}`,
      'sync journal',
    ]);
  });

  it('a batch with no rows writes nothing to FILE, only its journal line; an older journal (no chain) gets lines without one', async () => {
    const t = setup('ndjson', { size: 0 });
    await t.committer.commit({ settled: [[1, 0]] }, []);
    expect(t.log).toEqual(['check FILE', `append journal {"settled":[[1,0]],"output_end":0}\n`, 'sync journal']);
  });

  it('batches that complete while a write is under way are written together: one append and sync of FILE, then their lines in order', async () => {
    const t = setup('tsv', { chain: 'c0' });
    let go!: () => void;
    t.out.gate = new Promise<void>((r) => (go = r));
    const first = t.committer.commit({ batch: 1 }, [{ code: 'A', status: 'ok' }]);
    const second = t.committer.commit({ batch: 2 }, [{ code: 'B', status: 'ok' }]);
    const third = t.committer.commit({ batch: 3 }, [{ code: 'C', status: 'ok' }]);
    go();
    await Promise.all([first, second, third]);
    const l1 = lineOf({ batch: 1 }, 5, 'c0');
    const l2 = lineOf({ batch: 2 }, 10, l1.chain);
    const l3 = lineOf({ batch: 3 }, 15, l2.chain);
    expect(t.log).toEqual([
      'append FILE A\tok\n',
      'sync FILE',
      'check FILE',
      `append journal ${l1.text}`,
      'sync journal',
      'append FILE B\tok\nC\tok\n',
      'sync FILE',
      'check FILE',
      `append journal ${l2.text}${l3.text}`,
      'sync journal',
    ]);
  });

  it('a JSON array: the first row without a comma, every later one (in later batches too) after one; a resumed array continues with commas', async () => {
    const t = setup('json', { size: 2 });
    await t.committer.commit({ batch: 1 }, []);
    await t.committer.commit({ batch: 2 }, [{ code: 'A', status: 'ok' }]);
    await t.committer.commit({ batch: 3 }, [{ code: 'B', status: 'ok' }]);
    const appended = t.log.filter((l) => l.startsWith('append FILE')).map((l) => l.slice('append FILE '.length));
    expect(appended).toEqual(['{"code":"A","status":"ok"}\n', ',{"code":"B","status":"ok"}\n']);
    const resumed = setup('json', { size: 30 });
    await resumed.committer.commit({ batch: 4 }, [{ code: 'C', status: 'ok' }]);
    expect(resumed.log[0]).toBe('append FILE ,{"code":"C","status":"ok"}\n');
  });

  it('a failed write: that commit and every later one reject with the same error, nothing is journalled, every row goes to the rescue file', async () => {
    const enospc = Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    const t = setup('csv', { fail: { at: 1, error: enospc } });
    await expect(t.committer.commit({ batch: 1 }, [{ code: 'A', status: 'ok' }])).rejects.toBe(enospc);
    expect(t.s.writeError).toBe(enospc);
    await expect(t.committer.commit({ batch: 2 }, [{ code: 'B', status: 'ok' }])).rejects.toBe(enospc);
    expect(t.log.filter((l) => l.includes('journal'))).toEqual([]);
    expect(t.rescue.kept).toEqual([[{ code: 'A', status: 'ok' }], [{ code: 'B', status: 'ok' }]]);
    // The first error stays the job's error.
    expect(t.s.writeError).toBe(enospc);
  });

  it('FILE deleted during the job: no journal line for the rows, and what FILE held goes to the rescue file once', async () => {
    const t = setup('csv');
    const gone = new FileGone('deleted', async function* () {
      yield { code: 'A', status: 'ok' };
    });
    t.goneWith(gone);
    await expect(t.committer.commit({ batch: 1 }, [{ code: 'A', status: 'ok' }])).rejects.toBe(gone);
    expect(t.log).toEqual(['append FILE A,ok\n', 'sync FILE']);
    expect(gone.rescued).toBe(true);
    expect(t.rescue.kept).toEqual([[{ code: 'A', status: 'ok' }]]);
    // Later commits: their own rows are kept (FILE's were rescued already).
    await expect(t.committer.commit({ batch: 2 }, [{ code: 'B', status: 'ok' }])).rejects.toBe(gone);
    expect(t.rescue.kept).toEqual([[{ code: 'A', status: 'ok' }], [{ code: 'B', status: 'ok' }]]);
  });
});

/** A real stdout that records what it was given; `fail`: the error its next writes end with. */
function realStdout() {
  const got: string[] = [];
  const out = new Writable({
    write(chunk: Buffer, _enc, cb) {
      if (out.fail) return setImmediate(() => cb(out.fail));
      got.push(chunk.toString());
      setImmediate(() => cb());
    },
  }) as Writable & { fail?: Error };
  // The real stdout's 'error' event is the launcher's to handle (src/main.ts); here it is seen through the callbacks.
  out.on('error', () => {});
  return { out, got };
}

function stdoutJob(spec: Partial<JobSpec<unknown, Row>> = {}) {
  const { out, got } = realStdout();
  const rescue = rescueRecorder();
  const ctl = new AbortController();
  const ctx = { io: { stdout: out, stderr: out, env: {} }, globals: {}, signal: ctl.signal } as unknown as Context;
  const s = newJobState<unknown, Row>(
    {
      verb: 'book process',
      columns: ['hash_id', 'status'],
      identity: {},
      stdoutFormat: 'ndjson',
      status: (r: Row) => String(r.status),
      ...spec,
    } as JobSpec<unknown, Row>,
    ctx,
  );
  const committer = new StdoutCommitter<Row>(s, rescue as unknown as Rescue);
  return { s, out, got, rescue, committer };
}

const errno = (code: string) => Object.assign(new Error(`${code}: write failed`), { code });

describe('a stdout job prints its rows', QUICK, () => {
  it('each batch in column order, counted once the real stdout took it', async () => {
    const t = stdoutJob();
    await t.committer.commit({ batch: 1 }, [{ status: 'queued', hash_id: 'a' }]);
    expect(t.got.join('')).toBe('{"hash_id":"a","status":"queued"}\n');
    await t.committer.commit({ batch: 2 }, [{ hash_id: 'b', status: 'done' }]);
    await t.committer.end();
    expect(t.got.join('')).toBe('{"hash_id":"a","status":"queued"}\n{"hash_id":"b","status":"done"}\n');
    expect(t.s.writeError).toBeUndefined();
    expect(t.rescue.kept).toEqual([]);
  });

  it('a failed write (ENOSPC): that batch and every later one rejected, the job stopped, their rows rescued', async () => {
    const t = stdoutJob();
    await t.committer.commit({ batch: 1 }, [{ hash_id: 'a', status: 'ok' }]);
    t.out.fail = errno('ENOSPC');
    await expect(t.committer.commit({ batch: 2 }, [{ hash_id: 'b', status: 'ok' }])).rejects.toBe(t.out.fail);
    expect(t.s.writeError).toBe(t.out.fail);
    expect(t.s.stop.signal.aborted).toBe(true);
    await expect(t.committer.commit({ batch: 3 }, [{ hash_id: 'c', status: 'ok' }])).rejects.toBe(t.out.fail);
    expect(t.rescue.kept).toEqual([[{ hash_id: 'b', status: 'ok' }], [{ hash_id: 'c', status: 'ok' }]]);
    await t.committer.end();
    expect(t.s.writeError).toBe(t.out.fail);
  });

  it('a closed pipe (EPIPE): the job stops, and nothing is rescued (the reader chose to stop)', async () => {
    const t = stdoutJob();
    t.out.fail = errno('EPIPE');
    await expect(t.committer.commit({ batch: 1 }, [{ hash_id: 'a', status: 'ok' }])).rejects.toBe(t.out.fail);
    expect(t.s.stop.signal.aborted).toBe(true);
    expect(t.rescue.kept).toEqual([]);
  });

  it('a usage error of the output layer: nothing printed, the rows rescued', async () => {
    const bad = new Error('--fields: no such field');
    const t = stdoutJob({
      stdoutWriter: () => ({
        write: () => {
          throw bad;
        },
        end: async () => {},
      }),
    });
    await expect(t.committer.commit({ batch: 1 }, [{ hash_id: 'a', status: 'ok' }])).rejects.toBe(bad);
    expect(t.s.writeError).toBe(bad);
    expect(t.rescue.kept).toEqual([[{ hash_id: 'a', status: 'ok' }]]);
    expect(t.got).toEqual([]);
    // Once the job has a write error, a later batch is not printed, even by a writer that would take it.
    let calls = 0;
    const once = stdoutJob({
      stdoutWriter: (ctx) => ({
        write: (r: Row) => {
          if (++calls === 1) throw bad;
          ctx.io.stdout.write(`${r.hash_id}\n`);
        },
        end: async () => {},
      }),
    });
    await expect(once.committer.commit({ batch: 1 }, [{ hash_id: 'a', status: 'ok' }])).rejects.toBe(bad);
    await expect(once.committer.commit({ batch: 2 }, [{ hash_id: 'b', status: 'ok' }])).rejects.toBe(bad);
    expect(once.got).toEqual([]);
    expect(once.rescue.kept).toEqual([[{ hash_id: 'a', status: 'ok' }], [{ hash_id: 'b', status: 'ok' }]]);
  });

  it('a writer that prints two batches at a time: rows it held go to the rescue file with the batch whose write failed', async () => {
    const pairs = (ctx: Context) => {
      const rows: Row[] = [];
      return {
        write: (r: Row) => {
          rows.push(r);
          if (rows.length === 2)
            ctx.io.stdout.write(
              rows
                .splice(0)
                .map((x) => `${x.hash_id}\n`)
                .join(''),
            );
        },
        end: async () => {},
      };
    };
    const t = stdoutJob({ stdoutWriter: pairs });
    await t.committer.commit({ batch: 1 }, [{ hash_id: 'a', status: 'ok' }]);
    t.out.fail = errno('ENOSPC');
    await expect(t.committer.commit({ batch: 2 }, [{ hash_id: 'b', status: 'ok' }])).rejects.toBe(t.out.fail);
    expect(t.rescue.kept).toEqual([
      [
        { hash_id: 'a', status: 'ok' },
        { hash_id: 'b', status: 'ok' },
      ],
    ]);
  });

  it('a writer that prints at the end (a table): its rows printed by end(); if that fails, they are not counted as written, and are rescued', async () => {
    const atEnd = (ctx: Context) => {
      const rows: Row[] = [];
      return {
        write: (r: Row) => void rows.push(r),
        end: async () => void ctx.io.stdout.write(rows.map((r) => `${r.hash_id} ${r.status}`).join('\n') + '\n'),
      };
    };
    const ok = stdoutJob({ stdoutWriter: atEnd });
    await ok.committer.commit({ batch: 1 }, [{ hash_id: 'a', status: 'ok' }]);
    await ok.committer.commit({ batch: 2 }, [{ hash_id: 'b', status: 'failed' }]);
    expect(ok.got).toEqual([]);
    await ok.committer.end();
    expect(ok.got.join('')).toBe('a ok\nb failed\n');
    expect(ok.s.writeError).toBeUndefined();

    const t = stdoutJob({ stdoutWriter: atEnd });
    Object.assign(t.s, { done: 5, counts: { ok: 4, failed: 1 } });
    await t.committer.commit({ batch: 1 }, [{ hash_id: 'a', status: 'ok' }]);
    await t.committer.commit({ batch: 2 }, [{ hash_id: 'b', status: 'failed' }]);
    t.out.fail = errno('EIO');
    await t.committer.end();
    expect(t.s.writeError).toBe(t.out.fail);
    expect(t.s.counts).toEqual({ ok: 3, failed: 0 });
    expect(t.s.done).toBe(3);
    expect(t.rescue.kept).toEqual([
      [
        { hash_id: 'a', status: 'ok' },
        { hash_id: 'b', status: 'failed' },
      ],
    ]);
    // The same through a closed pipe: not counted, not rescued.
    const p = stdoutJob({ stdoutWriter: atEnd });
    Object.assign(p.s, { done: 1, counts: { ok: 1 } });
    await p.committer.commit({ batch: 1 }, [{ hash_id: 'a', status: 'ok' }]);
    p.out.fail = errno('EPIPE');
    await p.committer.end();
    expect(p.s.counts).toEqual({ ok: 0 });
    expect(p.s.done).toBe(0);
    expect(p.rescue.kept).toEqual([]);
  });

  it('after a write error the writer is not ended: nothing more is printed', async () => {
    const bad = new Error('--fields: no such field');
    const t = stdoutJob({
      stdoutWriter: (ctx) => ({
        write: () => {
          throw bad;
        },
        end: async () => void ctx.io.stdout.write(']\n'),
      }),
    });
    await expect(t.committer.commit({ batch: 1 }, [{ hash_id: 'a', status: 'ok' }])).rejects.toBe(bad);
    await t.committer.end();
    expect(t.got).toEqual([]);
    expect(t.s.writeError).toBe(bad);
  });

  it('TSV without columns of its own: the job’s columns, in their order, with a header', async () => {
    const t = stdoutJob({ stdoutFormat: 'tsv' });
    await t.committer.commit({ batch: 1 }, [{ status: 'queued', hash_id: 'a' }]);
    await t.committer.end();
    expect(t.got.join('')).toBe('hash_id\tstatus\na\tqueued\n');
  });

  it('an end that throws (a --query that fails) is the job’s write error', async () => {
    const bad = new Error('--query: bad expression');
    const t = stdoutJob({ stdoutWriter: () => ({ write: () => {}, end: () => Promise.reject(bad) }) });
    await t.committer.commit({ batch: 1 }, [{ hash_id: 'a', status: 'ok' }]);
    await t.committer.end();
    expect(t.s.writeError).toBe(bad);
  });
});
