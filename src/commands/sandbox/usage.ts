// `bookdist sandbox usage`: record pages viewed/printed by a user in a book.
import type { Context } from '../../context.js';
import { usageError } from '../../errors.js';
import { emit } from '../../output/index.js';
import { plural } from '../../output/text.js';
import { kv, when } from '../render.js';
import type { VerbInput } from '../define.js';
import type { usage } from './usage.cmd.js';
import { controlCall, domainCall, openStore, strip } from './parts/common.js';
import { cellText as t } from '../../output/format.js';

interface Options {
  username: string;
  hashId: string;
  viewed: number;
  printed: number;
  db?: string;
  url?: string;
}

export function parse({ opts }: VerbInput<typeof usage>): Options {
  const count = (flag: string, v: string) => {
    const n = Number(v);
    if (!/^\d+$/.test(String(v)) || !Number.isSafeInteger(n))
      throw usageError(`--${flag} must be a whole number of pages, not "${v}".`);
    return n;
  };
  return {
    username: opts.username,
    hashId: opts.hashId,
    viewed: count('viewed', opts.viewed),
    printed: count('printed', opts.printed),
    db: opts.db,
    url: opts.url,
  };
}

export async function run(o: Options, ctx: Context): Promise<void> {
  let out: unknown;
  if (o.url) {
    out = strip(
      await controlCall(ctx, { url: o.url, db: o.db }, 'POST', '/_sandbox/usage', {
        username: o.username,
        hash_id: o.hashId,
        viewed: o.viewed,
        printed: o.printed,
      }),
    );
  } else {
    const store = await openStore(ctx, o.db);
    const { recordUsage } = await import('../../sandbox/control.js');
    out = await domainCall(() => recordUsage(store, o.username, o.hashId, o.viewed, o.printed));
  }
  // People read words and a percentage; --json and -o tsv keep the fields as they are.
  await emit(ctx, out, {
    card: (d, s) => {
      const share =
        typeof d.viewed_share === 'number' ? ` (${Number((d.viewed_share * 100).toPrecision(3))}% of the book)` : '';
      const pages = typeof d.num_pages === 'number' ? ` of ${plural(d.num_pages, 'page')}` : '';
      return kv(s, [
        ['User', d.username],
        ['Book', d.hash_id],
        ['Pages viewed', `${t(d.pages_viewed ?? 0)}${pages}${share}`],
        ['Pages printed', d.pages_printed ?? 0],
        ['First access', when(d.first_access) || 'never'],
      ]);
    },
  });
}
