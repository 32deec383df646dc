// What the client is given (ClientOptions) and what a request is made of (RequestOptions, the
// Prepared request it becomes): types only, shared by the client (client.ts) and the steps of its
// pipeline (prepare.ts, exchange.ts).
import type { Env, Pin } from './network.js';
import type { HttpHandler } from './handler.js';
import type { Duplex } from 'node:stream';
import type { ApiResponse } from './answer.js';
import type { WriteHook } from './write-hook.js';
import type { Credentials } from './wire.js';
import type { Endpoint } from '../spec/endpoints.js';
import type { CallArgs, EndpointName } from '../spec/contract.js';

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
  userAgent?: string;
  /** What sends the requests; the node transport when not given. */
  handler?: HttpHandler;
  /** The node transport's connections: opened by this instead of TCP (the embedded sandbox, in-process). */
  connect?: () => Duplex;
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
  /**
   * Raw `request` text to send verbatim (for `bookdist api --input`), with its parsed object as
   * `payload` (what the write hook records).
   */
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
  /**
   * This request's own limit (ms), when a command bounds something longer than one request with
   * --timeout (`book process --wait` bounds the whole wait): the attempts and waits fit in the
   * shorter of it and the client's.
   */
  timeout?: number;
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
  /** This request's own limit (ms) under the client's --timeout (RequestOptions.timeout). */
  timeout?: number;
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
