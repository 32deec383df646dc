// HTTP plumbing of the sandbox: errors as answers (the error type itself is ../errors.ts, low in
// the tree, so the domain needs nothing of HTTP), bodies (form and JSON, keeping the raw `request`
// text that signatures cover), header normalisation, content negotiation and response writers.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { messageOf } from '../../errors.js';
import { bad, HttpError } from '../errors.js';

// The fixtures (not the domain) still take the error type from here: fixtures/apply.ts, which
// another change is splitting, and fixtures/book-controls.ts, whose import of ../errors.ts instead
// changes how the bundler merges shared chunks: a request then loads 11 files of dist/, not 8
// (test/foundation/startup.test.ts).
export { bad, HttpError } from '../errors.js';

const MAX_BODY = 1024 * 1024;
const MAX_DRAIN = 16 * 1024 * 1024;

/** Read the body, at most MAX_BODY bytes (400 beyond that, after draining a little more). */
export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooBig = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        tooBig = true;
        chunks.length = 0;
        if (size > MAX_DRAIN) {
          req.destroy();
          reject(new HttpError(400, 'Request body too large (at most 1 MiB).'));
        }
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (tooBig) reject(new HttpError(400, 'Request body too large (at most 1 MiB).'));
      else resolve(Buffer.concat(chunks));
    });
    // The client went away mid-body (`aborted`, a reset): its fault, not an internal error, and
    // nobody is left to read the answer.
    req.on('error', () => reject(new HttpError(400, 'The request body was cut short (the connection closed).')));
  });
}

/** Header names lower-cased with `_` read as `-`; the first value wins. */
export function normalizeHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const lower = raw[i].toLowerCase();
    const name = lower.includes('_') ? lower.replace(/_/g, '-') : lower;
    if (!(name in out)) out[name] = raw[i + 1];
  }
  return out;
}

export interface ParsedBody {
  /** The raw `request` text (what a signature covers), or undefined when the body has none. */
  requestText?: string;
  /** True when the body was not empty. */
  hasBody: boolean;
  /** The fields of a form body without `request` (interface.md 4.2: a POST form takes limit, offset). */
  form?: URLSearchParams;
}

/** One strict decoder for every body (a whole-buffer decode keeps no state between calls). */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Pull the raw `request` text out of a form or JSON body. */
export function parseBody(buf: Buffer, contentType: string | undefined): ParsedBody {
  if (buf.length === 0) return { hasBody: false };
  let text: string;
  try {
    text = UTF8.decode(buf);
  } catch {
    throw bad('Request body is not valid UTF-8.');
  }
  if (!text.trim()) return { hasBody: false };
  const ctype = (contentType ?? '').toLowerCase();
  if (ctype.includes('json') || (!ctype.includes('form') && /^\s*\{/.test(text))) {
    return { hasBody: true, requestText: jsonRequestMember(text) };
  }
  // What every client sends: the one field `request` (URLSearchParams reads it alike, slower).
  const only = onlyRequestField(text);
  if (only !== undefined) return { hasBody: true, requestText: only };
  const params = new URLSearchParams(text);
  const values = params.getAll('request');
  if (values.length > 1) throw bad('Send the form field "request" once.');
  if (values.length === 0) return { hasBody: true, form: params };
  return { hasBody: true, requestText: values[0] };
}

/**
 * The value of a form body that is `request=<value>` and nothing else, decoded as URLSearchParams
 * decodes it (`+` is a space, then percent-decoding); undefined for any other body, and for a
 * value that decodeURIComponent refuses (a stray `%`, bytes that are not UTF-8), which
 * URLSearchParams reads its own way.
 */
function onlyRequestField(text: string): string | undefined {
  if (!text.startsWith('request=') || text.includes('&')) return undefined;
  const value = text.slice(8);
  try {
    return decodeURIComponent(value.includes('+') ? value.replace(/\+/g, ' ') : value);
  } catch {
    return undefined;
  }
}

/**
 * The raw JSON text of the top-level `request` member, exactly as it stands in the body (a
 * string member is taken as the JSON text it holds).
 */
function jsonRequestMember(text: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw bad(`Invalid JSON body: ${messageOf(err)}.`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw bad('The JSON body must be an object {"request": {...}}.');
  if (!('request' in parsed)) throw bad('The JSON body must hold the payload in "request": {"request": {...}}.');
  const member = (parsed as Record<string, unknown>).request;
  if (typeof member === 'string') return member;
  // Scan the (already valid) text for the last top-level "request" member's value.
  let i = text.indexOf('{') + 1;
  let found: [number, number] | undefined;
  const ws = () => {
    while (i < text.length && /\s/.test(text[i])) i++;
  };
  const skipString = () => {
    i++; // opening quote
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
  };
  const skipValue = () => {
    if (text[i] === '"') return skipString();
    if (text[i] === '{' || text[i] === '[') {
      let depth = 0;
      while (i < text.length) {
        const c = text[i];
        if (c === '"') {
          skipString();
          continue;
        }
        if (c === '{' || c === '[') depth++;
        else if (c === '}' || c === ']') {
          depth--;
          if (depth === 0) {
            i++;
            return;
          }
        }
        i++;
      }
      return;
    }
    while (i < text.length && !/[\s,}]/.test(text[i])) i++;
  };
  for (;;) {
    ws();
    if (text[i] !== '"') break;
    const keyStart = i;
    skipString();
    const key = JSON.parse(text.slice(keyStart, i));
    ws();
    i++; // colon
    ws();
    const start = i;
    skipValue();
    if (key === 'request') found = [start, i];
    ws();
    if (text[i] === ',') i++;
    else break;
  }
  if (!found) throw bad('The JSON body must hold the payload in "request": {"request": {...}}.');
  return text.slice(found[0], found[1]);
}

/** Does the Accept header prefer XML over JSON? */
export function prefersXml(accept: string | undefined): boolean {
  if (!accept) return false;
  let xml = -1;
  let json = -1;
  let xmlPos = Infinity;
  let jsonPos = Infinity;
  accept.split(',').forEach((part, pos) => {
    const [type, ...params] = part.trim().toLowerCase().split(';');
    let q = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([\d.]+)\s*$/.exec(p);
      if (m) q = Number(m[1]);
    }
    if (type === 'application/xml' || type === 'text/xml') {
      if (q > xml) {
        xml = q;
        xmlPos = pos;
      }
    } else if (type === 'application/json') {
      if (q > json) {
        json = q;
        jsonPos = pos;
      }
    }
  });
  if (xml <= 0) return false;
  return xml > json || (xml === json && xmlPos < jsonPos);
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function xmlError(message: string): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<response><error>The following errors were detected:</error><message>${esc(message)}</message></response>\n`
  );
}

export function htmlEscape(s: string): string {
  return esc(s).replace(/'/g, '&#39;');
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>): void {
  sendJsonText(res, status, JSON.stringify(body), headers);
}

/** Send JSON text already made (the request journal keeps the same text). */
export function sendJsonText(
  res: ServerResponse,
  status: number,
  text: string,
  headers?: Record<string, string>,
): void {
  // Headers as a flat list: no object to build and walk for the two every answer has.
  const list = ['content-type', 'application/json; charset=utf-8', 'content-length', String(Buffer.byteLength(text))];
  if (headers) for (const k in headers) list.push(k, headers[k]);
  res.writeHead(status, list);
  res.end(text);
}

function sendText(
  res: ServerResponse,
  status: number,
  ctype: string,
  text: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': ctype, 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Every sandbox answer says it ran in test mode. */
export const TEST_MODE = { test_mode: true } as const;

/** An HttpError as is; a busy or conflicting database as 503/409; anything else rethrown (a 500). */
export function toHttpError(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  const e = err as { code?: unknown; errcode?: number } | null | undefined;
  if (e?.code === 'ERR_SQLITE_ERROR' && (e.errcode === 5 || e.errcode === 6)) {
    return new HttpError(503, 'The sandbox database is busy; retry.', {}, { 'retry-after': '1' });
  }
  // A full disk anywhere in a statement (SQLITE_FULL): the transaction was rolled back, nothing
  // changed; the caller retries once there is room (a bulk job does, as for any 503).
  if (e?.code === 'ERR_SQLITE_ERROR' && ((e.errcode ?? 0) & 0xff) === 13) {
    return new HttpError(
      503,
      "The sandbox's disk is full; nothing was changed. Retry once there is room.",
      {},
      { 'retry-after': '5' },
    );
  }
  if (e?.code === 'ERR_SQLITE_ERROR' && ((e.errcode ?? 0) & 0xff) === 19) {
    return new HttpError(409, 'The request conflicts with the current state; retry.');
  }
  throw err;
}

/** The error body of interface.md section 7: JSON, or the access API's XML when asked. */
export function sendError(res: ServerResponse, e: HttpError, xml: boolean): void {
  if (res.headersSent) return;
  if (xml) return sendText(res, e.status, 'application/xml; charset=utf-8', xmlError(e.message), e.headers);
  sendJson(res, e.status, { code: e.status, error: true, ...TEST_MODE, message: e.message, ...e.extra }, e.headers);
}
