// The thin HTTP core: one keep-alive pool per origin (transport.ts), signing (wire.ts), timeouts,
// the one retry policy (retry.ts), and one answer shape (answer.ts) and error shape (errors.ts).
// What the client is given and what a request is made of: options.ts.
//
// `request` is a pipeline of named steps, in this order:
//   prepare         the exact method, URL, headers and body, signed (prepare.ts, wire.ts)
//   refuseBadHeaders a header value with a control character (or a character HTTP cannot carry)
//                   is refused unsent (exit 2): it would end the header early, or Node would throw
//                   (prepare.ts)
//   refuseUnsigned  a request that needs a signature, with no credentials at all, is refused unsent
//                   (prepare.ts)
//   dryRun          --dry-run: check the payload, print the curl line (curl.ts), throw DryRun
//   traceRoute      --debug: the route (proxy or direct) and the extra CA certificates
//   exchange        send and read the answer (answer.ts; a body over 64 MiB is refused), repeating
//                   as the retry policy allows (retry.ts), all within one deadline (--timeout: the
//                   attempts, the bodies and the waits); a send that failed for good becomes an
//                   error (send-failure.ts); the loop itself is exchange.ts
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
import { sleep } from '../util/sleep.js';
import type { Route, Pin } from './network.js';
import type { HttpHandler } from './handler.js';
import { verifyAnswer, verifyRaw } from './verify.js';
import { endpoint as lookupEndpoint, type Endpoint } from '../spec/endpoints.js';
import type { Answer, EndpointName, ErrorBody } from '../spec/contract.js';
import type { ApiResponse } from './answer.js';
import { DryRun, toApiError, UnverifiedAnswer } from './errors.js';
import { hasIdempotencyKey } from './retry.js';
import { curlLine } from './curl.js';
import { settleThrown, verdictOf, type WriteRequest, type WriteTicket } from './write-hook.js';
import { fillPath } from './wire.js';
import { prepare, refuseBadHeaders, refuseUnsigned, storeUrlOf, urlOf } from './prepare.js';
import { exchange, type Sender } from './exchange.js';
import type { ArgsOf, CallOptions, ClientOptions, Prepared, RequestOptions } from './options.js';

export class ApiClient {
  private readonly handler: HttpHandler;
  private readonly opts: ClientOptions;
  /** What the exchange step sends with (exchange.ts). */
  private readonly sender: Sender;

  constructor(opts: ClientOptions) {
    this.opts = opts;
    this.handler =
      opts.handler ??
      new HttpTransport({
        // Stryker disable next-line MethodExpression: accepted, only a connection that hangs 10 s or more of real time tells the two apart (tests do no timing)
        connectTimeout: Math.min(10_000, opts.timeout),
        connections: 16,
        env: opts.env,
        ca: opts.ca?.pem,
        pins: opts.pins?.pins,
        connect: opts.connect,
      });
    this.sender = { opts, handler: this.handler, sleep: opts.sleep ?? sleep };
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
    return storeUrlOf(this.opts);
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
  async callRecorded(name: EndpointName, a: RecordedArgs): Promise<ApiResponse> {
    return this.request(optionsOf(name, a));
  }

  /**
   * Tell the write hook (the ledger) of writes about to be made, before they are (a bulk job's
   * next items): it may make their records durable together, in one group, instead of one
   * group per request. Nothing is sent; each call is made later with the same arguments.
   */
  announceAhead(calls: Array<{ name: EndpointName; args: RecordedArgs }>): void {
    const hook = this.opts.writeHook;
    if (!hook?.ahead || this.opts.dryRun) return;
    const reqs = calls.map((c) => writeRequestOf(optionsOf(c.name, c.args))).filter((r) => r.method !== 'GET');
    if (reqs.length) hook.ahead(reqs);
  }

  /** Like `call`, but a non-2xx/3xx answer throws ApiError: what comes back is the endpoint's answer. */
  async ok<N extends EndpointName>(name: N, ...args: ArgsOf<N>): Promise<Answer<N>> {
    const res = await this.call(name, ...args);
    if (res.status >= 400) throw toApiError(res);
    return res.body as Answer<N>;
  }

  url(path: string, host?: 'api' | 'store', query?: RequestOptions['query']): string {
    return urlOf(this.opts, path, host, query);
  }

  /** Build the exact method, URL, headers and body that would be sent (prepare.ts). */
  prepare(o: RequestOptions): Prepared {
    return prepare(this.opts, o);
  }

  /** The route of a request to `url` (direct, or which proxy and why), when the handler knows it. */
  route(url: string): Route | undefined {
    const h = this.handler as { route?: (u: string) => Route };
    try {
      // Stryker disable next-line OptionalChaining: equivalent, calling a missing route throws, and the catch answers undefined as `?.` does
      return h.route?.(url);
      // Stryker disable next-line BlockStatement: equivalent, a function that ends returns undefined too
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
    refuseUnsigned(this.opts, o, prepared);
    if (this.opts.dryRun) return this.dryRun(o, prepared, this.opts.dryRun);
    this.traceRoute(prepared);
    const ticket = await this.announce(o);
    if (!ticket) return this.accept(o, await exchange(this.sender, o, prepared));
    let res: ApiResponse;
    try {
      res = this.accept(o, await exchange(this.sender, o, prepared));
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
    return hook.before(writeRequestOf(o));
  }

  /** --dry-run: check the payload against the OpenAPI document, print the curl line, send nothing. */
  private async dryRun(o: RequestOptions, p: Prepared, print: (line: string) => void): Promise<never> {
    await this.opts.checkPayload?.({
      method: o.method,
      path: o.path,
      host: o.host ?? 'api',
      requestText: p.requestText,
    });
    print(curlLine(p));
    throw new DryRun();
  }

  /** --debug: which route the request takes, and which extra CA certificates are trusted. */
  private traceRoute(p: Prepared): void {
    const debug = this.opts.debug;
    if (!debug) return;
    const r = this.route(p.url);
    if (r) debug(r.proxy ? `  proxy: ${r.shown} (${r.why})` : `  proxy: none, direct (${r.why})`);
    if (this.opts.ca && p.url.startsWith('https:'))
      debug(`  trusting also the CA certificates of ${this.opts.ca.file}`);
    for (const pin of this.opts.pins?.pins ?? [])
      debug(`  ${pin.host}:${pin.port} connects to ${pin.address} (${this.opts.pins!.from})`);
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
      // Stryker disable next-line ConditionalExpression: equivalent, verify.ts throws nothing but UnverifiedAnswer
      if (e instanceof UnverifiedAnswer) e.response = res;
      throw e;
    }
    return res;
  }

  /** Release the connections. Requests still in flight (an interrupted run) are cut, not awaited. */
  async close(): Promise<void> {
    this.handler.close?.();
  }
}

type RecordedArgs = CallOptions & { params?: Record<string, string | number>; payload?: Record<string, unknown> };

/** The request a call of the endpoint table makes (its method, path, auth, host and `endpoint`). */
function optionsOf(name: EndpointName, a: RecordedArgs): RequestOptions {
  const ep: Endpoint = lookupEndpoint(name);
  const path = fillPath(ep.path, a.params);
  // A caller's idempotent:true for a request that is only repeatable by its Idempotency-Key
  // counts only where the service honours keys (retryPolicy decides that from the header).
  const keyed = hasIdempotencyKey(a.headers);
  const payload = a.payload ? stripUndefined(a.payload) : undefined;
  return {
    method: ep.clientMethod,
    path,
    // Stryker disable next-line ConditionalExpression: equivalent, every endpoint whose payload is not its body is a GET, whose payload nothing reads (prepare sends a POST's only; the write hook is told of no GET)
    payload: ep.payloadIn === 'body' ? (payload ?? {}) : undefined,
    query: ep.payloadIn === 'query' ? (payload as RequestOptions['query']) : undefined,
    auth: ep.auth === 'public' ? 'none' : ep.auth,
    host: ep.host,
    idempotent: ep.idempotent || (a.idempotent === true && !keyed),
    accept: a.accept,
    headers: a.headers,
    signal: a.signal,
    timeout: a.timeout,
    endpoint: ep,
  };
}

/** What the write hook is told of a request. */
function writeRequestOf(o: RequestOptions): WriteRequest {
  return {
    endpoint: o.endpoint?.name,
    method: o.method,
    path: o.path,
    payload: o.payload,
    headers: o.headers ?? {},
  };
}

function stripUndefined(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out;
}
