// The sandbox's HTTP server: node:http, the router driven by the endpoint table, auth, scopes,
// validation, the domain handlers, the /_sandbox/ control routes, the reader and cart pages,
// the processing worker, fault injection and one log line per request.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { authenticate, type Caller } from './auth.js';
import { advanceClock, cleanupKeyFiles, clockInfo, credentials, listOutbox, readerEvent, recordUsage } from './control.js';
import { HANDLERS, itemLiveFor, redeemCode, runWorker, type HandlerCtx } from './domain.js';
import {
  bad,
  htmlEscape,
  HttpError,
  normalizeHeaders,
  parseBody,
  prefersXml,
  readBody,
  sendJson,
  sendText,
  xmlError,
} from './http.js';
import { hasEmptySegment, matchRoute } from './router.js';
import { ensureSeeded } from './seed.js';
import { Store } from './store.js';
import { parseDuration } from './util.js';
import { parseRequestText, validatePayload } from './validate.js';

export interface FaultOptions {
  /** Probability (0..1) that a request gets one of `kinds`. */
  rate: number;
  kinds: Array<'503' | '429' | 'reset'>;
  /** Added to every (non-control) request. */
  latencyMs?: number;
}

export interface SandboxOptions {
  host?: string;
  port?: number;
  /** SQLite file, or ':memory:'. */
  dbPath: string;
  /** Time the worker takes per queued book (default 2000 ms). */
  processDelayMs?: number;
  faults?: FaultOptions;
  /** One line per request: method, path, status, ms, account. */
  log?: (line: string) => void;
}

export interface RunningSandbox {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Endpoints of 4.8 that the operator token may call besides /v1/access/*. */
const TOKEN_VARIANTS = new Set(['user.create', 'book.index', 'book.viewer']);

const TEST_MODE = { test_mode: true } as const;

export async function startSandbox(opts: SandboxOptions): Promise<RunningSandbox> {
  const store = new Store(opts.dbPath);
  try {
    ensureSeeded(store);
    credentials(store); // writes the key files next to the database
  } catch (err) {
    store.close();
    throw err;
  }
  const delay = Math.max(0, opts.processDelayMs ?? 2000);
  const log = opts.log;
  const faults = opts.faults && opts.faults.kinds.length ? opts.faults : undefined;
  const latency = opts.faults?.latencyMs ?? 0;

  const tick = () => {
    try {
      runWorker(store, delay);
    } catch {
      /* busy: next tick */
    }
  };
  const timer = setInterval(tick, Math.min(250, Math.max(25, Math.floor(delay / 4))));
  timer.unref();
  tick();

  const server = createServer({ keepAlive: true, keepAliveTimeout: 5000, requestTimeout: 30_000 }, (req, res) => {
    const started = performance.now();
    let account = '-';
    const path = safePath(req.url ?? '/');
    res.on('finish', () => {
      log?.(`${req.method} ${path} ${res.statusCode} ${Math.round(performance.now() - started)}ms ${account}`);
    });
    const isControl = path.startsWith('/_sandbox/') || path === '/_sandbox';
    if (faults && !isControl && Math.random() < faults.rate) {
      const kind = faults.kinds[Math.floor(Math.random() * faults.kinds.length)];
      if (kind === 'reset') {
        log?.(`${req.method} ${path} reset 0ms -`);
        req.socket.destroy();
        return;
      }
      const run = () => {
        if (kind === '429') {
          sendJson(res, 429, { code: 429, error: true, ...TEST_MODE, message: 'Too many requests; retry after 1 second.' }, { 'retry-after': '1' });
        } else {
          sendJson(res, 503, { code: 503, error: true, ...TEST_MODE, message: 'Service temporarily unavailable.' });
        }
        req.resume();
      };
      if (latency > 0) setTimeout(run, latency);
      else run();
      return;
    }
    const go = () =>
      handle(req, res, (name) => (account = name)).catch((err) => {
        log?.(`internal error: ${err?.stack ?? err}`);
        if (!res.headersSent) sendJson(res, 500, { code: 500, error: true, ...TEST_MODE, message: 'Internal error.' });
        else res.destroy();
      });
    if (latency > 0 && !isControl) setTimeout(go, latency);
    else void go();
  });

  const handle = async (req: IncomingMessage, res: ServerResponse, setAccount: (n: string) => void): Promise<void> => {
    const method = (req.method ?? 'GET').toUpperCase();
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    } catch {
      return sendError(res, new HttpError(400, 'Malformed request URL.'), false);
    }
    const pathname = url.pathname;
    const headers = normalizeHeaders(req);
    const hostHeader = /^[\w.\-:[\]]{1,255}$/.test(headers['host'] ?? '') ? headers['host'] : `127.0.0.1:${port}`;
    const origin = `http://${hostHeader}`;

    if (pathname === '/_sandbox' || pathname.startsWith('/_sandbox/')) return control(req, res, method, url);
    if (pathname.startsWith('/reader/')) return reader(res, method, url, origin);
    if (pathname === '/cart' || pathname === '/cart/') return cart(res, method, url);

    let match;
    try {
      match = matchRoute(pathname);
    } catch {
      return sendError(res, new HttpError(400, 'Malformed percent-encoding in the path.'), false);
    }
    if (!match || hasEmptySegment(pathname)) {
      req.resume();
      return sendError(res, new HttpError(404, `No such endpoint: ${pathname.slice(0, 200)}`), false);
    }
    const { ep, params } = match;
    const xml = ep.auth === 'access' && prefersXml(headers['accept']);
    if (!(ep.methods as string[]).includes(method)) {
      req.resume();
      return sendError(res, new HttpError(405, `Method ${method.slice(0, 10)} not allowed on ${ep.path}; use ${ep.methods.join(' or ')}.`, {}, { allow: ep.methods.join(', ') }), xml);
    }
    try {
      // Body first (the signature covers the raw `request` text), then who is calling.
      let requestText: string | undefined;
      let fromQuery = false;
      if (method === 'POST') {
        const body = parseBody(await readBody(req), headers['content-type']);
        requestText = body.requestText;
      } else {
        req.resume();
        if (url.searchParams.has('request')) requestText = url.searchParams.get('request') ?? undefined;
        else fromQuery = true;
      }

      let caller: Caller | undefined;
      if (ep.auth === 'partner' || ep.auth === 'access') {
        const allowToken = ep.auth === 'access' || TOKEN_VARIANTS.has(ep.name);
        // A GET's signature covers the username; a `request` query param may be signed too.
        const signedText = method === 'POST' ? requestText : undefined;
        caller = authenticate(store, headers, signedText, allowToken, method === 'GET' ? requestText : undefined);
        if (!caller) throw new HttpError(ep.auth === 'access' ? 403 : 401, 'Authentication failed');
        setAccount(caller.logName);
        if (ep.scope && !caller.scopes.has(ep.scope) && !(caller.kind === 'token' && TOKEN_VARIANTS.has(ep.name))) {
          throw new HttpError(403, `Missing scope: ${ep.scope}`);
        }
      }

      let payload = {};
      if (ep.host !== 'store') {
        const raw = fromQuery ? Object.fromEntries(url.searchParams) : parseRequestText(requestText);
        payload = validatePayload(ep, raw, fromQuery);
      }
      const ctx: HandlerCtx = {
        store,
        caller,
        payload,
        params,
        query: url.searchParams,
        now: store.now(),
        origin,
        hostName: hostHeader.replace(/:\d+$/, ''),
        queued: () => setImmediate(tick),
        idempotencyKey: idempotencyKey(headers['idempotency-key']),
      };
      const handler = HANDLERS[ep.name];
      if (!handler) throw new HttpError(404, `The sandbox does not implement ${ep.name} (${ep.path}).`);
      const out = handler(ctx);
      const result = 'body' in out && typeof out.body === 'object' && out.body !== null ? (out as any) : { body: out };
      const status: number = result.status ?? 200;
      const body = { code: status, success: true, ...TEST_MODE, ...result.body };
      sendJson(res, status, body, result.headers ?? {});
    } catch (err) {
      sendError(res, toHttpError(err), xml);
    }
  };

  const control = async (req: IncomingMessage, res: ServerResponse, method: string, url: URL) => {
    try {
      let body: any = {};
      if (method === 'POST') {
        const buf = await readBody(req);
        if (buf.length) {
          try {
            body = JSON.parse(buf.toString('utf8'));
          } catch {
            throw bad('Control routes take a JSON body.');
          }
        }
        if (!body || typeof body !== 'object') throw bad('Control routes take a JSON object.');
      } else req.resume();
      const route = `${method} ${url.pathname.replace(/\/+$/, '')}`;
      const str = (v: unknown, name: string) => {
        if (typeof v !== 'string' || !v) throw bad(`Field "${name}" is required.`);
        return v;
      };
      let out: unknown;
      switch (route) {
        case 'GET /_sandbox/credentials':
          out = credentials(store);
          break;
        case 'GET /_sandbox/clock':
          out = clockInfo(store);
          break;
        case 'POST /_sandbox/clock/advance': {
          let ms: number;
          try {
            ms = parseDuration(body.by ?? body.ms);
          } catch (e: any) {
            throw bad(e.message);
          }
          out = advanceClock(store, ms);
          setImmediate(tick);
          break;
        }
        case 'POST /_sandbox/usage':
          out = recordUsage(store, str(body.username, 'username'), str(body.hash_id, 'hash_id'), Number(body.viewed ?? 0), Number(body.printed ?? 0));
          break;
        case 'POST /_sandbox/redeem':
          out = redeemCode(store, str(body.code, 'code'), str(body.username, 'username'));
          break;
        case 'GET /_sandbox/outbox':
          out = { emails: listOutbox(store, url.searchParams.get('to') ?? undefined) };
          break;
        case 'POST /_sandbox/worker/run':
          out = { processed: runWorker(store, typeof body.delay_ms === 'number' ? body.delay_ms : delay) };
          break;
        default:
          throw new HttpError(404, `No such control route: ${route.slice(0, 200)}`);
      }
      sendJson(res, 200, { code: 200, success: true, ...TEST_MODE, ...(out as object) });
    } catch (err) {
      sendError(res, toHttpError(err), false);
    }
  };

  const reader = (res: ServerResponse, method: string, url: URL, origin: string) => {
    const m = /^\/reader\/([0-9a-f]{32})\/(print\/?)?$/.exec(url.pathname);
    if (method !== 'GET') return sendText(res, 405, 'text/plain; charset=utf-8', 'Method not allowed\n', { allow: 'GET' });
    const session = m ? store.get('SELECT s.*, b.title, b.num_pages, b.hash_id FROM reader_sessions s JOIN books b ON b.id = s.book_id WHERE token = ?', m[1]) : undefined;
    if (!session) return sendText(res, 404, 'text/html; charset=utf-8', '<!doctype html><title>Not found</title><p>This reader link is not valid.</p>\n');
    if (!itemLiveFor(store, session.user_id, session.book_id, store.now())) {
      return sendText(res, 403, 'text/html; charset=utf-8', '<!doctype html><title>Access ended</title><p>Access to this book has ended.</p>\n');
    }
    const pageParam = Number(url.searchParams.get('page') ?? '1');
    const page = Number.isInteger(pageParam) && pageParam >= 1 && pageParam <= session.num_pages ? pageParam : 1;
    const print = !!m![2];
    readerEvent(store, session.user_id, session.book_id, page, print);
    const base = `${origin}/reader/${m![1]}/`;
    const html = `<!doctype html><meta charset="utf-8"><title>${htmlEscape(session.title)} · page ${page}</title>
<h1>${htmlEscape(session.title)}</h1>
<p>Page ${page} of ${session.num_pages}${print ? ' (sent to the printer)' : ''}</p>
<nav>${page > 1 ? `<a href="${base}?page=${page - 1}">previous</a> ` : ''}${page < session.num_pages ? `<a href="${base}?page=${page + 1}">next</a> ` : ''}<a href="${base}print/?page=${page}">print this page</a></nav>
`;
    sendText(res, 200, 'text/html; charset=utf-8', html);
  };

  const cart = (res: ServerResponse, method: string, url: URL) => {
    if (method !== 'GET') return sendText(res, 405, 'text/plain; charset=utf-8', 'Method not allowed\n', { allow: 'GET' });
    const c = store.get('SELECT * FROM carts WHERE token = ?', url.searchParams.get('t') ?? '');
    if (!c) return sendText(res, 404, 'text/html; charset=utf-8', '<!doctype html><title>Cart not found</title><p>This cart does not exist.</p>\n');
    const ids = JSON.parse(c.pricing_ids) as number[];
    const rows = ids.map((id) => store.get('SELECT p.*, b.title FROM pricing p JOIN books b ON b.id = p.book_id WHERE p.id = ?', id)!);
    const html = `<!doctype html><meta charset="utf-8"><title>Your cart</title><h1>Your cart</h1><ul>
${rows.map((r) => `<li data-price-id="${r.id}">${htmlEscape(r.title)} — ${htmlEscape(r.description)}: ${r.currency} ${r.price}</li>`).join('\n')}
</ul>\n`;
    sendText(res, 200, 'text/html; charset=utf-8', html);
  };

  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    else socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 8710, opts.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = opts.host ?? '127.0.0.1';
  const urlHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        clearInterval(timer);
        server.close(() => {
          store.close();
          cleanupKeyFiles(store);
          resolve();
        });
        server.closeIdleConnections();
        // Give in-flight responses a moment, then drop whatever is left.
        const t = setTimeout(() => {
          server.closeAllConnections();
          for (const s of sockets) s.destroy();
        }, 200);
        t.unref();
      });
      return closing;
    },
  };
}

function toHttpError(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  const e = err as any;
  if (e?.code === 'ERR_SQLITE_ERROR' && (e.errcode === 5 || e.errcode === 6)) {
    return new HttpError(503, 'The sandbox database is busy; retry.', {}, { 'retry-after': '1' });
  }
  if (e?.code === 'ERR_SQLITE_ERROR' && (e.errcode & 0xff) === 19) {
    return new HttpError(409, 'The request conflicts with the current state; retry.');
  }
  throw err;
}

function sendError(res: ServerResponse, e: HttpError, xml: boolean): void {
  if (res.headersSent) return;
  if (xml) return sendText(res, e.status, 'application/xml; charset=utf-8', xmlError(e.message), e.headers);
  sendJson(res, e.status, { code: e.status, error: true, ...TEST_MODE, message: e.message, ...e.extra }, e.headers);
}

function safePath(url: string): string {
  const p = url.split('?')[0];
  return p.length > 200 ? p.slice(0, 200) + '…' : p;
}

/** A usable Idempotency-Key header value (1..255 visible characters), else a 400. */
function idempotencyKey(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!/^[\x21-\x7e]{1,255}$/.test(value)) throw new HttpError(400, 'The Idempotency-Key header must be 1 to 255 visible ASCII characters.');
  return value;
}
