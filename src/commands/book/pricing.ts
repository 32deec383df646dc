import type { Context } from '../../context.js';
import { emit, forPeople, outputFormat, recOf, recsOf, style, type Rec } from '../../output/index.js';
import { isbn } from '../../validate/index.js';
import type { VerbInput } from '../define.js';
import type { pricing } from './pricing.cmd.js';
import { kv } from '../render.js';
import { pricingGrid } from './parts/view.js';

interface Options {
  isbn: string;
}

export function parse({ opts }: VerbInput<typeof pricing>): Options {
  return { isbn: isbn(opts.isbn, '--isbn', opts.check) };
}

/** The pricing entries, wherever the service put them (the shape is not specified). */
export function pricingOf(body: unknown): Rec[] {
  const b = recOf(body);
  return recsOf(b.digital_pricing ?? b.pricing ?? recOf(b.book).digital_pricing ?? b.results);
}

export async function run(o: Options, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const body = await api.ok('book.pricing', { params: { isbn: o.isbn } });
  if (outputFormat(ctx) === 'table' && !ctx.globals.fields && !ctx.globals.query) {
    const s = style(ctx);
    // Read as an open record: other deployments put the pricing and the book elsewhere (pricingOf).
    const shown: Rec = await forPeople(body);
    const pricing = pricingOf(shown);
    const head = kv(s, [
      ['Title', shown.title ?? recOf(shown.book).title],
      ['ISBN', shown.isbn ?? o.isbn],
      ['Hash ID', shown.hash_id ?? recOf(shown.book).hash_id],
    ]);
    ctx.io.stdout.write([head, '', pricingGrid(s, pricing), ''].filter((x, i) => x || i > 0).join('\n'));
    return;
  }
  await emit(ctx, body, {
    columns: [
      { key: 'id' },
      { key: 'price' },
      { key: 'currency' },
      { key: 'description' },
      { key: 'is_limited' },
      { key: 'limit_days' },
      { key: 'other_pricing' },
      { key: 'deactivation_date' },
    ],
  });
}
