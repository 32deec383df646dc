import type { Context } from '../../context.js';
import { usageError } from '../../errors.js';
import { exactlyOne, hashId, isbn, sku } from '../../validate/index.js';
import type { VerbInput } from '../define.js';
import { emit } from '../../output/index.js';
import { bookCard } from './view.js';

type Options =
  | { by: 'hash_id' | 'isbn' | 'sku'; value: string }
  | { by: 'file'; kind: 'isbn' | 'hash_id'; file: string; check: boolean };

export function parse(input: VerbInput): Options {
  const o = input.opts;
  const [hash] = input.args as [string | undefined];
  const which = exactlyOne({
    '<hash_id>': hash,
    '--isbn': o.isbn,
    '--sku': o.sku,
    '--isbn-file': o.isbnFile,
    '--hash-id-file': o.hashIdFile,
  });
  const check = o.check !== false;
  switch (which) {
    case '<hash_id>':
      return { by: 'hash_id', value: hashId(hash!, '<hash_id>') };
    case '--isbn':
      return { by: 'isbn', value: isbn(o.isbn, '--isbn', check) };
    case '--sku':
      return { by: 'sku', value: sku(o.sku, '--sku') };
    case '--isbn-file':
      return { by: 'file', kind: 'isbn', file: String(o.isbnFile), check };
    case '--hash-id-file':
      return { by: 'file', kind: 'hash_id', file: String(o.hashIdFile), check };
  }
  throw usageError('Give a <hash_id>, --isbn or --sku.');
}

export async function run(o: Options, ctx: Context): Promise<number | void> {
  if (o.by === 'file') {
    return (await import('./lookup.js')).runLookup({ kind: o.kind, file: o.file, check: o.check }, ctx);
  }
  const api = await ctx.api();
  const body =
    o.by === 'hash_id'
      ? await api.ok('book.get', { params: { hash_id: o.value } })
      : o.by === 'isbn'
        ? await api.ok('book.isbn', { params: { isbn: o.value } })
        : await api.ok('book.sku', { params: { sku: o.value } });
  await emit(ctx, body, { card: bookCard });
}
