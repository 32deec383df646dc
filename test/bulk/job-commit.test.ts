// A file job's rows made final (src/bulk/job/commit.ts, FileCommitter), in-process with a file and
// a journal that record what is appended and synced: rows durable in FILE before the journal line
// that counts them, the line's output_end where FILE then ends, batches that complete during a
// write committed together, a failed write ending the job with every row kept in the rescue file.
// Whole jobs are in engine.test.ts; these take milliseconds (`npm run mutate` runs them first).
import { describe, expect, it } from 'vitest';
import { FileCommitter } from '../../src/bulk/job/commit.js';
import type { DurableFile } from '../../src/bulk/job/durable.js';
import { journalLine, type NewRecord } from '../../src/bulk/job/journal.js';
import { FileGone } from '../../src/bulk/job/output-file.js';
import type { Rescue } from '../../src/bulk/job/rescue.js';
import type { FileFormat, JobState } from '../../src/bulk/job/types.js';

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

describe('a file job commits its rows', () => {
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
