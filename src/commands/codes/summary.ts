import type { Context } from '../../context.js';
import { emit } from '../../output/index.js';
import { kv } from '../render.js';

export async function run(_: unknown, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const body = await api.ok('codes.summary');
  await emit(ctx, body, {
    card: (d, s) => {
      // The service's redemption_percentage is a fraction (0..1) whatever its name says: the card
      // shows it as a percentage, with enough digits that a few codes in thousands are not 0.0%.
      const f = d.redemption_percentage;
      const pct = typeof f === 'number' ? `${Number((f * 100).toPrecision(3))}% of the codes generated` : f;
      return kv(s, [
        ['Codes generated', d.codes_generated ?? 0],
        ['Codes redeemed', d.codes_redeemed ?? 0],
        ['Redemption rate', pct],
      ]);
    },
  });
}
