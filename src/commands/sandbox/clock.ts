// `bookdist sandbox clock advance|show`: the clock offset lives in the database, so every
// sandbox process on it agrees.
import type { Context } from '../../context.js';
import { usageError } from '../../errors.js';
import { emit, type Rec, type Style } from '../../output/index.js';
import { checkDuration } from '../../util/duration.js';
import { quoteValue } from '../../util/quote.js';
import type { VerbInput } from '../define.js';
import type { clockAdvance, clockShow } from './clock.cmd.js';
import { controlCall, domainCall, openStore, strip } from './parts/common.js';
import { cellText as t } from '../../output/format.js';

const view = {
  card: (d: Rec, s: Style) =>
    `${s.bold('Sandbox now')}  ${t(d.now)}\n${s.bold('Offset')}       ${Math.round(Number(d.offset_ms) / 1000)}s ahead of real time`,
};

export const advance = {
  parse({ args, opts }: VerbInput<typeof clockAdvance>) {
    const text = args.duration;
    // A clock moves at most 100 years (36500d) at a time: dates past year 275760 are not dates.
    const checked = /^\d+$/.test(text)
      ? undefined
      : checkDuration('<duration>', text, {
          maxMs: 36_500 * 86_400_000,
          max: '36500d',
          like: '15d, 36h or 90m (with a unit)',
        });
    if (!checked)
      throw usageError(`<duration> ${quoteValue(text)}: give a duration with a unit, like 15d, 36h or 90m.`);
    if ('problem' in checked) throw usageError(checked.problem);
    const ms = checked.ms;
    return { ms, db: opts.db, url: opts.url };
  },
  async run(o: { ms: number; db?: string; url?: string }, ctx: Context) {
    let out: unknown;
    if (o.url)
      out = strip(await controlCall(ctx, { url: o.url, db: o.db }, 'POST', '/_sandbox/clock/advance', { ms: o.ms }));
    else {
      const store = await openStore(ctx, o.db);
      const { advanceClock } = await import('../../sandbox/control.js');
      out = await domainCall(() => advanceClock(store, o.ms));
    }
    await emit(ctx, out, view);
  },
};

export const show = {
  parse({ opts }: VerbInput<typeof clockShow>) {
    return { db: opts.db, url: opts.url };
  },
  async run(o: { db?: string; url?: string }, ctx: Context) {
    let out: unknown;
    if (o.url) out = strip(await controlCall(ctx, { url: o.url, db: o.db }, 'GET', '/_sandbox/clock'));
    else {
      const store = await openStore(ctx, o.db);
      const { clockInfo } = await import('../../sandbox/control.js');
      out = clockInfo(store);
    }
    await emit(ctx, out, view);
  },
};
