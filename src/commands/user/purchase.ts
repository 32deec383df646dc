import type { Context } from '../../context.js';
import { positiveInt, username } from '../../validate/index.js';
import type { VerbInput } from '../define.js';
import type { purchase } from './purchase.cmd.js';
import { purchaseCard } from '../order/parts/view.js';
import { emit } from '../../output/index.js';

interface Options {
  username: string;
  purchaseId: number;
  refundData: boolean;
}

export function parse({ args, opts }: VerbInput<typeof purchase>): Options {
  return {
    username: username(args.username, '<username>'),
    purchaseId: positiveInt(args.purchase_id, '<purchase_id>'),
    refundData: Boolean(opts.refundData),
  };
}

export async function run(o: Options, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const body = await api.ok('user.purchase', {
    params: { username: o.username, purchase_id: o.purchaseId },
    payload: { refund_data: o.refundData },
  });
  await emit(ctx, body, { card: (_purchase, s, answer) => purchaseCard(answer, s, o.refundData) });
}
