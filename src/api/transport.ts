// The one transport under ApiClient: node:http / node:https with a keep-alive Agent per route
// (direct, or through a proxy), TLS verification against Node's roots plus an optional CA bundle
// (--ca-file), and proxies as curl reads them (network.ts): plain http requests in absolute form
// to the proxy, https requests tunnelled with CONNECT, Basic credentials from the proxy URL.
// Loaded when first used, not by `import 'node:http'`: the ESM form pulls in Node's internal HTTP
// stack eagerly and cost twice as much at start-up (README, Dependencies). Measured against
// undici for one request and for the bulk lookups, see bench/startup.mjs.
import type { Agent, ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import type { ConnectionOptions, PeerCertificate, TLSSocket } from 'node:tls';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { MAX_BODY_BYTES, type HttpHandler, type HttpRequest, type HttpResponse, type TlsInfo } from './handler.js';
import type { LookupFunction } from 'node:net';
import { pinFor, proxyAuthorization, routeFor, type Env, type Pin, type Route } from './network.js';

export interface TransportOptions {
  /** Time allowed to open a connection, ms. */
  connectTimeout: number;
  /** Max connections per origin. */
  connections: number;
  /** Proxy settings are read from here (HTTPS_PROXY, HTTP_PROXY, NO_PROXY...); none when absent. */
  env?: Env;
  /** More trusted CA certificates (PEM), added to Node's (NODE_EXTRA_CA_CERTS included). */
  ca?: string;
  /** --resolve: host names pinned to addresses for the connections bookdist opens itself. */
  pins?: readonly Pin[];
  /**
   * Opens every connection instead of TCP (and of any proxy): the embedded sandbox's in-process
   * streams (src/sandbox/http/in-process.ts). The requests and answers are the same bytes.
   */
  connect?: () => Duplex;
}

/** A failure of the proxy itself (refused, unreachable, 407...): `proxy` names it without credentials. */
function proxyError(err: unknown, route: Route): Error {
  return Object.assign(err instanceof Error ? err : new Error(String(err)), { proxy: route.shown });
}

/** A network error with the code callers classify by (ECONNREFUSED, ECONNRESET, ...). */
function withCode(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

/** What an https Agent calls to open a connection (here: a CONNECT tunnel, then TLS over it). */
type CreateConnection = (
  options: ConnectionOptions & { host: string; port: number },
  done: (err: Error | null, socket?: Socket) => void,
) => undefined;

export class HttpTransport implements HttpHandler {
  private readonly agents = new Map<string, Agent>();
  constructor(private readonly opts: TransportOptions) {}

  private moduleFor(protocol: string): typeof import('node:http') {
    if (protocol === 'https:') return process.getBuiltinModule('node:https') as unknown as typeof import('node:http');
    if (protocol === 'http:') return process.getBuiltinModule('node:http');
    throw withCode(`unsupported protocol ${protocol}`, 'ERR_INVALID_PROTOCOL');
  }

  private trust?: Record<string, unknown>;
  /**
   * TLS options that trust Node's roots (NODE_EXTRA_CA_CERTS included) plus --ca-file. Adding to
   * a default secure context reuses the roots Node already parsed; `ca: [...roots, pem]` would
   * parse every one of Node's few hundred roots again, in every command that gives a CA file.
   */
  private tlsTrust(): Record<string, unknown> {
    // Stryker disable next-line ConditionalExpression: equivalent, without a CA file the context made trusts Node's roots only, as no option does (→ true, the file ignored, is killed)
    if (!this.opts.ca) return {};
    // Stryker disable next-line ConditionalExpression: accepted, speed only: the context is made again, with the same CA
    if (this.trust) return this.trust;
    const tls = process.getBuiltinModule('node:tls');
    const context = tls.createSecureContext();
    const native = (context as unknown as { context?: { addCACert?: (pem: string) => void } }).context;
    // Stryker disable next-line ConditionalExpression,OptionalChaining,StringLiteral,BlockStatement: equivalent, the fallback trusts the same CA beside Node's roots (→ true is killed: transport.test.ts)
    if (typeof native?.addCACert === 'function') {
      native.addCACert(this.opts.ca);
      return (this.trust = { secureContext: context });
    }
    return (this.trust = { ca: [...tls.getCACertificates('default'), this.opts.ca] });
  }

  /**
   * The name lookup for connections to port `port`: a pinned name answers its address, any other
   * name is looked up as usual. Undefined without pins (Node's own lookup).
   */
  private lookupFor(port: number): LookupFunction | undefined {
    const pins = this.opts.pins;
    // Stryker disable next-line ConditionalExpression: equivalent, without pins every name goes to dns.lookup either way
    if (!pins?.length) return undefined;
    return ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
      const pin = pinFor(pins, hostname, port);
      if (!pin) return process.getBuiltinModule('node:dns').lookup(hostname, options as never, callback as never);
      const family = pin.address.includes(':') ? 6 : 4;
      process.nextTick(() =>
        options.all ? callback(null, [{ address: pin.address, family }]) : callback(null, pin.address, family),
      );
    }) as LookupFunction;
  }

  /** The route of a request to `url`: direct or through which proxy, and why. */
  route(url: string | URL): Route {
    if (this.opts.connect) return { why: 'the built-in sandbox runs in this process, never proxied' };
    // Stryker disable next-line ConditionalExpression: equivalent, new URL of a URL is that URL
    return routeFor(typeof url === 'string' ? new URL(url) : url, this.opts.env ?? {});
  }

  private agentFor(protocol: string, mod: typeof import('node:http'), route: Route): Agent {
    // Stryker disable next-line StringLiteral: equivalent, the keys stay distinct
    const key = `${protocol}${route.proxy ? ' via ' + route.proxy.href : ''}`;
    let agent = this.agents.get(key);
    if (!agent) {
      const options: Record<string, unknown> = { keepAlive: true, maxSockets: this.opts.connections };
      // Stryker disable next-line ConditionalExpression: equivalent, an http Agent ignores TLS options
      if (protocol === 'https:') Object.assign(options, this.tlsTrust());
      agent = new mod.Agent(options);
      const connect = this.opts.connect;
      // Node's Agent takes a connection returned at once (node:http documents overriding this).
      if (connect) (agent as unknown as { createConnection: () => Duplex }).createConnection = () => connect();
      else if (protocol === 'https:' && route.proxy) this.tunnel(agent, route);
      this.agents.set(key, agent);
    }
    return agent;
  }

  /** Make an https Agent open its connections through `route.proxy` with CONNECT. */
  private tunnel(agent: Agent, route: Route): void {
    const proxy = route.proxy!;
    const auth = proxyAuthorization(proxy);
    const http = process.getBuiltinModule('node:http');
    const tls = process.getBuiltinModule('node:tls');
    // Replaces the Agent's own (node:http documents overriding it); typed as the https Agent calls it.
    (agent as unknown as { createConnection: CreateConnection }).createConnection = (options, done) => {
      const authority = `${options.host.includes(':') ? `[${options.host}]` : options.host}:${options.port}`;
      const headers: Record<string, string> = { host: authority };
      if (auth) headers['proxy-authorization'] = auth;
      const proxyPort = Number(proxy.port || 80);
      const req = http.request({
        // Stryker disable next-line Regex: equivalent, a URL's hostname holds brackets only around an IPv6 address, at both ends
        host: proxy.hostname.replace(/^\[|\]$/g, ''),
        port: proxyPort,
        method: 'CONNECT',
        path: authority,
        headers,
        agent: false,
        lookup: this.lookupFor(proxyPort),
      });
      const timer = setTimeout(
        () =>
          req.destroy(
            withCode(
              `the proxy ${route.shown} opened no tunnel within ${this.opts.connectTimeout} ms`,
              'UND_ERR_CONNECT_TIMEOUT',
            ),
          ),
        this.opts.connectTimeout,
      );
      let finished = false;
      const finish = (err: Error | null, socket?: Socket) => {
        // Stryker disable next-line ConditionalExpression: equivalent, the request settles once: its timeout destroys it, which is its one error
        if (finished) return;
        // Stryker disable next-line BooleanLiteral: equivalent, the request settles once: its timeout destroys it, which is its one error
        finished = true;
        clearTimeout(timer);
        done(err, socket);
      };
      req.once('connect', (res: IncomingMessage, socket: Socket) => {
        if (res.statusCode !== 200) {
          socket.destroy();
          const status = res.statusCode ?? 0;
          const err = withCode(
            // Stryker disable next-line StringLiteral: equivalent, Node's parser gives every status line a message, '' when it has none (the line's template is killed: transport.test.ts)
            `the proxy answered ${status} ${res.statusMessage ?? ''}`.trim(),
            status === 407 || status === 401 ? 'BOOKDIST_PROXY_AUTH' : 'BOOKDIST_PROXY_REFUSED',
          );
          return finish(proxyError(Object.assign(err, { proxyStatus: status }), route));
        }
        // With `socket` given, tls.connect connects nowhere, and checks the certificate against
        // `servername || host`: the https Agent's servername is '' for an IP address, so `host` stays
        // (without it an address was checked as "localhost": a certificate for localhost passed).
        const { port: _p, path: _path, ...rest } = options;
        finish(null, tls.connect({ ...rest, socket }));
      });
      req.once('error', (err: Error) => finish(proxyError(err, route)));
      req.end();
      return undefined;
    };
  }

  /** Send one request; `signal` cuts it (its reason is thrown). */
  send(init: HttpRequest): Promise<HttpResponse> {
    const target = new URL(init.url);
    const mod = this.moduleFor(target.protocol);
    const route = this.route(target);
    const headers: Record<string, string> = { ...init.headers };
    // Plain http through a proxy: the request goes to the proxy, its target in absolute form.
    const viaHttpProxy = route.proxy && target.protocol === 'http:';
    if (viaHttpProxy) {
      const auth = proxyAuthorization(route.proxy!);
      if (auth) headers['proxy-authorization'] = auth;
    }
    const body =
      init.body === undefined
        ? undefined
        : // Stryker disable next-line ConditionalExpression: equivalent, Buffer.from of bytes copies the same bytes whatever the encoding
          typeof init.body === 'string'
          ? // Stryker disable next-line StringLiteral: equivalent, the encoding '' is UTF-8
            Buffer.from(init.body, 'utf8')
          : Buffer.from(init.body.buffer, init.body.byteOffset, init.body.byteLength);
    // Stryker disable next-line ConditionalExpression: equivalent, Node sets Content-Length itself for a body given whole to end()
    if (body) headers['content-length'] = String(body.length);
    return new Promise<HttpResponse>((resolve, reject) => {
      if (init.signal.aborted) return reject(init.signal.reason);
      let settled = false;
      let connectTimer: NodeJS.Timeout | undefined;
      const fail = (err: unknown) => {
        // Stryker disable next-line ConditionalExpression: equivalent, a second failure or a failure after the answer destroys a finished request and rejects a settled promise: nothing
        if (settled) return;
        // Stryker disable next-line BooleanLiteral: equivalent, a second failure or a failure after the answer destroys a finished request and rejects a settled promise: nothing
        settled = true;
        clearTimeout(connectTimer);
        init.signal.removeEventListener('abort', onAbort);
        req.destroy();
        reject(err);
      };
      const onAbort = () => fail(init.signal.reason);
      // Stryker disable next-line ObjectLiteral,BooleanLiteral: equivalent, the listener is removed when the request settles, and a signal aborts once
      init.signal.addEventListener('abort', onAbort, { once: true });
      const agent = this.agentFor(target.protocol, mod, route);
      const options = this.optionsFor(init, target, route, headers, agent);
      const onResponse = (res: IncomingMessage) => {
        const socket = res.socket;
        if (viaHttpProxy && res.statusCode === 407) {
          res.resume();
          return fail(
            proxyError(
              Object.assign(withCode('the proxy answered 407 Proxy Authentication Required', 'BOOKDIST_PROXY_AUTH'), {
                proxyStatus: 407,
              }),
              route,
            ),
          );
        }
        // The body is capped as it arrives (a declared length over the cap fails at once): no
        // answer holds more than MAX_BODY_BYTES of memory, or meets Node's string limit.
        const tooLarge = () => bodyTooLarge(res);
        if (Number(res.headers['content-length']) > MAX_BODY_BYTES) return fail(tooLarge());
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_BODY_BYTES) return fail(tooLarge());
          chunks.push(c);
        });
        // Stryker disable next-line StringLiteral: equivalent, Node emits 'aborted' before the 'error' of a cut answer (handled on the next line)
        res.on('error', fail);
        res.on('aborted', () => fail(withCode('the connection closed before the response ended', 'ECONNRESET')));
        res.on('end', () => {
          // Stryker disable next-line ConditionalExpression: equivalent, a failed answer is destroyed and never ends
          if (settled) return;
          // Stryker disable next-line BooleanLiteral: equivalent, a failed answer is destroyed and never ends
          settled = true;
          init.signal.removeEventListener('abort', onAbort);
          resolve({
            status: res.statusCode ?? 0,
            headers: flatHeaders(res),
            text: Buffer.concat(chunks).toString('utf8'),
            tls: tlsInfo(socket),
          });
        });
      };
      const req: ClientRequest = viaHttpProxy
        ? mod.request(options, onResponse)
        : mod.request(target, options, onResponse);
      // Through an http proxy, a failure to connect is the proxy's.
      let connected = false;
      req.on('error', (err) => fail(viaHttpProxy && !connected ? proxyError(err, route) : err));
      req.on('socket', (socket) => {
        // A connection that does not open in time is "not sent" (safe to retry, like a refusal).
        if (!socket.connecting) return void (connected = true);
        socket.once('connect', () => (connected = true));
        connectTimer = setTimeout(
          () => fail(withCode(`no connection within ${this.opts.connectTimeout} ms`, 'UND_ERR_CONNECT_TIMEOUT')),
          this.opts.connectTimeout,
        );
        socket.once('connect', () => clearTimeout(connectTimer));
      });
      req.end(body);
    });
  }

  /** Node's request options: through a plain-http proxy, to the proxy with the target in absolute form. */
  private optionsFor(
    init: HttpRequest,
    target: URL,
    route: Route,
    headers: Record<string, string>,
    agent: Agent,
  ): RequestOptions {
    if (route.proxy && target.protocol === 'http:') {
      const proxyPort = Number(route.proxy.port || 80);
      return {
        method: init.method,
        headers: { host: target.host, ...headers },
        agent,
        // Stryker disable next-line Regex: equivalent, a URL's hostname holds brackets only around an IPv6 address, at both ends
        host: route.proxy.hostname.replace(/^\[|\]$/g, ''),
        port: proxyPort,
        path: target.href,
        lookup: this.lookupFor(proxyPort),
      };
    }
    return {
      method: init.method,
      headers,
      agent,
      lookup: route.proxy
        ? undefined
        : this.lookupFor(Number(target.port || (target.protocol === 'https:' ? 443 : 80))),
      // In-process there is no TLS to name a server for: an empty name spares the Agent its
      // check of the host against Node's IPv6 pattern (a large regular expression compiled on first use).
      // Stryker disable next-line ObjectLiteral,StringLiteral: accepted, speed only: a request in plain http ignores servername
      ...(this.opts.connect ? { servername: '' } : {}),
    };
  }

  /** Close every connection now; requests still in flight (an interrupted run) are cut. */
  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }
}

/** The error of an answer whose body is over MAX_BODY_BYTES, with what is known of the answer. */
function bodyTooLarge(res: IncomingMessage): Error {
  return Object.assign(
    withCode(`the answer's body is larger than ${MAX_BODY_BYTES / 1024 / 1024} MiB`, 'ERR_BODY_TOO_LARGE'),
    { status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? '') },
  );
}

/** An answer's headers, lower-case names, repeated ones joined. */
function flatHeaders(res: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  // Stryker disable next-line StringLiteral: equivalent, Node gives no undefined header value
  for (const [k, v] of Object.entries(res.headers))
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v ?? '');
  return out;
}

/**
 * What `profile check` shows of a TLS connection; undefined for plain TCP. Only `profile check`
 * reads it, so the service's certificate is kept as Node's X509Certificate (a reference to the
 * one the connection verified) and described only when read: describing it (every name, the key,
 * the fingerprints) cost every HTTPS request 1.4M instructions (issue 31). The certificate is
 * taken now, while the connection is open: it stays readable after the connection is closed.
 */
function tlsInfo(socket: Socket | null): TlsInfo | undefined {
  const t = socket as TLSSocket | null;
  if (!t || typeof t.getPeerX509Certificate !== 'function') return undefined;
  const x509 = t.getPeerX509Certificate();
  let described: PeerCertificate | undefined;
  // Stryker disable next-line OptionalChaining: equivalent, a verified TLS connection always has the peer's certificate
  const cert = () => (described ??= x509?.toLegacyObject());
  const name = (n: object | undefined) =>
    n
      ? Object.entries(n)
          // Stryker disable next-line StringLiteral: accepted, display only: no test certificate repeats a name attribute (the sandbox's maker writes CN and O once)
          .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join('+') : v}`)
          .join(', ')
      : // Stryker disable next-line StringLiteral: equivalent, a verified certificate always has a subject and an issuer
        '';
  return {
    protocol: t.getProtocol() ?? undefined,
    get subject() {
      // Stryker disable next-line OptionalChaining: equivalent, a verified TLS connection always has the peer's certificate
      return name(cert()?.subject);
    },
    get issuer() {
      // Stryker disable next-line OptionalChaining: equivalent, a verified TLS connection always has the peer's certificate
      return name(cert()?.issuer);
    },
    get validTo() {
      // Stryker disable next-line OptionalChaining: equivalent, a verified TLS connection always has the peer's certificate
      return cert()?.valid_to;
    },
    get altNames() {
      // Stryker disable next-line OptionalChaining: equivalent, a verified TLS connection always has the peer's certificate
      return cert()?.subjectaltname;
    },
  };
}
