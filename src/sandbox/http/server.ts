// The sandbox's HTTP server: node:http, the processing worker, fault injection, one log line per
// request, and the dispatch to the three surfaces, each in its own module:
//   service.ts         the service routes (partner, access-control and price comparison APIs)
//   control-routes.ts  the /_sandbox/ control routes
//   pages.ts           the reader and cart pages
// and fault injection in faults.ts.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { cleanupKeyFiles, credentials, type SandboxCredentials } from '../control.js';
import type { RequestInfo, SandboxCore } from './core.js';
import { runWorker } from '../domain/index.js';
import { boundHostNames, hostName, isLoopback } from './hosts.js';
import { normalizeHeaders, sendError, sendJson, TEST_MODE } from './http.js';
import { HttpError } from '../errors.js';
import { dropAnswer, injectFault, seededRandom, type FaultOptions } from './faults.js';
import { isControlPath, isPagePath } from './paths.js';
import { serveApi } from './service.js';
import { Store } from '../db/store.js';
import { Journal, type JournalOptions, type RequestNote } from '../journal/journal.js';
import { isJournalPath } from '../journal/routes.js';
import { ensureFixtureTables } from '../fixtures/tables.js';
import type { WorkspaceHost } from '../workspaces/workspaces.js';
import { connectInProcess } from './in-process.js';

// node:http through process.getBuiltinModule: the ESM import materialises every export of
// node:http, Node's own bundled undici and web streams included, which the embedded sandbox would
// pay on every run.
const { createServer } = process.getBuiltinModule('node:http');

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
  /** Required to listen on anything but loopback (`sandbox serve --expose`). */
  expose?: boolean;
  /** More names the control routes answer as Host (`sandbox serve --allow-host`). */
  allowHosts?: string[];
  /** The URL that links in answers name (`sandbox serve --public-url`); default: the bound address. */
  publicUrl?: string;
  /** Serve HTTPS with this certificate and key (PEM); `caFile` is what clients should trust. */
  tls?: { cert: string; key: string; caFile?: string };
  /** The request journal (journal/): on by default; false turns it off (`sandbox serve --no-journal`). */
  journal?: JournalOptions | false;
  /**
   * Serve workspaces (workspaces/): the control routes that create them, and a server for each
   * one on disk. Default: on for a database file; off for :memory: and a workspace's own server.
   */
  workspaces?: boolean;
  /**
   * Serve this process only, without a socket (the embedded sandbox, in-process.ts): no listen,
   * clients take connect(); its URL (IN_PROCESS_URL) names no address anyone could reach.
   */
  inProcess?: boolean;
}

/** The base URL of a sandbox served in-process: `.invalid` never resolves (RFC 2606). */
const IN_PROCESS_URL = 'http://sandbox.invalid';

export interface RunningSandbox {
  url: string;
  port: number;
  /** The seeded accounts' credentials (their key files written next to the database). */
  credentials: SandboxCredentials;
  /** The control secret the /_sandbox/ routes require (header X-Sandbox-Secret). */
  controlSecret: string;
  /** With TLS: the CA (or certificate) file that clients trust. */
  caFile?: string;
  /** Served in-process: a new connection to it (the client's end). */
  connect?: () => Duplex;
  close(): Promise<void>;
}

export async function startSandbox(opts: SandboxOptions): Promise<RunningSandbox> {
  const listenHost = opts.host ?? '127.0.0.1';
  if (!isLoopback(listenHost) && !opts.expose) {
    throw new Error(
      `listening on ${listenHost} exposes the sandbox to other machines; pass expose: true (sandbox serve --expose) to do it on purpose`,
    );
  }
  const { store, creds, checked } = await openStore(opts.dbPath);
  const delayMs = Math.max(0, opts.processDelayMs ?? 2000);
  const worker = startWorker(store, delayMs);
  const allowedHosts = new Set([
    ...boundHostNames(listenHost),
    ...(opts.allowHosts ?? []).map(hostName).filter(Boolean),
    ...(opts.inProcess ? [hostName(new URL(IN_PROCESS_URL).host)] : []),
  ]);
  const core: SandboxCore = { store, delayMs, tick: worker.tick, port: 0, allowedHosts, baseUrl: '' };
  try {
    ensureFixtureTables(store);
    if (opts.journal !== false) core.journal = new Journal(store, opts.journal);
    // Checked and mended this time: stamped again now that the fixtures' and the journal's tables,
    // made after the seed's check, have moved the schema cookie (Store.schemaIsCurrent).
    if (checked) store.markSchemaCurrent();
  } catch (err) {
    clearInterval(worker.timer);
    void store.close();
    throw err;
  }

  const scheme = opts.tls ? 'https' : 'http';
  const serverOptions = { keepAlive: true, keepAliveTimeout: 5000, requestTimeout: 30_000 };
  const handle = requestHandler(core, opts);
  const server: Server = opts.tls
    ? process
        .getBuiltinModule('node:https')
        .createServer({ ...serverOptions, cert: opts.tls.cert, key: opts.tls.key }, handle)
    : createServer(serverOptions, handle);
  const sockets = trackSockets(server);
  server.on('clientError', (_err, socket) => answerClientError(socket as Socket));

  // Not serving after all (a port in use): a :memory: store's keys were written to a temp
  // directory for this server; remove them with it.
  const stop = async () => {
    clearInterval(worker.timer);
    // The journal writes the rows it keeps in memory before the store closes.
    const journalEnded = core.journal?.close();
    const ended = store.close();
    cleanupKeyFiles(store);
    await Promise.all([ended, journalEnded]);
  };
  if (!opts.inProcess) await listen(server, opts.port ?? 8710, listenHost, () => void stop());
  const port = opts.inProcess ? 0 : (server.address() as AddressInfo).port;
  core.port = port;
  const url = opts.inProcess ? IN_PROCESS_URL : `${scheme}://${urlHostOf(listenHost)}:${port}`;
  core.baseUrl = opts.publicUrl?.replace(/\/+$/, '') ?? url;
  const close = closer(server, sockets, worker.timer, stop);
  if (opts.workspaces !== false && opts.dbPath !== ':memory:') {
    try {
      core.workspaces = await startWorkspaces(opts, listenHost);
    } catch (err) {
      await close();
      throw err;
    }
  }
  const closeAll = core.workspaces ? closeWith(close, core.workspaces) : close;
  return {
    url,
    port,
    caFile: opts.tls?.caFile,
    connect: opts.inProcess ? () => connectInProcess(server) : undefined,
    credentials: creds,
    controlSecret: creds.control_secret,
    close: closeAll,
  };
}

/** The workspaces of this database, each on a server of its own (same host, a free port), those on disk served again. */
async function startWorkspaces(opts: SandboxOptions, host: string): Promise<WorkspaceHost> {
  const { WorkspaceHost } = await import('../workspaces/workspaces.js');
  const log = opts.log;
  const ws = new WorkspaceHost(
    opts.dbPath,
    (path) =>
      startSandbox({
        ...opts,
        host,
        port: 0,
        dbPath: path,
        publicUrl: undefined,
        workspaces: false,
        log: log && ((line) => log(`[${path.replace(/^.*\//, '').replace(/\.db$/, '')}] ${line}`)),
      }),
    log,
  );
  await ws.resume();
  return ws;
}

/** close() of the main server: its workspaces' servers close with it; resolves when every store is closed. */
function closeWith(close: () => Promise<void>, ws: WorkspaceHost): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => (closing ??= Promise.all([ws.closeAll(), close()]).then(() => undefined));
}

/**
 * The store, seeded, with the accounts' key files written next to it; closed again if that fails.
 * The seed (its catalogue, its checks) is loaded only for a database that its header does not say
 * is seeded and current (Store.schemaIsCurrent): a command's embedded sandbox opens one that is.
 */
async function openStore(dbPath: string): Promise<{ store: Store; creds: SandboxCredentials; checked: boolean }> {
  const store = new Store(dbPath);
  try {
    const checked = !store.schemaIsCurrent();
    if (checked) (await import('../seed.js')).ensureSeeded(store);
    const creds = credentials(store); // writes the key files next to the database; makes the control secret
    store.watchTextIndexes(); // searches probe one segment per trigram, also after a bulk load from elsewhere
    return { store, creds, checked };
  } catch (err) {
    void store.close();
    throw err;
  }
}

/** The processing worker: runs now, then every quarter of the delay (25 to 250 ms), never keeping the process up. */
function startWorker(store: Store, delayMs: number): { tick: () => void; timer: NodeJS.Timeout } {
  const tick = () => {
    try {
      runWorker(store, delayMs);
    } catch {
      /* busy: next tick */
    }
  };
  const timer = setInterval(tick, Math.min(250, Math.max(25, Math.floor(delayMs / 4))));
  timer.unref();
  tick();
  return { tick, timer };
}

/** Each request: its log line, an injected fault or latency when asked for, then the dispatch. */
function requestHandler(
  core: SandboxCore,
  opts: Pick<SandboxOptions, 'log' | 'faults'>,
): (req: IncomingMessage, res: ServerResponse) => void {
  const log = opts.log;
  const faults = opts.faults && opts.faults.kinds.length ? opts.faults : undefined;
  const latency = opts.faults?.latencyMs ?? 0;
  const random = faults?.seed !== undefined ? seededRandom(faults.seed) : Math.random;
  return (req, res) => {
    let account = '-';
    const path = safePath(req.url ?? '/');
    let note: RequestNote | undefined;
    if (core.journal && !isJournalPath(path))
      note = core.journal.start(req.method ?? 'GET', req.url ?? '/', normalizeHeaders(req));
    if (log) {
      const started = performance.now();
      res.on('finish', () =>
        log(`${req.method} ${path} ${res.statusCode} ${Math.round(performance.now() - started)}ms ${account}`),
      );
    }
    const isControl = isControlPath(path);
    if (faults && !isControl && random() < faults.rate) {
      const kind = faults.kinds[Math.floor(random() * faults.kinds.length)];
      if (kind === 'drop') dropAnswer(req, res, () => log?.(`${req.method} ${path} answer dropped after commit`));
      else {
        if (note) journalOnClose(note, res);
        return injectFault(kind, latency, req, res, () => log?.(`${req.method} ${path} reset 0ms -`));
      }
    }
    const go = () =>
      dispatch(
        core,
        req,
        res,
        (name) => {
          account = name;
          if (note) {
            note.account = name;
            if (name === 'operator') note.auth = 'token';
          }
        },
        note,
      ).catch((err) => {
        log?.(`internal error: ${err?.stack ?? err}`);
        if (!res.headersSent) sendJson(res, 500, { code: 500, error: true, ...TEST_MODE, message: 'Internal error.' });
        else res.destroy();
      });
    if (latency > 0 && !isControl) setTimeout(() => void go(), latency);
    else void go();
    // A request the service routes journaled before its answer (a GET before `go` returns);
    // anything else (a POST still reading its body, a page, a control route, a fault, a refusal
    // before routing) once its answer has gone, or with status 0 when the connection was dropped
    // instead. A note already done gets no listener: one per request was a large part of what
    // the journal cost a lookup.
    if (note && !note.done) journalOnClose(note, res);
  };
}

/** Journal `note` once its answer has gone (its status), or with status 0 when the connection was dropped instead. */
function journalOnClose(note: RequestNote, res: ServerResponse): void {
  res.on('close', () => note.finish(res.writableFinished ? res.statusCode : 0));
}

/** A request to the surface its path names: the control routes, the pages, or the service. */
async function dispatch(
  core: SandboxCore,
  req: IncomingMessage,
  res: ServerResponse,
  setAccount: (n: string) => void,
  note?: RequestNote,
): Promise<void> {
  const method = (req.method ?? 'GET').toUpperCase();
  let url: URL;
  try {
    // Origin-form targets are joined to the base as text: `//` (the Ruby client's index) is a path, not a host.
    const target = req.url ?? '/';
    url = target.startsWith('/')
      ? new URL('http://sandbox.invalid' + target)
      : new URL(target, 'http://sandbox.invalid');
  } catch {
    req.resume();
    return sendError(res, new HttpError(400, 'Malformed request URL.'), false);
  }
  const headers = note?.headers ?? normalizeHeaders(req);
  const host = /^[\w.\-:[\]]{1,255}$/.test(headers['host'] ?? '') ? headers['host'] : `127.0.0.1:${core.port}`;
  // Links in answers (viewer URLs, pages, the OpenAPI servers) name the bound address or the
  // configured public URL, never the Host header (a hostile Host would otherwise aim them elsewhere).
  const r: RequestInfo = { method, url, headers, host, origin: core.baseUrl, note };

  if (isControlPath(url.pathname)) return (await controlRoutes()).serveControl(core, req, res, r);
  if (isPagePath(url.pathname)) return (await pages()).servePage(core, req, res, r);
  return serveApi(core, req, res, r, setAccount);
}

// The control routes and the pages, loaded by their first request: a command's embedded sandbox
// serves the service's routes only (paths.ts tells them apart without loading them).
let controlModule: Promise<typeof import('./control-routes.js')> | undefined;
let pagesModule: Promise<typeof import('./pages.js')> | undefined;
const controlRoutes = () => (controlModule ??= import('./control-routes.js'));
const pages = () => (pagesModule ??= import('./pages.js'));

/** The open connections, for close() to drop what is left. */
function trackSockets(server: Server): Set<Socket> {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return sockets;
}

/**
 * A malformed request: 400 and close. Requests read before it on this connection (pipelined) may
 * still await their answers (a turn's answers leave together at its end): the 400 goes after them,
 * not in place of the first. node:http keeps the answer being written in `_httpMessage` and hands
 * the socket to the next one when it finishes. A request whose body the error cut short will
 * never be answered: the 400 is its answer.
 */
function answerClientError(socket: Socket): void {
  const reply = () => {
    const pending = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (pending && !pending.writableFinished && pending.req?.complete && !socket.destroyed)
      return void pending.once('finish', reply);
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    else socket.destroy();
  };
  reply();
}

/** Listen on `host:port`; when that fails (a port in use), `notServing` undoes the start before the error is thrown. */
function listen(server: Server, port: number, host: string, notServing: () => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const fail = (err: Error) => {
      notServing();
      reject(err);
    };
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      resolve();
    });
  });
}

/** The host of the sandbox's own URL: IPv6 in brackets, a wildcard address as the loopback one. */
function urlHostOf(host: string): string {
  return host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
}

/** close(): once, however often called; in-flight answers get a moment, then every connection is dropped. */
function closer(
  server: Server,
  sockets: Set<Socket>,
  timer: NodeJS.Timeout,
  stop: () => Promise<void>,
): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () =>
    (closing ??= new Promise<void>((resolve) => {
      clearInterval(timer);
      // Resolved only when the store and its checkpointer thread are closed: nothing of this
      // server writes in its directory after close() (tests remove that directory next).
      const stopped = () => void stop().then(resolve, resolve);
      // A server that never listened (served in-process) has nothing to stop listening on:
      // server.close() would only make an ERR_SERVER_NOT_RUNNING, its stack trace included, for
      // its callback, on every embedded command (issue 31).
      if (server.listening) server.close(stopped);
      else process.nextTick(stopped);
      server.closeIdleConnections();
      const t = setTimeout(() => {
        server.closeAllConnections();
        for (const s of sockets) s.destroy();
      }, 200);
      t.unref();
    }));
}

function safePath(url: string): string {
  const p = url.split('?')[0];
  return p.length > 200 ? p.slice(0, 200) + '…' : p;
}
