import type { Context } from '../../context.js';
import { emit, outputFormat, style } from '../../output/index.js';
import { username } from '../../validate/index.js';
import type { VerbInput } from '../define.js';
import { ITEM_COLUMNS, ORDER_COLUMNS, orderCard } from '../order/view.js';

interface Options {
  username: string;
}

export function parse(input: VerbInput): Options {
  return { username: username(input.args[0], '<username>') };
}

export async function run(o: Options, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const body = await api.ok('user.orders', { params: { username: o.username } });
  const orders: any[] = Array.isArray(body?.results) ? body.results : [];
  if (outputFormat(ctx) === 'table' && !ctx.globals.fields) {
    if (!orders.length) {
      ctx.info('No completed orders.');
      return;
    }
    const s = style(ctx);
    ctx.io.stdout.write(orders.map((order) => orderCard(order, s, { refundColumn: true })).join('\n\n') + '\n');
    if (typeof body.count === 'number' && body.count > orders.length) ctx.info(`${orders.length} of ${body.count} orders.`);
    return;
  }
  const format = outputFormat(ctx);
  if ((format === 'csv' || format === 'tsv') && !ctx.globals.fields) {
    // For scripts: one row per item, with its order and whether it can still be refunded.
    const items = orders.flatMap((order) => (Array.isArray(order.items) ? order.items : []));
    await emit(ctx, body, { list: () => items, columns: [...ITEM_COLUMNS, { key: 'refund_available', label: 'REFUNDABLE' }] });
    return;
  }
  await emit(ctx, body, { list: () => orders, columns: ORDER_COLUMNS, empty: 'No completed orders.' });
}
