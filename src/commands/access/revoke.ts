// `bookdist access revoke`: one revocation from flags, or a bulk job from --from-csv (./parts/csv.ts).
import type { Context } from '../../context.js';
import type { VerbInput } from '../define.js';
import type { revoke } from './revoke.cmd.js';
import { usageError } from '../../errors.js';
import * as v from '../../validate/index.js';
import { emitMessage, recOf } from '../../output/index.js';
import { confirm } from '../confirm.js';
import { parseCsvMode, sendOne, type CsvMode } from './allow.js';
import { cellText as t } from '../../output/format.js';

export type Options = CsvMode | { mode: 'one'; payload: { hash_id: string; username: string } };

export function parse(input: VerbInput<typeof revoke>): Options {
  const { opts } = input;
  // A revoke asks for a confirmation: a --yes given is repeated.
  const csv = parseCsvMode(input, ['hashId', 'username'], true);
  if (csv) return csv;
  if (opts.hashId === undefined) throw usageError('Give the book with --hash-id (or many with --from-csv FILE).');
  if (opts.username === undefined) throw usageError('Give the user with --username (or many with --from-csv FILE).');
  return {
    mode: 'one',
    payload: { hash_id: v.hashId(opts.hashId, '--hash-id'), username: v.username(opts.username, '--username') },
  };
}

export async function run(o: Options, ctx: Context): Promise<number | void> {
  if (o.mode === 'csv') {
    const { runAccessCsv } = await import('./parts/csv.js');
    return runAccessCsv({ action: 'revoke', ...o }, ctx);
  }
  await confirm(ctx, `Revoke the access of user ${o.payload.username} to book ${o.payload.hash_id}?`);
  const api = await ctx.api();
  const body = await sendOne(api, ctx, 'revoke', o.payload);
  const done = t(recOf(body).message ?? 'Access revoked.').replace(/\.?$/, '.');
  await emitMessage(ctx, body, `${done} User ${o.payload.username}, book ${o.payload.hash_id}.`);
}
