// `bookdist access allow`: one grant from flags, or a bulk job from --from-csv (./parts/csv.ts).
import type { Context } from '../../context.js';
import type { OptsOf, VerbInput } from '../define.js';
import type { allow } from './allow.cmd.js';
import { usageError } from '../../errors.js';
import * as v from '../../validate/index.js';
import { emitMessage, recOf } from '../../output/index.js';
import { CliError } from '../../errors.js';
import { toApiError } from '../../api/errors.js';
import type { ApiClient } from '../../api/client.js';
import { isAnswer } from '../../api/answer.js';
import type { Answer, Payload } from '../../spec/contract.js';
import { parseBulkFlags, type BulkFlags } from '../../bulk/flags.js';
import type { Command } from 'commander';
import { jobCommand } from '../given.js';
import { cellText as t } from '../../output/format.js';

/**
 * One access request through the client's retry policy (applied once: never repeated here). A
 * write the service may have done without answering is not repeated blindly by that policy, so an
 * "already" answer is the service's own.
 */
export async function sendOne(
  api: ApiClient,
  ctx: Context,
  action: 'allow' | 'revoke',
  payload: Payload<'access.allow' | 'access.revoke'>,
): Promise<Answer<'access.allow' | 'access.revoke'>> {
  const { callOnce } = await import('../../bulk/retry.js');
  const r = await callOnce(api, `access.${action}`, { payload }, { signal: ctx.signal });
  if (!r.ok) throw new CliError(r.failure.message, r.failure.exitCode, undefined, r.failure.status);
  if (isAnswer(r.response)) return r.response.body;
  throw toApiError(r.response);
}

export type CsvMode = { mode: 'csv' } & BulkFlags;

export type Options =
  | CsvMode
  | {
      mode: 'one';
      payload: {
        hash_id: string;
        username: string;
        price: string;
        expiration_date?: string;
        email?: string;
        send_email?: boolean;
      };
    };

/** The options of a --from-csv job, which allow and revoke share. */
type CsvOpts = Pick<OptsOf<typeof allow>, 'fromCsv' | 'results' | 'resume' | 'restart' | 'concurrency'>;

/** The `--from-csv FILE [--results FILE] [--resume|--restart] [--concurrency N]` form shared by allow and revoke. */
export function parseCsvMode<O extends CsvOpts>(
  { opts, command }: { opts: O; command: Command },
  singleFlags: ReadonlyArray<keyof O & string>,
  confirms = false,
): CsvMode | undefined {
  const bulk = parseBulkFlags(opts, { fromCsv: '--from-csv' }, singleFlags, jobCommand(command, { confirms }));
  return bulk && { mode: 'csv', ...bulk };
}

export function parse(input: VerbInput<typeof allow>): Options {
  const { opts } = input;
  const csv = parseCsvMode(input, ['hashId', 'username', 'price', 'priceCents', 'expires', 'email', 'sendEmail']);
  if (csv) return csv;
  const { price, priceCents } = opts;
  if (opts.hashId === undefined)
    throw usageError('Give the book with --hash-id (or many grants with --from-csv FILE).');
  if (opts.username === undefined)
    throw usageError('Give the user with --username (or many grants with --from-csv FILE).');
  const pay =
    price !== undefined
      ? () => v.price(price, '--price')
      : priceCents !== undefined
        ? () => v.priceFromCents(priceCents, '--price-cents')
        : undefined;
  if (!pay) throw usageError('Give the price with --price (e.g. 12.01) or --price-cents (e.g. 1201).');
  if (price !== undefined && priceCents !== undefined) throw usageError('Give only one of --price and --price-cents.');
  return {
    mode: 'one',
    payload: {
      hash_id: v.hashId(opts.hashId, '--hash-id'),
      username: v.username(opts.username, '--username'),
      price: pay(),
      expiration_date: opts.expires !== undefined ? v.dateTime(opts.expires, '--expires') : undefined,
      email: opts.email !== undefined ? v.email(opts.email, '--email') : undefined,
      send_email: opts.sendEmail ? true : undefined,
    },
  };
}

export async function run(o: Options, ctx: Context): Promise<number | void> {
  if (o.mode === 'csv') {
    const { runAccessCsv } = await import('./parts/csv.js');
    return runAccessCsv({ action: 'allow', ...o }, ctx);
  }
  const api = await ctx.api();
  const body = await sendOne(api, ctx, 'allow', o.payload);
  const p = o.payload;
  const done = t(recOf(body).message ?? 'Access granted.').replace(/\.?$/, '.');
  await emitMessage(
    ctx,
    body,
    `${done} User ${p.username}, book ${p.hash_id}, price ${p.price}, ${p.expiration_date ? `until ${p.expiration_date}` : 'no end date'}; ${p.send_email ? 'user notified' : 'no e-mail sent'}.`,
  );
}
