// A progress line on stderr for long jobs: done/total, rate and ETA. Redrawn in place when stderr
// is a terminal; off a terminal (a CI log) one plain line at most once a minute, the first after a
// minute, so that a short job's log holds only its summary and a long one shows it is alive.
// Nothing under --quiet or BOOKDIST_NO_PROGRESS. The rate counts this run only (not what a resumed
// job did earlier). While the bar is drawn it owns the terminal's last line: anything else written
// to the terminal (stderr, or stdout when it is a terminal too) clears it first, and the bar is
// drawn again below once that text ends its line, so a result never shares a line with the bar.
import type { Context } from '../context.js';
import { asciiOnly, colorWanted, formatNotice, grouped } from '../output/text.js';
import { formatDuration } from '../util/duration.js';

export interface Progress {
  /** Add to the done count. */
  tick(n?: number): void;
  /** Set the done count (earlier runs' included). */
  set(done: number): void;
  /** Units an earlier run did (resume): in done/total, never in the rate. */
  setEarlier(units: number): void;
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
  /** Redraw interval on a terminal, ms. */
  intervalMs?: number;
  /** Interval of the plain lines off a terminal, ms (a minute). */
  logIntervalMs?: number;
}

function progressEnabled(ctx: Context): boolean {
  return Boolean(ctx.io.stderr.isTTY) && !ctx.globals.quiet && ctx.io.env.BOOKDIST_NO_PROGRESS === undefined;
}

/** Off a terminal: plain progress lines for logs (not under --quiet or BOOKDIST_NO_PROGRESS). */
function logLinesEnabled(ctx: Context): boolean {
  return !ctx.io.stderr.isTTY && !ctx.globals.quiet && ctx.io.env.BOOKDIST_NO_PROGRESS === undefined;
}

export function createProgress(ctx: Context, opts: ProgressOptions): Progress {
  const err = ctx.io.stderr;
  const enabled = progressEnabled(ctx);
  // The bar's own writes bypass the guard below.
  const put = err.write.bind(err) as (s: string) => boolean;
  const logLines = logLinesEnabled(ctx);
  const logEvery = opts.logIntervalMs ?? 60_000;
  let initial = opts.initial ?? 0;
  let total = opts.total;
  let done = initial;
  const started = Date.now();
  let lastDraw = 0;
  let drawn = false;
  let stopped = false;
  const interval = opts.intervalMs ?? 100;

  const render = (withBar = true): string => {
    const elapsed = (Date.now() - started) / 1000;
    const rate = elapsed > 0 ? (done - initial) / elapsed : 0;
    const pct = total > 0 ? Math.min(1, done / total) : 0;
    const width = Math.max(10, Math.min(30, (err.columns ?? 80) - 60));
    const filled = Math.round(pct * width);
    // Block characters are two columns wide in many East Asian terminal set-ups (issue 17).
    const [on, off] = asciiOnly(ctx.io.env) ? ['#', '-'] : ['█', '░'];
    const bar = withBar ? on.repeat(filled) + off.repeat(width - filled) + ' ' : '';
    const eta =
      rate > 0 && total > done ? formatDuration(((total - done) / rate) * 1000) : done >= total ? 'done' : '--';
    const unit = opts.unit ? ` ${opts.unit}` : '';
    if (!Number.isFinite(total))
      return `${opts.label ? opts.label + ' ' : ''}${grouped(done)}${unit}  ${grouped(Math.round(rate))}/s`;
    return `${opts.label ? opts.label + ' ' : ''}${bar}${grouped(done)}/${grouped(total)}${unit}  ${grouped(Math.round(rate))}/s  ETA ${eta}`;
  };
  // A timer, not the updates: a job waiting on a slow service still says it is alive.
  const ticker = logLines ? setInterval(() => put(render(false) + '\n'), logEvery) : undefined;
  ticker?.unref();
  /** Another writer left its line open (no newline yet): the bar waits until it ends. */
  let lineOpen = false;
  const draw = (force = false) => {
    if (!enabled || stopped || lineOpen) return;
    const now = Date.now();
    if (!force && now - lastDraw < interval) return;
    lastDraw = now;
    put('\r\x1b[2K' + render());
    drawn = true;
  };
  const clear = () => {
    if (drawn) put('\r\x1b[2K');
    drawn = false;
  };
  const unguard = enabled
    ? [
        guard(err, clear, (ended) => ((lineOpen = !ended), draw(true))),
        ...(ctx.io.stdout?.isTTY ? [guard(ctx.io.stdout, clear, (ended) => ((lineOpen = !ended), draw(true)))] : []),
      ]
    : [];
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
    setEarlier(units) {
      done += units - initial;
      initial = units;
    },
    setTotal(t) {
      total = t;
      draw(true);
    },
    log(line, always) {
      if (ctx.globals.quiet && !always) return;
      clear();
      // As every notice: control characters escaped, wrapped at words to the terminal (issue 17).
      put(formatNotice(line, err, '', colorWanted(ctx.globals.color, ctx.io.env, err.isTTY)));
      draw(true);
    },
    stop() {
      clearInterval(ticker);
      if (stopped) return;
      draw(true);
      stopped = true;
      if (drawn) put('\n');
      drawn = false;
      for (const u of unguard.splice(0)) u();
    },
  };
}

type Stream = Context['io']['stderr'];

/**
 * Until the returned function is called, every write to `stream` first calls `before` (the bar is
 * cleared), then `after` with whether the text ended its line (the bar is drawn again below it).
 */
function guard(stream: Stream, before: () => void, after: (ended: boolean) => void): () => void {
  const own = Object.getOwnPropertyDescriptor(stream, 'write');
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with .call(this)
  const write = stream.write;
  stream.write = function (this: Stream, chunk: unknown, ...rest: unknown[]) {
    const text =
      typeof chunk === 'string' ? chunk : chunk instanceof Uint8Array ? Buffer.from(chunk).toString('utf8') : '';
    if (!text) return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
    before();
    const ok = (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
    after(text.endsWith('\n'));
    return ok;
  } as Stream['write'];
  return () => {
    if (own) Object.defineProperty(stream, 'write', own);
    else delete (stream as { write?: unknown }).write;
  };
}
