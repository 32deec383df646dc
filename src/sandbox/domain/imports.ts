// The import search: titles a partner sent for import and where each stands.
import { searchImports } from '../repo/search.js';
import { paging } from '../validate.js';
import type { HandlerCtx } from './context.js';
import type { Promised } from '../../spec/contract.js';

export function importSearch(c: HandlerCtx): Promised<'import.search'> {
  const { payload: p } = c;
  const { limit, offset } = paging(p);
  const { rows, count } = searchImports(c.store, p, limit, offset);
  return {
    count,
    limit,
    offset,
    results: rows.map((r) => ({
      title: r.title,
      author: r.author,
      publisher: r.publisher,
      edition_number: r.edition_number,
      identifiers: { book_id: r.book_id, eisbn10: r.eisbn10, eisbn13: r.eisbn13, isbn10: r.isbn10, isbn13: r.isbn13 },
      status: { deleted: r.deleted === 1, file_received: r.file_received === 1, imported: r.imported === 1 },
    })),
  };
}
