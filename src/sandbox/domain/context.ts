// What every handler of the service receives and returns.
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
