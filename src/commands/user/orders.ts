import type { Context } from '../../context.js';
import { emit, forPeople, outputFormat, style } from '../../output/index.js';
import { username } from '../../validate/index.js';
import type { VerbInput } from '../define.js';
import type { orders } from './orders.cmd.js';
import { ORDER_COLUMNS, orderCard } from '../order/parts/view.js';

interface Options {
  username: string;
}

export function parse({ args }: VerbInput<typeof orders>): Options {
  return { username: username(args.username, '<username>') };
}

export async function run(o: Options, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const body = await api.ok('user.orders', { params: { username: o.username } });
  const orders = body.results;
  if (outputFormat(ctx) === 'table' && !ctx.globals.fields && !ctx.globals.query) {
    if (!orders.length) {
      ctx.info('No completed orders.');
      return;
    }
    const s = style(ctx);
    const shown = await forPeople(orders);
    ctx.io.stdout.write(shown.map((order) => orderCard(order, s, { refundColumn: true })).join('\n\n') + '\n');
    if (typeof body.count === 'number' && body.count > orders.length)
      ctx.info(`${orders.length} of ${body.count} orders.`);
    return;
  }
  // One record per order in every format; `--fields items.id,items.refund_available` (or
  // --query) reaches into the items.
  await emit(ctx, body, { columns: ORDER_COLUMNS, empty: 'No completed orders.' });
}
