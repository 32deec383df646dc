// `bookdist sandbox reset`: recreate the database from the seed, with new keys and secrets; the
// titles loaded from catalogue files go too, unless --keep-loaded (asked on a terminal).
import type { Context } from '../../context.js';
import type { VerbInput } from '../define.js';
import type { reset } from './reset.cmd.js';
import { dbPathOf } from './parts/common.js';

interface Options {
  db?: string;
  keepLoaded: boolean;
}

export function parse({ opts }: VerbInput<typeof reset>): Options {
  return { db: opts.db, keepLoaded: opts.keepLoaded === true };
}

export async function run(o: Options, ctx: Context): Promise<void> {
  const { confirmed } = await import('../confirm.js');
  const path = await dbPathOf(ctx, o.db);
  const { existsSync } = await import('node:fs');
  const { Store, DamagedDatabase } = await import('../../sandbox/db/store.js');
  const seed = await import('../../sandbox/seed.js');
  const books = await import('../../sandbox/repo/books.js');
  // Opened without seeding or upgrading: a database written by a newer bookdist can be reset too.
  let loaded = 0;
  if (path !== ':memory:' && existsSync(path)) {
    let peek;
    try {
      peek = new Store(path);
    } catch (e) {
      if (!(e instanceof DamagedDatabase)) throw e;
      await moveDamagedAside(ctx, path);
    }
    if (peek)
      try {
        if (peek.hasTable('books') && peek.all('PRAGMA table_info(books)').some((c) => c.name === 'loaded_at'))
          loaded = books.countLoaded(peek);
      } finally {
        await peek.close();
      }
  }
  const titles = `${loaded} title${loaded === 1 ? '' : 's'} loaded from catalogue files`;
  let keep = o.keepLoaded && loaded > 0;
  const what = loaded === 0 ? '' : keep ? ` (keeping the ${titles})` : ` (the ${titles} too, unless --keep-loaded)`;
  // No is an answer, not a failure: nothing changes and the command exits 0.
  if (
    !(await confirmed(
      ctx,
      `Delete everything in the sandbox database ${path} (orders, users, codes, grants)${what} and seed it again with new keys?`,
    ))
  ) {
    ctx.info(`Not reset: ${path} is unchanged.`);
    return;
  }
  if (loaded > 0 && !o.keepLoaded && ctx.interactive && !ctx.globals.yes && !ctx.globals.dryRun) {
    const { confirm: ask } = await import('@inquirer/prompts');
    keep = await ask(
      { message: `Keep the ${titles}?`, default: true },
      { input: ctx.io.stdin, output: ctx.io.stderr, signal: ctx.signal },
    );
  }
  if (ctx.globals.dryRun) {
    ctx.info(
      `Dry run: ${path} would be recreated from the seed${loaded ? (keep ? `, keeping the ${titles}` : `, without the ${titles}`) : ''}; nothing was changed.`,
    );
    return;
  }
  const store = new Store(path);
  ctx.defer(() => store.close());
  const kept = keep && loaded > 0 ? books.exportLoaded(store) : undefined;
  seed.reseed(store);
  if (kept) store.tx(() => books.importLoaded(store, kept));
  const { credentials } = await import('../../sandbox/control.js');
  const c = credentials(store); // rewrites the key files
  const about =
    loaded === 0
      ? ''
      : kept
        ? ` The ${titles} were kept (same hash ids and price ids).`
        : ` The ${titles} were removed (--keep-loaded keeps them).`;
  ctx.info(`Sandbox database ${store.path} recreated from the seed; new keys in ${c.partner.key_file}.${about}`);
}

/**
 * A damaged database is moved aside (with its -wal and -shm), never deleted: what it holds may
 * still be recovered from it. Asked like the reset itself.
 */
async function moveDamagedAside(ctx: Context, path: string): Promise<void> {
  const { confirmed } = await import('../confirm.js');
  const { existsSync, renameSync } = await import('node:fs');
  const aside = `${path}.damaged-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  if (
    !(await confirmed(ctx, `The sandbox database ${path} is damaged. Move it aside as ${aside} and start a fresh one?`))
  )
    return;
  if (ctx.globals.dryRun) return;
  renameSync(path, aside);
  for (const ext of ['-wal', '-shm']) if (existsSync(path + ext)) renameSync(path + ext, aside + ext);
  ctx.warn(`The damaged sandbox database was moved aside: ${aside} (kept; nothing in it was deleted).`);
}
