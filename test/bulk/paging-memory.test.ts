// --all streams: the paging loop asks for the next page only when stdout has taken the previous
// one, so memory is bounded by a page, not by the listing, even with a slow reader.
import { describe, expect, it } from 'vitest';
import { Readable, Writable } from 'node:stream';
import { createContext } from '../../src/cli/context.js';
import type { GlobalOptions, IO } from '../../src/context.js';
import { runListing } from '../../src/commands/paging.js';

function slowStdout(highWaterMark: number) {
  let peak = 0;
  let bytes = 0;
  let lines = 0;
  const out = new Writable({
    highWaterMark,
    write(chunk, _enc, cb) {
      bytes += chunk.length;
      lines += String(chunk).split('\n').length - 1;
      setImmediate(cb); // a reader slower than the producer
    },
  });
  const origWrite = out.write.bind(out);
  (out as any).write = (chunk: any, ...rest: any[]) => {
    const r = origWrite(chunk, ...rest);
    peak = Math.max(peak, out.writableLength);
    return r;
  };
  return { out, stats: () => ({ peak, bytes, lines }) };
}

describe('runListing --all', () => {
  it('keeps the bytes waiting in stdout bounded by about a page, however long the listing', async () => {
    const TOTAL = 20_000;
    const PAGE = 100;
    const { out, stats } = slowStdout(16 * 1024);
    const io: IO = {
      stdin: Readable.from([]) as any,
      stdout: out as any,
      stderr: new Writable({ write: (_c, _e, cb) => cb() }) as any,
      env: {},
      cwd: process.cwd(),
    };
    const globals: GlobalOptions = {
      json: false,
      output: 'ndjson',
      color: 'never',
      timeout: 30_000,
      retries: 0,
      debug: false,
      quiet: true,
      yes: false,
      dryRun: false,
    };
    const ctx = createContext({ io, globals, signal: new AbortController().signal, cleanups: [] });
    let fetched = 0;
    const fetch = async (offset: number, limit: number) => {
      const n = Math.max(0, Math.min(limit, TOTAL - offset));
      fetched += n;
      return {
        count: TOTAL,
        results: Array.from({ length: n }, (_, i) => ({ id: offset + i, title: 'x'.repeat(200) })),
      };
    };
    await runListing(ctx, { offset: 0, all: true, limit: PAGE }, { fetch, columns: [{ key: 'id' }], noun: 'rows' });
    await new Promise<void>((r) => out.end(r));
    const s = stats();
    expect(fetched).toBe(TOTAL);
    expect(s.lines).toBe(TOTAL);
    const pageBytes = s.bytes / (TOTAL / PAGE);
    // Without backpressure the whole listing (~4.5 MB) would wait in memory.
    expect(s.peak).toBeLessThan(2 * pageBytes + 16 * 1024);
  });
});
