// The service's rules (interface.md + decisions.md): one handler per endpoint of the table,
// each write in one transaction. The rules live in domain/<area>.ts, the SQL they use in
// repo/<entity>.ts; this file is the table of handlers by endpoint name: one for each endpoint of
// the table (src/spec/endpoints.ts), and no other, each answering its endpoint's promised shape,
// or it does not compile.
import { accessAllow, accessRevoke } from './domain/access.js';
import {
  bookGet,
  bookIndex,
  bookIsbn,
  bookPricing,
  bookProcess,
  bookSearch,
  bookSku,
  bookViewer,
} from './domain/books.js';
import { codesGenerate, codesSummary } from './domain/codes.js';
import type { Handler } from './domain/context.js';
import type { EndpointName, Promised } from '../spec/contract.js';
import { describe, index, openapi, profile } from './domain/general.js';
import { importSearch } from './domain/imports.js';
import { orderExternal, orderFree, orderRefund, purchaseLookup, userOrders } from './domain/orders.js';
import { checkout, offers } from './domain/storefront.js';
import { createUser, userByEmailHandler, userGet } from './domain/users.js';

export type { HandlerCtx, HandlerResult } from './domain/context.js';
export { itemLiveFor } from './domain/books.js';
export { redeemCode } from './domain/codes.js';
export { bookByHash, userByUsername } from './domain/lookups.js';
export { runWorker } from './domain/queue.js';

/**
 * A handler for each endpoint of the table, answering what the table promises for it (the members
 * of its success answer, whole; the sandbox adds the envelope): a handler of the wrong shape, a
 * missing or an unknown endpoint does not compile.
 */
export type Handlers = { [N in EndpointName]: Handler<Promised<N>> };

export const HANDLERS = {
  index,
  profile,
  describe,
  openapi,
  'book.get': bookGet,
  'book.isbn': bookIsbn,
  'book.sku': bookSku,
  'book.pricing': bookPricing,
  'book.search': bookSearch,
  'book.index': bookIndex,
  'book.viewer': bookViewer,
  'book.process': bookProcess,
  'user.invite': (c) => createUser(c, true),
  'user.create': (c) => createUser(c, false),
  'user.get': userGet,
  'user.email': userByEmailHandler,
  'user.orders': userOrders,
  'user.purchase': purchaseLookup,
  'order.external': orderExternal,
  'order.refund': orderRefund,
  'order.free': orderFree,
  'codes.generate': codesGenerate,
  'codes.summary': codesSummary,
  'import.search': importSearch,
  'access.allow': accessAllow,
  'access.revoke': accessRevoke,
  offers,
  checkout,
} satisfies Handlers;

/** Is `name` an endpoint this table has a handler for? */
export function handles(name: string): name is EndpointName {
  return Object.hasOwn(HANDLERS, name);
}
