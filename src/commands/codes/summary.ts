import type { Context } from '../../context.js';
import { emitResource, kv } from '../render.js';

export async function run(_: unknown, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const body = await api.ok('codes.summary');
  const { code: _c, success: _s, test_mode: _t, message: _m, ...summary } = body ?? {};
  await emitResource(ctx, body, summary, (d, s) => {
    const pct = typeof d.redemption_percentage === 'number' ? `${(d.redemption_percentage * 100).toFixed(1)}%` : d.redemption_percentage;
    return kv(s, [
      ['Codes generated', d.codes_generated ?? 0],
      ['Codes redeemed', d.codes_redeemed ?? 0],
      ['Redeemed', pct],
    ]);
  });
}
