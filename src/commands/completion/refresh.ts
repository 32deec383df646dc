// `bookdist completion refresh`: every page of the book index, so that the completion cache
// (src/cache/ids.ts, fed by every answer the client reads) holds every book of the account.
import type { Context } from '../../context.js';
import { pages } from '../paging.js';

/** The book index's largest page (interface 4.2). */
const PAGE = 500;

export async function run(_o: unknown, ctx: Context): Promise<number | void> {
  if (ctx.globals.noCache || /^(off|0|false|no)$/i.test(ctx.io.env.BOOKDIST_CACHE ?? '')) {
    ctx.warn('The completion cache is off (--no-cache or BOOKDIST_CACHE=off): nothing to refresh.');
    return 2;
  }
  const api = await ctx.api();
  const { createProgress } = await import('../../bulk/progress.js');
  const progress = createProgress(ctx, { total: Number.NaN, unit: 'books', label: 'reading the book index' });
  let books = 0;
  try {
    for await (const page of pages(
      (offset, limit, signal) => api.ok('book.index', { payload: { offset, limit }, signal }),
      { pageSize: PAGE, signal: ctx.signal },
    )) {
      if (page.count !== undefined) progress.setTotal(page.count);
      books += page.results.length;
      progress.tick(page.results.length);
    }
  } finally {
    progress.stop();
  }
  const profile = (await ctx.config()).profile.value;
  ctx.info(
    `${books} ${books === 1 ? 'book' : 'books'} of profile "${profile}" now complete at TAB (with their ISBNs, SKUs and prices).`,
  );
}
