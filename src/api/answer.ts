// What the service answered, in one shape whatever the body: parsed JSON, the access API's XML
// error, or text (the answer step of the request pipeline, src/api/client.ts).
import type { TlsInfo } from './handler.js';
import type { ErrorBody } from '../spec/contract.js';

/** An answer; `B` is its body's type (ApiClient.call gives the endpoint's answer or an error body). */
// any: the default, for the JSON of a raw request (`bookdist api`, the sandbox's control routes), open by nature.
export interface ApiResponse<B = any> {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON; for XML or text bodies `{ code, text }` (plus `message` for the access API's XML). */
  body: B;
  /** How the body was read. */
  format: 'json' | 'xml' | 'text' | 'empty';
  request: RequestInfo;
  /** Over TLS: the protocol and the service's certificate (profile check shows them). */
  tls?: TlsInfo;
  /**
   * For a call of the endpoint table: `done` when the answer is the one the interface promises,
   * `failed` when the service refused (4xx/5xx). Unset for raw requests (`bookdist api`).
   */
  verdict?: 'done' | 'failed';
  /** The first bytes of the body as received (at most 200 characters), for errors about it. */
  head?: string;
}

export interface RequestInfo {
  method: string;
  url: string;
}

/**
 * Is this the endpoint's answer rather than an error (its status below 400)? Narrows
 * `ApiResponse<Answer<N> | ErrorBody>` to `ApiResponse<Answer<N>>`.
 */
export function isAnswer<T>(res: ApiResponse<T | ErrorBody>): res is ApiResponse<T> {
  return res.status < 400;
}

/** Turn any body into one shape: parsed JSON, the access API's XML error, or text. */
export function parseResponse(
  status: number,
  headers: Record<string, string>,
  text: string,
  request: RequestInfo,
): ApiResponse {
  // Stryker disable next-line StringLiteral: equivalent, the fallback is only searched for "json" and "xml", which another text without them does not hold either
  const ctype = headers['content-type'] ?? '';
  const trimmed = text.trim();
  if (!trimmed) return { status, headers, body: { code: status }, format: 'empty', request };
  if (ctype.includes('json') || /^[[{]/.test(trimmed)) {
    try {
      return { status, headers, body: JSON.parse(trimmed), format: 'json', request };
    } catch {
      /* fall through to text */
    }
  }
  if (ctype.includes('xml') || trimmed.startsWith('<?xml') || /^<(error|response|errors)\b/i.test(trimmed)) {
    const message = xmlText(trimmed, 'message');
    const error = xmlText(trimmed, 'error');
    if (message !== undefined || error !== undefined) {
      return {
        status,
        headers,
        body: { code: status, error: true, message: message ?? error, text: trimmed },
        format: 'xml',
        request,
      };
    }
  }
  return { status, headers, body: { code: status, text }, format: 'text', request };
}

/** The text of the first `<tag>` of an XML document, entities decoded and spaces folded. */
function xmlText(xml: string, tag: string): string | undefined {
  const m = new RegExp(`<${tag}\\b[^>]*>([\\s\\S]*?)</${tag}>`, 'i').exec(xml);
  if (!m) return undefined;
  return m[1]
    .replace(/<[^>]+>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}
