import type { Context } from '../../context.js';
import { usageError } from '../../errors.js';
import { parseBulkFlags, type BulkFlags } from '../../bulk/flags.js';
import { jobCommand } from '../given.js';
import { dateTime, hashId, label, username } from '../../validate/index.js';
import type { VerbInput } from '../define.js';
import type { free } from './free.cmd.js';
import { emit } from '../../output/index.js';
import { orderCard } from './parts/view.js';

type Options = ({ mode: 'one' } & OneOptions) | ({ mode: 'csv' } & BulkFlags);

interface OneOptions {
  username: string;
  hashId: string;
  expires?: string;
  label?: string;
}

export function parse({ opts: o, command }: VerbInput<typeof free>): Options {
  const single = ['username', 'hashId', 'expires', 'label'];
  const bulk = parseBulkFlags(o, { fromCsv: '--from-csv' }, single, jobCommand(command));
  if (bulk) return { mode: 'csv', ...bulk };
  if (o.username === undefined)
    throw usageError('Give the user with --username (or many free orders with --from-csv FILE).');
  if (o.hashId === undefined)
    throw usageError('Give the book with --hash-id (or many free orders with --from-csv FILE).');
  return {
    mode: 'one',
    username: username(o.username, '--username'),
    hashId: hashId(o.hashId, '--hash-id'),
    expires: o.expires !== undefined ? dateTime(o.expires, '--expires') : undefined,
    label: o.label !== undefined ? label(o.label) : undefined,
  };
}

export async function run(o: Options, ctx: Context): Promise<number | void> {
  if (o.mode === 'csv') {
    const { runOrderFreeBulk } = await import('./parts/bulk.js');
    return runOrderFreeBulk(o, ctx);
  }
  const api = await ctx.api();
  const body = await api.ok('order.free', {
    payload: { username: o.username, hash_id: o.hashId, expiration_date: o.expires, label: o.label },
  });
  // The service may answer with the order it created (the sandbox does); a bare message is shown as such
  // (emit draws a card only when the answer has the order).
  await emit(ctx, body, {
    card: (_order, s, answer) => (answer.order ? orderCard(answer.order, s) : ''),
    message: true,
  });
}
