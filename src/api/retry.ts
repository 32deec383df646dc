// The one retry policy: nothing else in bookdist repeats a request (the attempt step of the
// request pipeline, src/api/client.ts, asks it after each failed send and each answer).
import type { ApiResponse } from './answer.js';

/** Network failures that mean the request never left: repeating it is always safe. */
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Did a send that failed with this code never leave (so it cannot have taken effect)? */
export function neverSent(code: string): boolean {
  return NOT_SENT.has(code);
}

export function hasIdempotencyKey(headers: Record<string, string> | undefined): boolean {
  return headers !== undefined && Object.keys(headers).some((h) => h.toLowerCase() === 'idempotency-key');
}

export interface RetryPolicy {
  /** May a request whose connection failed after sending (or that got 502/503/504) be repeated? */
  network: boolean;
  /** Retries after the first attempt (--retries). */
  retries: number;
}

/**
 * The one retry policy (at most --retries retries, so retries + 1 attempts):
 * - 429 always, waiting as Retry-After says;
 * - a connection that never opened (refused, no such host, connect timeout): always, nothing was sent;
 * - 502, 503, 504 and a connection lost after sending (`network`): for reads (GET), for writes the
 *   interface makes idempotent (an external order with an order_number), and for writes carrying
 *   an Idempotency-Key where the service honours it (`keysHonoured`);
 * - never a certificate or proxy failure, never another 4xx. A write whose answer was lost and
 *   that may not be repeated is reported as "outcome unknown".
 */
export function retryPolicy(
  o: { method: string; idempotent?: boolean; headers?: Record<string, string> },
  keysHonoured: boolean,
  retries: number,
): RetryPolicy {
  const keyed = hasIdempotencyKey(o.headers);
  return { network: o.method === 'GET' || o.idempotent === true || (keyed && keysHonoured), retries };
}

/** How long to wait before repeating a send that failed with `code`; undefined: give up. */
export function waitAfterFailure(policy: RetryPolicy, code: string, attempt: number): number | undefined {
  return (neverSent(code) || policy.network) && attempt < policy.retries ? backoff(attempt) : undefined;
}

/** How long to wait before repeating a request that got this answer; undefined: it is final. */
export function waitAfterAnswer(policy: RetryPolicy, res: ApiResponse, attempt: number): number | undefined {
  const retryable =
    res.status === 429 || (policy.network && (res.status === 502 || res.status === 503 || res.status === 504));
  if (!retryable || attempt >= policy.retries) return undefined;
  // As long as asked: the request's deadline (--timeout) decides whether the wait fits (client.ts).
  return retryAfterMs(res.headers['retry-after']) ?? backoff(attempt);
}

/** Exponential backoff with full jitter: base 250 ms, doubling, capped at 8 s. */
export function backoff(attempt: number): number {
  const ceiling = Math.min(8_000, 250 * 2 ** attempt);
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}

/** Retry-After as seconds or an HTTP date, in ms. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value) * 1000);
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : Math.max(0, t - now);
}
