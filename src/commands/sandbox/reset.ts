// `bookdist sandbox reset`: recreate the database from the seed, with new keys and secrets.
import type { Context } from '../../context.js';
import type { VerbInput } from '../define.js';
import { dbPathOf, openStore } from './common.js';

export function parse({ opts }: VerbInput) {
  return { db: opts.db as string | undefined };
}

export async function run(o: { db?: string }, ctx: Context): Promise<void> {
  const { confirm } = await import('../confirm.js');
  const path = await dbPathOf(ctx, o.db);
  await confirm(ctx, `Delete everything in the sandbox database ${path} (orders, users, codes, grants) and seed it again with new keys?`);
  if (ctx.globals.dryRun) {
    ctx.info(`Dry run: ${path} would be recreated from the seed; nothing was changed.`);
    return;
  }
  const store = await openStore(ctx, o.db);
  const { reseed } = await import('../../sandbox/seed.js');
  const { credentials } = await import('../../sandbox/control.js');
  reseed(store);
  const c = credentials(store); // rewrites the key files
  ctx.info(`Sandbox database ${store.path} recreated from the seed; new keys in ${c.partner.key_file}.`);
}
