// `bookdist sandbox redeem CODE --username U`: redeem a code as a user would.
import type { Context } from '../../context.js';
import { emit } from '../../output/index.js';
import type { VerbInput } from '../define.js';
import type { redeem } from './redeem.cmd.js';
import { controlCall, domainCall, openStore, strip } from './parts/common.js';

export function parse({ args, opts }: VerbInput<typeof redeem>) {
  return { code: args.code, username: opts.username, db: opts.db, url: opts.url };
}

export async function run(
  o: { code: string; username: string; db?: string; url?: string },
  ctx: Context,
): Promise<void> {
  let out: unknown;
  if (o.url)
    out = strip(
      await controlCall(ctx, { url: o.url, db: o.db }, 'POST', '/_sandbox/redeem', {
        code: o.code,
        username: o.username,
      }),
    );
  else {
    const store = await openStore(ctx, o.db);
    const { redeemCode } = await import('../../sandbox/domain/codes.js');
    out = await domainCall(() => redeemCode(store, o.code, o.username));
  }
  await emit(ctx, out);
}
