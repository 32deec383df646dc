// `bookdist profile check [NAME]`: verify a profile's credentials with one signed GET /profile/
// and report the account, its scopes and test mode (like `gh auth status`). With NAME, the stored
// profile exactly as stored; without, the settings the next command would use (flag > env > profile).
import { escapeDeep } from '../../output/text.js';
import type { Context } from '../../context.js';
import { CliError, ExitCode } from '../../errors.js';
import { emit } from '../../output/index.js';
import type { VerbInput } from '../define.js';
import type { check } from './check.cmd.js';
import { checkAccount, checkCard, configOf } from './parts/verify.js';

export function parse({ args }: VerbInput<typeof check>): { name?: string } {
  return { name: args.name };
}

export async function run(o: { name?: string }, ctx: Context): Promise<void> {
  let cfg;
  if (o.name === undefined) cfg = await ctx.config();
  else {
    const { readStore } = await import('../../config/store.js');
    const { configDir } = await import('../../config/paths.js');
    const { EMBEDDED_PROFILE } = await import('../../config/resolve.js');
    const store = await readStore(configDir(ctx.io.env));
    if (!store.profiles[o.name] && o.name !== EMBEDDED_PROFILE) {
      const known = Object.keys(store.profiles).sort();
      throw new CliError(
        `No profile named "${o.name}".` +
          (known.length
            ? ` Known profiles: ${known.join(', ')}.`
            : ' No profiles are stored; add one with `bookdist profile add`.'),
        ExitCode.NOT_FOUND,
      );
    }
    cfg = await configOf(ctx, o.name, store.profiles);
  }
  const result = await checkAccount(ctx, cfg, 'fix it with `bookdist profile add --force`.');
  // The card reads the whole result, its text escaped as the output layer escapes what people see.
  await emit(ctx, result, { card: (_record, s) => checkCard(escapeDeep(result), s) });
}
