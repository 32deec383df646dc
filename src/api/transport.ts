// The one transport under ApiClient: node:http / node:https with a keep-alive Agent per protocol.
// Loaded through require, not `import 'node:http'`: the ESM form pulls in Node's internal HTTP
// stack eagerly and cost twice as much at start-up (README, Dependencies). Measured against
// undici for one request and for the bulk lookups, see bench/startup.mjs.
import { createRequire } from 'node:module';
import type { Agent, ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import type { HttpHandler, HttpRequest, HttpResponse } from './handler.js';

const load = createRequire(import.meta.url);

export interface TransportOptions {
  /** Time allowed to open a connection, ms. */
  connectTimeout: number;
  /** Max connections per origin. */
  connections: number;
}

/** A network error with the code callers classify by (ECONNREFUSED, ECONNRESET, ...). */
function withCode(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

export class HttpTransport implements HttpHandler {
  private readonly agents = new Map<string, Agent>();
  constructor(private readonly opts: TransportOptions) {}

  private moduleFor(protocol: string): typeof import('node:http') {
    if (protocol === 'https:') return load('node:https');
    if (protocol === 'http:') return load('node:http');
    throw withCode(`unsupported protocol ${protocol}`, 'ERR_INVALID_PROTOCOL');
  }

  private agentFor(protocol: string, mod: typeof import('node:http')): Agent {
    let agent = this.agents.get(protocol);
    if (!agent) {
      agent = new mod.Agent({ keepAlive: true, maxSockets: this.opts.connections });
      this.agents.set(protocol, agent);
    }
    return agent;
  }

  /** Send one request; `signal` cuts it (its reason is thrown). */
  send(init: HttpRequest): Promise<HttpResponse> {
    const target = new URL(init.url);
    const mod = this.moduleFor(target.protocol);
    const headers: Record<string, string> = { ...init.headers };
    const body = init.body === undefined ? undefined : Buffer.from(init.body, 'utf8');
    if (body) headers['content-length'] = String(body.length);
    return new Promise<HttpResponse>((resolve, reject) => {
      if (init.signal.aborted) return reject(init.signal.reason);
      let settled = false;
      let req: ClientRequest | undefined;
      let connectTimer: NodeJS.Timeout | undefined;
      const fail = (err: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(connectTimer);
        init.signal.removeEventListener('abort', onAbort);
        req?.destroy();
        reject(err);
      };
      const onAbort = () => fail(init.signal.reason);
      init.signal.addEventListener('abort', onAbort, { once: true });
      const options: RequestOptions = { method: init.method, headers, agent: this.agentFor(target.protocol, mod) };
      req = mod.request(target, options, (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', fail);
        res.on('aborted', () => fail(withCode('the connection closed before the response ended', 'ECONNRESET')));
        res.on('end', () => {
          if (settled) return;
          settled = true;
          init.signal.removeEventListener('abort', onAbort);
          const out: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers)) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v ?? '');
          resolve({ status: res.statusCode ?? 0, headers: out, text: Buffer.concat(chunks).toString('utf8') });
        });
      });
      req.on('error', fail);
      req.on('socket', (socket) => {
        // A connection that does not open in time is "not sent" (safe to retry, like a refusal).
        if (!socket.connecting) return;
        connectTimer = setTimeout(
          () => fail(withCode(`no connection within ${this.opts.connectTimeout} ms`, 'UND_ERR_CONNECT_TIMEOUT')),
          this.opts.connectTimeout,
        );
        socket.once('connect', () => clearTimeout(connectTimer));
      });
      req.end(body);
    });
  }

  /** Close every connection now; requests still in flight (an interrupted run) are cut. */
  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }
}
