import type { Context } from '../../context.js';
import { usageError } from '../../errors.js';
import { parseBulkFlags, type BulkFlags } from '../../bulk/flags.js';
import { jobCommand } from '../given.js';
import { readAll } from '../../util/io.js';
import { password } from '../../validate/index.js';
import { inviteOptions, type Options as InviteOptions } from './invite.js';
import type { VerbInput } from '../define.js';
import type { create } from './create.cmd.js';
import { emit, humanOutput } from '../../output/index.js';
import { cellText as t } from '../../output/format.js';
import { kv } from '../render.js';
import { createUser } from './parts/view.js';

interface OneOptions extends InviteOptions {
  mode: 'one';
  passwordStdin: boolean;
}

type Options = OneOptions | ({ mode: 'csv' } & BulkFlags);

/** Same fields as `user invite`, plus where the password comes from; or a roster (--from-csv). */
export function parse({ opts, command }: VerbInput<typeof create>): Options {
  const singleFlags: Array<keyof typeof opts> = ['email', 'firstName', 'lastName', 'passwordStdin', 'label'];
  const bulk = parseBulkFlags(opts, { fromCsv: '--from-csv' }, singleFlags, jobCommand(command));
  if (bulk) return { mode: 'csv', ...bulk };
  const { email } = opts;
  if (email === undefined)
    throw usageError('Give the e-mail address with --email (or a roster of users with --from-csv FILE).');
  return { mode: 'one', ...inviteOptions({ ...opts, email }), passwordStdin: Boolean(opts.passwordStdin) };
}

export async function run(o: Options, ctx: Context): Promise<number | void> {
  if (o.mode === 'csv') {
    const { runRoster } = await import('./parts/roster.js');
    return runRoster(o, ctx);
  }
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
        ['Username', s.bold(t(d.username))],
        ['Email', d.email as string],
        ['Password', generated ? s.yellow(String(d.passwd)) : s.dim('(the one given on stdin)')],
      ]),
    message: true,
  });
  if (generated && humanOutput(ctx)) {
    ctx.warn('the generated password is shown only this once and is not stored by bookdist; give it to the user now.');
  }
}
