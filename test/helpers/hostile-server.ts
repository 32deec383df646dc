// A hostile HTTP server on loopback for tests (issue 28): the answers a captive portal, a
// corporate proxy, a load balancer or a service in trouble give, scripted per route, over real
// HTTP, so that the CLI's own transport (node:http, streamed bodies, its deadline) is what meets
// them. Each route answers with a fixed answer or a function of the request and its number; the
// server counts requests per path and keeps what was sent (a POST's `request` payload decoded).
// Big and endless bodies are streamed in chunks and stop when the client goes away: nothing here
// holds a body in memory. Test-only code.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, beforeEach } from 'vitest';

/** One scripted answer. */
export type HostileAnswer =
  | { kind: 'plain'; status: number; headers?: Record<string, string>; body?: string }
  /**
   * `bytes` of `fill` (Infinity: a body that never ends), written as the client takes them; with
   * `dripMs`, one small piece every `dripMs` milliseconds (a server that drips its answer).
   */
  | {
      kind: 'stream';
      status: number;
      headers?: Record<string, string>;
      bytes: number;
      fill?: string;
      prefix?: string;
      dripMs?: number;
    }
  /** Accept the request and never answer. */
  | { kind: 'silent' };

interface HostileRequest {
  method: string;
  /** Path and query, as sent. */
  path: string;
  pathname: string;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The form field `request` parsed as JSON (as the CLI sends every POST), when there is one. */
  payload?: Record<string, unknown>;
}

type Responder = HostileAnswer | ((req: HostileRequest, n: number) => HostileAnswer);

const JSON_TYPE = { 'content-type': 'application/json' };

/** The answers of the list. */
export const answer = {
  /** Any status and body (JSON by default when `body` is an object). */
  json(status: number, body: unknown, headers: Record<string, string> = {}): HostileAnswer {
    return { kind: 'plain', status, headers: { ...JSON_TYPE, ...headers }, body: JSON.stringify(body) };
  },
  /** The documented envelope with these members: a faithful success. */
  ok(members: Record<string, unknown> = {}, headers: Record<string, string> = {}): HostileAnswer {
    return answer.json(200, { code: 200, success: true, test_mode: true, ...members }, headers);
  },
  /** A JSON error body as the service sends them. */
  error(status: number, message: string, headers: Record<string, string> = {}): HostileAnswer {
    return answer.json(status, { code: status, error: true, test_mode: true, message }, headers);
  },
  /** A 301/302 (or 307/308) with a Location, and a body as load balancers send. */
  redirect(location: string, status = 301): HostileAnswer {
    return {
      kind: 'plain',
      status,
      headers: { location, 'content-type': 'text/html' },
      body: `<html><body>Moved to <a href="${location}">${location}</a></body></html>`,
    };
  },
  /** A 200 with no body at all. */
  empty(status = 200, headers: Record<string, string> = {}): HostileAnswer {
    return { kind: 'plain', status, headers: { 'content-length': '0', ...headers }, body: '' };
  },
  /** A captive portal's sign-in page, answered 200. */
  html(status = 200): HostileAnswer {
    return {
      kind: 'plain',
      status,
      headers: { 'content-type': 'text/html; charset=utf-8' },
      body: '<!DOCTYPE html><html><head><title>Guest Wi-Fi</title></head><body><form action="/login"><h1>Sign in to continue</h1></form></body></html>',
    };
  },
  /** The first half of a JSON body (a proxy cut it), with a JSON content type. */
  truncated(body: unknown = { code: 200, success: true, test_mode: true, message: 'Done.' }): HostileAnswer {
    const text = JSON.stringify(body);
    return { kind: 'plain', status: 200, headers: JSON_TYPE, body: text.slice(0, Math.floor(text.length / 2)) };
  },
  /** 200 whose body says it failed. */
  notSuccess(members: Record<string, unknown> = {}): HostileAnswer {
    return answer.json(200, { code: 200, success: false, test_mode: true, ...members });
  },
  /** Any text with any content type. */
  text(status: number, body: string, contentType = 'text/plain'): HostileAnswer {
    return { kind: 'plain', status, headers: { 'content-type': contentType }, body };
  },
  /** A JSON-looking body of `bytes` bytes (a JSON string that goes on); Infinity never ends. */
  huge(bytes: number, status = 200): HostileAnswer {
    return {
      kind: 'stream',
      status,
      headers: JSON_TYPE,
      bytes,
      prefix: '{"code":200,"success":true,"message":"',
      fill: 'x',
    };
  },
  /** A JSON-looking body that never ends, one byte every `ms` milliseconds. */
  drip(ms = 100): HostileAnswer {
    return {
      kind: 'stream',
      status: 200,
      headers: JSON_TYPE,
      bytes: Infinity,
      prefix: '{"code":200,"success":true,"message":"',
      fill: 'x',
      dripMs: ms,
    };
  },
  /** 429 (or 503) asking to wait `seconds`. */
  retryAfter(seconds: number | string, status = 429): HostileAnswer {
    return answer.error(status, 'Too many requests', { 'retry-after': String(seconds) });
  },
  silent(): HostileAnswer {
    return { kind: 'silent' };
  },
};

interface Route {
  method: string;
  path: string | RegExp;
  responder: Responder;
  used: number;
}

export interface HostileServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Answer `method path` (every time, in the order routes were added: the first that matches). */
  on(method: string, path: string | RegExp, responder: Responder): HostileServer;
  /** Requests received on a path (its pathname; all paths when none is given). */
  hits(path?: string): number;
  /** The requests received, oldest first. */
  requests: HostileRequest[];
  /** Bytes of body written to clients (streamed answers included). */
  bytesSent(): number;
  /** Forget the routes and the requests (between tests). */
  reset(): void;
  close(): Promise<void>;
}

/** The pathname of a path with a query (what routes and counts match on). */
const pathnameOf = (p: string) => p.split('?')[0];

function matches(want: string | RegExp, pathname: string): boolean {
  return typeof want === 'string' ? want === pathname : want.test(pathname);
}

/** Start a hostile server on 127.0.0.1 (an ephemeral port). A request no route matches gets a JSON 404. */
async function startHostile(): Promise<HostileServer> {
  let routes: Route[] = [];
  const requests: HostileRequest[] = [];
  const sockets = new Set<Socket>();
  let sent = 0;

  const handle = (req: IncomingMessage, res: ServerResponse, body: string) => {
    const path = req.url ?? '/';
    const u = new URL(path, 'http://hostile.invalid');
    let payload: Record<string, unknown> | undefined;
    const ctype = String(req.headers['content-type'] ?? '');
    const text = ctype.includes('x-www-form-urlencoded')
      ? new URLSearchParams(body).get('request')
      : ctype.includes('json')
        ? body
        : null;
    try {
      const v = text ? JSON.parse(text) : undefined;
      payload = v && typeof v === 'object' ? (v.request ?? v) : undefined;
    } catch {
      payload = undefined;
    }
    const rec: HostileRequest = {
      method: req.method ?? 'GET',
      path,
      pathname: u.pathname,
      query: u.searchParams,
      headers: req.headers,
      body,
      payload,
    };
    requests.push(rec);
    const route = routes.find((r) => r.method === rec.method && matches(r.path, rec.pathname));
    if (!route) return write(res, answer.error(404, `No route for ${rec.method} ${rec.pathname}`));
    route.used++;
    const a = typeof route.responder === 'function' ? route.responder(rec, route.used) : route.responder;
    write(res, a);
  };

  const write = (res: ServerResponse, a: HostileAnswer) => {
    if (a.kind === 'silent') return;
    if (a.kind === 'plain') {
      const body = Buffer.from(a.body ?? '', 'utf8');
      sent += body.length;
      res.writeHead(a.status, { 'content-length': String(body.length), ...a.headers });
      res.end(body);
      return;
    }
    // Streamed: no content-length for an endless body (chunked), the real length otherwise.
    const headers: Record<string, string> = { ...a.headers };
    if (Number.isFinite(a.bytes)) headers['content-length'] = String(a.bytes);
    res.writeHead(a.status, headers);
    const chunk = Buffer.alloc(a.dripMs ? 1 : 64 * 1024, a.fill ?? 'x');
    let left = a.bytes;
    let first = a.prefix ? Buffer.from(a.prefix) : undefined;
    if (a.dripMs) {
      const timer = setInterval(() => {
        if (res.destroyed) return clearInterval(timer);
        const piece = first ?? chunk;
        first = undefined;
        sent += piece.length;
        res.write(piece);
      }, a.dripMs);
      res.on('close', () => clearInterval(timer));
      return;
    }
    const pump = () => {
      while (left > 0 && !res.destroyed) {
        let piece = first ?? chunk;
        first = undefined;
        if (piece.length > left) piece = piece.subarray(0, left);
        left -= piece.length;
        sent += piece.length;
        if (!res.write(piece)) return void res.once('drain', pump);
      }
      if (left <= 0) res.end();
    };
    res.on('close', () => (left = 0));
    pump();
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const self: HostileServer = {
    url: `http://127.0.0.1:${port}`,
    on(method, path, responder) {
      routes.push({ method: method.toUpperCase(), path, responder, used: 0 });
      return self;
    },
    hits(path) {
      return path === undefined ? requests.length : requests.filter((r) => r.pathname === pathnameOf(path)).length;
    },
    requests,
    bytesSent: () => sent,
    reset() {
      routes = [];
      requests.length = 0;
      sent = 0;
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  return self;
}

/**
 * The hostile server of a test file: started before its tests, its routes and counts reset before
 * each test, closed after the last. Use it from the tests (it is started in beforeAll).
 */
export function hostileForFile(): HostileServer {
  let s: HostileServer | undefined;
  beforeAll(async () => {
    s = await startHostile();
  });
  afterAll(async () => {
    await s?.close();
  });
  beforeEach(() => s?.reset());
  const get = () => {
    if (!s) throw new Error('the hostile server starts in beforeAll: use it from the tests');
    return s;
  };
  const self: HostileServer = {
    get url() {
      return get().url;
    },
    on: (method, path, responder) => (get().on(method, path, responder), self),
    hits: (path) => get().hits(path),
    get requests() {
      return get().requests;
    },
    bytesSent: () => get().bytesSent(),
    reset: () => get().reset(),
    close: () => get().close(),
  };
  return self;
}

/** The environment of a run against the hostile server: a partner with a shared key and an operator token, no profile. */
export function hostileEnv(
  url: string,
  extra: Record<string, string | undefined> = {},
): Record<string, string | undefined> {
  return {
    BOOKDIST_BASE_URL: url,
    BOOKDIST_USERNAME: '0d72df20f23558620646fb3ea030f5',
    BOOKDIST_SHARED_KEY: 'hostile-shared-key',
    BOOKDIST_TOKEN: 'hostile-operator-token',
    BOOKDIST_CONFIG_DIR: '/nonexistent/bookdist-hostile/config',
    BOOKDIST_DATA_DIR: '/nonexistent/bookdist-hostile/data',
    NO_COLOR: '1',
    ...extra,
  };
}
