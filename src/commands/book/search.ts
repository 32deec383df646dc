import type { Context } from '../../context.js';
import { usageError } from '../../errors.js';
import { hashId, isbn, nonEmpty } from '../../validate/index.js';
import type { VerbInput } from '../define.js';
import type { search } from './search.cmd.js';
import { listingOptions, runListing, type ListingInput } from '../paging.js';
import { BOOK_COLUMNS } from './parts/view.js';

interface Options extends ListingInput {
  isbn?: string[];
  title?: string;
  author?: string;
  hashIds?: string[];
}

export function parse({ opts: o }: VerbInput<typeof search>): Options {
  const out: Options = {
    ...listingOptions(o),
    isbn: o.isbn?.length ? o.isbn.map((v) => isbn(v, '--isbn', o.check)) : undefined,
    title: o.title !== undefined ? nonEmpty(o.title, '--title', 200) : undefined,
    author: o.author !== undefined ? nonEmpty(o.author, '--author', 200) : undefined,
    hashIds: o.hashId?.length ? o.hashId.map((v) => hashId(v, '--hash-id')) : undefined,
  };
  if (!out.isbn && !out.title && !out.author && !out.hashIds) {
    throw usageError(
      'Give at least one of --isbn, --title, --author or --hash-id (`bookdist book list` lists your books).',
    );
  }
  return out;
}

export async function run(o: Options, ctx: Context): Promise<void> {
  const api = await ctx.api();
  await runListing(ctx, o, {
    noun: 'books',
    columns: BOOK_COLUMNS,
    empty: 'No books match.',
    fetch: (offset, limit, signal) =>
      api.ok('book.search', {
        payload: {
          isbn: o.isbn,
          title: o.title,
          author: o.author,
          hash_ids: o.hashIds,
          offset,
          limit: limit || undefined,
        },
        signal,
      }),
  });
}
