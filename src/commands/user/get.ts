import type { Context } from '../../context.js';
import { email, exactlyOne, username } from '../../validate/index.js';
import type { VerbInput } from '../define.js';
import type { get } from './get.cmd.js';
import { emit } from '../../output/index.js';

type Options = { by: 'username'; username: string } | { by: 'email'; email: string };

export function parse({ args, opts }: VerbInput<typeof get>): Options {
  const [which, value] = exactlyOne({ '<username>': args.username, '--email': opts.email });
  return which === '<username>'
    ? { by: 'username', username: username(value, '<username>') }
    : { by: 'email', email: email(value, '--email') };
}

export async function run(o: Options, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const body =
    o.by === 'username'
      ? await api.ok('user.get', { params: { username: o.username } })
      : await api.ok('user.email', { params: { email: o.email } });
  await emit(ctx, body, {
    card: async (_user, s, answer) => (await import('./parts/view.js')).userCard(answer.user, s),
  });
}
