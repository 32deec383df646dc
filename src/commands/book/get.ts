import type { Context } from '../../context.js';
import { exactlyOne, hashId, isbn, sku } from '../../validate/index.js';
import type { VerbInput } from '../define.js';
import type { get } from './get.cmd.js';
import { emit } from '../../output/index.js';
import { givenCommand } from '../given.js';
import type { LookupOptions } from './parts/lookup.js';

type Options = { by: 'hash_id' | 'isbn' | 'sku'; value: string } | ({ by: 'file' } & LookupOptions);

export function parse({ args, opts: o, command }: VerbInput<typeof get>): Options {
  const [which, value] = exactlyOne({
    '<hash_id>': args.hash_id,
    '--isbn': o.isbn,
    '--sku': o.sku,
    '--isbn-file': o.isbnFile,
    '--hash-id-file': o.hashIdFile,
  });
  switch (which) {
    case '<hash_id>':
      return { by: 'hash_id', value: hashId(value, '<hash_id>') };
    case '--isbn':
      return { by: 'isbn', value: isbn(value, '--isbn', o.check) };
    case '--sku':
      return { by: 'sku', value: sku(value, '--sku') };
    case '--isbn-file':
      return { by: 'file', kind: 'isbn', file: value, check: o.check, command: givenCommand(command) };
    case '--hash-id-file':
      return { by: 'file', kind: 'hash_id', file: value, check: o.check, command: givenCommand(command) };
  }
}

export async function run(o: Options, ctx: Context): Promise<number | void> {
  if (o.by === 'file') {
    return (await import('./parts/lookup.js')).runLookup(o, ctx);
  }
  const api = await ctx.api();
  const body =
    o.by === 'hash_id'
      ? await api.ok('book.get', { params: { hash_id: o.value } })
      : o.by === 'isbn'
        ? await api.ok('book.isbn', { params: { isbn: o.value } })
        : await api.ok('book.sku', { params: { sku: o.value } });
  await emit(ctx, body, {
    card: async (_book, s, answer) => (await import('./parts/view.js')).bookCard(answer.book, s),
  });
}
