import type { Context } from '../../context.js';
import { readAll } from '../../util/io.js';
import { password } from '../../validate/index.js';
import { parse as parseInvite, type Options as InviteOptions } from './invite.js';
import type { VerbInput } from '../define.js';
import { emit, humanOutput } from '../../output/index.js';
import { kv } from '../render.js';
import { createUser } from './view.js';

interface Options extends InviteOptions {
  passwordStdin: boolean;
}

/** Same fields as `user invite`, plus where the password comes from. */
export function parse(input: VerbInput): Options {
  return { ...parseInvite(input), passwordStdin: Boolean(input.opts.passwordStdin) };
}

export async function run(o: Options, ctx: Context): Promise<void> {
  // The password comes from stdin only, never from argv (where `ps` and shell history see it).
  const passwd = o.passwordStdin ? password(await readAll(ctx.io.stdin)) : undefined;
  const api = await ctx.api();
  const body = await createUser(api, 'user.create', {
    email: o.email,
    first_name: o.firstName,
    last_name: o.lastName,
    passwd,
    passwd_confirm: passwd,
    label: o.label,
  });
  const generated = !o.passwordStdin && typeof body.passwd === 'string' && body.passwd !== '';
  // A password given on stdin is never echoed back; a generated one is shown this once.
  const shown = { ...body };
  if (!generated) delete shown.passwd;
  await emit(ctx, shown, {
    card: (d, s) =>
      kv(s, [
        ['Username', s.bold(String(d.username ?? ''))],
        ['Email', d.email as string],
        ['Password', generated ? s.yellow(String(d.passwd)) : s.dim('(the one given on stdin)')],
      ]),
    message: true,
  });
  if (generated && humanOutput(ctx)) {
    ctx.warn('the generated password is shown only this once and is not stored by bookdist; give it to the user now.');
  }
}
