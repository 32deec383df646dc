import type { Context } from '../../context.js';
import { CliError, ExitCode } from '../../errors.js';
import { emit } from '../../output/index.js';
import { hashId, username } from '../../validate/index.js';
import type { VerbInput } from '../define.js';
import type { viewer } from './viewer.cmd.js';
import { noteEphemeralUrl, openUrl } from '../open.js';

interface Options {
  username: string;
  hashId: string;
  open: boolean;
}

export function parse({ opts: o }: VerbInput<typeof viewer>): Options {
  return { username: username(o.username, '--username'), hashId: hashId(o.hashId, '--hash-id'), open: Boolean(o.open) };
}

export async function run(o: Options, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const body = await api
    .ok('book.viewer', { payload: { username: o.username, hash_id: o.hashId } })
    .catch((e: unknown) => {
      throw noPurchase(e, o) ?? e;
    });
  if (typeof body?.viewer_url !== 'string' || !body.viewer_url)
    throw new CliError('The service answered without a viewer_url.');
  // A relative URL is relative to the service's base URL.
  const url = new URL(body.viewer_url, api.baseUrl.replace(/\/*$/, '/')).toString();
  await emit(ctx, { ...body, viewer_url: url }, { card: (r) => String(r.viewer_url) });
  await noteEphemeralUrl(ctx);
  if (o.open) await openUrl(ctx, url);
}

/**
 * The service's 404 (the user has neither a purchase nor an access grant of the book), with the
 * two ways to give the user the book; anything else is left as it is.
 */
function noPurchase(e: unknown, o: Options): CliError | undefined {
  const err = e as {
    name?: string;
    status?: number;
    message?: string;
    body?: unknown;
    request?: { method: string; url: string };
  };
  if (err?.name !== 'ApiError' || err.status !== 404 || !err.request) return undefined;
  const who = `--username ${o.username} --hash-id ${o.hashId}`;
  return new CliError(
    `${err.message} (HTTP 404, ${err.request.method} ${new URL(err.request.url).pathname}): the user has no purchase or access grant of this book. ` +
      `Give the user the book, then ask again:\n  bookdist order free ${who}\nor, with the operator token (access API):\n  bookdist access allow ${who} --price 0.00`,
    ExitCode.NOT_FOUND,
    err.body && typeof err.body === 'object' ? (err.body as Record<string, unknown>) : undefined,
    404,
  );
}
