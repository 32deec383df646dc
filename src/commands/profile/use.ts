import type { Context } from '../../context.js';
import { CliError, ExitCode } from '../../errors.js';
import { configDir } from '../../config/paths.js';
import { readStore, updateStore } from '../../config/store.js';
import { EMBEDDED_PROFILE } from '../../config/resolve.js';
import type { VerbInput } from '../define.js';
import type { use } from './use.cmd.js';

export function parse({ args }: VerbInput<typeof use>): { name: string } {
  return { name: args.name };
}

export async function run(o: { name: string }, ctx: Context): Promise<void> {
  const dir = configDir(ctx.io.env);
  const store = await readStore(dir);
  if (o.name !== EMBEDDED_PROFILE && !store.profiles[o.name]) {
    const known = [EMBEDDED_PROFILE, ...Object.keys(store.profiles).sort()];
    throw new CliError(`No profile named "${o.name}". Known profiles: ${known.join(', ')}.`, ExitCode.NOT_FOUND);
  }
  await updateStore(dir, (s) => {
    s.current = o.name === EMBEDDED_PROFILE ? undefined : o.name;
  });
  ctx.info(
    o.name === EMBEDDED_PROFILE
      ? 'Now using the built-in sandbox profile.'
      : `Now using profile "${o.name}".` +
          (ctx.io.env.BOOKDIST_PROFILE
            ? ` (BOOKDIST_PROFILE=${ctx.io.env.BOOKDIST_PROFILE} still takes precedence in this shell.)`
            : ''),
  );
}
