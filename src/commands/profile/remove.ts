import type { Context } from '../../context.js';
import { CliError, ExitCode, usageError } from '../../errors.js';
import { configDir } from '../../config/paths.js';
import { readStore, removeKeyCopy, updateStore } from '../../config/store.js';
import { EMBEDDED_PROFILE } from '../../config/resolve.js';
import type { VerbInput } from '../define.js';
import type { remove } from './remove.cmd.js';

export function parse({ args }: VerbInput<typeof remove>): { name: string } {
  const { name } = args;
  if (name === EMBEDDED_PROFILE) throw usageError('The built-in sandbox profile cannot be removed.');
  return { name };
}

export async function run(o: { name: string }, ctx: Context): Promise<void> {
  const dir = configDir(ctx.io.env);
  const store = await readStore(dir);
  const p = store.profiles[o.name];
  if (!p) {
    const known = Object.keys(store.profiles).sort();
    throw new CliError(
      `No profile named "${o.name}".` +
        (known.length ? ` Known profiles: ${known.join(', ')}.` : ' No profiles are stored.'),
      ExitCode.NOT_FOUND,
    );
  }
  const { confirmed } = await import('../confirm.js');
  // No is an answer, not a failure (and nothing is ever sent here): exit 0, the profile kept.
  if (
    !(await confirmed(
      ctx,
      `Delete profile "${o.name}" (${p.baseUrl ?? 'no base URL'})${p.keyFile ? ' and its key copy' : ''}?`,
    ))
  ) {
    ctx.info(`Not removed: profile "${o.name}" is unchanged.`);
    return;
  }
  if (ctx.globals.dryRun) {
    ctx.info(`Dry run: profile "${o.name}" would be removed; nothing was changed.`);
    return;
  }
  const after = await updateStore(dir, (s) => {
    delete s.profiles[o.name];
    if (s.current === o.name) s.current = undefined;
  });
  const keyRemoved = removeKeyCopy(dir, p.keyFile);
  ctx.info(
    `Removed profile "${o.name}"${keyRemoved ? ' and its key copy' : ''}.` +
      (store.current === o.name && !after.current ? ' The built-in sandbox profile is now in use.' : ''),
  );
}
