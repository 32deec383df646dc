// The service's rules (interface.md + decisions.md): one handler per endpoint of the table,
// each write in one transaction. The rules live in domain/<area>.ts, the SQL they use in
// repo/<entity>.ts; this file is the table of handlers by endpoint name: one for each endpoint of
// the table (src/spec/endpoints.ts), and no other, each answering its endpoint's promised shape,
// or it does not compile.
import { accessAllow, accessRevoke } from './access.js';
import { bookGet, bookIndex, bookIsbn, bookPricing, bookProcess, bookSearch, bookSku, bookViewer } from './books.js';
import { codesGenerate, codesSummary } from './codes.js';
import { resultOf, type Handler, type HandlerCtx, type HandlerResult } from './context.js';
import { HttpError } from '../errors.js';
import type { EndpointName, Promised } from '../../spec/contract.js';
import { describe, index, openapi, profile } from './general.js';
import { importSearch } from './imports.js';
import { orderExternal, orderFree, orderRefund, purchaseLookup, userOrders } from './orders.js';
import { checkout, offers } from './storefront.js';
import { createUser, userByEmailHandler, userGet } from './users.js';

export { handlerCtx, isSharedAnswer, resultOf, type HandlerCtx, type HandlerResult } from './context.js';
export { itemLiveFor } from './books.js';
export { redeemCode } from './codes.js';
export { bookByHash, userByUsername } from './lookups.js';
export { runWorker } from './queue.js';

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

/** Run the handler of endpoint `name` (at `path`) in `ctx`: its answer in one shape, or a 404 when the table has none. */
export function runHandler(name: string, path: string, ctx: HandlerCtx): HandlerResult {
  if (!handles(name)) throw new HttpError(404, `The sandbox does not implement ${name} (${path}).`);
  return resultOf<Record<string, unknown>>(HANDLERS[name](ctx));
}
