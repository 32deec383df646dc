import { describe, expect, it } from 'vitest';
import { runPool } from '../../src/bulk/pool.js';

const tick = () => new Promise((r) => setImmediate(r));

describe('runPool', () => {
  it('never runs more than `concurrency` workers and runs every item once', async () => {
    let active = 0;
    let peak = 0;
    const seen: number[] = [];
    const res = await runPool(
      Array.from({ length: 50 }, (_, i) => i),
      async (item) => {
        active++;
        peak = Math.max(peak, active);
        await tick();
        seen.push(item);
        active--;
      },
      { concurrency: 4 },
    );
    expect(peak).toBe(4);
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(res).toEqual({ started: 50, interrupted: false });
  });

  it('pulls lazily from an async iterable (items are produced only as workers free up)', async () => {
    let produced = 0;
    let maxAhead = 0;
    let done = 0;
    async function* gen() {
      for (let i = 0; i < 20; i++) {
        produced++;
        maxAhead = Math.max(maxAhead, produced - done);
        yield i;
      }
    }
    await runPool(
      gen(),
      async () => {
        await tick();
        done++;
      },
      { concurrency: 3 },
    );
    expect(done).toBe(20);
    expect(maxAhead).toBeLessThanOrEqual(3);
  });

  it('on abort starts nothing new but lets in-flight items finish', async () => {
    const ac = new AbortController();
    const finished: number[] = [];
    const res = await runPool(
      Array.from({ length: 100 }, (_, i) => i),
      async (item) => {
        if (item === 5) ac.abort();
        await tick();
        finished.push(item);
      },
      { concurrency: 2, signal: ac.signal },
    );
    expect(res.interrupted).toBe(true);
    expect(finished).toContain(5);
    expect(finished.length).toBeLessThanOrEqual(7);
    expect(finished.length).toBe(res.started);
  });

  it('stops on a worker error, waits for the others, and rethrows the first error', async () => {
    const finished: number[] = [];
    await expect(
      runPool(
        Array.from({ length: 100 }, (_, i) => i),
        async (item) => {
          await tick();
          if (item === 3) throw new Error('boom');
          finished.push(item);
        },
        { concurrency: 3 },
      ),
    ).rejects.toThrow('boom');
    expect(finished.length).toBeLessThan(10);
  });
});
