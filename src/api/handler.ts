// The seam under ApiClient: something that sends one HTTP request and returns its answer.
// The node transport (src/api/transport.ts) is the default; tests pass a stub registry
// (test/helpers/stub-http.ts), and a TLS/proxy-aware handler plugs in here too.

/**
 * The largest response body bookdist reads: 64 MiB (documented in the README and the man page).
 * The service's largest documented answer, a batch of 1,000 codes, is under 200 KB; a body over
 * this is refused as it arrives, before it can fill the memory.
 */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;

export interface HttpRequest {
  method: string;
  /** Absolute URL, query included. */
  url: string;
  /** Lower-cased names. */
  headers: Record<string, string>;
  /** The body as sent, if any: text (sent as UTF-8), or bytes (the sandbox's catalogue parts). */
  body?: string | Uint8Array;
  /** Cuts the request; its reason is what `send` rejects with. */
  signal: AbortSignal;
}

export interface HttpResponse {
  status: number;
  /** Lower-cased names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The body, decoded as UTF-8. */
  text: string;
  /** Over TLS: the connection's protocol and the service's certificate (for `profile check`). */
  tls?: TlsInfo;
}

export interface TlsInfo {
  /** e.g. TLSv1.3 */
  protocol?: string;
  subject: string;
  issuer: string;
  /** As OpenSSL prints it: "Dec 27 11:36:25 2027 GMT". */
  validTo?: string;
  altNames?: string;
}

/**
 * Sends requests. A network failure rejects with an Error whose `code` says what happened
 * (ECONNREFUSED, ECONNRESET, UND_ERR_CONNECT_TIMEOUT, ...): the client classifies by it. A body
 * over MAX_BODY_BYTES rejects with code ERR_BODY_TOO_LARGE (and `status`, the answer's).
 */
export interface HttpHandler {
  send(request: HttpRequest): Promise<HttpResponse>;
  /** Release connections; requests in flight are cut. */
  close?(): void;
}
