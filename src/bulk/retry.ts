// Job-level retries for bulk work. The HTTP client already retries 429 (honouring Retry-After)
// and refused connections; here a bulk job also retries 503, dropped connections and timeouts,
// with exponential backoff and jitter, and classifies what finally failed so the job can record
// it and go on.
//
// Repeating a request after a dropped connection or a timeout is only safe when a repeat cannot
// do harm. Every bulk caller in bookdist has that property (lookups and processing are
// idempotent; access allow/revoke answer "already" on a repeat), except code generation, where a
// request whose response was lost may have generated codes that were never delivered. We still
// retry it (there is no idempotency key, so failing instead would not recover those codes
// either), and report such "uncertain" retries so the caller can reconcile with the code summary.
import type { ApiClient, ApiResponse } from '../api/client.js';
import { backoff, retryAfterMs, toApiError } from '../api/client.js';
import { ExitCode } from '../errors.js';

export interface Failure {
  /** `unavailable`: 429/503/network after retries (retrying later may work); `error`: the service refused. */
  kind: 'unavailable' | 'error';
  status?: number;
  message: string;
  exitCode: number;
  body?: any;
}

/** Network error codes that mean the request never reached the service. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

export interface RetryOptions {
  /** Retries after the first attempt (the global --retries). */
  retries: number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Aborting stops waiting between attempts (the request in flight is never aborted). */
  signal?: AbortSignal;
  /** Extra request headers (e.g. Idempotency-Key). */
  headers?: Record<string, string>;
  /** Called before each retry. `uncertain`: the previous attempt may have been processed. */
  onRetry?: (info: { attempt: number; reason: string; uncertain: boolean; waitMs: number }) => void;
}

export type Outcome = { ok: true; response: ApiResponse; uncertainRetries: number } | { ok: false; failure: Failure; uncertainRetries: number; interrupted?: boolean };

function isTransientStatus(status: number): boolean {
  return status === 429 || status === 503 || status === 502 || status === 504;
}

/**
 * Call an endpoint; 2xx/3xx and 4xx answers are returned as they are (the caller decides what a
 * 4xx means, e.g. "already has access"). Transient failures are retried; when retries run out,
 * or the signal fires while waiting, the failure is returned, never thrown.
 */
export async function callWithRetry(
  api: ApiClient,
  name: string,
  args: { params?: Record<string, string | number>; payload?: Record<string, unknown> },
  opts: RetryOptions,
): Promise<Outcome> {
  let uncertainRetries = 0;
  for (let attempt = 0; ; attempt++) {
    let res: ApiResponse | undefined;
    let failure: Failure;
    let uncertain = false;
    let waitHint: number | undefined;
    try {
      // idempotent:false keeps the client's own 503/reset retries out of the way: this loop owns them.
      // No signal: a request in flight is never aborted (its result must be recorded).
      res = await api.call(name, { ...args, idempotent: false, headers: opts.headers });
    } catch (err: any) {
      if (err?.name === 'DryRun') throw err;
      const code: string = err?.details?.code ?? err?.code ?? '';
      uncertain = !NOT_SENT.has(code);
      failure = { kind: 'unavailable', message: String(err?.message ?? err), exitCode: ExitCode.UNAVAILABLE };
      if (err?.exitCode !== undefined && err.exitCode !== ExitCode.UNAVAILABLE) {
        // Not a network failure (e.g. a bad key): no point retrying.
        return { ok: false, failure: { kind: 'error', message: String(err.message), exitCode: err.exitCode }, uncertainRetries };
      }
    }
    if (res) {
      if (!isTransientStatus(res.status)) return { ok: true, response: res, uncertainRetries };
      const e = toApiError(res);
      failure = { kind: 'unavailable', status: res.status, message: e.message, exitCode: ExitCode.UNAVAILABLE, body: res.body };
      waitHint = retryAfterMs(res.headers['retry-after']);
      // A 502/504 comes from a gateway that may have passed the request on.
      uncertain = res.status === 502 || res.status === 504;
    }
    if (attempt >= opts.retries) return { ok: false, failure: failure!, uncertainRetries };
    const waitMs = Math.min(60_000, waitHint ?? backoff(attempt));
    if (uncertain) uncertainRetries++;
    opts.onRetry?.({ attempt: attempt + 1, reason: failure!.message, uncertain, waitMs });
    try {
      await opts.sleep(waitMs, opts.signal);
    } catch {
      return { ok: false, failure: failure!, uncertainRetries, interrupted: true };
    }
    if (opts.signal?.aborted) return { ok: false, failure: failure!, uncertainRetries, interrupted: true };
  }
}

/** The failure of a 4xx answer in the same shape. */
export function failureOf(res: ApiResponse): Failure {
  const e = toApiError(res);
  return { kind: 'error', status: res.status, message: e.message, exitCode: e.exitCode, body: res.body };
}

/**
 * The exit code of a finished bulk job: 0 when nothing failed; 7 when everything that failed
 * failed because the service stayed unavailable (retrying the job later may work); 6 otherwise.
 */
export function bulkExitCode(failures: Array<Pick<Failure, 'kind'>>, extraPartial = false): number {
  if (!failures.length) return extraPartial ? ExitCode.PARTIAL : ExitCode.OK;
  if (!extraPartial && failures.every((f) => f.kind === 'unavailable')) return ExitCode.UNAVAILABLE;
  return ExitCode.PARTIAL;
}
