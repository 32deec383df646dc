// The rescue file (src/bulk/job/rescue.ts), in-process in a temporary state directory through the
// file-system seam: rows the job could not write go to one private NDJSON file named after the
// verb and the time, created on the first rescued row, written whole (short writes continued),
// synced, in the order they were kept; a failure is recorded (never thrown) and nothing more is
// tried; close waits for what is under way. Whole jobs that rescue rows are in engine.test.ts.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { Rescue } from '../../src/bulk/job/rescue.js';
import { nodeFs, type Fs, type SafeHandle } from '../../src/util/fs-safe.js';

/** The tests take milliseconds: a promise left unsettled fails here in 5 s (test/mutation/sequencer.ts). */
const QUICK = { timeout: 5_000 };

let dir: string;
let env: Record<string, string | undefined>;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bookdist-rescue-'));
  env = { XDG_STATE_HOME: join(dir, 'state') };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const rescueDir = () => join(dir, 'state', 'bookdist', 'rescue');
const lines = (p: string) => readFileSync(p, 'utf8').split('\n');

/**
 * nodeFs, except that each write takes at most `chunk` bytes, the `failAt`-th write fails with
 * `error`, and the files it created are counted, with their handles still open.
 */
function seam(opts: { chunk?: number; failAt?: number; error?: unknown; createError?: unknown } = {}) {
  const s = { created: 0, open: 0, writes: 0 };
  const fs: Fs = {
    ...nodeFs,
    async createNew(p, o) {
      s.created++;
      if (opts.createError !== undefined) throw opts.createError;
      const fh = await nodeFs.createNew(p, o);
      s.open++;
      const h: SafeHandle = {
        fd: fh.fd,
        write: async (b, off, len, pos) => {
          if (++s.writes === opts.failAt) throw opts.error;
          return fh.write(b, off, Math.min(len, opts.chunk ?? len), pos);
        },
        read: (b, off, len, pos) => fh.read(b, off, len, pos),
        datasync: () => fh.datasync(),
        sync: () => fh.sync(),
        truncate: (n) => fh.truncate(n),
        stat: () => fh.stat(),
        chmod: (m) => fh.chmod(m),
        readFile: (o2) => fh.readFile(o2),
        close: async () => {
          s.open--;
          await fh.close();
        },
      };
      return h;
    },
  };
  return { fs, s };
}

describe('the rescue file', () => {
  it('is made on the first rescued row only, private, named after the verb and the time', QUICK, async () => {
    const { fs, s } = seam();
    const r = new Rescue(env, 'access allow / sync', fs);
    await r.keep([]);
    expect(r.path).toBeUndefined();
    expect(s.created).toBe(0);
    await r.keep([{ code: 'A1' }]);
    expect(r.path).toBeDefined();
    expect(readdirSync(rescueDir())).toEqual([basename(r.path!)]);
    expect(basename(r.path!)).toMatch(/^access-allow-sync-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z-[0-9a-f]{8}\.ndjson$/);
    expect(statSync(r.path!).mode & 0o777).toBe(0o600);
    expect(statSync(rescueDir()).mode & 0o777).toBe(0o700);
    await r.close();
  });

  it('holds every row kept, one JSON object a line, in order, in one file', QUICK, async () => {
    const { fs, s } = seam({ chunk: 7 });
    const r = new Rescue(env, 'codes generate', fs);
    void r.keep([{ code: 'A1', note: 'é' }, { code: 'A2' }]);
    void r.keep([{ code: 'B1' }]);
    await r.close();
    expect(s.created).toBe(1);
    expect(s.open).toBe(0);
    expect(r.count).toBe(3);
    expect(r.error).toBeUndefined();
    expect(lines(r.path!)).toEqual(['{"code":"A1","note":"é"}', '{"code":"A2"}', '{"code":"B1"}', '']);
  });

  it('records why rows could not be kept, and tries no more', QUICK, async () => {
    const enospc = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    const { fs, s } = seam({ failAt: 1, error: enospc });
    const r = new Rescue(env, 'codes generate', fs);
    await r.keep([{ code: 'A1' }]);
    expect(r.error).toBe('ENOSPC');
    await r.keep([{ code: 'A2' }]);
    await r.close();
    expect(r.count).toBe(0);
    expect(s.writes).toBe(1);
    expect(readFileSync(r.path!, 'utf8')).toBe('');
  });

  it('says a failure without a code by its message, or as it was thrown', QUICK, async () => {
    for (const [thrown, said] of [
      [new Error('disk quota exceeded'), 'disk quota exceeded'],
      ['gone', 'gone'],
      [null, 'null'],
    ] as const) {
      const r = new Rescue(env, 'codes generate', seam({ createError: thrown }).fs);
      await r.keep([{ code: 'A1' }]);
      await r.keep([{ code: 'A2' }]);
      expect(r.error).toBe(said);
      await r.close();
    }
  });
});
