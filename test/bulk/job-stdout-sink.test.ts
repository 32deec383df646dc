// Standard output as a job writes to it (src/bulk/job/stdout-sink.ts), in-process over a stream that
// acknowledges each write when the test says: rows count as written only once the real stream
// acknowledged them, a failed write is kept (not emitted) and nothing more is sent, the terminal's
// properties are the real stream's. Whole stdout jobs are in engine.test.ts.
import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { StdoutSink } from '../../src/bulk/job/stdout-sink.js';

/** The tests take milliseconds: a promise left unsettled fails here in 5 s (test/mutation/sequencer.ts). */
const QUICK = { timeout: 5_000 };

/** A real stream whose writes wait for `ack()` (or fail with `fail(error)`); what it received, in order. */
function realStream(opts: { throws?: Error; isTTY?: boolean; columns?: number } = {}) {
  const pending: Array<(e?: Error) => void> = [];
  const got: string[] = [];
  const real = Object.assign(new Writable(), {
    isTTY: opts.isTTY,
    columns: opts.columns,
    write(data: Buffer, cb: (e?: Error) => void) {
      if (opts.throws) throw opts.throws;
      got.push(data.toString());
      pending.push(cb);
      return true;
    },
  });
  return {
    real,
    got,
    ack: () => pending.shift()!(),
    fail: (e: Error) => pending.shift()!(e),
    get waiting() {
      return pending.length;
    },
  };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('StdoutSink', () => {
  it('is a terminal of so many columns when the real stream is', QUICK, () => {
    expect(new StdoutSink(realStream({ isTTY: true, columns: 132 }).real)).toMatchObject({ isTTY: true, columns: 132 });
    expect(new StdoutSink(realStream().real)).toMatchObject({ isTTY: undefined, columns: undefined });
  });

  it('counts the writes it accepted, with or without an encoding, and calls each one back', QUICK, async () => {
    const r = realStream();
    const sink = new StdoutSink(r.real);
    const called: string[] = [];
    sink.write('a', () => void called.push('a'));
    sink.write('b', 'utf8', () => void called.push('b'));
    sink.write(Buffer.from('c'));
    expect(sink.accepted).toBe(3);
    while (r.waiting) {
      r.ack();
      await tick();
    }
    expect(r.got.join('')).toBe('abc');
    expect(called).toEqual(['a', 'b']);
  });

  it('is flushed only once the real stream acknowledged every byte written so far', QUICK, async () => {
    const r = realStream();
    const sink = new StdoutSink(r.real);
    await sink.flushed();
    sink.write('row 1\n');
    sink.write('row 2\n');
    sink.write('row 3\n');
    let flushed = false;
    void sink.flushed().then(() => (flushed = true));
    r.ack();
    await tick();
    expect(r.got).toEqual(['row 1\n', 'row 2\nrow 3\n']);
    expect(flushed).toBe(false);
    r.ack();
    await tick();
    expect(flushed).toBe(true);
  });

  it('keeps the first write error, sends nothing more, and is flushed all the same', QUICK, async () => {
    const r = realStream();
    const sink = new StdoutSink(r.real);
    const errors: unknown[] = [];
    sink.on('error', (e) => errors.push(e));
    sink.write('row 1\n');
    sink.write('row 2\n');
    const epipe = Object.assign(new Error('EPIPE: broken pipe, write'), { code: 'EPIPE' });
    r.fail(epipe);
    await tick();
    sink.write('row 3\n');
    await sink.flushed();
    expect(sink.error).toBe(epipe);
    expect(r.got).toEqual(['row 1\n']);
    expect(r.waiting).toBe(0);
    expect(errors).toEqual([]);
  });

  it('keeps an error the real stream throws instead of calling back', QUICK, async () => {
    const eio = Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' });
    const sink = new StdoutSink(realStream({ throws: eio }).real);
    sink.write('row 1\n');
    await sink.flushed();
    expect(sink.error).toBe(eio);
  });
});
