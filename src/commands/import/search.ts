import type { Context } from '../../context.js';
import type { Column } from '../../output/index.js';
import type { Verified } from '../../spec/contract.js';
import { isbn, nonEmpty } from '../../validate/index.js';
import type { VerbInput } from '../define.js';
import type { search } from './search.cmd.js';
import { listingOptions, runListing, type ListingInput } from '../paging.js';

interface Options extends ListingInput {
  isbn?: string[];
  title?: string;
  author?: string;
}

export function parse({ opts: o }: VerbInput<typeof search>): Options {
  return {
    ...listingOptions(o),
    isbn: o.isbn?.length ? o.isbn.map((v) => isbn(v, '--isbn', o.check)) : undefined,
    title: o.title !== undefined ? nonEmpty(o.title, '--title', 200) : undefined,
    author: o.author !== undefined ? nonEmpty(o.author, '--author', 200) : undefined,
  };
}

const STATUS: Array<[keyof NonNullable<Verified<'ImportedTitle'>['status']>, string]> = [
  ['deleted', 'deleted'],
  ['file_received', 'file received'],
  ['imported', 'imported'],
];

export const IMPORT_COLUMNS: Column<Verified<'ImportedTitle'>>[] = [
  // At 80 columns the publisher, the edition and the eISBN give way to a readable title.
  { key: 'title', label: 'TITLE', min: 16, want: 24 },
  { key: 'author', label: 'AUTHOR' },
  { key: 'publisher', label: 'PUBLISHER', optional: true },
  { key: 'edition_number', label: 'ED.', optional: true },
  { key: 'identifiers.isbn13', label: 'ISBN-13' },
  { key: 'identifiers.eisbn13', label: 'EISBN-13', optional: true },
  { key: 'identifiers.book_id', label: 'BOOK ID' },
  {
    key: 'status.file_received',
    label: 'STATUS',
    format: (_v, r) =>
      STATUS.filter(([k]) => r.status?.[k] === true)
        .map(([, w]) => w)
        .join(', ') || 'awaiting file',
  },
];

export async function run(o: Options, ctx: Context): Promise<void> {
  const api = await ctx.api();
  await runListing(ctx, o, {
    noun: 'imported titles',
    columns: IMPORT_COLUMNS,
    empty: 'No imported titles match.',
    fetch: (offset, limit, signal) =>
      api.ok('import.search', {
        payload: { title: o.title, author: o.author, isbn: o.isbn, offset, limit: limit || undefined },
        signal,
      }),
  });
}
