// The `exchange` step of the request pipeline (client.ts): send and read the answer, repeating as
// the retry policy allows (retry.ts), all within one deadline (--timeout: the attempts, the bodies
// and the waits). Returns the final answer, whatever its status; a send that failed for good
// becomes an error (send-failure.ts).
import { formatDuration } from '../util/duration.js';
import { ExitCode, CliError } from '../errors.js';
import { truncate } from '../util/quote.js';
import { MAX_BODY_BYTES, type HttpHandler } from './handler.js';
import { bodyTooLarge, isWrite } from './verify.js';
import { parseResponse, type ApiResponse, type RequestInfo } from './answer.js';
import { statusText } from './errors.js';
import { retryPolicy, waitAfterAnswer, waitAfterFailure } from './retry.js';
import { failureCode, sendFailed, unmendable, type SendFailure } from './send-failure.js';
import { redact, redactHeaders, redactRequestText } from './wire.js';
import { pathOf } from './prepare.js';
import type { ClientOptions, Prepared, RequestOptions } from './options.js';

/** What sends: the client's options, its handler and how it waits. */
export interface Sender {
  readonly opts: ClientOptions;
  readonly handler: HttpHandler;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/**
 * Send and read the answer, repeating as the retry policy allows (retry.ts). Returns the final
 * answer, whatever its status; throws when no answer came (send-failure.ts says what it means).
 */
export async function exchange(s: Sender, o: RequestOptions, p: Prepared): Promise<ApiResponse> {
  const { opts } = s;
  const trace = (line: string) => opts.debug?.(line);
  const policy = retryPolicy(o, opts.idempotencyKeys === true, opts.retries);
  const info: RequestInfo = { method: p.method, url: p.url };
  // One deadline for the request: every attempt, its answer's body and every wait fit in it.
  const limit = Math.min(opts.timeout, o.timeout ?? Infinity);
  const deadline = Date.now() + limit;
  for (let attempt = 0; ; attempt++) {
    const started = Date.now();
    traceRequest(opts, p, attempt);
    let res: ApiResponse;
    try {
      res = await send(s.handler, p, info, o.signal, deadline - started);
    } catch (caught) {
      if (o.signal?.aborted) throw caught;
      const err = caught as (SendFailure & { status?: number; contentType?: string }) | undefined;
      trace(
        `← ${err?.name === 'TimeoutError' ? 'timeout' : failureCode(err) || err?.message} (${Date.now() - started} ms)`,
      );
      const failure = unmendable(err, info, opts.ca?.file);
      if (failure) throw failure; // a certificate, proxy or set-up problem: never retried
      if (failureCode(err) === 'ERR_BODY_TOO_LARGE')
        // Stryker disable next-line OptionalChaining: equivalent, that code came from `err`, so `err` is there
        throw bodyTooLarge(info, writes(o), `${MAX_BODY_BYTES / 1024 / 1024} MiB`, err?.status, err?.contentType);
      const wait = waitAfterFailure(policy, failureCode(err), attempt);
      // A wait that cannot fit before the deadline: the failure as it stands is the answer.
      if (wait === undefined || Date.now() + wait >= deadline) throw sendFailed(err, info, policy, attempt, limit);
      await waitBeforeRetry(s, o, info, wait, 'backoff', 'the connection failed', attempt, policy.retries);
      continue;
    }
    // Built only under --debug: redacting and serialising a whole answer (a page of 500 books) to keep 2,000
    // characters of it was a fifth of `book list --all`'s CPU.
    // Stryker disable next-line ConditionalExpression: accepted, speed only: without --debug `trace` writes nothing either way
    if (opts.debug)
      trace(
        `← ${res.status} (${Date.now() - started} ms) ${truncate(JSON.stringify(redact(res.body, opts.debugFull, true)), 2000)}`,
      );
    const wait = waitAfterAnswer(policy, res, attempt);
    if (wait === undefined) return res;
    const asked = res.headers['retry-after'];
    const name = statusText(res.status);
    const named = name
      ? ` (${name})`
      : // Stryker disable next-line StringLiteral: equivalent, every status the policy repeats (429, 502, 503, 504) has a name
        '';
    const why = `the service answered ${res.status}${named}${asked ? ` with Retry-After: ${asked}` : ''}`;
    if (Date.now() + wait >= deadline) throw waitTooLong(opts, info, why, wait, limit, deadline, attempt, res);
    await waitBeforeRetry(s, o, info, wait, asked ? 'Retry-After' : 'backoff', why, attempt, policy.retries);
  }
}

/** Wait before retry `attempt + 1`; a wait over a second is announced (stderr), so a pause is never silent. */
async function waitBeforeRetry(
  s: Sender,
  o: RequestOptions,
  info: RequestInfo,
  wait: number,
  kind: string,
  why: string,
  attempt: number,
  retries: number,
): Promise<void> {
  if (wait > 1000)
    s.opts.notice?.(
      `${info.method} ${pathOf(info.url)}: ${why}; waiting ${formatDuration(wait)} (${kind}) before retry ${attempt + 1} of ${retries}.`,
    );
  await s.sleep(wait, o.signal);
}

/** A wait the deadline cannot hold: the request ends now (exit 7), naming the wait. */
function waitTooLong(
  opts: ClientOptions,
  info: RequestInfo,
  why: string,
  wait: number,
  limit: number,
  deadline: number,
  attempt: number,
  res: ApiResponse,
): CliError {
  const left = Math.max(0, deadline - Date.now());
  const timeout = opts.timeoutText ?? formatDuration(limit);
  return new CliError(
    `${info.method} ${info.url}: ${why}; waiting ${formatDuration(wait)} before retry ${attempt + 1} does not fit in what is left of --timeout ${timeout} ` +
      `(${formatDuration(left)}), so bookdist stops now rather than wait. Try again later, or raise --timeout (it bounds a request with its retries and waits).`,
    ExitCode.UNAVAILABLE,
    { wait_ms: wait, timeout_ms: limit, attempts: attempt + 1 },
    res.status,
  );
}

/** --debug: the request line, its headers (redacted) and its request text (redacted). */
function traceRequest(opts: ClientOptions, p: Prepared, attempt: number): void {
  opts.debug?.(`→ ${p.method} ${p.url}` + (attempt ? ` (retry ${attempt})` : ''));
  if (!opts.debug) return;
  for (const [k, v] of Object.entries(redactHeaders(p.headers))) opts.debug(`  ${k}: ${v}`);
  if (p.requestText !== undefined) opts.debug(`  request=${redactRequestText(p.requestText, opts.debugFull)}`);
}

/** One attempt: the request sent by the handler, its answer read within `ms`. */
async function send(
  handler: HttpHandler,
  p: Prepared,
  info: RequestInfo,
  signal: AbortSignal | undefined,
  ms: number,
): Promise<ApiResponse> {
  const timeout = AbortSignal.timeout(Math.max(1, ms));
  const res = await handler.send({
    url: p.url,
    method: p.method,
    headers: p.headers,
    body: p.body,
    signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
  });
  const parsed = parseResponse(res.status, res.headers, res.text, info);
  parsed.head = res.text.slice(0, 200);
  if (res.tls) parsed.tls = res.tls;
  return parsed;
}

/** Does this request change something on the service (an unverified answer leaves it unknown)? */
function writes(o: RequestOptions): boolean {
  return o.endpoint ? isWrite(o.endpoint.name) : o.method !== 'GET';
}
