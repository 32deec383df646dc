import type { Context } from '../../context.js';
import { email, exactlyOne, username } from '../../validate/index.js';
import type { VerbInput } from '../define.js';
import { emit } from '../../output/index.js';
import { userCard } from './view.js';

type Options = { by: 'username'; username: string } | { by: 'email'; email: string };

export function parse(input: VerbInput): Options {
  const [name] = input.args as [string | undefined];
  const which = exactlyOne({ '<username>': name, '--email': input.opts.email });
  return which === '<username>'
    ? { by: 'username', username: username(name!, '<username>') }
    : { by: 'email', email: email(input.opts.email, '--email') };
}

export async function run(o: Options, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const body =
    o.by === 'username'
      ? await api.ok('user.get', { params: { username: o.username } })
      : await api.ok('user.email', { params: { email: o.email } });
  await emit(ctx, body, { card: userCard });
}
