import type { Context } from '../../context.js';
import { usageError } from '../../errors.js';
import { emit, outputFormat } from '../../output/index.js';
import { positiveInt } from '../../validate/index.js';
import { confirm } from '../confirm.js';
import type { VerbInput } from '../define.js';
import type { refund } from './refund.cmd.js';

interface Options {
  orderId: number;
  items?: number[];
  sendEmail?: boolean;
}

export function parse({ opts: o }: VerbInput<typeof refund>): Options {
  if (o.sendEmail && o.email === false) throw usageError('Give only one of --send-email and --no-email.');
  return {
    orderId: positiveInt(o.orderId, '--order-id'),
    items: o.item?.length ? o.item.map((v) => positiveInt(v, '--item')) : undefined,
    sendEmail: o.sendEmail ? true : o.email === false ? false : undefined,
  };
}

export async function run(o: Options, ctx: Context): Promise<number | void> {
  const what = o.items
    ? `item${o.items.length > 1 ? 's' : ''} ${o.items.join(', ')} of order ${o.orderId}`
    : `order ${o.orderId}`;
  await confirm(ctx, `Refund ${what}? This cannot be undone.`);
  const api = await ctx.api();
  const body = await api.ok('order.refund', {
    payload: {
      order_id: o.orderId,
      items: o.items,
      type: 'refund',
      // The reference form sends the strings 'True'/'False'; absent means the organization's setting.
      send_email: o.sendEmail === undefined ? undefined : o.sendEmail ? 'True' : 'False',
    },
  });
  const refunds = body.refunds;
  await emit(ctx, body, {
    columns: [
      { key: 'purchase_id', label: 'PURCHASE' },
      { key: 'success', label: 'RESULT', format: (v) => (v === true ? 'refunded' : 'not refunded (already refunded)') },
    ],
    empty: 'The service refunded nothing.',
  });
  const failed = refunds.filter((r) => r.success !== true);
  if (outputFormat(ctx) !== 'json' && outputFormat(ctx) !== 'ndjson') {
    const done = refunds.length - failed.length;
    ctx.info(`Refunded ${done} item${done === 1 ? '' : 's'} of order ${o.orderId}.`);
  }
  if (failed.length)
    ctx.warn(
      `${failed.length} item${failed.length === 1 ? ' was' : 's were'} not refunded (already refunded): ${failed.map((r) => r.purchase_id).join(', ')}.`,
    );
}
