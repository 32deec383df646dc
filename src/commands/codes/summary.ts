import type { Context } from '../../context.js';
import { emit } from '../../output/index.js';
import { kv } from '../render.js';

export async function run(_: unknown, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const body = await api.ok('codes.summary');
  await emit(ctx, body, { card: (d, s) => {
    const pct = typeof d.redemption_percentage === 'number' ? `${(d.redemption_percentage * 100).toFixed(1)}%` : d.redemption_percentage;
    return kv(s, [
      ['Codes generated', d.codes_generated ?? 0],
      ['Codes redeemed', d.codes_redeemed ?? 0],
      ['Redeemed', pct],
    ]);
  } });
}
