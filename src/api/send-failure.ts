// What a failed send means and what to do about it: a certificate, a proxy or a proxy setting
// (never retried: retrying cannot mend them), a service that could not be reached, or a write
// whose answer was lost ("outcome unknown"). The attempt step of the request pipeline
// (src/api/client.ts) asks here once the retry policy (retry.ts) gives up or does not apply.
import { CliError, ExitCode } from '../errors.js';
import { formatDuration } from '../util/duration.js';
import type { RequestInfo } from './answer.js';
import { certificateProblem } from './network.js';
import { neverSent, type RetryPolicy } from './retry.js';

/** What a failed send may carry: Node's `code` (or its cause's), and the transport's proxy details. */
export interface SendFailure {
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

/** The system code of a failed send (ECONNREFUSED...), its own or its cause's; '' when none. */
export function failureCode(err: SendFailure | undefined): string {
  return err?.code ?? err?.cause?.code ?? '';
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

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** A failure that retrying cannot mend: a certificate, the proxy, or a proxy setting. */
export function unmendable(
  err: SendFailure | undefined,
  info: RequestInfo,
  caFile: string | undefined,
): CliError | undefined {
  const code = failureCode(err);
  const host = hostOf(info.url);
  const cert =
    certificateProblem(code) ??
    (code === 'EPROTO' || /^ERR_SSL_/.test(code)
      ? // Stryker disable next-line OptionalChaining: equivalent, a code of EPROTO or ERR_SSL_ came from err, which is there
        /wrong version number|packet length too long|http request/i.test(String(err?.message))
        ? 'the server did not answer TLS (is it an http:// URL?)'
        : // Stryker disable next-line OptionalChaining: equivalent, a code of EPROTO or ERR_SSL_ came from err, which is there
          `the TLS handshake failed (${String(err?.message).split('\n')[0].slice(0, 160)})`
      : undefined);
  if (cert) {
    return new CliError(
      `Certificate problem: the certificate of ${host} did not verify: ${cert} (${code}). Nothing was sent. ${certificateAdvice(code, host, caFile)}`,
      ExitCode.TLS,
      {
        code,
        host,
      },
    );
  }
  if (code === 'BOOKDIST_PROXY_URL')
    // Stryker disable next-line OptionalChaining: equivalent, the code BOOKDIST_PROXY_URL came from err, which is there
    return new CliError(String(err?.message), ExitCode.USAGE, { setting: err?.setting });
  if (err?.proxy) return proxyFailure(err, info, code, host);
  return undefined;
}

function proxyFailure(err: SendFailure, info: RequestInfo, code: string, host: string): CliError {
  const status = err.proxyStatus;
  const why =
    status === 407 || status === 401
      ? `it refused the credentials (it answered ${status}): put the right user name and password in the proxy URL (http://USER:PASSWORD@host:port) of HTTPS_PROXY/HTTP_PROXY`
      : status
        ? `it refused to connect to ${host} (it answered ${status}): check that the proxy may reach the service, or name the service in NO_PROXY`
        : `it could not be reached (${code || err.message}): check HTTPS_PROXY/HTTP_PROXY, or name the service in NO_PROXY to go direct`;
  return new CliError(
    `Proxy problem: the proxy ${err.proxy} for ${info.method} ${info.url} failed: ${why}.`,
    ExitCode.PROXY,
    {
      code: code || undefined,
      proxy: err.proxy,
      proxy_status: status,
    },
  );
}

/**
 * The error of a send that failed for good (the retry policy gave up): "outcome unknown" when the
 * request may have reached the service and may not be repeated, else "could not reach" (exit 7).
 */
export function sendFailed(
  err: SendFailure | undefined,
  info: RequestInfo,
  policy: RetryPolicy,
  attempt: number,
  timeoutMs: number,
): CliError {
  const code = failureCode(err);
  const timedOut = err?.name === 'TimeoutError';
  if (!neverSent(code) && !policy.network) {
    // The request may have reached the service: repeating it could do it twice.
    return new CliError(
      `${info.method} ${info.url}: ${timedOut ? `no answer within ${formatDuration(timeoutMs)}` : `the connection was lost (${code || err?.message})`} ` +
        'after the request was sent: the outcome is unknown. Check whether it took effect before sending it again ' +
        '(e.g. `bookdist user orders`, `bookdist codes summary`); not retried, as repeating it could do it twice.',
      ExitCode.ERROR,
      { code: code || undefined, outcome: 'unknown' },
    );
  }
  // A repeatable request whose connection broke after it was sent did reach the network's other
  // end: "could not reach" is said only of a send that never left (or whose failure names no code).
  const what = timedOut
    ? `no answer within ${formatDuration(timeoutMs)} (timed out; raise --timeout)`
    : code && !neverSent(code)
      ? `the connection was lost (${code})`
      : `could not reach the service (${code || err?.message})`;
  return new CliError(
    `${info.method} ${info.url}: ${what}${attempt ? ` after ${attempt + 1} attempts` : ''}`,
    ExitCode.UNAVAILABLE,
    {
      code: code || undefined,
    },
  );
}
