// The client's one place for a write hook (the ledger, issue 34): a request that may change the
// service is announced before its first attempt, and its final verdict after the last (the
// answer `accept` passed, or the error the request ended in). The hook decides what is a write
// (it gets every non-GET request) and must have written its record before `before` resolves: the
// client sends nothing until then. src/ledger/ implements it; connect.ts hands it to the client.
import { CliError, ExitCode } from '../errors.js';
import type { ApiResponse } from './answer.js';
import { neverSent } from './retry.js';

export interface WriteRequest {
  /** The endpoint's name in src/spec/endpoints.ts; undefined for a raw request (`bookdist api`). */
  endpoint?: string;
  method: string;
  /** The path as sent (encoded), without the query. */
  path: string;
  /** The parsed `request` object (POST), or the query. */
  payload?: Record<string, unknown>;
  /** The request headers as sent: only Idempotency-Key is read. */
  headers: Record<string, string>;
}

/** The client's final verdict on a write (after its retries). */
export interface WriteVerdict {
  status: 'done' | 'failed' | 'unknown';
  /** The HTTP status of the last answer, when there was one. */
  http?: number;
  /** The parsed body of the last answer (the hook keeps only identifiers from it). */
  body?: unknown;
  /** Why it failed or is unknown, in a few words. */
  reason?: string;
}

export interface WriteTicket {
  /** The record's id, for messages (`bookdist ledger show ID`). */
  id: string;
  after(verdict: WriteVerdict): void;
}

export interface WriteHook {
  /** Undefined: not a write, or not recorded. Resolves once the intent is durable. */
  before(req: WriteRequest): Promise<WriteTicket | undefined> | WriteTicket | undefined;
  /**
   * Writes about to be made (a bulk job's next items), told before any of them is: the hook may
   * record their intents now, durable together, and answer `before` for each at once later. One
   * that is never made (the job stopped first) is recorded as not sent when the command ends.
   */
  ahead?(reqs: WriteRequest[]): void;
}

/**
 * A write's verdict from the answer it got: done only for a 2xx JSON answer that does not say
 * `success: false`; a 4xx, 429 or 503 is a refusal (nothing was done); a redirect, another 5xx
 * or an answer that is not the interface's (HTML, text, empty) leaves the outcome unknown.
 */
export function verdictOf(res: ApiResponse): WriteVerdict {
  const http = res.status;
  if (http >= 200 && http < 300) {
    if (res.format === 'json' && res.body && typeof res.body === 'object' && res.body.success !== false)
      return { status: 'done', http, body: res.body };
    return {
      status: 'unknown',
      http,
      reason: `the answer was not the interface's (${res.format === 'json' ? 'success: false' : `${res.format} body, ${res.headers['content-type'] ?? 'no content type'}`})`,
    };
  }
  if (http >= 400 && http < 500) return { status: 'failed', http, body: res.body };
  if (http === 503) return { status: 'failed', http, body: res.body };
  return {
    status: 'unknown',
    http,
    reason: http >= 300 && http < 400 ? `redirected (${res.headers.location ?? 'no Location'})` : `HTTP ${http}`,
  };
}

/**
 * Record a write that ended in an error: failed when it was never sent (a refused connection, a
 * certificate or proxy problem, a set-up error), unknown when it may have reached the service (a
 * connection lost after sending, a timeout, an interrupt). An unknown write's error names its
 * ledger record and `bookdist ledger reconcile`.
 */
export function settleThrown(ticket: WriteTicket, e: unknown): unknown {
  const err = e as
    | { name?: string; message?: string; details?: Record<string, unknown>; exitCode?: number; status?: number }
    | undefined;
  const code = typeof err?.details?.code === 'string' ? err.details.code : undefined;
  const lostAfterSending = err?.exitCode === ExitCode.UNAVAILABLE && !(code && neverSent(code));
  const unknown =
    err?.details?.outcome === 'unknown' ||
    lostAfterSending ||
    err?.name === 'AbortError' ||
    err?.name === 'TimeoutError';
  // The client's verification (verify.ts) threw: an answer came, but not the interface's.
  const unverified = err?.name === 'UnverifiedAnswer';
  // Stryker disable next-line OptionalChaining: equivalent, detail is read only for an UnverifiedAnswer (below), so err is there
  const detail = (k: string) => (typeof err?.details?.[k] === 'string' ? err.details[k] : undefined);
  const why = unverified
    ? `the answer was not the interface's (${detail('problem') ?? `redirected to ${detail('location') ?? 'no Location'}`})`
    : String(err?.message ?? e);
  ticket.after({
    status: unknown ? 'unknown' : 'failed',
    // Stryker disable next-line ConditionalExpression: → true is equivalent (an `http` member left undefined is not written in the ledger's JSON line); → false is killed (write-hook.test.ts, a status 0) and disabled with it
    ...(typeof err?.status === 'number' ? { http: err.status } : {}),
    reason: why.split('\n')[0].slice(0, 200),
  });
  if (!unknown || !(e instanceof CliError)) return e;
  // The error's own sentence is ended before another is added ("… (ECONNRESET). The request …").
  const ended = /[.!?]$/.test(e.message) ? e.message : `${e.message}.`;
  const said = /outcome is unknown/.test(e.message)
    ? ''
    : ' The request may have reached the service: its outcome is unknown.';
  return new CliError(
    `${ended}${said} It is write ${ticket.id} in the ledger: \`bookdist ledger reconcile\` settles it (\`bookdist ledger show ${ticket.id}\`).`,
    e.exitCode,
    { ...e.details, outcome: 'unknown', ledger_id: ticket.id },
    e.status,
  );
}
