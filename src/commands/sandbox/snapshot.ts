// `bookdist sandbox snapshot save|load|list|rm|diff`: snapshots of the sandbox database through
// SQLite's online backup (src/sandbox/snapshots/), on its file (--db) or a running sandbox (--url).
import type { Context } from '../../context.js';
import { emit, type Rec } from '../../output/index.js';
import type { VerbInput } from '../define.js';
import type { snapshotDiff, snapshotList, snapshotLoad, snapshotRm, snapshotSave } from './snapshot.cmd.js';
import { controlCall, dbPathOf, domainCall, openStore, strip } from './parts/common.js';
import { cellText as t } from '../../output/format.js';

interface Where {
  db?: string;
  url?: string;
}

type Snapshots = typeof import('../../sandbox/snapshots/snapshots.js');
const lib = (): Promise<Snapshots> => import('../../sandbox/snapshots/snapshots.js');

/** Run `local` on the database, or call the control route; HTTP-style errors become CLI errors. */
async function act(
  ctx: Context,
  o: Where,
  method: 'GET' | 'POST',
  path: string,
  body: unknown,
  local: (s: Snapshots) => unknown,
): Promise<Rec> {
  if (o.url) return strip(await controlCall(ctx, { url: o.url, db: o.db }, method, path, body));
  const s = await lib();
  const { HttpError } = await import('../../sandbox/errors.js');
  try {
    return (await local(s)) as Rec;
  } catch (e) {
    // The sandbox's HTTP-style errors as the CLI errors they mean (domainCall maps them).
    if (e instanceof HttpError)
      await domainCall(() => {
        throw e;
      });
    throw e;
  }
}

const named = (args: { name: string }, opts: Where) => ({ name: args.name, db: opts.db, url: opts.url });

export const save = {
  parse: ({ args, opts }: VerbInput<typeof snapshotSave>) => named(args, opts),
  async run(o: Where & { name: string }, ctx: Context) {
    const store = o.url ? undefined : await openStore(ctx, o.db);
    const out = await act(ctx, o, 'POST', '/_sandbox/snapshots/save', { name: o.name }, (s) =>
      s.saveSnapshot(store!, o.name),
    );
    await emit(ctx, { snapshot: out, message: `Saved snapshot "${o.name}" (${t(out.bytes)} bytes).` });
  },
};

export const load = {
  parse: ({ args, opts }: VerbInput<typeof snapshotLoad>) => named(args, opts),
  async run(o: Where & { name: string }, ctx: Context) {
    const store = o.url ? undefined : await openStore(ctx, o.db);
    // This command's connection is the only one of this process: the file may be replaced.
    const out = await act(ctx, o, 'POST', '/_sandbox/snapshots/load', { name: o.name }, (s) =>
      s.loadSnapshot(store!, o.name, { alone: true }),
    );
    await emit(ctx, { snapshot: out, message: `Loaded snapshot "${o.name}": the sandbox is back in that state.` });
  },
};

export const rm = {
  parse: ({ args, opts }: VerbInput<typeof snapshotRm>) => named(args, opts),
  async run(o: Where & { name: string }, ctx: Context) {
    const path = o.url ? '' : await dbPathOf(ctx, o.db);
    await act(ctx, o, 'POST', '/_sandbox/snapshots/rm', { name: o.name }, (s) => s.removeSnapshot(path, o.name));
    await emit(ctx, { message: `Removed snapshot "${o.name}".` });
  },
};

export const list = {
  parse: ({ opts }: VerbInput<typeof snapshotList>) => ({ db: opts.db, url: opts.url }),
  async run(o: Where, ctx: Context) {
    const path = o.url ? '' : await dbPathOf(ctx, o.db);
    const out = await act(ctx, o, 'GET', '/_sandbox/snapshots', undefined, (s) => ({
      snapshots: s.listSnapshots(path),
    }));
    await emit(ctx, out, {
      columns: [{ key: 'name', id: true }, { key: 'saved_at' }, { key: 'bytes' }],
      empty: 'No snapshots of this database; `sandbox snapshot save NAME` makes one.',
    });
  },
};

export const diff = {
  parse: ({ args, opts }: VerbInput<typeof snapshotDiff>) => ({
    a: args.a,
    b: args.b,
    db: opts.db,
    url: opts.url,
  }),
  async run(o: Where & { a: string; b?: string }, ctx: Context) {
    const path = o.url ? '' : await dbPathOf(ctx, o.db);
    const q = new URLSearchParams({ a: o.a, ...(o.b ? { b: o.b } : {}) });
    const out = await act(ctx, o, 'GET', `/_sandbox/snapshots/diff?${q.toString()}`, undefined, (s) =>
      s.diffSnapshots(path, o.a, o.b),
    );
    const ids = (v: unknown) => (Array.isArray(v) && v.length ? v.join(',') : '');
    await emit(ctx, out, {
      columns: [
        { key: 'table', id: true },
        { key: 'added' },
        { key: 'removed' },
        { key: 'changed' },
        { key: 'added_ids', format: ids },
        { key: 'removed_ids', format: ids },
        { key: 'changed_ids', format: ids },
      ],
      empty: `No differences between ${o.a} and ${o.b ?? 'the database now'}.`,
    });
  },
};
