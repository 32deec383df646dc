// A bulk job's durable files (src/bulk/job/durable.ts), in-process through a file-system seam that
// records what reaches the disk: appends in order and counted by what was written, a commit that
// resolves only once everything appended before it is synced, a new file's directory synced, a torn
// tail cut and synced before anything is appended, private files, a close that commits first.
import { describe, expect, it } from 'vitest';
import type { Stats } from 'node:fs';
import { DurableFile } from '../../src/bulk/job/durable.js';
import type { Fs, SafeHandle } from '../../src/util/fs-safe.js';

/** The tests take milliseconds: a promise left unsettled fails here in 5 s (test/mutation/sequencer.ts). */
const QUICK = { timeout: 5_000 };

/** A handle on a file held in memory, logging each call; writes take at most `chunk` bytes at a time. */
function memoryFile(log: string[], opts: { size?: number; mode?: number; chunk?: number; failStat?: Error } = {}) {
  let data = Buffer.alloc(opts.size ?? 0, 'x');
  let mode = opts.mode ?? 0o100600;
  const fh = {
    fd: 3,
    async write(buf: Uint8Array, off: number, len: number) {
      const n = Math.min(len, opts.chunk ?? len);
      data = Buffer.concat([data, Buffer.from(buf.subarray(off, off + n))]);
      log.push(`write ${Buffer.from(buf.subarray(off, off + n)).toString()}`);
      return { bytesWritten: n };
    },
    async datasync() {
      log.push('datasync');
    },
    async truncate(n?: number) {
      data = data.subarray(0, n ?? 0);
      log.push(`truncate ${n}`);
    },
    async stat() {
      if (opts.failStat) throw opts.failStat;
      return { size: data.length, mode } as Stats;
    },
    async chmod(m: number) {
      mode = (mode & ~0o777) | m;
      log.push(`chmod ${m.toString(8)}`);
    },
    async close() {
      log.push('close');
    },
  };
  return { fh: fh as unknown as SafeHandle, text: () => data.toString() };
}

function seam(log: string[], file: SafeHandle): Fs {
  return {
    createNew: async (p: string, o?: { append?: boolean }) => {
      log.push(`create ${p} append=${o?.append}`);
      return file;
    },
    openExisting: async (p: string, how: string) => {
      log.push(`open ${p} ${how}`);
      return file;
    },
    syncDir: (d: string) => void log.push(`syncDir ${d}`),
  } as unknown as Fs;
}

describe('a durable file', QUICK, () => {
  it('a new one: created for appending, its directory synced; appends in order, counted; commit syncs after them', async () => {
    const log: string[] = [];
    const m = memoryFile(log, { chunk: 3 });
    const f = await DurableFile.create(seam(log, m.fh), '/jobs/out/codes.csv');
    expect(log).toEqual(['create /jobs/out/codes.csv append=true', 'syncDir /jobs/out']);
    expect(f.size).toBe(0);
    expect(f.path).toBe('/jobs/out/codes.csv');
    const a = f.append('abcdefg\n');
    const b = f.append(Buffer.from('é\n'));
    const c = f.commit();
    await Promise.all([a, b, c]);
    // Written whole though the disk took 3 bytes at a time; the sync after every byte of both.
    expect(m.text()).toBe('abcdefg\né\n');
    expect(f.size).toBe(Buffer.byteLength('abcdefg\né\n'));
    expect(log.slice(2).at(-1)).toBe('datasync');
    expect(log.slice(2, -1).every((l) => l.startsWith('write '))).toBe(true);
    log.length = 0;
    await f.appendDurably('h\n');
    expect(log).toEqual(['write h\n', 'datasync']);
  });

  it('a failed write counts what was written, and later appends still run in order', async () => {
    const log: string[] = [];
    const m = memoryFile(log, { chunk: 2 });
    const f = await DurableFile.create(seam(log, m.fh), '/j/f');
    let calls = 0;
    const write = m.fh.write.bind(m.fh);
    (m.fh as { write: SafeHandle['write'] }).write = async (buf, off, len, pos) => {
      if (++calls === 2) throw Object.assign(new Error('ENOSPC'), { code: 'ENOSPC' });
      return write(buf, off, len, pos);
    };
    await expect(f.append('abcd')).rejects.toThrow('ENOSPC');
    expect(f.size).toBe(2);
    await f.append('ef');
    expect(m.text()).toBe('abef');
    expect(f.size).toBe(4);
  });

  it('an existing one: its torn tail cut and synced before anything else; else opened as it is', async () => {
    const log: string[] = [];
    const m = memoryFile(log, { size: 10 });
    const f = await DurableFile.existing(seam(log, m.fh), '/j/f', 6);
    expect(log).toEqual(['open /j/f append', 'truncate 6', 'datasync']);
    expect(f.size).toBe(6);
    const log2: string[] = [];
    const whole = await DurableFile.existing(seam(log2, memoryFile(log2, { size: 10 }).fh), '/j/g');
    expect(log2).toEqual(['open /j/g append']);
    expect(whole.size).toBe(10);
    // Cut to nothing is still a cut.
    const log3: string[] = [];
    const empty = await DurableFile.existing(seam(log3, memoryFile(log3, { size: 10 }).fh), '/j/h', 0);
    expect(log3).toEqual(['open /j/h append', 'truncate 0', 'datasync']);
    expect(empty.size).toBe(0);
  });

  it('a handle that fails while being taken over is closed, and the error given', async () => {
    const log: string[] = [];
    const m = memoryFile(log, { failStat: new Error('EIO: stat') });
    await expect(DurableFile.adopt(m.fh, '/j/f')).rejects.toThrow('EIO: stat');
    expect(log).toEqual(['close']);
  });

  it('made private (0600) only when group or others could read it', async () => {
    for (const [mode, expected] of [
      [0o100644, ['chmod 600']],
      [0o100640, ['chmod 600']],
      [0o100604, ['chmod 600']],
      [0o100600, []],
      [0o100700, []],
    ] as const) {
      const log: string[] = [];
      const f = await DurableFile.adopt(memoryFile(log, { mode }).fh, '/j/f');
      await f.chmodPrivate();
      expect(log, mode.toString(8)).toEqual(expected);
    }
    const log: string[] = [];
    const m = memoryFile(log, { size: 4 });
    const f = await DurableFile.adopt(m.fh, '/j/f');
    expect((await f.stat()).size).toBe(4);
  });

  it('close commits what was appended, then closes, once', async () => {
    const log: string[] = [];
    const m = memoryFile(log);
    const f = await DurableFile.adopt(m.fh, '/j/f');
    void f.append('a');
    await f.close();
    await f.close();
    expect(log).toEqual(['write a', 'datasync', 'close']);
    // A failed sync still closes the file.
    const log2: string[] = [];
    const m2 = memoryFile(log2);
    (m2.fh as { datasync: () => Promise<void> }).datasync = async () => {
      throw new Error('EIO: sync');
    };
    const g = await DurableFile.adopt(m2.fh, '/j/g');
    await expect(g.close()).rejects.toThrow('EIO: sync');
    expect(log2).toEqual(['close']);
  });
});
