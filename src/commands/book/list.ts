import type { Context } from '../../context.js';
import type { VerbInput } from '../define.js';
import type { list } from './list.cmd.js';
import { listingOptions, runListing, type ListingInput } from '../paging.js';
import { BOOK_COLUMNS } from './parts/view.js';

export function parse(input: VerbInput<typeof list>): ListingInput {
  return listingOptions(input.opts);
}

export async function run(o: ListingInput, ctx: Context): Promise<void> {
  const api = await ctx.api();
  await runListing(ctx, o, {
    noun: 'books',
    columns: BOOK_COLUMNS,
    empty: 'This account controls no books.',
    fetch: (offset, limit, signal) => api.ok('book.index', { payload: { offset, limit: limit || undefined }, signal }),
  });
}
