// The thin HTTP core: one keep-alive pool per origin (transport.ts), signing (wire.ts), timeouts,
// the one retry policy (retry.ts), and one answer shape (answer.ts) and error shape (errors.ts).
//
// `request` is a pipeline of named steps, in this order:
//   prepare         the exact method, URL, headers and body, signed (wire.ts)
//   refuseBadHeaders a header value with a control character (or a character HTTP cannot carry)
//                   is refused unsent (exit 2): it would end the header early, or Node would throw
//   refuseUnsigned  a request that needs a signature, with no credentials at all, is refused unsent
//   dryRun          --dry-run: check the payload, print the curl line (curl.ts), throw DryRun
//   traceRoute      --debug: the route (proxy or direct) and the extra CA certificates
//   exchange        send and read the answer (answer.ts; a body over 64 MiB is refused), repeating
//                   as the retry policy allows (retry.ts), all within one deadline (--timeout: the
//                   attempts, the bodies and the waits); a send that failed for good becomes an
//                   error (send-failure.ts)
//   accept          the final answer, whatever its status: onResponse (the TEST MODE notice), then
//                   for a call of the table the verdict (verify.ts): `done`, `failed` (4xx/5xx), or
//                   an UnverifiedAnswer thrown (a read's `failed`, a write's `unknown`), carrying
//                   the answer; a raw call (`bookdist api`) gets the checks that apply when no
//                   command reads the answer's members
// `call` looks an endpoint up in the table (src/spec/endpoints.ts) and hands `request` its
// method, path, auth, host and `endpoint`; `ok` throws the ApiError (errors.ts) of a 4xx/5xx.
//
// Seams for what is built on this:
// - Verified answers (issue 28): `accept` checks every final answer of a call against the
//   endpoint's documented response (verify.ts); `ApiResponse.verdict` and UnverifiedAnswer.verdict
//   say done / failed / unknown.
// - The write ledger (each write's intent recorded before it is sent, its outcome after):
//   `exchange` is the one place a request is sent; a hook around that call in `request` records
//   the intent before it and the outcome after it (the accepted answer, or the error it threw).
import { HttpTransport } from './transport.js';
import type { Route, Env, Pin } from './network.js';
import { MAX_BODY_BYTES, type HttpHandler } from './handler.js';
import { bodyTooLarge, isWrite, verifyAnswer, verifyRaw } from './verify.js';
import { formatDuration } from '../util/duration.js';
import { ExitCode, CliError } from '../errors.js';
import { quoteValue, truncate } from '../util/quote.js';
import { endpoint as lookupEndpoint, type Endpoint } from '../spec/endpoints.js';
import type { Answer, CallArgs, EndpointName, ErrorBody } from '../spec/contract.js';
import { parseResponse, type ApiResponse, type RequestInfo } from './answer.js';
import { DryRun, statusText, toApiError, UnverifiedAnswer } from './errors.js';
import { hasIdempotencyKey, retryPolicy, waitAfterAnswer, waitAfterFailure } from './retry.js';
import { failureCode, sendFailed, unmendable, type SendFailure } from './send-failure.js';
import { curlLine } from './curl.js';
import { settleThrown, verdictOf, type WriteHook, type WriteTicket } from './write-hook.js';
import {
  authHeaders,
  fillPath,
  formBody,
  pythonJson,
  redact,
  redactHeaders,
  redactRequestText,
  type Credentials,
} from './wire.js';

export interface ClientOptions {
  baseUrl: string;
  /** Price comparison host; defaults to baseUrl. */
  storeUrl?: string;
  /** Partner credentials (crypto or shared key). */
  credentials: Credentials;
  /** Operator token for the access-control API; falls back to `credentials`. */
  accessToken?: string;
  /**
   * The deadline of a request, ms: its attempts, the reading of each answer's body and the waits
   * between them (backoff, Retry-After) all fit in it (--timeout).
   */
  timeout: number;
  /** How --timeout was written, for messages (`2s`); else the duration of `timeout`. */
  timeoutText?: string;
  /** Notices for people (stderr): each wait before a retry longer than a second is announced here. */
  notice?: (line: string) => void;
  /** Retries after the first attempt. */
  retries: number;
  /** Trace requests/responses (redacted) here. */
  debug?: (line: string) => void;
  /**
   * A request that needs a signature, with no credentials at all, is refused before sending
   * (a service, not the embedded sandbox).
   */
  signedOnly?: boolean;
  /** Send credentials to the store host too when it is not the base URL's origin (asked for explicitly). */
  storeCredentials?: boolean;
  /** --debug shows redemption codes and passwords in full (BOOKDIST_DEBUG_BODIES=full). */
  debugFull?: boolean;
  /** Print requests as curl lines here instead of sending them. */
  dryRun?: (line: string) => void;
  /** With dryRun: check the payload against the service's OpenAPI document first; throws to refuse it. */
  checkPayload?: (req: PayloadToCheck) => Promise<void>;
  /** Called with every parsed JSON body (used for the TEST MODE notice). */
  onResponse?: (res: ApiResponse) => void;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Max keep-alive connections per origin. */
  connections?: number;
  userAgent?: string;
  /** What sends the requests; the node transport when not given. */
  handler?: HttpHandler;
  /** Proxy settings (HTTPS_PROXY, HTTP_PROXY, NO_PROXY...) are read from here. */
  env?: Env;
  /** More trusted CA certificates (PEM text of --ca-file), and where they came from. */
  ca?: { pem: string; file: string };
  /** --resolve (or BOOKDIST_RESOLVE): host names pinned to addresses, and where they came from. */
  pins?: { pins: Pin[]; from: string };
  /**
   * The service honours Idempotency-Key (the sandbox does; another service only where its
   * profile says so): writes carrying one are retried like reads.
   */
  idempotencyKeys?: boolean;
  /** Told of every write before it is sent and of its verdict after (the ledger; write-hook.ts). */
  writeHook?: WriteHook;
}

/** What --dry-run checks before printing a request. */
export interface PayloadToCheck {
  method: 'GET' | 'POST';
  path: string;
  host: 'api' | 'store';
  /** The `request` text (POST). */
  requestText?: string;
}

export interface RequestOptions {
  method: 'GET' | 'POST';
  /** Path (already encoded, see fillPath) relative to the host. */
  path: string;
  /** POST: the `request` payload object. GET: ignored (use query). */
  payload?: Record<string, unknown>;
  /** Raw `request` text to send verbatim (for `bookdist api --input`). */
  requestText?: string;
  query?: Record<string, string | number | boolean | undefined | null>;
  auth?: 'partner' | 'access' | 'none';
  host?: 'api' | 'store';
  /** Retry 503s and dropped connections too (429 and refused connects are always retried). */
  idempotent?: boolean;
  accept?: string;
  /** Extra request headers (e.g. Idempotency-Key). They cannot replace the auth headers. */
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** The endpoint of the table this request calls (set by `call`; `bookdist api` sends raw paths). */
  endpoint?: Endpoint;
  /** A raw call (`bookdist api`): its answer gets the checks that apply when no command reads its members (verify.ts verifyRaw). */
  raw?: boolean;
}

/** What any call may add to an endpoint's path parameters and payload. */
export interface CallOptions {
  signal?: AbortSignal;
  accept?: string;
  /** Repeatable by its Idempotency-Key: counts only where the service honours keys. */
  idempotent?: boolean;
  headers?: Record<string, string>;
}

/** `call`'s arguments for endpoint `N`: optional when it has no path parameter to give. */
export type ArgsOf<N extends EndpointName> =
  {} extends CallArgs<N> ? [args?: CallArgs<N> & CallOptions] : [args: CallArgs<N> & CallOptions];

/** A request as it is (or would be) sent: method, URL, headers (signed) and body. */
export interface Prepared {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** The `request` text the body carries (POST). */
  requestText?: string;
}

export class ApiClient {
  private readonly handler: HttpHandler;
  private readonly opts: ClientOptions;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(opts: ClientOptions) {
    this.opts = opts;
    this.handler =
      opts.handler ??
      new HttpTransport({
        connectTimeout: Math.min(10_000, opts.timeout),
        connections: opts.connections ?? 16,
        env: opts.env,
        ca: opts.ca?.pem,
        pins: opts.pins?.pins,
      });
    this.sleep =
      opts.sleep ??
      ((ms, signal) =>
        new Promise((resolve, reject) => {
          const t = setTimeout(resolve, ms);
          signal?.addEventListener('abort', () => (clearTimeout(t), reject(signal.reason)), { once: true });
        }));
  }

  get baseUrl(): string {
    return this.opts.baseUrl;
  }

  /** The account requests are signed as (undefined without partner credentials). */
  get username(): string | undefined {
    const c = this.opts.credentials as { username?: string };
    return c.username;
  }

  get storeUrl(): string {
    return this.opts.storeUrl ?? this.opts.baseUrl;
  }

  /** Call an endpoint of the table by name. */
  async call<N extends EndpointName>(name: N, ...[args]: ArgsOf<N>): Promise<ApiResponse<Answer<N> | ErrorBody>> {
    return this.callRecorded(name, args ?? {});
  }

  /**
   * Call an endpoint with a payload that was not built here but read back (the ledger sends a
   * write again as its file recorded it), and read the answer as open JSON. Everything else
   * calls through `call`, whose payload and answer the endpoint table types.
   */
  async callRecorded(
    name: EndpointName,
    a: CallOptions & { params?: Record<string, string | number>; payload?: Record<string, unknown> },
  ): Promise<ApiResponse> {
    const ep: Endpoint = lookupEndpoint(name);
    const path = fillPath(ep.path, a.params);
    // A caller's idempotent:true for a request that is only repeatable by its Idempotency-Key
    // counts only where the service honours keys (retryPolicy decides that from the header).
    const keyed = hasIdempotencyKey(a.headers);
    const payload = a.payload ? stripUndefined(a.payload) : undefined;
    return this.request({
      method: ep.clientMethod,
      path,
      payload: ep.payloadIn === 'body' ? (payload ?? {}) : undefined,
      query: ep.payloadIn === 'query' ? (payload as RequestOptions['query']) : undefined,
      auth: ep.auth === 'public' ? 'none' : ep.auth,
      host: ep.host,
      idempotent: ep.idempotent || (a.idempotent === true && !keyed),
      accept: a.accept,
      headers: a.headers,
      signal: a.signal,
      endpoint: ep,
    });
  }

  /** Like `call`, but a non-2xx/3xx answer throws ApiError: what comes back is the endpoint's answer. */
  async ok<N extends EndpointName>(name: N, ...args: ArgsOf<N>): Promise<Answer<N>> {
    const res = await this.call(name, ...args);
    if (res.status >= 400) throw toApiError(res);
    return res.body as Answer<N>;
  }

  url(path: string, host: 'api' | 'store' = 'api', query?: RequestOptions['query']): string {
    const base = (host === 'store' ? this.storeUrl : this.baseUrl).replace(/\/+$/, '');
    let url = base + (path.startsWith('/') ? path : '/' + path);
    if (query) {
      const qs = Object.entries(query)
        .filter(([, v]) => v !== undefined && v !== null)
        .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
        .join('&');
      if (qs) url += (url.includes('?') ? '&' : '?') + qs;
    }
    return url;
  }

  /** Is the store host another origin than the base URL (then it gets no credentials)? */
  private foreignStore(): boolean {
    try {
      return new URL(this.storeUrl).origin !== new URL(this.opts.baseUrl).origin;
    } catch {
      return true;
    }
  }

  private credentialsFor(auth: 'partner' | 'access' | 'none', host: 'api' | 'store' = 'api'): Credentials {
    if (auth === 'none') return { kind: 'none' };
    // A key only goes to its profile's own base URL: the store host (price comparison, public)
    // gets none unless asked for explicitly.
    if (host === 'store' && !this.opts.storeCredentials && this.foreignStore()) return { kind: 'none' };
    if (auth === 'access' && this.opts.accessToken) {
      const c = this.opts.credentials;
      const username = c.kind === 'none' ? undefined : c.username;
      return { kind: 'token', token: this.opts.accessToken, username };
    }
    return this.opts.credentials;
  }

  /** Build the exact method, URL, headers and body that would be sent. */
  prepare(o: RequestOptions): Prepared {
    const url = this.url(o.path, o.host, o.method === 'GET' || o.query ? o.query : undefined);
    const headers: Record<string, string> = {
      accept: o.accept ?? 'application/json',
      'user-agent': this.opts.userAgent ?? 'bookdist',
    };
    for (const [k, v] of Object.entries(o.headers ?? {})) headers[k.toLowerCase()] = v;
    let body: string | undefined;
    let requestText: string | undefined;
    if (o.method === 'POST') {
      requestText = o.requestText ?? pythonJson(o.payload ?? {});
      body = formBody(requestText);
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    Object.assign(headers, authHeaders(this.credentialsFor(o.auth ?? 'partner', o.host), requestText));
    return { method: o.method, url, headers, body, requestText };
  }

  /** The route of a request to `url` (direct, or which proxy and why), when the handler knows it. */
  route(url: string): Route | undefined {
    const h = this.handler as { route?: (u: string) => Route };
    try {
      return h.route?.(url);
    } catch {
      return undefined;
    }
  }

  /** The names pinned to addresses (--resolve, BOOKDIST_RESOLVE), and where they came from. */
  get pins(): { pins: Pin[]; from: string } | undefined {
    return this.opts.pins;
  }

  /** Where extra trusted CA certificates came from (--ca-file, BOOKDIST_CA_FILE, a profile). */
  get caFile(): string | undefined {
    return this.opts.ca?.file;
  }

  /** Send one request (see the pipeline at the top of this file). */
  async request(o: RequestOptions): Promise<ApiResponse> {
    const prepared = this.prepare(o);
    refuseBadHeaders(prepared);
    this.refuseUnsigned(o, prepared);
    if (this.opts.dryRun) return this.dryRun(o, prepared);
    this.traceRoute(prepared);
    const ticket = await this.announce(o);
    if (!ticket) return this.accept(o, await this.exchange(o, prepared));
    let res: ApiResponse;
    try {
      res = this.accept(o, await this.exchange(o, prepared));
    } catch (e) {
      throw settleThrown(ticket, e);
    }
    ticket.after(verdictOf(res));
    return res;
  }

  /**
   * The write hook (the ledger) around `exchange` and `accept`: a request that may change the
   * service is recorded before it is sent; the ticket records its verdict after.
   */
  private async announce(o: RequestOptions): Promise<WriteTicket | undefined> {
    const hook = this.opts.writeHook;
    if (!hook || o.method === 'GET') return undefined;
    return hook.before({
      endpoint: o.endpoint?.name,
      method: o.method,
      path: o.path,
      payload: o.payload ?? requestObject(o.requestText),
      headers: o.headers ?? {},
    });
  }

  /** A request that needs a signature, to a service (signedOnly), with no credentials at all: refused unsent. */
  private refuseUnsigned(o: RequestOptions, p: Prepared): void {
    if (!this.opts.signedOnly || this.opts.dryRun || (o.auth ?? 'partner') === 'none' || (o.host ?? 'api') !== 'api')
      return;
    if (this.credentialsFor(o.auth ?? 'partner').kind !== 'none') return;
    throw new CliError(
      `${p.method} ${p.url} needs credentials and none are set: nothing was sent. Set BOOKDIST_USERNAME with ` +
        'BOOKDIST_KEY_FILE (an RSA private key, PEM) or BOOKDIST_SHARED_KEY, or store them with `bookdist profile add`.',
      ExitCode.USAGE,
      { setting: 'credentials' },
    );
  }

  /** --dry-run: check the payload against the OpenAPI document, print the curl line, send nothing. */
  private async dryRun(o: RequestOptions, p: Prepared): Promise<never> {
    await this.opts.checkPayload?.({
      method: o.method,
      path: o.path,
      host: o.host ?? 'api',
      requestText: p.requestText,
    });
    this.opts.dryRun?.(curlLine(p));
    throw new DryRun();
  }

  /** --debug: which route the request takes, and which extra CA certificates are trusted. */
  private traceRoute(p: Prepared): void {
    if (!this.opts.debug) return;
    const r = this.route(p.url);
    if (r) this.trace(r.proxy ? `  proxy: ${r.shown} (${r.why})` : `  proxy: none, direct (${r.why})`);
    if (this.opts.ca && p.url.startsWith('https:'))
      this.trace(`  trusting also the CA certificates of ${this.opts.ca.file}`);
    for (const pin of this.opts.pins?.pins ?? [])
      this.trace(`  ${pin.host}:${pin.port} connects to ${pin.address} (${this.opts.pins!.from})`);
  }

  /**
   * Send and read the answer, repeating as the retry policy allows (retry.ts). Returns the final
   * answer, whatever its status; throws when no answer came (send-failure.ts says what it means).
   */
  private async exchange(o: RequestOptions, p: Prepared): Promise<ApiResponse> {
    const policy = retryPolicy(o, this.opts.idempotencyKeys === true, this.opts.retries);
    const info: RequestInfo = { method: p.method, url: p.url };
    // One deadline for the request: every attempt, its answer's body and every wait fit in it.
    const deadline = Date.now() + this.opts.timeout;
    for (let attempt = 0; ; attempt++) {
      const started = Date.now();
      this.traceRequest(p, attempt);
      let res: ApiResponse;
      try {
        res = await this.send(p, info, o.signal, deadline - started);
      } catch (caught) {
        if (o.signal?.aborted) throw caught;
        const err = caught as (SendFailure & { status?: number; contentType?: string }) | undefined;
        this.trace(
          `← ${err?.name === 'TimeoutError' ? 'timeout' : failureCode(err) || err?.message} (${Date.now() - started} ms)`,
        );
        const failure = unmendable(err, info, this.opts.ca?.file);
        if (failure) throw failure; // a certificate, proxy or set-up problem: never retried
        if (failureCode(err) === 'ERR_BODY_TOO_LARGE')
          throw bodyTooLarge(info, writes(o), `${MAX_BODY_BYTES / 1024 / 1024} MiB`, err?.status, err?.contentType);
        const wait = waitAfterFailure(policy, failureCode(err), attempt);
        // A wait that cannot fit before the deadline: the failure as it stands is the answer.
        if (wait === undefined || Date.now() + wait >= deadline)
          throw sendFailed(err, info, policy, attempt, this.opts.timeout);
        await this.waitBeforeRetry(o, info, wait, 'backoff', 'the connection failed', attempt, policy.retries);
        continue;
      }
      this.trace(
        `← ${res.status} (${Date.now() - started} ms) ${truncate(JSON.stringify(redact(res.body, this.opts.debugFull, true)), 2000)}`,
      );
      const wait = waitAfterAnswer(policy, res, attempt);
      if (wait === undefined) return res;
      const asked = res.headers['retry-after'];
      const why = `the service answered ${res.status}${statusText(res.status) ? ` (${statusText(res.status)})` : ''}${asked ? ` with Retry-After: ${asked}` : ''}`;
      if (Date.now() + wait >= deadline) throw this.waitTooLong(info, why, wait, deadline, attempt, res);
      await this.waitBeforeRetry(o, info, wait, asked ? 'Retry-After' : 'backoff', why, attempt, policy.retries);
    }
  }

  /** Wait before retry `attempt + 1`; a wait over a second is announced (stderr), so a pause is never silent. */
  private async waitBeforeRetry(
    o: RequestOptions,
    info: RequestInfo,
    wait: number,
    kind: string,
    why: string,
    attempt: number,
    retries: number,
  ): Promise<void> {
    if (wait > 1000)
      this.opts.notice?.(
        `${info.method} ${pathOf(info.url)}: ${why}; waiting ${formatDuration(wait)} (${kind}) before retry ${attempt + 1} of ${retries}.`,
      );
    await this.sleep(wait, o.signal);
  }

  /** A wait the deadline cannot hold: the request ends now (exit 7), naming the wait. */
  private waitTooLong(
    info: RequestInfo,
    why: string,
    wait: number,
    deadline: number,
    attempt: number,
    res: ApiResponse,
  ): CliError {
    const left = Math.max(0, deadline - Date.now());
    const timeout = this.opts.timeoutText ?? formatDuration(this.opts.timeout);
    return new CliError(
      `${info.method} ${info.url}: ${why}; waiting ${formatDuration(wait)} before retry ${attempt + 1} does not fit in what is left of --timeout ${timeout} ` +
        `(${formatDuration(left)}), so bookdist stops now rather than wait. Try again later, or raise --timeout (it bounds a request with its retries and waits).`,
      ExitCode.UNAVAILABLE,
      { wait_ms: wait, timeout_ms: this.opts.timeout, attempts: attempt + 1 },
      res.status,
    );
  }

  /** --debug: the request line, its headers (redacted) and its request text (redacted). */
  private traceRequest(p: Prepared, attempt: number): void {
    this.trace(`→ ${p.method} ${p.url}` + (attempt ? ` (retry ${attempt})` : ''));
    if (!this.opts.debug) return;
    for (const [k, v] of Object.entries(redactHeaders(p.headers))) this.trace(`  ${k}: ${v}`);
    if (p.requestText !== undefined) this.trace(`  request=${redactRequestText(p.requestText, this.opts.debugFull)}`);
  }

  /**
   * The final answer, whatever its status: every answer the client returns passes here. For a
   * call of the endpoint table it is verified (verify.ts): the verdict is `done` (the answer the
   * interface promises) or `failed` (the service refused: 4xx/5xx); any other answer (a redirect,
   * an empty, HTML or truncated body, `success: false`, a used field missing or mistyped) throws
   * an UnverifiedAnswer, a read's `failed` and a write's `unknown`.
   */
  private accept(o: RequestOptions, res: ApiResponse): ApiResponse {
    this.opts.onResponse?.(res);
    const base = o.host === 'store' ? this.storeUrl : this.baseUrl;
    try {
      if (o.raw) res.verdict = verifyRaw(res, o.endpoint, o.method, base);
      else if (o.endpoint) res.verdict = verifyAnswer(o.endpoint, res, base);
    } catch (e) {
      if (e instanceof UnverifiedAnswer) e.response = res;
      throw e;
    }
    return res;
  }

  private async send(
    p: Prepared,
    info: RequestInfo,
    signal: AbortSignal | undefined,
    ms: number,
  ): Promise<ApiResponse> {
    const timeout = AbortSignal.timeout(Math.max(1, ms));
    const res = await this.handler.send({
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

  private trace(line: string): void {
    this.opts.debug?.(line);
  }

  /** Release the connections. Requests still in flight (an interrupted run) are cut, not awaited. */
  async close(): Promise<void> {
    this.handler.close?.();
  }
}

/**
 * Every header the client would send, checked before anything is sent: a value holding a control
 * character (a line break would end the header early, a tab or NUL is never meant) or a character
 * beyond Latin-1 (Node refuses it mid-send, which a write would report as an unknown outcome) is a
 * usage error naming the header; a secret header's value is not shown.
 */
function refuseBadHeaders(p: Prepared): void {
  for (const [name, value] of Object.entries(p.headers)) {
    const bad = /[^\x20-\x7e\x80-\xff]/.exec(value);
    if (!bad) continue;
    const c = bad[0].codePointAt(0)!;
    const esc = { 9: '\\t', 10: '\\n', 13: '\\r' }[c] ?? `\\u${c.toString(16).padStart(4, '0')}`;
    const what = c < 0x20 || c === 0x7f ? `a control character (${esc})` : `a character a header cannot carry (${esc})`;
    const secret = redactHeaders({ [name]: value })[name] !== value;
    throw new CliError(
      `The ${name} header of ${p.method} ${pathOf(p.url)} would hold ${what}${secret ? '' : `: ${quoteValue(value, 80)}`}. ` +
        'Nothing was sent. Remove it from the value that set it (an option, a variable, a file or the profile).',
      ExitCode.USAGE,
      { header: name },
    );
  }
}

/** The `request` object of a raw request text (`bookdist api --input`), when it is JSON. */
function requestObject(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  try {
    const v = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Does this request change something on the service (an unverified answer leaves it unknown)? */
function writes(o: RequestOptions): boolean {
  return o.endpoint ? isWrite(o.endpoint.name) : o.method !== 'GET';
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

function stripUndefined(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out;
}
