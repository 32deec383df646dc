// The price comparison feed (offers for an ISBN) and the checkout link that opens a cart.
import { bad } from '../errors.js';
import { normalizeIsbn } from '../isbn.js';
import { insertCart } from '../repo/carts.js';
import { offeredPrices, pricingExists } from '../repo/pricing.js';
import { randomHex } from '../util.js';
import { ok, type HandlerCtx, type HandlerResult } from './context.js';
import { bookByIsbn } from './lookups.js';
import type { Promised } from '../../spec/contract.js';

export function offers(c: HandlerCtx): HandlerResult<Promised<'offers'>> {
  const isbn = normalizeIsbn(c.query.get('isbn') ?? '');
  if (isbn.length < 10) throw bad('Invalid ISBN supplied');
  const book = bookByIsbn(c.store, isbn);
  if (!book || !book.is_active || !book.is_public) throw bad('The requested book does not exist');
  if (book.distribution_type === 'code') throw bad('The requested book is not available');
  if (!book.is_published) throw bad('The requested book is not published');
  const prices = offeredPrices(c.store, book.id, c.now);
  return ok({
    Status: 'OK',
    Isbn: isbn,
    Offers: prices.map((p) => ({ Price: p.price, Id: p.id, Condition: 'digital', RentalDays: p.limit_days })),
  });
}

export function checkout(c: HandlerCtx): HandlerResult<Promised<'checkout'>> {
  const idsText = c.query.get('ids') ?? '';
  if (!idsText.trim()) throw bad('Field "ids" is required.');
  if (idsText.length > 2000) throw bad('Field "ids" is too long.');
  const ids = idsText
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const id of ids) {
    if (!/^\d{1,15}$/.test(id) || !pricingExists(c.store, Number(id)))
      throw bad(`Unknown price id ${id.slice(0, 40)}.`);
  }
  const rejoiner = (c.query.get('rejoiner_ids') ?? '').slice(0, 2000);
  const token = randomHex(24);
  c.store.tx(() =>
    insertCart(c.store, { token, pricing_ids: ids.map(Number), rejoiner_ids: rejoiner, created_at: c.now }),
  );
  const location = `/cart/?t=${token}`;
  return { status: 302, body: { location }, headers: { location } };
}
