// One request of a bulk job, classified so that the job can record what failed and go on. The
// retries are the client's (src/api/retry.ts: one policy, applied once per request, honouring
// Retry-After); the job never repeats a request the client already retried, so `--retries 3` on a
// service answering 429 sends 4 requests, not 16. What still fails after the client's retries
// comes back as a Failure (`unavailable` for 429/502/503/504 and network failures), never thrown.
import type { ApiClient } from '../api/client.js';
import type { ArgsOf, CallOptions as ApiCallOptions } from '../api/options.js';
import type { Answer, CallArgs, EndpointName, ErrorBody } from '../spec/contract.js';
import type { ApiResponse } from '../api/answer.js';
import { toApiError } from '../api/errors.js';
import { ExitCode, messageOf } from '../errors.js';

export interface Failure {
  /** `unavailable`: 429/503/network after retries (retrying later may work); `error`: the service refused. */
  kind: 'unavailable' | 'error';
  /** `unknown`: a write whose answer was lost or is not the one the interface promises: it may have taken effect. */
  outcome?: 'unknown';
  status?: number;
  message: string;
  exitCode: number;
  body?: unknown;
}

/** What one call of endpoint `N` came to: its answer (a 4xx included), or a failure. */
export type Outcome<N extends EndpointName = EndpointName> =
  | { ok: true; response: ApiResponse<Answer<N> | ErrorBody> }
  | { ok: false; failure: Failure; interrupted?: boolean };

/**
 * The client's call options a job gives: headers (an Idempotency-Key), its interrupt as `signal` (a
 * request that failed after it fired is reported as interrupted), and the request's own limit under
 * --timeout (JobSpec.requestTimeout).
 */
export type CallOptions = Pick<ApiCallOptions, 'headers' | 'signal' | 'timeout'>;

function isTransientStatus(status: number): boolean {
  return status === 429 || status === 503 || status === 502 || status === 504;
}

/**
 * Call an endpoint once (with the client's retries); verified answers and 4xx answers are
 * returned as they are (the caller decides what a 4xx means, e.g. "already has access"); a
 * transient answer or a network failure that outlasted the client's retries is returned as an
 * `unavailable` failure; an answer that is not the promised one is an `error` failure (a write's
 * with `outcome: 'unknown'`).
 * No signal reaches the request: one in flight is never aborted (its result must be recorded).
 */
export async function callOnce<N extends EndpointName>(
  api: ApiClient,
  name: N,
  args: CallArgs<N>,
  opts: CallOptions = {},
): Promise<Outcome<N>> {
  let res: ApiResponse<Answer<N> | ErrorBody>;
  try {
    // Whether a request carrying an Idempotency-Key may be repeated is the client's policy's call
    // (where the service honours keys); the job adds nothing to it.
    res = await api.call(name, ...([{ ...args, headers: opts.headers, timeout: opts.timeout }] as ArgsOf<N>));
  } catch (thrown) {
    const err = thrown as
      | { name?: unknown; message?: unknown; exitCode?: number; details?: { outcome?: unknown } }
      | null
      | undefined;
    if (err?.name === 'DryRun') throw thrown;
    const outcome = err?.details?.outcome === 'unknown' ? ({ outcome: 'unknown' } as const) : {};
    if (err?.exitCode !== undefined && err.exitCode !== ExitCode.UNAVAILABLE) {
      // Not a network failure (e.g. a bad key, an answer that is not the promised one): the service's word.
      return {
        ok: false,
        failure: { kind: 'error', message: String(err.message), exitCode: err.exitCode, ...outcome },
      };
    }
    // Interrupted meanwhile: not a failure of the item, which --resume sends again.
    return {
      ok: false,
      failure: { kind: 'unavailable', message: messageOf(thrown), exitCode: ExitCode.UNAVAILABLE },
      interrupted: Boolean(opts.signal?.aborted),
    };
  }
  if (!isTransientStatus(res.status)) return { ok: true, response: res };
  const e = toApiError(res);
  return {
    ok: false,
    failure: {
      kind: 'unavailable',
      status: res.status,
      message: e.message,
      exitCode: ExitCode.UNAVAILABLE,
      body: res.body,
    },
  };
}

/** The failure of a 4xx answer in the same shape. */
export function failureOf(res: ApiResponse): Failure {
  const e = toApiError(res);
  return { kind: 'error', status: res.status, message: e.message, exitCode: e.exitCode, body: res.body };
}
