// `bookdist sandbox outbox [--to ADDR]`: the e-mails the service would have sent.
import type { Context } from '../../context.js';
import { emit } from '../../output/index.js';
import type { VerbInput } from '../define.js';
import type { outbox } from './outbox.cmd.js';
import { controlCall, openStore } from './parts/common.js';
import { cellText as t } from '../../output/format.js';

export function parse({ opts }: VerbInput<typeof outbox>) {
  return { to: opts.to, db: opts.db, url: opts.url };
}

export async function run(o: { to?: string; db?: string; url?: string }, ctx: Context): Promise<void> {
  let emails: unknown;
  if (o.url)
    emails = (
      await controlCall(
        ctx,
        { url: o.url, db: o.db },
        'GET',
        '/_sandbox/outbox' + (o.to ? `?to=${encodeURIComponent(o.to)}` : ''),
      )
    ).emails;
  else {
    const store = await openStore(ctx, o.db);
    const { listOutbox } = await import('../../sandbox/control.js');
    emails = listOutbox(store, o.to);
  }
  await emit(
    ctx,
    { emails },
    {
      columns: [
        { key: 'id' },
        { key: 'created_at' },
        { key: 'kind' },
        { key: 'to', format: (v) => (Array.isArray(v) ? v.join(', ') : t(v)) },
        { key: 'subject' },
      ],
      empty: 'The outbox is empty.',
    },
  );
}
