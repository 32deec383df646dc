// The service's rules (interface.md + decisions.md): one handler per endpoint of the table,
// each write in one transaction. The rules live in domain/<area>.ts, the SQL they use in
// repo/<entity>.ts; this file is the table of handlers by endpoint name: one for each endpoint of
// the table (src/spec/endpoints.ts), and no other, each answering its endpoint's promised shape,
// or it does not compile. The book lookups are here; every other area is loaded with its first
// request (loadHandler), so that a command's embedded sandbox, which serves one lookup, neither
// loads nor compiles the orders, the users or the OpenAPI document (issue 31).
import { bookGet, bookIndex, bookIsbn, bookPricing, bookProcess, bookSearch, bookSku, bookViewer } from './books.js';
import { resultOf, type Handler, type HandlerCtx, type HandlerResult } from './context.js';
import { HttpError } from '../errors.js';
import type { EndpointName, Promised } from '../../spec/contract.js';

export { handlerCtx, isSharedAnswer, type HandlerCtx, type HandlerResult } from './context.js';
export { itemLiveFor } from './books.js';
export { bookByHash, userByUsername } from './lookups.js';
export { runWorker } from './queue.js';

/**
 * A handler for each endpoint of the table, answering what the table promises for it (the members
 * of its success answer, whole; the sandbox adds the envelope): a handler of the wrong shape, a
 * missing or an unknown endpoint does not compile (BOOKS and LATER together).
 */
type Handlers = { [N in EndpointName]: Handler<Promised<N>> };

/** The book lookups: in the sandbox's own chunk, ready from the start. */
const BOOKS = {
  'book.get': bookGet,
  'book.isbn': bookIsbn,
  'book.sku': bookSku,
  'book.pricing': bookPricing,
  'book.search': bookSearch,
  'book.index': bookIndex,
  'book.viewer': bookViewer,
  'book.process': bookProcess,
} satisfies Partial<Handlers>;

type Later = Exclude<EndpointName, keyof typeof BOOKS>;

/** Every other endpoint's handler, loaded with its area on the first request for it. */
const LATER = {
  index: () => import('./general.js').then((m) => m.index),
  profile: () => import('./general.js').then((m) => m.profile),
  describe: () => import('./general.js').then((m) => m.describe),
  openapi: () => import('./general.js').then((m) => m.openapi),
  'user.invite': () => import('./users.js').then((m) => (c: HandlerCtx) => m.createUser(c, true)),
  'user.create': () => import('./users.js').then((m) => (c: HandlerCtx) => m.createUser(c, false)),
  'user.get': () => import('./users.js').then((m) => m.userGet),
  'user.email': () => import('./users.js').then((m) => m.userByEmailHandler),
  'user.orders': () => import('./orders.js').then((m) => m.userOrders),
  'user.purchase': () => import('./orders.js').then((m) => m.purchaseLookup),
  'order.external': () => import('./orders.js').then((m) => m.orderExternal),
  'order.refund': () => import('./orders.js').then((m) => m.orderRefund),
  'order.free': () => import('./orders.js').then((m) => m.orderFree),
  'codes.generate': () => import('./codes.js').then((m) => m.codesGenerate),
  'codes.summary': () => import('./codes.js').then((m) => m.codesSummary),
  'import.search': () => import('./imports.js').then((m) => m.importSearch),
  'access.allow': () => import('./access.js').then((m) => m.accessAllow),
  'access.revoke': () => import('./access.js').then((m) => m.accessRevoke),
  offers: () => import('./storefront.js').then((m) => m.offers),
  checkout: () => import('./storefront.js').then((m) => m.checkout),
} satisfies { [N in Later]: () => Promise<Handler<Promised<N>>> };

/** The handlers this process has: the book lookups, and each other one once loaded. */
const loaded: Partial<Record<EndpointName, Handler>> = { ...BOOKS };

/** Is `name` an endpoint this table has a handler for? */
export function handles(name: string): name is EndpointName {
  return Object.hasOwn(BOOKS, name) || Object.hasOwn(LATER, name);
}

/**
 * Load the handler of endpoint `name` (its area's module) unless it is here already: undefined
 * then (nothing to wait for), else a promise that settles once runHandler can run it. Nothing for
 * a name the table does not have (runHandler answers it 404).
 */
export function loadHandler(name: string): Promise<void> | undefined {
  if (!handles(name) || loaded[name]) return undefined;
  return LATER[name as Later]().then((h) => {
    loaded[name] = h;
  });
}

/** Load every handler (fixtures, tests: callers that run handlers outside a request). */
export async function loadHandlers(): Promise<void> {
  await Promise.all(Object.keys(LATER).map(async (name) => loadHandler(name)));
}

/** Run the handler of endpoint `name` (at `path`) in `ctx`: its answer in one shape, or a 404 when the table has none. */
export function runHandler(name: string, path: string, ctx: HandlerCtx): HandlerResult {
  if (!handles(name)) throw new HttpError(404, `The sandbox does not implement ${name} (${path}).`);
  const handler = loaded[name];
  // A bug of the caller's, never a request's: every path that runs a handler loads it first.
  if (!handler) throw new Error(`The handler of ${name} is not loaded: await loadHandler('${name}') first.`);
  return resultOf<Record<string, unknown>>(handler(ctx));
}
