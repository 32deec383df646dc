import type { Context } from '../../context.js';
import { CliError } from '../../errors.js';
import { emit } from '../../output/index.js';
import { hashId, username } from '../../validate/index.js';
import type { VerbInput } from '../define.js';
import type { viewer } from './index.js';
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
  const body = await api.ok('book.viewer', { payload: { username: o.username, hash_id: o.hashId } });
  if (typeof body?.viewer_url !== 'string' || !body.viewer_url) throw new CliError('The service answered without a viewer_url.');
  // A relative URL is relative to the service's base URL.
  const url = new URL(body.viewer_url, api.baseUrl.replace(/\/*$/, '/')).toString();
  await emit(ctx, { ...body, viewer_url: url }, { card: (r) => String(r.viewer_url) });
  await noteEphemeralUrl(ctx);
  if (o.open) await openUrl(ctx, url);
}
