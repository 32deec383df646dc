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

export interface HandlerResult {
  status?: number;
  body: Record<string, unknown>;
  /** Send `body` as it is, without the envelope (the OpenAPI document). */
  raw?: boolean;
  headers?: Record<string, string>;
}

export type Handler = (c: HandlerCtx) => HandlerResult | Record<string, unknown>;

export const ok = (body: Record<string, unknown>, status = 200): HandlerResult => ({ status, body });
