import type { Context } from '../../context.js';
import { CliError } from '../../errors.js';
import { emit } from '../../output/index.js';
import { cellText as t } from '../../output/format.js';
import { isbn } from '../../validate/index.js';
import type { VerbInput } from '../define.js';
import type { get } from './get.cmd.js';

interface Options {
  isbn: string;
}

export function parse({ opts }: VerbInput<typeof get>): Options {
  return { isbn: isbn(opts.isbn, '--isbn', opts.check) };
}

export async function run(o: Options, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const body = await api.ok('offers', { payload: { isbn: o.isbn } });
  // The store may say no in a 200 answer, which the table does not describe (success: false).
  const said: { success?: unknown; message?: unknown; Status?: unknown } = body;
  if (said.success === false) {
    // A 200 answer that says no: the same meanings as an error status (a missing book is 3).
    const { exitCodeForStatus } = await import('../../api/errors.js');
    throw new CliError(
      t(said.message ?? said.Status ?? 'The store refused the request.'),
      exitCodeForStatus(400, body),
    );
  }
  await emit(ctx, body, {
    columns: [
      { key: 'Id', label: 'PRICE ID' },
      { key: 'Price', label: 'PRICE' },
      { key: 'Condition', label: 'CONDITION' },
      { key: 'RentalDays', label: 'RENTAL', format: (v) => (v ? `${t(v)} days` : 'no (lifetime)') },
    ],
    empty: `No offers for ISBN ${o.isbn}.`,
  });
}
