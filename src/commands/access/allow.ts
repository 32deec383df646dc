// `bookdist access allow`: one grant from flags, or a bulk job from --from-csv (./csv.ts).
import type { Context } from '../../context.js';
import type { VerbInput } from '../define.js';
import { usageError } from '../../errors.js';
import * as v from '../../validate/index.js';
import { emitMessage } from '../../output/index.js';
import { CliError } from '../../errors.js';
import { toApiError } from '../../api/client.js';
import type { ApiClient } from '../../api/client.js';
import { parseBulkFlags, type BulkFlags } from '../../bulk/flags.js';

/**
 * One access request with the bulk jobs' retries (429/503/dropped connections). Repeating is
 * harmless by the access state table; an "already" answer after a repeated request means the
 * lost first attempt did the work, so it counts as success.
 */
export async function sendOne(api: ApiClient, ctx: Context, action: 'allow' | 'revoke', payload: Record<string, unknown>): Promise<any> {
  const { callWithRetry } = await import('../../bulk/retry.js');
  const r = await callWithRetry(api, `access.${action}`, { payload }, { retries: ctx.globals.retries, sleep: ctx.clock.sleep, signal: ctx.signal });
  if (!r.ok) throw new CliError(r.failure.message, r.failure.exitCode, undefined, r.failure.status);
  const res = r.response;
  if (res.status < 400) return res.body;
  const already = action === 'allow' ? /already has access/i : /purchase record not found/i;
  if (r.uncertainRetries > 0 && already.test(String(res.body?.message ?? ''))) {
    return { code: 200, success: true, message: action === 'allow' ? 'Access granted.' : 'Access revoked.' };
  }
  throw toApiError(res);
}

export type CsvMode = { mode: 'csv' } & BulkFlags;

export type Options =
  | CsvMode
  | { mode: 'one'; payload: { hash_id: string; username: string; price: string; expiration_date?: string; email?: string; send_email?: boolean } };

const ONE_FLAGS = ['hashId', 'username', 'price', 'priceCents', 'expires', 'email', 'sendEmail'] as const;

/** The `--from-csv FILE [--results FILE] [--resume|--restart] [--concurrency N]` form shared by allow and revoke. */
export function parseCsvMode(opts: Record<string, any>, singleFlags: readonly string[]): CsvMode | undefined {
  const bulk = parseBulkFlags(opts, { fromCsv: '--from-csv' }, singleFlags);
  return bulk && { mode: 'csv', ...bulk };
}

export function parse({ opts }: VerbInput): Options {
  const csv = parseCsvMode(opts, ONE_FLAGS);
  if (csv) return csv;
  if (opts.hashId === undefined) throw usageError('Give the book with --hash-id (or many grants with --from-csv FILE).');
  if (opts.username === undefined) throw usageError('Give the user with --username (or many grants with --from-csv FILE).');
  if (opts.price === undefined && opts.priceCents === undefined) throw usageError('Give the price with --price (e.g. 12.01) or --price-cents (e.g. 1201).');
  if (opts.price !== undefined && opts.priceCents !== undefined) throw usageError('Give only one of --price and --price-cents.');
  return {
    mode: 'one',
    payload: {
      hash_id: v.hashId(opts.hashId, '--hash-id'),
      username: v.username(opts.username, '--username'),
      price: opts.price !== undefined ? v.price(opts.price, '--price') : v.priceFromCents(opts.priceCents, '--price-cents'),
      expiration_date: opts.expires !== undefined ? v.dateTime(opts.expires, '--expires') : undefined,
      email: opts.email !== undefined ? v.email(opts.email, '--email') : undefined,
      send_email: opts.sendEmail ? true : undefined,
    },
  };
}

export async function run(o: Options, ctx: Context): Promise<number | void> {
  if (o.mode === 'csv') {
    const { runAccessCsv } = await import('./csv.js');
    return runAccessCsv({ action: 'allow', ...o }, ctx);
  }
  const api = await ctx.api();
  const body = await sendOne(api, ctx, 'allow', o.payload);
  const p = o.payload;
  const done = String(body?.message ?? 'Access granted.').replace(/\.?$/, '.');
  await emitMessage(
    ctx,
    body,
    `${done} User ${p.username}, book ${p.hash_id}, price ${p.price}, ${p.expiration_date ? `until ${p.expiration_date}` : 'no end date'}; ${p.send_email ? 'user notified' : 'no e-mail sent'}.`,
  );
}
