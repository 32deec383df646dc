// `bookdist sandbox clock advance|show`: the clock offset lives in the database, so every
// sandbox process on it agrees.
import type { Context } from '../../context.js';
import { usageError } from '../../errors.js';
import { emit } from '../../output/index.js';
import { parseDuration } from '../../util/duration.js';
import type { VerbInput } from '../define.js';
import { controlCall, domainCall, openStore, strip } from './common.js';

const view = { card: (d: any, s: any) => `${s.bold('Sandbox now')}  ${d.now}\n${s.bold('Offset')}       ${Math.round(d.offset_ms / 1000)}s ahead of real time` };

export const advance = {
  parse({ args, opts }: VerbInput) {
    const text = String(args[0] ?? '');
    const ms = /^\d+$/.test(text) ? undefined : parseDuration(text);
    if (ms === undefined || ms <= 0) throw usageError(`<duration> must be a positive duration with a unit, like 15d, 36h or 90m, not "${text}".`);
    return { ms, db: opts.db as string | undefined, url: opts.url as string | undefined };
  },
  async run(o: { ms: number; db?: string; url?: string }, ctx: Context) {
    let out: any;
    if (o.url) out = strip(await controlCall(ctx, { url: o.url, db: o.db }, 'POST', '/_sandbox/clock/advance', { ms: o.ms }));
    else {
      const store = await openStore(ctx, o.db);
      const { advanceClock } = await import('../../sandbox/control.js');
      out = await domainCall(() => advanceClock(store, o.ms));
    }
    await emit(ctx, out, view);
  },
};

export const show = {
  parse({ opts }: VerbInput) {
    return { db: opts.db as string | undefined, url: opts.url as string | undefined };
  },
  async run(o: { db?: string; url?: string }, ctx: Context) {
    let out: any;
    if (o.url) out = strip(await controlCall(ctx, { url: o.url, db: o.db }, 'GET', '/_sandbox/clock'));
    else {
      const store = await openStore(ctx, o.db);
      const { clockInfo } = await import('../../sandbox/control.js');
      out = clockInfo(store);
    }
    await emit(ctx, out, view);
  },
};
