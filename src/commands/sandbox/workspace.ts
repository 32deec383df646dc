// `bookdist sandbox workspace create|list|rm`: isolated workspaces of a running sandbox
// (src/sandbox/workspaces/), through its control routes (--url, with the control secret).
// `create` prints the workspace's credentials: that is what it is for (never logged, never in an error).
import type { Context } from '../../context.js';
import { emit, recOf } from '../../output/index.js';
import { usageError } from '../../errors.js';
import type { VerbInput } from '../define.js';
import { kv } from '../render.js';
import type { workspaceCreate, workspaceList, workspaceRm } from './workspace.cmd.js';
import { controlCall, strip } from './parts/common.js';
import { cellText as t } from '../../output/format.js';

interface Where {
  db?: string;
  url?: string;
}

/** The running sandbox to ask: workspaces are served by one, so --url is required. */
function target(o: Where): { url: string; db?: string } {
  if (!o.url) {
    throw usageError(
      'Workspaces are served by a running sandbox: give its address with --url (e.g. --url http://127.0.0.1:8710 after `bookdist sandbox serve`).',
    );
  }
  return { url: o.url, db: o.db };
}

export const create = {
  parse: ({ args, opts }: VerbInput<typeof workspaceCreate>) => ({
    name: args.name,
    from: opts.from,
    db: opts.db,
    url: opts.url,
  }),
  async run(o: Where & { name: string; from?: string }, ctx: Context) {
    const out = strip(
      await controlCall(ctx, target(o), 'POST', '/_sandbox/workspaces', {
        name: o.name,
        ...(o.from ? { from: o.from } : {}),
      }),
    );
    const w = recOf(out.workspace);
    await emit(ctx, out, {
      card: (_d, s) => {
        const c = recOf(w.credentials);
        const p = recOf(c.partner);
        const l = recOf(c.limited);
        return [
          `Workspace ${t(w.name)} (from ${t(w.from ?? 'the seed')}) serves at ${t(w.url)}`,
          kv(s, [
            ['base URL', String(w.url)],
            ['partner', String(p.username)],
            ['partner key_file', String(p.key_file)],
            ['partner shared_key', String(p.shared_key)],
            ['limited key_file', String(l.key_file)],
            ['limited shared_key', String(l.shared_key)],
            ['operator token', String(c.operator_token)],
            ['control secret', String(c.control_secret)],
          ]),
        ].join('\n');
      },
    });
  },
};

export const list = {
  parse: ({ opts }: VerbInput<typeof workspaceList>) => ({ db: opts.db, url: opts.url }),
  async run(o: Where, ctx: Context) {
    const out = strip(await controlCall(ctx, target(o), 'GET', '/_sandbox/workspaces'));
    await emit(ctx, out, {
      columns: [
        { key: 'name', id: true },
        { key: 'url' },
        { key: 'created' },
        { key: 'from', format: (v) => (v == null ? '(seed)' : t(v)) },
      ],
      empty: 'No workspaces; `bookdist sandbox workspace create NAME --url <the sandbox>` makes one.',
    });
  },
};

export const rm = {
  parse: ({ args, opts }: VerbInput<typeof workspaceRm>) => ({ name: args.name, db: opts.db, url: opts.url }),
  async run(o: Where & { name: string }, ctx: Context) {
    const t = target(o);
    const { confirm } = await import('../confirm.js');
    await confirm(ctx, `Remove workspace "${o.name}" (its server and its database)?`);
    if (ctx.globals.dryRun)
      return emit(ctx, { message: `Would remove workspace "${o.name}" (--dry-run: nothing was sent).` });
    await controlCall(ctx, t, 'POST', '/_sandbox/workspaces/rm', { name: o.name });
    await emit(ctx, { message: `Removed workspace "${o.name}": its server is stopped and its database deleted.` });
  },
};
