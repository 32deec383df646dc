// The first steps of the request pipeline (client.ts): `prepare` builds the exact method, URL,
// headers and body, signed with the credentials the host may get (wire.ts); `refuseBadHeaders`
// and `refuseUnsigned` refuse, unsent, what could not or should not be sent.
import { ExitCode, CliError } from '../errors.js';
import { quoteValue } from '../util/quote.js';
import { trimTrailingSlashes } from '../util/scan.js';
import { authHeaders, formBody, pythonJson, redactHeaders, type Credentials } from './wire.js';
import type { ClientOptions, Prepared, RequestOptions } from './options.js';

/** The store host: the price comparison host, else the base URL. */
export function storeUrlOf(opts: ClientOptions): string {
  return opts.storeUrl ?? opts.baseUrl;
}

/** The URL of `path` on a host, with the query's given values. */
export function urlOf(
  opts: ClientOptions,
  path: string,
  host?: 'api' | 'store',
  query?: RequestOptions['query'],
): string {
  const base = trimTrailingSlashes(host === 'store' ? storeUrlOf(opts) : opts.baseUrl);
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
function foreignStore(opts: ClientOptions): boolean {
  try {
    return new URL(storeUrlOf(opts)).origin !== new URL(opts.baseUrl).origin;
  } catch {
    return true;
  }
}

/** The credentials a request gets (`auth` and `host` unset: partner, to the API host). */
function credentialsFor(
  opts: ClientOptions,
  auth?: 'partner' | 'access' | 'none',
  host?: 'api' | 'store',
): Credentials {
  if (auth === 'none') return { kind: 'none' };
  // A key only goes to its profile's own base URL: the store host (price comparison, public)
  // gets none unless asked for explicitly.
  // Stryker disable next-line ObjectLiteral,StringLiteral: credentials of no known kind get no headers either (wire.ts authHeaders), and this line's are never checked by refuseUnsigned (it asks without a host)
  if (host === 'store' && !opts.storeCredentials && foreignStore(opts)) return { kind: 'none' };
  if (auth === 'access' && opts.accessToken) {
    const c = opts.credentials;
    // Stryker disable next-line ConditionalExpression,StringLiteral: credentials of kind none have no username either
    const username = c.kind === 'none' ? undefined : c.username;
    return { kind: 'token', token: opts.accessToken, username };
  }
  return opts.credentials;
}

/** Build the exact method, URL, headers and body that would be sent. */
export function prepare(opts: ClientOptions, o: RequestOptions): Prepared {
  const url = urlOf(opts, o.path, o.host, o.query);
  const headers: Record<string, string> = {
    accept: o.accept ?? 'application/json',
    'user-agent': opts.userAgent ?? 'bookdist',
  };
  for (const [k, v] of Object.entries(o.headers ?? {})) headers[k.toLowerCase()] = v;
  let body: string | undefined;
  let requestText: string | undefined;
  if (o.method === 'POST') {
    requestText = o.requestText ?? pythonJson(o.payload ?? {});
    body = formBody(requestText);
    headers['content-type'] = 'application/x-www-form-urlencoded';
  }
  Object.assign(headers, authHeaders(credentialsFor(opts, o.auth, o.host), requestText));
  return { method: o.method, url, headers, body, requestText };
}

/** A request that needs a signature, to a service (signedOnly), with no credentials at all: refused unsent. */
export function refuseUnsigned(opts: ClientOptions, o: RequestOptions, p: Prepared): void {
  if (!opts.signedOnly || opts.dryRun || o.auth === 'none' || o.host === 'store') return;
  if (credentialsFor(opts, o.auth).kind !== 'none') return;
  throw new CliError(
    `${p.method} ${p.url} needs credentials and none are set: nothing was sent. Set BOOKDIST_USERNAME with ` +
      'BOOKDIST_KEY_FILE (an RSA private key, PEM) or BOOKDIST_SHARED_KEY, or store them with `bookdist profile add`.',
    ExitCode.USAGE,
    { setting: 'credentials' },
  );
}

/**
 * Every header the client would send, checked before anything is sent: a value holding a control
 * character (a line break would end the header early, a tab or NUL is never meant) or a character
 * beyond Latin-1 (Node refuses it mid-send, which a write would report as an unknown outcome) is a
 * usage error naming the header; a secret header's value is not shown.
 */
export function refuseBadHeaders(p: Prepared): void {
  for (const [name, value] of Object.entries(p.headers)) {
    const bad = /[^\x20-\x7e\x80-\xff]/.exec(value);
    if (!bad) continue;
    const c = bad[0].codePointAt(0)!;
    const esc = { 9: '\\t', 10: '\\n', 13: '\\r' }[c] ?? `\\u${c.toString(16).padStart(4, '0')}`;
    // Stryker disable next-line EqualityOperator: equivalent, a space (0x20) is not a bad character, so `c` is never 0x20
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

/** The path of a URL, for messages (the URL itself when it does not parse). */
export function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}
