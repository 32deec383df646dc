// The thin HTTP core: one keep-alive pool per origin (src/api/transport.ts), signing, timeouts,
// the one retry policy (retryPolicy below; nothing else in bookdist repeats a request), and one
// response/error shape.
import { HttpTransport } from './transport.js';
import { certificateProblem, type Env, type Route } from './network.js';
import type { HttpHandler, TlsInfo } from './handler.js';
import { ExitCode, CliError } from '../errors.js';
import { formatDuration } from '../util/duration.js';
import { endpoint as lookupEndpoint, type Endpoint } from '../spec/endpoints.js';
import {
  authHeaders,
  fillPath,
  formBody,
  pythonJson,
  redact,
  redactHeaders,
  REDACTED,
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
  /** Total time per attempt, ms. */
  timeout: number;
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
  /**
   * The service honours Idempotency-Key (the sandbox does; another service only where its
   * profile says so): writes carrying one are retried like reads.
   */
  idempotencyKeys?: boolean;
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
}

export interface ApiResponse {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON; for XML or text bodies `{ code, text }` (plus `message` for the access API's XML). */
  // any: the service's JSON, which each verb reads as its endpoint is documented (shared/spec/interface.md).
  body: any;
  /** How the body was read. */
  format: 'json' | 'xml' | 'text' | 'empty';
  request: RequestInfo;
  /** Over TLS: the protocol and the service's certificate (profile check shows them). */
  tls?: TlsInfo;
}

export interface RequestInfo {
  method: string;
  url: string;
}

/** One error shape for every failed response, whatever its body. */
export class ApiError extends Error {
  constructor(
    public readonly status: number,
    message: string,
    public readonly body: unknown,
    public readonly request: RequestInfo,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** Exit code as documented in `bookdist help exit-codes`. */
  get exitCode(): number {
    return exitCodeForStatus(this.status, this.body);
  }
}

/** Thrown after --dry-run printed the request: nothing was sent. */
export class DryRun extends Error {
  constructor() {
    super('dry run');
    this.name = 'DryRun';
  }
}

/**
 * The exit code of a service answer (`bookdist help exit-codes`); one meaning per code:
 * 3 every not-found; 4 only credentials and scopes the service refused; 5 a conflict with state
 * this request did not create; 7 rate limited or unavailable; 1 a business rule refusal (refund
 * window, viewed share, printed pages...) or any other error, with the service's message.
 */
export function exitCodeForStatus(status: number, body?: unknown): number {
  const m = messageOf(body);
  if (isConflict(status, body)) return ExitCode.CONFLICT;
  if (status === 404 || (status === 400 && NOT_FOUND.test(m))) return ExitCode.NOT_FOUND;
  if (status === 401) return ExitCode.AUTH;
  if (status === 403) return !m || CREDENTIALS.test(m) ? ExitCode.AUTH : ExitCode.ERROR;
  if (status === 429 || status === 503) return ExitCode.UNAVAILABLE;
  return ExitCode.ERROR;
}

/** Refusals of credentials or scopes (decisions.md: Authentication, Scopes). */
const CREDENTIALS = /authenticat|authori[sz]|scope|credential|signature|api[- ]key|token|forbidden|permission/i;
/** Not-found answers that come as 400 (the price comparison's "The requested book does not exist"). */
const NOT_FOUND = /does not exist|not found/i;

function messageOf(body: unknown): string {
  if (!body || typeof body !== 'object') return '';
  const b = body as { message?: unknown; text?: unknown };
  return typeof b.message === 'string' ? b.message : typeof b.text === 'string' ? b.text : '';
}

/** Conflicts: 409, a body with `conflict: true`, or the service's "already" messages. */
export function isConflict(status: number, body?: unknown): boolean {
  if (status === 409) return true;
  if (status >= 400 && body && typeof body === 'object') {
    if ((body as { conflict?: unknown }).conflict === true) return true;
    if (/already (has access|exists|used|registered)/i.test(messageOf(body))) return true;
  }
  return false;
}

/** Network failures that mean the request never left: repeating it is always safe. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

function hasIdempotencyKey(headers: Record<string, string> | undefined): boolean {
  return headers !== undefined && Object.keys(headers).some((h) => h.toLowerCase() === 'idempotency-key');
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
function retryPolicy(o: Pick<RequestOptions, 'method' | 'idempotent' | 'headers'>, keysHonoured: boolean): { network: boolean } {
  const keyed = hasIdempotencyKey(o.headers);
  return { network: o.method === 'GET' || o.idempotent === true || (keyed && keysHonoured) };
}

/** What to do about a certificate that did not verify, by why it did not. */
function certificateAdvice(code: string, host: string, caFile: string | undefined): string {
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') {
    return (
      `Whoever runs ${host} must renew its certificate (or, if it is not valid yet, check this machine's clock); ` +
      'trusting a CA with --ca-file or BOOKDIST_CA_FILE does not mend a certificate outside its dates.'
    );
  }
  return caFile
    ? `The CA certificates of ${caFile} (and Node's own) do not vouch for it: check that this file holds the CA that signed the service's certificate, and the host name.`
    : "If the service's certificate is signed by a private CA (a company's own), give that CA's certificate (PEM) with --ca-file FILE, BOOKDIST_CA_FILE or `bookdist profile add --ca-file`.";
}

/** What a failed send may carry: Node's `code` (or its cause's), and the transport's proxy details. */
interface SendFailure {
  name?: string;
  message?: string;
  code?: string;
  cause?: { code?: string };
  /** The proxy that failed, without credentials (transport.ts). */
  proxy?: string;
  proxyStatus?: number;
  /** The proxy variable of a proxy URL that is not usable (network.ts). */
  setting?: string;
}

function codeOf(err: SendFailure | undefined): string {
  return err?.code ?? err?.cause?.code ?? '';
}

/** A failure that retrying cannot mend: a certificate, the proxy, or a proxy setting. */
function networkFailure(err: SendFailure | undefined, info: RequestInfo, caFile: string | undefined): CliError | undefined {
  const code = codeOf(err);
  const host = (() => {
    try {
      return new URL(info.url).host;
    } catch {
      return info.url;
    }
  })();
  const cert =
    certificateProblem(code) ??
    (code === 'EPROTO' || /^ERR_SSL_/.test(code)
      ? /wrong version number|packet length too long|http request/i.test(String(err?.message))
        ? 'the server did not answer TLS (is it an http:// URL?)'
        : `the TLS handshake failed (${String(err?.message).split('\n')[0].slice(0, 160)})`
      : undefined);
  if (cert) {
    return new CliError(`Certificate problem: the certificate of ${host} did not verify: ${cert} (${code}). Nothing was sent. ${certificateAdvice(code, host, caFile)}`, ExitCode.TLS, {
      code,
      host,
    });
  }
  if (code === 'BOOKDIST_PROXY_URL') return new CliError(String(err?.message), ExitCode.USAGE, { setting: err?.setting });
  if (err?.proxy) {
    const status = err.proxyStatus;
    const why =
      status === 407 || status === 401
        ? `it refused the credentials (it answered ${status}): put the right user name and password in the proxy URL (http://USER:PASSWORD@host:port) of HTTPS_PROXY/HTTP_PROXY`
        : status
          ? `it refused to connect to ${host} (it answered ${status}): check that the proxy may reach the service, or name the service in NO_PROXY`
          : `it could not be reached (${code || err?.message}): check HTTPS_PROXY/HTTP_PROXY, or name the service in NO_PROXY to go direct`;
    return new CliError(`Proxy problem: the proxy ${err.proxy} for ${info.method} ${info.url} failed: ${why}.`, ExitCode.PROXY, {
      code: code || undefined,
      proxy: err.proxy,
      proxy_status: status,
    });
  }
  return undefined;
}

export class ApiClient {
  private readonly handler: HttpHandler;
  private readonly opts: ClientOptions;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(opts: ClientOptions) {
    this.opts = opts;
    this.handler =
      opts.handler ??
      new HttpTransport({ connectTimeout: Math.min(10_000, opts.timeout), connections: opts.connections ?? 16, env: opts.env, ca: opts.ca?.pem });
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
  async call(
    name: string,
    args: {
      params?: Record<string, string | number>;
      payload?: Record<string, unknown>;
      signal?: AbortSignal;
      accept?: string;
      idempotent?: boolean;
      headers?: Record<string, string>;
    } = {},
  ): Promise<ApiResponse> {
    const ep: Endpoint = lookupEndpoint(name);
    const path = fillPath(ep.path, args.params);
    // A caller's idempotent:true for a request that is only repeatable by its Idempotency-Key
    // counts only where the service honours keys (retryPolicy decides that from the header).
    const keyed = hasIdempotencyKey(args.headers);
    const payload = args.payload ? stripUndefined(args.payload) : undefined;
    return this.request({
      method: ep.clientMethod,
      path,
      payload: ep.payloadIn === 'body' ? (payload ?? {}) : undefined,
      query: ep.payloadIn === 'query' ? (payload as RequestOptions['query']) : undefined,
      auth: ep.auth === 'public' ? 'none' : ep.auth,
      host: ep.host,
      idempotent: ep.idempotent || (args.idempotent === true && !keyed),
      accept: args.accept,
      headers: args.headers,
      signal: args.signal,
    });
  }

  /** Like `call`, but a non-2xx/3xx answer throws ApiError. */
  // any: the body of ApiResponse (see there).
  async ok(name: string, args: Parameters<ApiClient['call']>[1] = {}): Promise<any> {
    const res = await this.call(name, args);
    if (res.status >= 400) throw toApiError(res);
    return res.body;
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
  prepare(o: RequestOptions): { method: string; url: string; headers: Record<string, string>; body?: string; requestText?: string } {
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

  /** Where extra trusted CA certificates came from (--ca-file, BOOKDIST_CA_FILE, a profile). */
  get caFile(): string | undefined {
    return this.opts.ca?.file;
  }

  async request(o: RequestOptions): Promise<ApiResponse> {
    const prepared = this.prepare(o);
    const info: RequestInfo = { method: prepared.method, url: prepared.url };
    if (this.opts.signedOnly && !this.opts.dryRun && (o.auth ?? 'partner') !== 'none' && (o.host ?? 'api') === 'api') {
      if (this.credentialsFor(o.auth ?? 'partner').kind === 'none') {
        throw new CliError(
          `${info.method} ${info.url} needs credentials and none are set: nothing was sent. Set BOOKDIST_USERNAME with ` +
            'BOOKDIST_KEY_FILE (an RSA private key, PEM) or BOOKDIST_SHARED_KEY, or store them with `bookdist profile add`.',
          ExitCode.USAGE,
          { setting: 'credentials' },
        );
      }
    }
    if (this.opts.dryRun) {
      await this.opts.checkPayload?.({ method: o.method, path: o.path, host: o.host ?? 'api', requestText: prepared.requestText });
      this.opts.dryRun(curlLine(prepared));
      throw new DryRun();
    }
    const policy = retryPolicy(o, this.opts.idempotencyKeys === true);
    let attempt = 0;
    if (this.opts.debug) {
      const r = this.route(prepared.url);
      if (r) this.trace(r.proxy ? `  proxy: ${r.shown} (${r.why})` : `  proxy: none, direct (${r.why})`);
      if (this.opts.ca && prepared.url.startsWith('https:')) this.trace(`  trusting also the CA certificates of ${this.opts.ca.file}`);
    }
    for (;;) {
      const started = Date.now();
      this.trace(`→ ${prepared.method} ${prepared.url}` + (attempt ? ` (retry ${attempt})` : ''));
      if (this.opts.debug) {
        for (const [k, v] of Object.entries(redactHeaders(prepared.headers))) this.trace(`  ${k}: ${v}`);
        if (prepared.requestText !== undefined) this.trace(`  request=${redactRequestText(prepared.requestText, this.opts.debugFull)}`);
      }
      let res: ApiResponse;
      try {
        res = await this.send(prepared, info, o.signal);
      } catch (caught) {
        if (o.signal?.aborted) throw caught;
        const err = caught as SendFailure | undefined;
        const code = codeOf(err);
        const timedOut = err?.name === 'TimeoutError';
        this.trace(`← ${timedOut ? 'timeout' : code || err?.message} (${Date.now() - started} ms)`);
        const failure = networkFailure(err, info, this.opts.ca?.file);
        if (failure) throw failure; // a certificate, proxy or set-up problem: never retried
        const notSent = NOT_SENT.has(code);
        if ((notSent || policy.network) && attempt < this.opts.retries) {
          await this.sleep(backoff(attempt), o.signal);
          attempt++;
          continue;
        }
        const what = timedOut
          ? `no answer within ${formatDuration(this.opts.timeout)} (timed out; raise --timeout)`
          : `could not reach the service (${code || err?.message})`;
        if (!notSent && !policy.network) {
          // The request may have reached the service: repeating it could do it twice.
          throw new CliError(
            `${info.method} ${info.url}: ${timedOut ? `no answer within ${formatDuration(this.opts.timeout)}` : `the connection was lost (${code || err?.message})`} ` +
              'after the request was sent: the outcome is unknown. Check whether it took effect before sending it again ' +
              '(e.g. `bookdist user orders`, `bookdist codes summary`); not retried, as repeating it could do it twice.',
            ExitCode.ERROR,
            { code: code || undefined, outcome: 'unknown' },
          );
        }
        throw new CliError(
          `${info.method} ${info.url}: ${what}${attempt ? ` after ${attempt + 1} attempts` : ''}`,
          ExitCode.UNAVAILABLE,
          { code: code || undefined },
        );
      }
      this.trace(`← ${res.status} (${Date.now() - started} ms) ${truncate(JSON.stringify(redact(res.body, this.opts.debugFull, true)), 2000)}`);
      const retryable = res.status === 429 || (policy.network && (res.status === 502 || res.status === 503 || res.status === 504));
      if (retryable && attempt < this.opts.retries) {
        const wait = retryAfterMs(res.headers['retry-after']) ?? backoff(attempt);
        await this.sleep(Math.min(wait, 60_000), o.signal);
        attempt++;
        continue;
      }
      this.opts.onResponse?.(res);
      return res;
    }
  }

  private async send(
    p: ReturnType<ApiClient['prepare']>,
    info: RequestInfo,
    signal?: AbortSignal,
  ): Promise<ApiResponse> {
    const timeout = AbortSignal.timeout(this.opts.timeout);
    const res = await this.handler.send({
      url: p.url,
      method: p.method,
      headers: p.headers,
      body: p.body,
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    const parsed = parseResponse(res.status, res.headers, res.text, info);
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

/** Turn any body into one shape: parsed JSON, the access API's XML error, or text. */
export function parseResponse(status: number, headers: Record<string, string>, text: string, request: RequestInfo): ApiResponse {
  const ctype = headers['content-type'] ?? '';
  const trimmed = text.trim();
  if (!trimmed) return { status, headers, body: { code: status }, format: 'empty', request };
  if (ctype.includes('json') || /^[[{]/.test(trimmed)) {
    try {
      return { status, headers, body: JSON.parse(trimmed), format: 'json', request };
    } catch {
      /* fall through to text */
    }
  }
  if (ctype.includes('xml') || trimmed.startsWith('<?xml') || /^<(error|response|errors)\b/i.test(trimmed)) {
    const message = xmlText(trimmed, 'message');
    const error = xmlText(trimmed, 'error');
    if (message !== undefined || error !== undefined) {
      return { status, headers, body: { code: status, error: true, message: message ?? error, text: trimmed }, format: 'xml', request };
    }
  }
  return { status, headers, body: { code: status, text }, format: 'text', request };
}

function xmlText(xml: string, tag: string): string | undefined {
  const m = new RegExp(`<${tag}\\b[^>]*>([\\s\\S]*?)</${tag}>`, 'i').exec(xml);
  if (!m) return undefined;
  return m[1]
    .replace(/<[^>]+>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not found', 405: 'Method not allowed', 409: 'Conflict',
  410: 'Gone', 413: 'Request too large', 422: 'Unprocessable request', 429: 'Too many requests', 500: 'Internal server error',
  502: 'Bad gateway', 503: 'Service unavailable', 504: 'Gateway timeout',
};

export function toApiError(res: ApiResponse): ApiError {
  const b = res.body ?? {};
  let message: string =
    (typeof b.message === 'string' && b.message) ||
    (typeof b.detail === 'string' && b.detail) ||
    (typeof b.text === 'string' && truncate(b.text.trim(), 300)) ||
    // Not "HTTP 404": the report adds "(HTTP 404, GET /path)" itself.
    STATUS_TEXT[res.status] ||
    'The service answered without a message';
  if (res.status === 401 && /authentication failed/i.test(message)) {
    message += ' (check the profile\'s username and key: `bookdist profile show`)';
  }
  return new ApiError(res.status, message, b, res.request);
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

function stripUndefined(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out;
}

function truncate(s: string, n: number): string {
  return s.length > n ? s.slice(0, n) + '…' : s;
}

/**
 * The request text with secret fields redacted. When redaction changes nothing this is the exact
 * text that is (or would be) sent and signed; otherwise the redacted payload in the same style.
 */
function redactRequestText(text: string, full = false): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text.length > 0 ? '[unparsed request]' : text;
  }
  const redacted = redact(parsed, full);
  if (JSON.stringify(redacted) === JSON.stringify(parsed)) return text;
  return pythonJson(redacted);
}

const shq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The request as a curl command, secrets redacted. */
export function curlLine(p: { method: string; url: string; headers: Record<string, string>; requestText?: string }): string {
  const parts = ['curl', '-X', p.method, shq(p.url)];
  for (const [k, v] of Object.entries(redactHeaders(p.headers))) {
    if (k === 'content-type' || k === 'user-agent') continue;
    parts.push('-H', shq(`${k}: ${v === REDACTED ? '<redacted>' : v}`));
  }
  if (p.requestText !== undefined) parts.push('--data-urlencode', shq('request=' + redactRequestText(p.requestText)));
  return parts.join(' ');
}
