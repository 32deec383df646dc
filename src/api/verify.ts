// Believe only a verified answer (issue 28): is a 2xx answer the one the interface promises for
// its endpoint? A compact check over the endpoint table's response description (src/spec/
// endpoints.ts, already loaded by the client): the documented envelope, every member the table
// lists as present with the interface's type, and inside the resources (`$ref`) the members the
// commands use. No schema library and no src/spec/schemas.ts on the one-request path: this costs
// a few property reads per answer. Extra members and shapes the interface leaves "not shown" are
// accepted (decisions.md: the CLI keeps working against other deployments).
import type { Endpoint } from '../spec/endpoints.js';
import type { Schema } from '../spec/json-schema.js';
import { CHECKED_BY_CALLER as CHECKED, NOT_SHOWN as NOT_SHOWN_NAMES, USED } from '../spec/verified.js';
import { askedProblem } from './asked.js';
import { UnverifiedAnswer } from './errors.js';

export { USED };

/** Resources whose entries the caller checks (codes generate checks each code). */
const CHECKED_BY_CALLER: ReadonlySet<string> = new Set(CHECKED);

/** Resources that are not objects. */
const SCALAR_REFS: Record<string, Schema> = { Decimal: { type: 'string', pattern: '^-?\\d+(\\.\\d+)?$' } };

/** Endpoints that change something on the service: an unverified answer leaves their outcome unknown. */
const WRITES = new Set([
  'book.process',
  'user.invite',
  'user.create',
  'order.external',
  'order.refund',
  'order.free',
  'codes.generate',
  'access.allow',
  'access.revoke',
]);

/** Endpoints whose answer's shape the interface leaves "not shown": only the envelope is checked. */
const NOT_SHOWN: ReadonlySet<string> = new Set(NOT_SHOWN_NAMES);

/** Does this endpoint change something on the service? */
export function isWrite(name: string): boolean {
  return WRITES.has(name);
}

const MAX_DEPTH = 6;

function typeOk(t: string, v: unknown): boolean {
  switch (t) {
    case 'null':
      return v === null;
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'string':
      return typeof v === 'string';
    case 'boolean':
      return typeof v === 'boolean';
    case 'array':
      return Array.isArray(v);
    case 'object':
      return v !== null && typeof v === 'object' && !Array.isArray(v);
    // Stryker disable next-line ConditionalExpression,BooleanLiteral: equivalent for the table, whose schemas use only the types above
    default:
      return true;
  }
}

const typeName = (v: unknown) =>
  v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;

/** Where `v` breaks `schema`, as `book.title: missing`; undefined when it does not. */
function problemIn(schema: Schema, v: unknown, at: string, depth: number): string | undefined {
  // Stryker disable next-line ConditionalExpression,EqualityOperator: accepted, defensive: the table's answers nest at most four levels (no schema refers to itself), so the depth limit is never reached
  if (depth > MAX_DEPTH) return undefined;
  const ref = schema.$ref;
  if (typeof ref === 'string') {
    // Stryker disable next-line ArithmeticOperator: equivalent, depth is read only by the unreachable depth limit
    if (SCALAR_REFS[ref]) return problemIn(SCALAR_REFS[ref], v, at, depth + 1);
    if (!typeOk('object', v)) return `${at}: ${typeName(v)}, not an object`;
    // Stryker disable next-line ArrayDeclaration,ArithmeticOperator: equivalent, `required` is read only with onlyListed, and depth only by the unreachable depth limit
    return membersProblem(USED[ref] ?? {}, [], v as Record<string, unknown>, at, depth + 1);
  }
  if ('const' in schema)
    return v === schema.const ? undefined : `${at}: ${JSON.stringify(v)}, not ${JSON.stringify(schema.const)}`;
  const types = Array.isArray(schema.type)
    ? (schema.type as string[])
    : // Stryker disable next-line ConditionalExpression: equivalent, a schema without a type gives [undefined], and typeOk accepts any value for a type it does not know
      typeof schema.type === 'string'
      ? [schema.type]
      : // Stryker disable next-line ArrayDeclaration: equivalent for the table: every schema that reaches here has a type
        [];
  if (types.length && !types.some((t) => typeOk(t, v))) return `${at}: ${typeName(v)}, not ${types.join(' or ')}`;
  // Stryker disable next-line ConditionalExpression,LogicalOperator: equivalent, only the Decimal form has a pattern, and its type (string) is checked on the line before; without a pattern, new RegExp(undefined) matches anything
  if (typeof v === 'string' && typeof schema.pattern === 'string' && !new RegExp(schema.pattern).test(v))
    return `${at}: ${JSON.stringify(v.slice(0, 40))} is not of the documented form`;
  const items = schema.items as Schema | undefined;
  // Stryker disable next-line ConditionalExpression,LogicalOperator: equivalent, a schema with items is of type array (checked above), and items is always an object
  if (Array.isArray(v) && items && typeof items === 'object' && !CHECKED_BY_CALLER.has(String(items.$ref))) {
    for (let i = 0; i < v.length; i++) {
      // Stryker disable next-line ArithmeticOperator: equivalent, depth is read only by the unreachable depth limit
      const p = problemIn(items, v[i], `${at}[${i}]`, depth + 1);
      if (p) return p;
    }
  }
  // Stryker disable next-line StringLiteral: equivalent, typeOk('') accepts anything, and a schema with properties is of type object, checked just above
  // Stryker disable next-line ConditionalExpression,LogicalOperator,StringLiteral: equivalent, a schema with properties is of type object (checked above), and its properties an object
  if (typeOk('object', v) && schema.properties && typeof schema.properties === 'object') {
    // Stryker disable next-line ArrayDeclaration: equivalent for the table: every object schema lists its required properties
    const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
    return membersProblem(
      schema.properties as Record<string, Schema>,
      required,
      v as Record<string, unknown>,
      at,
      // Stryker disable next-line ArithmeticOperator: equivalent, depth is read only by the unreachable depth limit
      depth + 1,
      // Stryker disable next-line BooleanLiteral: equivalent for the table, whose object schemas list every property as required
      true,
    );
  }
  return undefined;
}

/**
 * Members of `o` against `members`: by default every member is required (the table's and USED's
 * convention, a name ending in `?` may be absent); with `onlyListed`, only those in `required`.
 */
function membersProblem(
  members: Record<string, Schema>,
  required: string[],
  o: Record<string, unknown>,
  at: string,
  depth: number,
  onlyListed = false,
): string | undefined {
  for (const [key, schema] of Object.entries(members)) {
    const optional = key.endsWith('?');
    const name = optional ? key.slice(0, -1) : key;
    const where = at ? `${at}.${name}` : name;
    // Stryker disable next-line LogicalOperator,ConditionalExpression: equivalent, a parsed JSON body has no undefined values, and no member name of the table is inherited from Object
    const present = Object.prototype.hasOwnProperty.call(o, name) && o[name] !== undefined;
    if (!present) {
      if (onlyListed ? required.includes(name) : !optional) return `${where}: missing`;
      continue;
    }
    // An optional member given as null says "none": accepted whatever its type.
    if (optional && o[name] === null) continue;
    const p = problemIn(schema, o[name], where, depth);
    if (p) return p;
  }
  return undefined;
}

/**
 * Why a 2xx answer is not the one the interface promises for `ep`; undefined when it is.
 * `format` is how the body was read (json, xml, text, empty).
 */
export function answerProblem(ep: Endpoint, format: string, body: unknown): string | undefined {
  const notJson = jsonProblem(format, body);
  if (notJson) return notJson;
  const b = body as Record<string, unknown>;
  // Stryker disable next-line ArrayDeclaration: equivalent, `required` is read only with onlyListed
  if (ep.response.raw) return membersProblem(ep.response.body, [], b, '', 0);
  const flags = flagsProblem(b);
  if (flags) return flags;
  if (NOT_SHOWN.has(ep.name)) return b.success === true ? undefined : 'it has no "success": true';
  // `message` is the envelope's human text (2.1): checked when given, never required.
  const members = Object.fromEntries(
    Object.entries(ep.response.body).map(([k, v]) => [k === 'message' ? 'message?' : k, v]),
  );
  // Without `success: true`, only the endpoint's documented members can say it succeeded.
  if (b.success === undefined && !Object.keys(members).some((k) => !k.endsWith('?')))
    return 'it has no "success": true';
  // Stryker disable next-line ArrayDeclaration: equivalent, `required` is read only with onlyListed
  return membersProblem(members, [], b, '', 0);
}

/** Why a body is not a JSON object (undefined when it is). */
function jsonProblem(format: string, body: unknown): string | undefined {
  if (format === 'empty') return 'the body is empty';
  if (format !== 'json') return format === 'xml' ? 'the body is XML, not JSON' : 'the body is not JSON';
  if (!typeOk('object', body)) return `the body is ${typeName(body)}, not a JSON object`;
  return undefined;
}

/** Why the envelope's flags (2.1) do not say success (undefined when they do, or say nothing). */
function flagsProblem(b: Record<string, unknown>): string | undefined {
  if (b.success === false) return 'it says "success": false';
  if (b.error === true) return 'it says "error": true';
  if (b.success !== undefined && b.success !== true) return `"success" is ${typeName(b.success)}, not true`;
  return undefined;
}

/** The first bytes of a body as an error shows them: at most `n` characters, on one line. */
function firstBytes(text: string, n = 120): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > n ? `${t.slice(0, n)}… (${text.length} characters)` : t;
}

/** What the check of an answer needs besides the answer. */
export interface AnswerFacts {
  status: number;
  headers: Record<string, string>;
  format: string;
  body: unknown;
  /** The first bytes of the body as received. */
  head?: string;
  request: { method: string; url: string };
}

const WRITE_ADVICE =
  'The request may have taken effect: check before sending it again (e.g. `bookdist user orders`, `bookdist codes summary`, ' +
  '`bookdist book get`); not retried, as repeating it could do it twice.';

/** The start of an error about an answer: "POST <url>: the outcome is unknown: " for a write. */
function lead(res: AnswerFacts, write: boolean): string {
  return `${res.request.method} ${res.request.url}: ${write ? 'the outcome is unknown: ' : ''}`;
}

/** "HTTP 200, text/html; it begins: <!DOCTYPE html>…" */
function facts(res: AnswerFacts): string {
  const ctype = res.headers['content-type'] || 'no content type';
  const head = res.head ?? '';
  return `HTTP ${res.status}, ${ctype}${head.trim() ? `; it begins: ${firstBytes(head)}` : ''}`;
}

const PAGE_ADVICE =
  "A web page answered instead of the service: a sign-in page of the network (a captive portal) or a proxy, or a base URL that is not the service's. Check the network and the base URL (`bookdist profile show`).";

/** What a 2xx that is not the promised answer most likely is, and what to do (a write: check it first). */
function adviceFor(res: AnswerFacts, write: boolean): string {
  // Stryker disable next-line StringLiteral: equivalent, another text without "html" in place of an absent content type is not a page either
  const page = /html/i.test(res.headers['content-type'] ?? '') || /^\s*</.test(res.head ?? '');
  if (write) return page ? `${WRITE_ADVICE} ${PAGE_ADVICE}` : WRITE_ADVICE;
  if (page) return PAGE_ADVICE;
  return "Check that the base URL is the service's (`bookdist profile show`); another deployment that answers this way does not follow the interface.";
}

/**
 * A 3xx that the interface does not make the answer: never followed (credentials go only to the
 * base URL), an error naming the Location and the fix; a write's outcome is unknown.
 */
function redirectError(res: AnswerFacts, write: boolean, base: string): Error {
  const where = res.headers['location'];
  const details = { status: res.status, location: where ?? null, content_type: res.headers['content-type'] ?? null };
  if (!where) {
    return new UnverifiedAnswer(
      `${lead(res, write)}the service answered ${res.status}, a redirect with no Location, which is not what the interface promises here. ${adviceFor(res, write)}`,
      write ? 'unknown' : 'failed',
      details,
      res.status,
    );
  }
  let fix =
    "If the service has moved, use its new address as the base URL (--base-url, BOOKDIST_BASE_URL or the profile's).";
  try {
    const to = new URL(where, res.request.url);
    const from = new URL(res.request.url);
    const b = new URL(base);
    if (to.protocol === 'https:' && from.protocol === 'http:' && to.hostname === from.hostname) {
      b.protocol = 'https:';
      b.host = to.host;
      fix = `The service wants https: use ${b.toString().replace(/\/+$/, '')} as the base URL (--base-url, BOOKDIST_BASE_URL or \`bookdist profile add --force\`).`;
    } else if (to.origin !== from.origin) {
      fix = `If the service has moved to ${to.origin}, use it as the base URL (--base-url, BOOKDIST_BASE_URL or the profile's); a sign-in page of the network (a captive portal) redirects like this too.`;
    }
  } catch {
    /* a Location that is not a URL: the generic fix */
  }
  return new UnverifiedAnswer(
    `${lead(res, write)}the service answered ${res.status} and redirects to ${where}, which is not what the interface promises here; bookdist never follows a redirect (credentials go only to the base URL), so nothing was done with it. ${fix}${write ? ` ${WRITE_ADVICE}` : ''}`,
    write ? 'unknown' : 'failed',
    details,
    res.status,
  );
}

/**
 * The verdict on the final answer of a call of the endpoint table: `done` for the answer the
 * interface promises (a 2xx of the documented shape, or the documented redirect of /checkout),
 * `failed` for the service's refusals (4xx/5xx, which callers read: "already has access"...).
 * Anything else throws an UnverifiedAnswer: a read's `failed`, a write's `unknown`.
 */
export function verifyAnswer(ep: Endpoint, res: AnswerFacts, base: string): 'done' | 'failed' {
  if (res.status >= 400) return 'failed';
  const write = isWrite(ep.name);
  const documented = ep.response.status;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, a status of 400 or more has returned on the line before (the `>= 300` mutants are killed, disabled with them)
  if (res.status >= 300 && res.status < 400) {
    // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent for the table: documented statuses are 200 or 302, never 300 or 400 and more
    if (documented >= 300 && documented < 400 && res.headers['location']) return 'done';
    throw redirectError(res, write, base);
  }
  const problem =
    // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, a status of 300 or more has returned above (the `>= 200` mutants are killed, disabled with them)
    res.status >= 200 && res.status < 300
      ? // Stryker disable next-line EqualityOperator: equivalent for the table: no endpoint documents a status of 300
        documented >= 300
        ? undefined
        : answerProblem(ep, res.format, res.body)
      : `status ${res.status} is not a success`;
  const wrong = problem ?? askedProblem(ep, res.request.url, res.body);
  if (wrong === undefined) return 'done';
  throw unverified(res, write, wrong);
}

/**
 * The verdict on the answer to a raw call (`bookdist api`, any path): the checks of a typed call
 * that apply to an answer whose members no command reads. A 3xx is never followed nor a success
 * (except the redirect the table documents, checkout's); a 2xx must be a JSON object whose
 * envelope flags, when given, say success (2.1). A write (an endpoint of the table that writes,
 * or any POST to a path it does not list: nothing says that changes nothing) whose answer is not
 * that has an unknown outcome.
 */
export function verifyRaw(res: AnswerFacts, ep: Endpoint | undefined, method: string, base: string): 'done' | 'failed' {
  const write = ep ? isWrite(ep.name) : method !== 'GET';
  const documented = ep?.response.status ?? 200;
  if (res.status >= 400) return 'failed';
  // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, a status of 400 or more has returned on the line before (the `>= 300` mutants are killed, disabled with them)
  if (res.status >= 300 && res.status < 400) {
    // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent for the table: documented statuses are 200 or 302, never 300 or 400 and more
    if (documented >= 300 && documented < 400 && res.headers['location']) return 'done';
    throw redirectError(res, write, base);
  }
  const problem =
    // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, a status of 300 or more has returned above (the `>= 200` mutants are killed, disabled with them)
    res.status >= 200 && res.status < 300
      ? // Stryker disable next-line EqualityOperator: equivalent for the table: no endpoint documents a status of 300
        documented >= 300
        ? undefined
        : (jsonProblem(res.format, res.body) ?? flagsProblem(res.body as Record<string, unknown>))
      : `status ${res.status} is not a success`;
  if (problem === undefined) return 'done';
  throw unverified(res, write, problem);
}

function unverified(res: AnswerFacts, write: boolean, problem: string): UnverifiedAnswer {
  return new UnverifiedAnswer(
    `${lead(res, write)}the service's answer was not what the interface promises (${facts(res)}): ${problem}. ${adviceFor(res, write)}`,
    write ? 'unknown' : 'failed',
    {
      status: res.status,
      content_type: res.headers['content-type'] ?? null,
      begins: firstBytes(res.head ?? ''),
      problem,
    },
    res.status,
  );
}

/** A body over MAX_BODY_BYTES: never read whole, never retried; a write's outcome is unknown. */
export function bodyTooLarge(
  request: { method: string; url: string },
  write: boolean,
  limit: string,
  status?: number,
  contentType?: string,
): Error {
  // Stryker disable next-line LogicalOperator,StringLiteral: equivalent, this answer is read only for its request (method and URL)
  const res: AnswerFacts = { status: status ?? 0, headers: {}, format: 'text', body: undefined, request };
  return new UnverifiedAnswer(
    `${lead(res, write)}the answer's body is larger than ${limit}, the most bookdist reads (HTTP ${status ?? '?'}, ${contentType || 'no content type'}): ` +
      `no answer of the interface is that large, so it was not read further. ${write ? WRITE_ADVICE : "Check that the base URL is the service's (`bookdist profile show`)."}`,
    write ? 'unknown' : 'failed',
    { status: status ?? null, content_type: contentType ?? null, problem: `body over ${limit}` },
    status,
  );
}
