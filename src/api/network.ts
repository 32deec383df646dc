// The network partners have: which proxy a request goes through (HTTPS_PROXY, HTTP_PROXY and
// NO_PROXY as curl reads them; loopback never proxied, as Go's net/http does), and what a
// certificate or proxy failure means. Pure functions: the transport (transport.ts) applies them.
import { isIP } from 'node:net';

export type Env = Record<string, string | undefined>;

/** Where a request goes: through `proxy`, or direct; `why` says which setting decided it. */
export interface Route {
  proxy?: URL;
  /** The proxy as shown to people: scheme, host and port, never its credentials. */
  shown?: string;
  why: string;
}

/** The first set variable of `names` (curl reads the lower-case one first). */
function pick(env: Env, names: string[]): { name: string; value: string } | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return { name, value };
  }
  return undefined;
}

/**
 * A host name pinned to an address for one port, as curl's `--resolve HOST:PORT:ADDR`: bookdist
 * connects to ADDR when it connects to HOST:PORT itself (direct, or to a proxy of that name); the
 * name stays what is verified in the certificate and sent as Host. Through a proxy, the proxy
 * resolves the service's name (as with curl).
 */
export interface Pin {
  host: string;
  port: number;
  address: string;
}

/**
 * `HOST:PORT:ADDR[,HOST:PORT:ADDR...]` (an IPv6 address in brackets: `api.example.com:443:[::1]`).
 * The problem of the first entry that is not one, or the pins.
 */
export function parsePins(text: string): { pins: Pin[] } | { problem: string } {
  const pins: Pin[] = [];
  // Stryker disable next-line Regex: equivalent, the empty entries one separator at a time leaves are filtered out
  for (const entry of text.split(/[\s,]+/).filter(Boolean)) {
    const m = /^([^:\s[\]]+):(\d{1,5}):(?:\[([0-9a-fA-F:.]+)\]|([0-9.]+))$/.exec(entry);
    // Stryker disable next-line StringLiteral: equivalent, without a match the entry is refused before its address is read
    const address = m ? (m[3] ?? m[4]) : '';
    const port = m ? Number(m[2]) : 0;
    if (!m || !isIP(address) || port < 1 || port > 65535) {
      return {
        problem: `"${entry}" is not HOST:PORT:ADDRESS (e.g. api.example.com:443:203.0.113.7, an IPv6 address in brackets: api.example.com:443:[2001:db8::7])`,
      };
    }
    pins.push({ host: m[1].toLowerCase().replace(/\.$/, ''), port, address });
  }
  return { pins };
}

/** The pin for a connection to `host`:`port`, if one names them (a pin never names an IPv6 address). */
export function pinFor(pins: readonly Pin[] | undefined, host: string, port: number): Pin | undefined {
  const h = host.toLowerCase().replace(/\.$/, '');
  return pins?.find((p) => p.host === h && p.port === port);
}

/** A proxy URL as shown to people: never its user name or password. */
function showProxy(u: URL): string {
  return `${u.protocol}//${u.host}`;
}

/**
 * Is this host (lower case, without brackets or a trailing dot) loopback (localhost, 127.0.0.0/8,
 * ::1)? Such requests never go through a proxy.
 */
function isLoopbackHost(h: string): boolean {
  return (
    h === 'localhost' ||
    h.endsWith('.localhost') ||
    h === '::1' ||
    // Stryker disable next-line Regex: equivalent, a URL's host that ends in a dotted quad is that IPv4 address (WHATWG URL refuses any other name whose last label is a number)
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) ||
    // IPv4-mapped 127.0.0.0/8, as written (::ffff:127.0.0.1) or as a URL spells it (::ffff:7f00:1).
    /^::ffff:(?:127\.|7f[0-9a-f]{2}:)/.test(h)
  );
}

function ipToBigInt(ip: string): { v: bigint; bits: number } | undefined {
  const kind = isIP(ip);
  if (kind === 4) return { v: ip.split('.').reduce((a, p) => (a << 8n) | BigInt(Number(p)), 0n), bits: 32 };
  if (kind === 6) {
    let s = ip;
    // Stryker disable next-line Regex: equivalent, the `$` only: in an IPv6 address isIP accepts, a dotted quad can only end it
    const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
    if (v4) {
      const n = ipToBigInt(v4[1])!.v;
      s = s.slice(0, -v4[1].length) + `${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
    }
    const [head, tail] = s.split('::');
    const h = head ? head.split(':') : [];
    const t = tail ? tail.split(':') : [];
    // Without `::` there are eight groups already and nothing to fill.
    const groups = [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
    return { v: groups.reduce((a, g) => (a << 16n) | BigInt(parseInt(g, 16)), 0n), bits: 128 };
  }
  return undefined;
}

/** Does one NO_PROXY entry match this host (lower case, no brackets) and port? */
function noProxyMatches(entry: string, host: string, port: string): boolean {
  // An empty entry matches nothing: its name below is empty.
  let e = entry.toLowerCase();
  if (e === '*') return true;
  // An entry with a port matches that port only: `example.com:8443`, `[::1]:8080`.
  let entryPort: string | undefined;
  const withPort = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(e);
  if (withPort) {
    e = withPort[1];
    entryPort = withPort[2];
  }
  // Stryker disable next-line Regex: accepted, the anchors: only a bracket inside a name, which no host name holds, would read differently
  e = e.replace(/^\[|\]$/g, '');
  if (entryPort && entryPort !== port) return false;
  // IP addresses and CIDR ranges (curl 7.86+).
  const cidr = /^([0-9a-f:.]+)\/(\d{1,3})$/.exec(e);
  const hostIp = ipToBigInt(host);
  if (cidr || isIP(e)) {
    if (!hostIp) return false;
    const net = ipToBigInt(cidr ? cidr[1] : e);
    if (!net || net.bits !== hostIp.bits) return false;
    const prefix = cidr ? Math.min(Number(cidr[2]), net.bits) : net.bits;
    const shift = BigInt(net.bits - prefix);
    return net.v >> shift === hostIp.v >> shift;
  }
  // Domain names: `example.com`, `.example.com` and `*.example.com` all match example.com and
  // every name under it (curl: a leading dot is a domain match that includes the name itself).
  const name = e.replace(/^\*?\.+/, '').replace(/\.$/, '');
  if (!name) return false;
  return host === name || host.endsWith('.' + name);
}

/**
 * The route of a request to `target`, as curl would choose it: `https_proxy`/`HTTPS_PROXY` for
 * https, `http_proxy`/`HTTP_PROXY` for http, then `all_proxy`/`ALL_PROXY`; unless `no_proxy`/
 * `NO_PROXY` names the host (names, domain suffixes, `*`, `host:port`, IP addresses and CIDR
 * ranges) or the host is loopback. A proxy URL without a scheme is http://.
 * Throws (with `code` BOOKDIST_PROXY_URL and `setting`) for a proxy URL that is not usable.
 */
export function routeFor(target: URL, env: Env): Route {
  // What .replace(/^\[|\]$/g, '') and .replace(/\.$/, '') made, without compiling them on every request.
  let host = target.hostname;
  if (host.startsWith('[')) host = host.slice(1);
  if (host.endsWith(']')) host = host.slice(0, -1);
  host = host.toLowerCase();
  if (host.endsWith('.')) host = host.slice(0, -1);
  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  const names = target.protocol === 'https:' ? ['https_proxy', 'HTTPS_PROXY'] : ['http_proxy', 'HTTP_PROXY'];
  const set = pick(env, names) ?? pick(env, ['all_proxy', 'ALL_PROXY']);
  if (!set) return { why: 'no proxy set (HTTPS_PROXY, HTTP_PROXY)' };
  if (isLoopbackHost(host)) return { why: `${target.hostname} is loopback, never proxied (${set.name} ignored)` };
  const noProxy = pick(env, ['no_proxy', 'NO_PROXY']);
  if (noProxy) {
    // Stryker disable next-line Regex: equivalent, an empty entry (one separator at a time) matches nothing
    const hit = noProxy.value.split(/[\s,]+/).find((entry) => noProxyMatches(entry, host, port));
    if (hit !== undefined) return { why: `${noProxy.name} entry "${hit}" names ${target.hostname}` };
  }
  let proxy: URL;
  try {
    proxy = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(set.value) ? set.value : `http://${set.value}`);
  } catch {
    throw Object.assign(new Error(`${set.name} is not a URL; set it like http://proxy.example.com:3128.`), {
      code: 'BOOKDIST_PROXY_URL',
      setting: set.name,
    });
  }
  if (proxy.protocol !== 'http:') {
    throw Object.assign(
      new Error(
        `${set.name} uses ${proxy.protocol}// (${showProxy(proxy)}); bookdist talks to proxies over http:// only (HTTPS requests are tunnelled with CONNECT).`,
      ),
      { code: 'BOOKDIST_PROXY_URL', setting: set.name },
    );
  }
  return { proxy, shown: showProxy(proxy), why: `${set.name}` };
}

/** The Proxy-Authorization header for a proxy URL with user information (Basic). */
export function proxyAuthorization(proxy: URL): string | undefined {
  if (!proxy.username && !proxy.password) return undefined;
  const user = decodeURIComponent(proxy.username);
  const pass = decodeURIComponent(proxy.password);
  return 'Basic ' + Buffer.from(`${user}:${pass}`).toString('base64');
}

/** OpenSSL's verification failures (and Node's host name check): a certificate problem, never an outage. */
const CERT_ERRORS: Record<string, string> = {
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its issuer is not a trusted certificate authority',
  UNABLE_TO_GET_ISSUER_CERT: 'its issuer is not a trusted certificate authority',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'its issuer is not a trusted certificate authority',
  SELF_SIGNED_CERT_IN_CHAIN: 'it is signed by a certificate authority that is not trusted',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'it is self-signed and not trusted',
  CERT_UNTRUSTED: 'it is not trusted',
  CERT_HAS_EXPIRED: 'it has expired',
  CERT_NOT_YET_VALID: "it is not valid yet (check this machine's clock)",
  CERT_REVOKED: 'it has been revoked',
  CERT_SIGNATURE_FAILURE: 'its signature does not verify',
  CERT_CHAIN_TOO_LONG: 'its chain is too long',
  INVALID_CA: 'a certificate in its chain is not a valid CA',
  INVALID_PURPOSE: 'it is not meant for a server',
  HOSTNAME_MISMATCH: 'it does not name this host',
  ERR_TLS_CERT_ALTNAME_INVALID: 'it does not name this host',
  ERR_SSL_WRONG_VERSION_NUMBER: 'the server did not answer TLS (is it an http:// URL?)',
  ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION: 'the server and bookdist share no TLS version',
  ERR_SSL_UNSUPPORTED_PROTOCOL: 'the server and bookdist share no TLS version',
  ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE: 'the TLS handshake failed',
  ERR_SSL_PACKET_LENGTH_TOO_LONG: 'the server did not answer TLS (is it an http:// URL?)',
};

/** What a certificate/TLS error code means, or undefined when the code is not one. */
export function certificateProblem(code: string): string | undefined {
  // Own entries only: a code such as "toString" is not one (the object's prototype would answer it).
  return Object.hasOwn(CERT_ERRORS, code) ? CERT_ERRORS[code] : undefined;
}
