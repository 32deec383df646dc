import type { Context } from '../../context.js';
import { toApiError } from '../../api/errors.js';
import { CliError, usageError } from '../../errors.js';
import { emit } from '../../output/index.js';
import { positiveInt } from '../../validate/index.js';
import type { VerbInput } from '../define.js';
import type { checkout } from './checkout.cmd.js';
import { noteEphemeralUrl, openUrl } from '../open.js';

interface Options {
  ids: number[];
  rejoinerIds?: string[];
  open: boolean;
}

export function parse({ opts: o }: VerbInput<typeof checkout>): Options {
  const ids = o.id ?? [];
  if (!ids.length) throw usageError('Give at least one --id (a price id from `bookdist offers get --isbn …`).');
  const rejoiner = o.rejoinerId?.length ? o.rejoinerId : undefined;
  for (const r of rejoiner ?? []) {
    if (!/^[\w.:-]{1,100}$/.test(r))
      throw usageError(`--rejoiner-id ${r}: letters, digits and . _ : - only, at most 100 characters.`);
  }
  return { ids: ids.map((v) => positiveInt(v, '--id')), rejoinerIds: rejoiner, open: Boolean(o.open) };
}

export async function run(o: Options, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const query = { ids: o.ids.join(','), rejoiner_ids: o.rejoinerIds?.join(',') };
  const res = await api.request({ method: 'GET', path: '/checkout', query, auth: 'none', host: 'store' });
  if (res.status >= 400) throw toApiError(res);
  const location = res.headers['location'];
  let url: string;
  if (res.status >= 300 && res.status < 400) {
    if (!location) throw new CliError(`The store answered ${res.status} without a Location header.`);
    url = new URL(location, api.storeUrl.replace(/\/*$/, '/')).toString();
  } else {
    // Served directly (no redirect): the checkout URL itself is the cart.
    url = res.request.url;
  }
  await emit(
    ctx,
    { url, status: res.status, ids: o.ids, rejoiner_ids: o.rejoinerIds ?? [] },
    { card: (r) => String(r.url) },
  );
  await noteEphemeralUrl(ctx);
  if (o.open) await openUrl(ctx, url);
}
