// Off a terminal (a CI log) a bulk job says it is alive once a minute, and a resumed job's rate
// counts this run only.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Writable } from 'node:stream';
import { createProgress } from '../../src/bulk/progress.js';

function ctxWith(isTTY: boolean, quiet = false) {
  let text = '';
  const stderr = Object.assign(new Writable({ write: (c, _e, cb) => ((text += c.toString()), cb()) }), {
    isTTY,
    columns: 100,
  });
  const ctx: any = { io: { stderr, env: {} }, globals: { quiet } };
  return { ctx, text: () => text };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('progress off a terminal', () => {
  it("one plain line a minute (none before), with done/total, this run's rate and the ETA; nothing after stop", () => {
    const { ctx, text } = ctxWith(false);
    const p = createProgress(ctx, { total: 1000, unit: 'codes', label: 'codes generate' });
    p.setEarlier(400);
    p.set(500);
    vi.advanceTimersByTime(59_000);
    expect(text()).toBe('');
    vi.advanceTimersByTime(1_000);
    // 100 codes this run in 60 s: 2/s (ETA 5 min), not the 8/s that counting the earlier 400 would say.
    expect(text()).toBe('codes generate 500/1,000 codes  2/s  ETA 5m00s\n');
    vi.advanceTimersByTime(60_000);
    expect(text().split('\n').filter(Boolean)).toHaveLength(2);
    p.stop();
    vi.advanceTimersByTime(600_000);
    expect(text().split('\n').filter(Boolean)).toHaveLength(2);
  });

  it('nothing under --quiet, and no plain lines on a terminal (the bar is drawn there instead)', () => {
    const quiet = ctxWith(false, true);
    createProgress(quiet.ctx, { total: 10 }).stop();
    vi.advanceTimersByTime(120_000);
    expect(quiet.text()).toBe('');
    const tty = ctxWith(true);
    const p = createProgress(tty.ctx, { total: 10 });
    vi.advanceTimersByTime(120_000);
    p.stop();
    expect(tty.text()).not.toMatch(/\/s\n.*\/s\n/s);
  });
});
