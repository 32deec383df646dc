// Access grants: a partner gives a reader a book (at a price it reports) or takes it back.
import { bad, notFound } from '../errors.js';
import type { BookRow } from '../repo/books.js';
import { closeExpiredGrants, hasActiveGrant, insertItem, insertOrder, revokeGrant } from '../repo/orders.js';
import type { UserRow } from '../repo/users.js';
import { isEmail, isoTime } from '../util.js';
import { ok, type HandlerCtx, type HandlerResult } from './context.js';
import { bookByHash, requireControl, sendMail, userByUsername } from './lookups.js';
import type { Promised } from '../../spec/contract.js';

const PRICE = /^\d{1,9}(\.\d{1,2})?$/;

function accessCommon(c: HandlerCtx): { book: BookRow; user: UserRow } {
  const book = bookByHash(c.store, c.payload.hash_id);
  const user = userByUsername(c.store, c.payload.username);
  requireControl(c.store, c.caller!, book);
  return { book, user };
}

export function accessAllow(c: HandlerCtx): HandlerResult<Promised<'access.allow'>> {
  const { store, payload: p, now } = c;
  const { book, user } = accessCommon(c);
  if (typeof p.price !== 'string' || !PRICE.test(p.price.trim()))
    throw bad('The price field was supplied an invalid value');
  if (p.email !== undefined && p.email !== '' && (typeof p.email !== 'string' || !isEmail(p.email.trim())))
    throw bad('The email field provided was invalid');
  if (p.expiration_date !== undefined && p.expiration_date <= now)
    throw bad('Field "expiration_date" must be in the future.');
  return store.tx(() => {
    // A grant that has expired no longer counts as access.
    closeExpiredGrants(store, user.id, book.id, now);
    if (hasActiveGrant(store, user.id, book.id)) throw bad('The user already has access to this book');
    const orderId = insertOrder(store, { account: c.caller!.account.id, user: user.id, kind: 'access', now });
    insertItem(store, {
      order: orderId,
      user: user.id,
      book: book.id,
      source: 'access',
      price: Number(p.price).toFixed(2),
      now,
      expires: p.expiration_date ?? null,
      // Stryker disable next-line ConditionalExpression,LogicalOperator: equivalent, the grant's access_email is kept but no answer reads it
      email: p.email || undefined,
    });
    if (p.send_email === true) {
      sendMail(
        store,
        now,
        [user.email],
        `You now have access to "${book.title}"`,
        `Access to "${book.title}" was granted` + (p.expiration_date ? ` until ${isoTime(p.expiration_date)}.` : '.'),
        'access.allow',
      );
    }
    return ok({ message: 'Access granted.' });
  });
}

export function accessRevoke(c: HandlerCtx): HandlerResult<Promised<'access.revoke'>> {
  const { store, now } = c;
  const { book, user } = accessCommon(c);
  return store.tx(() => {
    if (!revokeGrant(store, user.id, book.id, now)) throw notFound('Purchase record not found');
    return ok({ message: 'Access revoked.' });
  });
}
