// The journal's clock (src/sandbox/journal/wall-clock.ts): wall-clock time with a fraction of a
// millisecond, never ahead of the real time and never going back, read without `performance`:
// that global loads perf_hooks (nine modules) the first time it is read, which an embedded
// command paid at start-up for the journal's clock alone (issue 31).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { monotonicMs, wallMs } from '../../src/sandbox/journal/wall-clock.js';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'bookdist-journal-clock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const hook = pathToFileURL(fileURLToPath(new URL('../foundation/fixtures/trace-loads.mjs', import.meta.url))).href;

describe("the journal's clock", () => {
  it('an embedded request is journaled without loading perf_hooks', async () => {
    const builtins = join(dir, 'builtins.txt');
    const data = join(dir, 'data');
    const r = await runCli(['book', 'get', '--isbn', '9781614001379', '-o', 'json'], {
      env: {
        NODE_OPTIONS: `--import=${hook}`,
        BOOKDIST_TRACE_BUILTINS: builtins,
        BOOKDIST_CONFIG_DIR: join(dir, 'no-config'),
        BOOKDIST_DATA_DIR: data,
      },
    });
    expect(r.code, r.stderr).toBe(0);
    const loaded = readFileSync(builtins, 'utf8').trim().split('\n');
    expect(loaded).toContain('fs');
    expect(loaded.filter((m) => m === 'perf_hooks' || m === 'internal/perf/performance')).toEqual([]);
    // control: the request is in the journal, dated now
    const db = new DatabaseSync(join(data, 'sandbox.db'), { readOnly: true });
    try {
      const rows = db.prepare('SELECT path, at FROM journal').all() as Array<{ path: string; at: number }>;
      const row = rows.find((x) => x.path === '/v1/book/isbn/9781614001379/');
      expect(row, JSON.stringify(rows)).toBeDefined();
      expect(Math.abs(row!.at - Date.now())).toBeLessThan(60_000);
    } finally {
      db.close();
    }
  });

  it('reads wall-clock time with a fraction, never ahead of the real time, never going back', () => {
    let last = Number.NEGATIVE_INFINITY;
    let fractions = 0;
    for (let i = 0; i < 2000; i++) {
      const before = Date.now();
      const at = wallMs(monotonicMs());
      const after = Date.now();
      // Date.now() drops the fraction: the real time was below after + 1. The clock can be early
      // (by up to 1 ms, more if this thread paused between its two reads), never late.
      expect(at).toBeLessThan(after + 1);
      expect(at).toBeGreaterThan(before - 1000);
      expect(at).toBeGreaterThanOrEqual(last);
      if (at !== Math.floor(at)) fractions++;
      last = at;
    }
    expect(fractions).toBeGreaterThan(1000);
  });
});
