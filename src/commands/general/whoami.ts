import type { Context } from '../../context.js';
import { emit } from '../../output/index.js';
import { kv } from '../render.js';

export async function run(_: unknown, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const cfg = await ctx.config();
  const body = await api.ok('profile');
  await emit(ctx, body, {
    card: (_account, s, body) => {
      // The profile is a checked object; its members are not (they may be absent).
      const p = body.profile;
      const address = [p.address_1, p.address_2, p.city, p.state, p.zip, p.country].filter(Boolean).join(', ');
      // kv(): long values (scopes, an address) wrap within the terminal at word boundaries.
      return kv(s, [
        ['Profile', `${cfg.profile.value}${cfg.embedded ? ' (built-in sandbox)' : ''}`],
        ['Username', api.username ?? '-'],
        ['Base URL', api.baseUrl],
        ['Nickname', p.nickname],
        ['Address', address],
        ['Scopes', body.scopes.join(', ') || '-'],
        ['Test mode', body.test_mode ? s.yellow('yes') : 'no'],
      ]);
    },
  });
}
