// `bookdist sandbox reset`: recreate the database from the seed, with new keys and secrets.
import type { Context } from '../../context.js';
import type { VerbInput } from '../define.js';
import { openStore } from './common.js';

export function parse({ opts }: VerbInput) {
  return { db: opts.db as string | undefined };
}

export async function run(o: { db?: string }, ctx: Context): Promise<void> {
  const store = await openStore(ctx, o.db);
  const { reseed } = await import('../../sandbox/seed.js');
  const { credentials } = await import('../../sandbox/control.js');
  reseed(store);
  const c = credentials(store); // rewrites the key files
  ctx.info(`Sandbox database ${store.path} recreated from the seed; new keys in ${c.partner.key_file}.`);
}
