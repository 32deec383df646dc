import type { Context } from '../../context.js';
import { email, label, nonEmpty } from '../../validate/index.js';
import type { VerbInput } from '../define.js';
import type { invite } from './invite.cmd.js';
import { emit } from '../../output/index.js';
import { cellText as t } from '../../output/format.js';
import { kv } from '../render.js';
import { createUser } from './parts/view.js';

export interface Options {
  email: string;
  firstName?: string;
  lastName?: string;
  label?: string;
}

export function parse(input: VerbInput<typeof invite>): Options {
  return inviteOptions(input.opts);
}

/** The fields of a new user, which `user create` takes too. */
export function inviteOptions(o: { email: string; firstName?: string; lastName?: string; label?: string }): Options {
  return {
    email: email(o.email, '--email'),
    firstName: o.firstName !== undefined ? nonEmpty(o.firstName, '--first-name', 100) : undefined,
    lastName: o.lastName !== undefined ? nonEmpty(o.lastName, '--last-name', 100) : undefined,
    label: o.label !== undefined ? label(o.label) : undefined,
  };
}

export async function run(o: Options, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const body = await createUser(api, 'user.invite', {
    email: o.email,
    first_name: o.firstName,
    last_name: o.lastName,
    label: o.label,
  });
  await emit(ctx, body, {
    card: (d, s) =>
      kv(s, [
        ['Username', s.bold(t(d.username))],
        ['Email', d.email],
      ]),
    message: true,
  });
}
