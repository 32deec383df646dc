// The service routes: the partner API, the access-control API and the price comparison
// endpoints, routed by the endpoint table, with authentication, scopes and validation in front
// of the domain handlers.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { authenticate, type Caller } from '../auth.js';
import type { RequestInfo, SandboxCore } from './core.js';
import { handlerCtx, isSharedAnswer, loadHandler, runHandler, type HandlerResult } from '../domain/index.js';
import { parseBody, prefersXml, readBody, sendError, sendJsonText, TEST_MODE, toHttpError } from './http.js';
import { HttpError } from '../errors.js';
import { hasEmptySegment, matchRoute } from './router.js';
import type { Endpoint } from '../../spec/endpoints.js';
import { parseRequestText, validatePayload } from '../validate.js';

export async function serveApi(
  core: SandboxCore,
  req: IncomingMessage,
  res: ServerResponse,
  r: RequestInfo,
  setAccount: (name: string) => void,
): Promise<void> {
  const { store } = core;
  const { method, headers } = r;
  const routed = route(req, res, r);
  if (!routed) return;
  const { ep, params, query, xml } = routed;
  const note = r.note;
  if (note) note.endpoint = ep.name;
  let requestText: string | undefined;
  let fromQuery = false;
  let fields = query;
  try {
    // Body first (the signature covers the raw `request` text), then who is calling.
    if (method === 'POST') {
      const body = parseBody(await readBody(req), headers['content-type']);
      requestText = body.requestText;
      // A form without `request` carries the fields themselves, read as a query's are.
      if (body.form) {
        fields = body.form;
        fromQuery = true;
      }
    } else {
      req.resume();
      if (query.has('request')) requestText = query.get('request') ?? undefined;
      else fromQuery = true;
    }
    // The endpoint's handler, loaded with its area on the area's first request (domain/index.ts).
    const loading = loadHandler(ep.name);
    if (loading) await loading;

    // Reads in the turn's snapshot, writes in the turn's group commit (store.serve); the answer
    // goes out once what it says is committed.
    const input = { query, requestText, fromQuery, fields };
    const result = store.serve(() =>
      note
        ? note.capture(() => answer(core, r, ep, params, input, setAccount))
        : answer(core, r, ep, params, input, setAccount),
    );
    const status: number = result.status ?? 200;
    const body = result.raw ? result.body : { code: status, success: true, ...TEST_MODE, ...result.body };
    const text = result.raw || status !== 200 ? JSON.stringify(body) : answerText(result.body, body);
    // In the turn's group commit with the request's own writes: journaled before it is answered.
    if (note) {
      if (!result.raw) note.responseText = text;
      journal(
        note,
        method,
        requestText,
        fromQuery ? fields : undefined,
        status,
        result.raw ? { document: ep.name } : body,
      );
    }
    store.afterCommit((failed) => {
      if (failed === undefined) sendJsonText(res, status, text, result.headers ?? {});
      else sendError(res, commitError(failed), xml);
    });
  } catch (err) {
    const e = toHttpError(err);
    if (note)
      journal(note, method, requestText, fromQuery && method === 'POST' ? fields : undefined, e.status, {
        code: e.status,
        error: true,
        ...TEST_MODE,
        message: e.message,
        ...e.extra,
      });
    store.afterCommit(() => sendError(res, e, xml));
  }
}

/** The text of a 200 answer whose members a handler gave out before (isSharedAnswer), made once. */
const sharedTexts = new WeakMap<object, string>();

function answerText(members: object, body: object): string {
  if (!isSharedAnswer(members)) return JSON.stringify(body);
  let text = sharedTexts.get(members);
  if (text === undefined) sharedTexts.set(members, (text = JSON.stringify(body)));
  return text;
}

/** The endpoint a request is for, its path parameters and query; undefined once a 400, 404 or 405 is sent. */
function route(
  req: IncomingMessage,
  res: ServerResponse,
  r: RequestInfo,
): { ep: Endpoint; params: Record<string, string>; query: URLSearchParams; xml: boolean } | undefined {
  const { method, url, headers } = r;
  // The Ruby reference client appends a second `/` to every URL it builds: after the path
  // (`/v1/book/isbn/<isbn>//`), or after its GET params, which it joins to the path without a
  // `?` (`/v1/book/index/limit=500&offset=0/`: matchRoute reads them). A deployment behind nginx
  // (merge_slashes) sees no doubled slash; neither does the sandbox.
  const pathname = url.pathname.replace(/\/{2,}$/, '/');
  let query = url.search.endsWith('/') ? new URLSearchParams(url.search.slice(1, -1)) : url.searchParams;
  let match;
  try {
    match = matchRoute(pathname, method);
  } catch {
    sendError(res, new HttpError(400, 'Malformed percent-encoding in the path.'), false);
    return undefined;
  }
  if (!match || hasEmptySegment(pathname)) {
    req.resume();
    sendError(res, new HttpError(404, `No such endpoint: ${pathname.slice(0, 200)}`), false);
    return undefined;
  }
  const { ep, params } = match;
  if (match.query) query = match.query;
  const xml = ep.auth === 'access' && prefersXml(headers['accept']);
  if (!(ep.methods as string[]).includes(method)) {
    req.resume();
    sendError(
      res,
      new HttpError(
        405,
        `Method ${method.slice(0, 10)} not allowed on ${ep.path}; use ${ep.methods.join(' or ')}.`,
        {},
        { allow: ep.methods.join(', ') },
      ),
      xml,
    );
    return undefined;
  }
  return { ep, params, query, xml };
}

/** Journal a service request: its payload (the `request` JSON, or a form's fields) and its answer. */
function journal(
  note: NonNullable<RequestInfo['note']>,
  method: string,
  requestText: string | undefined,
  form: URLSearchParams | undefined,
  status: number,
  body: unknown,
): void {
  // Read as JSON (and redacted) when the row is made, off the request's path.
  if (requestText !== undefined) note.requestText = requestText;
  else if (form && method === 'POST') note.request = Object.fromEntries(form);
  note.response = body;
  note.finish(status);
}

/** The answer when the group commit of a request's writes failed: nothing it did was kept. */
function commitError(err: unknown): HttpError {
  try {
    return toHttpError(err);
  } catch {
    return new HttpError(
      503,
      'The sandbox could not commit this request; nothing was changed. Retry.',
      {},
      { 'retry-after': '1' },
    );
  }
}

/** What a request carries: its query, the raw `request` text, or the fields of a form or query. */
interface RequestInput {
  query: URLSearchParams;
  requestText: string | undefined;
  /** True when the payload is read from `fields` (a query or a form without `request`). */
  fromQuery: boolean;
  fields: URLSearchParams;
}

/** Authenticate, check scope, validate and run the handler: the synchronous part of a request. */
function answer(
  core: SandboxCore,
  r: RequestInfo,
  ep: Endpoint,
  params: Record<string, string>,
  input: RequestInput,
  setAccount: (name: string) => void,
): HandlerResult {
  const { store } = core;
  const { query, requestText, fromQuery, fields } = input;
  const { method, headers } = r;
  let caller: Caller | undefined;
  if (ep.auth === 'partner' || ep.auth === 'access') {
    const allowToken = ep.auth === 'access' || !!ep.token;
    // A GET's signature covers the username; a `request` query param may be signed too.
    const signedText = method === 'POST' ? requestText : undefined;
    caller = authenticate(store, headers, signedText, allowToken, method === 'GET' ? requestText : undefined);
    if (!caller) throw new HttpError(ep.auth === 'access' ? 403 : 401, 'Authentication failed');
    setAccount(caller.logName);
    if (ep.scope && !caller.scopes.has(ep.scope) && !(caller.kind === 'token' && ep.token)) {
      throw new HttpError(403, `Missing scope: ${ep.scope}`);
    }
  }

  let payload = {};
  if (ep.host !== 'store') {
    const raw = fromQuery ? Object.fromEntries(fields) : parseRequestText(requestText);
    // The journal keeps a `request` read as JSON as it was sent (no parse of its own).
    if (!fromQuery && r.note) r.note.requestParsed = true;
    payload = validatePayload(ep, raw, fromQuery);
  }
  const ctx = handlerCtx(store, {
    caller,
    payload,
    params,
    query,
    origin: r.origin,
    queued: () => setImmediate(core.tick),
    idempotencyKey: idempotencyKey(headers['idempotency-key']),
  });
  return runHandler(ep.name, ep.path, ctx);
}

/** A usable Idempotency-Key header value (1..255 visible characters), else a 400. */
function idempotencyKey(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!/^[\x21-\x7e]{1,255}$/.test(value))
    throw new HttpError(400, 'The Idempotency-Key header must be 1 to 255 visible ASCII characters.');
  return value;
}
