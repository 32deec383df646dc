// A stub HTTP handler for in-process tests, in the manner of gh's httpmock.Registry: each stub
// answers requests that match it (method and path), a request that no stub matches fails the
// test, and `verify()` also fails on a stub that was never used. Requests are recorded with their
// decoded `request` payload, so a test can assert what was sent without a server.
import type { HttpHandler, HttpRequest, HttpResponse } from '../../src/api/handler.js';

export interface StubRequest {
  method: string;
  url: string;
  /** The path with its query, e.g. `/v1/book/isbn/9781614001379/`. */
  path: string;
  query: URLSearchParams;
  headers: Record<string, string>;
  body?: string;
  /** The form field `request`, parsed as JSON (POSTs as the CLI sends them). */
  payload?: any;
}

export type Answer = HttpResponse | { error: string; message?: string };
type Responder = Answer | ((req: StubRequest, n: number) => Answer | Promise<Answer>);

interface Stub {
  method: string;
  path: string | RegExp;
  responder: Responder;
  /** How many requests it answers (Infinity: any number, at least one). */
  times: number;
  used: number;
}

/** A JSON answer in the service's envelope style. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): HttpResponse {
  return { status, headers: { 'content-type': 'application/json', ...headers }, text: JSON.stringify(body) };
}

/** A network failure (the request did not complete): ECONNRESET, ECONNREFUSED, ... */
export function netError(code: string, message = code): Answer {
  return { error: code, message };
}

export class StubRegistry implements HttpHandler {
  readonly requests: StubRequest[] = [];
  readonly unexpected: string[] = [];
  private readonly stubs: Stub[] = [];

  /** Answer `method path` once (or `times` times; `Infinity` for any number of requests). */
  on(method: string, path: string | RegExp, responder: Responder, times = 1): this {
    this.stubs.push({ method: method.toUpperCase(), path, responder, times, used: 0 });
    return this;
  }

  async send(req: HttpRequest): Promise<HttpResponse> {
    if (req.signal.aborted) throw req.signal.reason;
    const rec = record(req);
    this.requests.push(rec);
    const stub = this.stubs.find((s) => s.used < s.times && s.method === rec.method && matches(s.path, rec.path));
    if (!stub) {
      const line = `${rec.method} ${rec.path}`;
      this.unexpected.push(line);
      throw Object.assign(new Error(`no stub for ${line}`), { code: 'ESTUB' });
    }
    stub.used++;
    const answer = typeof stub.responder === 'function' ? await stub.responder(rec, stub.used) : stub.responder;
    if ('error' in answer) throw Object.assign(new Error(answer.message ?? answer.error), { code: answer.error });
    return answer;
  }

  /** Requests to one path (method optional). */
  sent(path: string | RegExp, method?: string): StubRequest[] {
    return this.requests.filter((r) => matches(path, r.path) && (!method || r.method === method.toUpperCase()));
  }

  /** Fails on a request that matched no stub, and on a stub that answered nothing (or too little). */
  verify(): void {
    const problems: string[] = this.unexpected.map((l) => `unexpected request: ${l}`);
    for (const s of this.stubs) {
      const want = s.times === Infinity ? 1 : s.times;
      if (s.used < want)
        problems.push(
          `stub ${s.method} ${String(s.path)} answered ${s.used} of ${want === 1 && s.times === Infinity ? 'at least 1' : want}`,
        );
    }
    if (problems.length) throw new Error(`HTTP stubs:\n  ${problems.join('\n  ')}`);
  }
}

function matches(want: string | RegExp, path: string): boolean {
  if (typeof want === 'string') return want.includes('?') ? path === want : path.split('?')[0] === want;
  return want.test(path);
}

function record(req: HttpRequest): StubRequest {
  const u = new URL(req.url);
  // A body of bytes (the sandbox's catalogue parts) is recorded as its UTF-8 text.
  const body =
    typeof req.body === 'string' || req.body === undefined ? req.body : Buffer.from(req.body).toString('utf8');
  let payload: any;
  if (body !== undefined) {
    const text = req.headers['content-type']?.includes('x-www-form-urlencoded')
      ? new URLSearchParams(body).get('request')
      : body;
    try {
      payload = text == null ? undefined : JSON.parse(text);
    } catch {
      payload = undefined;
    }
  }
  return {
    method: req.method.toUpperCase(),
    url: req.url,
    path: u.pathname + u.search,
    query: u.searchParams,
    headers: req.headers,
    body,
    payload,
  };
}
