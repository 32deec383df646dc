// A progress line on stderr for long jobs: done/total, rate and ETA. Drawn only when stderr is a
// terminal and --quiet is not given; otherwise every method is a no-op (log lines still pass
// through `log`, which the caller may route to ctx.info).
import type { Context } from '../context.js';
import { formatDuration } from '../util/duration.js';

export interface Progress {
  /** Add to the done count. */
  tick(n?: number): void;
  /** Set the done count. */
  set(done: number): void;
  /** Change the total (e.g. after reading the input). */
  setTotal(total: number): void;
  /** Print a line above the bar (the bar is redrawn below it). Goes to stderr unless quiet (or `always`). */
  log(line: string, always?: boolean): void;
  /** Remove the bar. */
  stop(): void;
}

export interface ProgressOptions {
  /** NaN when unknown (a streamed input): the bar shows the count and rate only. */
  total: number;
  /** Already done before this run (resume): counted in done/total, not in the rate. */
  initial?: number;
  unit?: string;
  label?: string;
  /** Redraw interval, ms. */
  intervalMs?: number;
}

export function progressEnabled(ctx: Context): boolean {
  return Boolean(ctx.io.stderr.isTTY) && !ctx.globals.quiet && ctx.io.env.BOOKDIST_NO_PROGRESS === undefined;
}

export function createProgress(ctx: Context, opts: ProgressOptions): Progress {
  const err = ctx.io.stderr;
  const enabled = progressEnabled(ctx);
  const initial = opts.initial ?? 0;
  let total = opts.total;
  let done = initial;
  const started = Date.now();
  let lastDraw = 0;
  let drawn = false;
  let stopped = false;
  const interval = opts.intervalMs ?? 100;

  const render = (): string => {
    const elapsed = (Date.now() - started) / 1000;
    const rate = elapsed > 0 ? (done - initial) / elapsed : 0;
    const pct = total > 0 ? Math.min(1, done / total) : 0;
    const width = Math.max(10, Math.min(30, (err.columns ?? 80) - 60));
    const filled = Math.round(pct * width);
    const bar = '█'.repeat(filled) + '░'.repeat(width - filled);
    const eta = rate > 0 && total > done ? formatDuration(((total - done) / rate) * 1000) : done >= total ? 'done' : '--';
    const unit = opts.unit ? ` ${opts.unit}` : '';
    if (!Number.isFinite(total)) return `${opts.label ? opts.label + ' ' : ''}${done.toLocaleString('en-US')}${unit}  ${Math.round(rate).toLocaleString('en-US')}/s`;
    return `${opts.label ? opts.label + ' ' : ''}${bar} ${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')}${unit}  ${Math.round(rate).toLocaleString('en-US')}/s  ETA ${eta}`;
  };
  const draw = (force = false) => {
    if (!enabled || stopped) return;
    const now = Date.now();
    if (!force && now - lastDraw < interval) return;
    lastDraw = now;
    err.write('\r\x1b[2K' + render());
    drawn = true;
  };
  const clear = () => {
    if (drawn) err.write('\r\x1b[2K');
    drawn = false;
  };
  draw(true);
  return {
    tick(n = 1) {
      done += n;
      draw(done >= total);
    },
    set(d) {
      done = d;
      draw();
    },
    setTotal(t) {
      total = t;
      draw(true);
    },
    log(line, always) {
      if (ctx.globals.quiet && !always) return;
      clear();
      err.write(line.endsWith('\n') ? line : line + '\n');
      draw(true);
    },
    stop() {
      if (stopped) return;
      draw(true);
      stopped = true;
      if (drawn) err.write('\n');
      drawn = false;
    },
  };
}
