// What every handler of the service receives and returns, made in one place for the service,
// the pages and fixtures alike.
import type { Caller } from '../auth.js';
import type { Store } from '../db/store.js';
import type { Payload } from '../validate.js';

export interface HandlerCtx {
  store: Store;
  caller?: Caller;
  payload: Payload;
  params: Record<string, string>;
  query: URLSearchParams;
  now: number;
  /** `scheme://host:port` of the bound address or the configured public URL (never the Host header). */
  origin: string;
  /** Poke the processing worker (a book was queued). */
  queued(): void;
  /** The request's Idempotency-Key header, if any (honoured by code generation and free orders). */
  idempotencyKey?: string;
}

export interface HandlerResult<B = Record<string, unknown>> {
  status?: number;
  body: B;
  /** Send `body` as it is, without the envelope (the OpenAPI document). */
  raw?: boolean;
  headers?: Record<string, string>;
}

/** A handler whose success answer's members are `B` (the sandbox adds the envelope). */
export type Handler<B = Record<string, unknown>> = (c: HandlerCtx) => HandlerResult<B> | B;

export const ok = <B>(body: B, status = 200): HandlerResult<B> => ({ status, body });

/** Answers (bodies) that handlers give out again and again, unchanged: their text is made once. */
const shared = new WeakSet<object>();

/**
 * Mark a body that a handler keeps and returns as it is to later requests (a memo of the store):
 * the service then sends the text it made of it the first time. Never change it afterwards.
 */
export function sharedAnswer<B extends object>(body: B): B {
  shared.add(body);
  return body;
}

/** True for a body marked with `sharedAnswer`. */
// Stryker disable next-line BlockStatement: speed only: a body not known as shared is made into text afresh, the same text
export function isSharedAnswer(body: object): boolean {
  return shared.has(body);
}

/** What a caller of a handler gives; the store's clock gives `now`, and params and query default to none. */
export type HandlerInput = Omit<HandlerCtx, 'store' | 'now' | 'params' | 'query'> &
  Partial<Pick<HandlerCtx, 'params' | 'query'>>;

/** The context of one call of a handler: `now` read once from the store's clock unless given. */
export function handlerCtx(store: Store, input: HandlerInput, now = store.now()): HandlerCtx {
  return { store, now, params: {}, query: new URLSearchParams(), ...input };
}

/** A handler's answer in one shape: `{ status?, body }` (a handler may return its body alone). */
export function resultOf<B>(out: HandlerResult<B> | B): HandlerResult<B> {
  // Every handler returns an object: its result, or its body alone (which has no member `body`).
  const { body } = out as { body?: unknown };
  return typeof body === 'object' && body !== null ? (out as HandlerResult<B>) : { body: out as B };
}
