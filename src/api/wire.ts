// The bytes on the wire (shared/spec/wire.md): Python-style JSON inside a form-encoded
// `request` field, RSA-SHA256 signatures, and the header set of each auth mode.
import { createPrivateKey, createSign, type KeyObject } from 'node:crypto';
import { rsaPrivateKey } from '../spec/rsa-keys.js';
import { placeholders } from '../util/scan.js';

/**
 * JSON text as the reference Python client writes it: `", "` and `": "` separators and
 * non-ASCII escaped as \uXXXX (json.dumps defaults). Undefined members are left out.
 */
export function pythonJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('non-finite number in request payload');
    return String(value);
  }
  if (typeof value === 'string') return pyString(value);
  // Stryker disable next-line ConditionalExpression: equivalent, pythonJson(undefined) is 'null' too
  if (Array.isArray(value)) return '[' + value.map((v) => pythonJson(v === undefined ? null : v)).join(', ') + ']';
  if (typeof value === 'object') {
    const parts: string[] = [];
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (v === undefined) continue;
      parts.push(pyString(k) + ': ' + pythonJson(v));
    }
    return '{' + parts.join(', ') + '}';
  }
  throw new TypeError(`cannot encode ${typeof value} in a request payload`);
}

function pyString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ch = s[i];
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (c < 0x20 || c > 0x7e) out += '\\u' + c.toString(16).padStart(4, '0');
    else out += ch;
  }
  return out + '"';
}

/** Python's urllib.parse.quote_plus: unreserved `A-Za-z0-9_.-~` kept, space as `+`, the rest %XX (UTF-8). */
export function quotePlus(s: string): string {
  let out = '';
  // Stryker disable next-line StringLiteral: equivalent, Buffer.from's encoding '' is UTF-8
  for (const byte of Buffer.from(s, 'utf8')) {
    const ch = String.fromCharCode(byte);
    if (/[A-Za-z0-9_.\-~]/.test(ch)) out += ch;
    else if (ch === ' ') out += '+';
    else out += '%' + byte.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

/** The POST body: exactly one form field, `request`, holding the JSON text. */
export function formBody(requestText: string): string {
  return 'request=' + quotePlus(requestText);
}

/** Percent-encode one path segment (wire.md: the CLI encodes, the reference clients do not). */
function pathSegment(value: string): string {
  return encodeURIComponent(value);
}

/** Fill `{name}` placeholders of an endpoint path with encoded segments. */
export function fillPath(template: string, params: Record<string, string | number> = {}): string {
  let path = '';
  let from = 0;
  for (const [start, end] of placeholders(template)) {
    const name = template.slice(start + 1, end - 1);
    const v = params[name];
    if (v === undefined || v === '') throw new TypeError(`missing path parameter ${name}`);
    path += template.slice(from, start) + pathSegment(String(v));
    from = end;
  }
  return path + template.slice(from);
}

/**
 * Load a PEM RSA private key (PKCS#1 or PKCS#8). Throws a descriptive Error otherwise. The usual
 * key file is read in JS into its JWK (src/spec/rsa-keys.ts: OpenSSL's decoders cost about 2.7M
 * instructions more on first use); any other is left to OpenSSL's PEM decoder, as before.
 */
export function loadRsaPrivateKey(pem: string | Buffer): KeyObject {
  const jwk = rsaPrivateKey(typeof pem === 'string' ? pem : pem.toString('latin1'));
  if (jwk) return jwk;
  let key: KeyObject;
  try {
    // PEM is what a string or a Buffer is taken as; the options object's form runs more of Node's code.
    key = createPrivateKey(pem);
  } catch {
    throw new Error('is not a PEM private key (expected BEGIN RSA PRIVATE KEY or BEGIN PRIVATE KEY)');
  }
  if (key.asymmetricKeyType !== 'rsa') {
    // Stryker disable next-line StringLiteral: accepted, defensive: createPrivateKey gives a key whose asymmetricKeyType is always set
    throw new Error(`is a ${key.asymmetricKeyType ?? 'non-RSA'} key, not an RSA private key`);
  }
  return key;
}

/** RSASSA-PKCS1-v1_5 / SHA-256 over the UTF-8 message, standard base64. */
export function sign(message: string, key: KeyObject): string {
  // Stryker disable next-line StringLiteral: equivalent, update's encoding '' is UTF-8 (the 'base64' mutant is killed)
  return createSign('RSA-SHA256').update(message, 'utf8').sign(key, 'base64');
}

export type Credentials =
  | { kind: 'crypto'; username: string; key: KeyObject }
  | { kind: 'shared'; username: string; sharedKey: string }
  | { kind: 'token'; token: string; username?: string }
  | { kind: 'none' };

/**
 * Auth headers for one request. `requestText` is the form field value for a POST, undefined for
 * a request without a body (then the username is signed).
 */
export function authHeaders(creds: Credentials, requestText: string | undefined): Record<string, string> {
  switch (creds.kind) {
    case 'crypto':
      return {
        signature: sign(requestText ?? creds.username, creds.key),
        'api-user': creds.username,
        user: creds.username,
        version: 'v1',
        authorization: 'CryptoAuth',
      };
    case 'shared':
      return {
        'api-user': creds.username,
        user: creds.username,
        version: 'v1',
        authorization: 'SharedKeyAuth',
        'api-key': creds.sharedKey,
      };
    case 'token': {
      // The access-control token travels as a shared key (decisions.md).
      const h: Record<string, string> = { version: 'v1', authorization: 'SharedKeyAuth', 'api-key': creds.token };
      if (creds.username) {
        h['api-user'] = creds.username;
        h.user = creds.username;
      }
      return h;
    }
    case 'none':
      return {};
  }
}

/** Header names whose values are secrets: never printed, not even under --debug. */
const SECRET_HEADERS = new Set(['signature', 'api-key', 'api_key', 'authorization-token', 'cookie']);
/** Payload/response keys whose values are secrets. */
const SECRET_FIELDS = new Set([
  'passwd',
  'passwd_confirm',
  'password',
  'shared_key',
  'api_key',
  'token',
  'operator_token',
  'private_key',
  'key_pem',
]);
export const REDACTED = '[REDACTED]';

/**
 * Keys whose string values are shown cut (their first characters and length) under --debug and
 * --dry-run: redemption codes and passwords that CI logs must not keep, yet a trace must tell apart.
 * BOOKDIST_DEBUG_BODIES=full shows them in full (keys and tokens stay redacted).
 */
const PARTIAL_FIELDS = new Set(['code', 'redemption_code']);
/** In answers, passwords are generated ones: cut like codes (a password typed into a request is redacted in full). */
const ANSWER_PARTIAL_FIELDS = new Set(['password', 'passwd', 'generated_password']);

/** `ABCD…(14 chars)`: enough to tell values apart, not enough to use one. */
function cutSecret(v: string): string {
  return `${v.slice(0, Math.min(4, Math.floor(v.length / 3)))}…(${v.length} chars)`;
}

/**
 * Deep copy with secret fields replaced: keys, tokens and typed passwords redacted; redemption
 * codes cut (`full`: kept). `answer`: generated passwords in a response are cut (or kept), not redacted.
 */
export function redact<T>(value: T, full = false, answer = false): T {
  if (Array.isArray(value)) return value.map((v) => redact(v, full, answer)) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const key = k.toLowerCase();
      const partial = PARTIAL_FIELDS.has(key) || (answer && ANSWER_PARTIAL_FIELDS.has(key));
      if (partial && typeof v === 'string') out[k] = full ? v : cutSecret(v);
      else out[k] = SECRET_FIELDS.has(key) && v != null ? REDACTED : redact(v, full, answer);
    }
    return out as T;
  }
  return value;
}

export function redactHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) out[k] = SECRET_HEADERS.has(k.toLowerCase()) ? REDACTED : v;
  return out;
}

/**
 * The request text with secret fields redacted. When redaction changes nothing this is the exact
 * text that is (or would be) sent and signed; otherwise the redacted payload in the same style.
 */
export function redactRequestText(text: string, full = false): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text.length > 0 ? '[unparsed request]' : text;
  }
  const redacted = redact(parsed, full);
  if (JSON.stringify(redacted) === JSON.stringify(parsed)) return text;
  return pythonJson(redacted);
}
