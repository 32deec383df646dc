import type { Context } from '../../context.js';
import { emit } from '../../output/index.js';

export async function run(_: unknown, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const cfg = await ctx.config();
  const body = await api.ok('profile');
  await emit(ctx, body, {
    card: (d, s, body) => {
      const p = d.profile ?? {};
      const address = [p.address_1, p.address_2, p.city, p.state, p.zip, p.country].filter(Boolean).join(', ');
      return [
        `${s.bold('Profile')}    ${cfg.profile.value}${cfg.embedded ? ' (built-in sandbox)' : ''}`,
        `${s.bold('Base URL')}   ${api.baseUrl}`,
        `${s.bold('Nickname')}   ${p.nickname ?? ''}`,
        `${s.bold('Address')}    ${address}`,
        `${s.bold('Scopes')}     ${(d.scopes ?? []).join(', ')}`,
        `${s.bold('Test mode')}  ${body.test_mode ? s.yellow('yes') : 'no'}`,
      ].join('\n');
    },
  });
}
