// What the request journal keeps of a request never holds a secret: signatures, keys, shared
// keys, tokens, passwords and the control secret are replaced by REDACTED wherever they stand (a
// body field at any depth, a header, a reader or cart token in a path or a link). Redemption
// codes are sandbox codes and stay readable, unless the server runs with --redact-codes.
//
// `journalText` makes the text columns of a journal row (`rowText`) from three functions (the
// marks of a secret, the redaction, the row's text); journal.ts calls them when it writes rows.

/**
 * A request's row before its text columns are made (`rowText`, when the row is written):
 * at, sandbox_at, method, auth, account, status, duration_ms, endpoint, changes, emails
 * (INSERT's first ten values), then what the text is made from, as it came: the URL, the
 * headers (JSON), the `request` text as sent when it may not be JSON or else the payload as JSON
 * text (a `request` the handler read as a JSON object, as sent; a form's fields; a control
 * route's body), the answer's JSON text as sent or the answer (JSON) when there is no such text.
 */
export type PendingRow = [
  number,
  number,
  string,
  string,
  string | null,
  number,
  number,
  string | null,
  string | null,
  string | null,
  string,
  string,
  string | null,
  string | null,
  string | null,
  string | null,
];

/** The text columns of a row: path, query, headers, request, response. */
export type RowText = [string, string, string, string | null, string | null];

/** The journal's redaction and row text (see above); `codes`: redact redemption codes too. */
interface RedactOptions {
  codes: boolean;
}

/** Headers kept in the journal as they are (the rest are left out, the secret ones kept as REDACTED). */
const KEPT_HEADERS = [
  'host',
  'user-agent',
  'content-type',
  'accept',
  'idempotency-key',
  'api-user',
  'user',
  'version',
  'origin',
];

/** Headers kept in the journal as REDACTED when they were sent. */
const SECRET_HEADERS = ['signature', 'api-key', 'x-sandbox-secret', 'cookie', 'proxy-authorization'];

/**
 * True when two requests' headers give the same journal text (`redactHeaders`): the same values of
 * KEPT_HEADERS and `authorization` (whose scheme the row keeps), and the same SECRET_HEADERS sent
 * (their values are REDACTED); any other header is left out of the row. A signature (344
 * characters, new at each request for some clients) is not compared. Written out name by name, as
 * property reads of one shape, because this runs at every request (a loop over the names read
 * each by a computed key cost about 800 instructions a lookup); the journal-pack test checks it
 * against the lists.
 */
export function sameJournalHeaders(a: Record<string, string>, b: Record<string, string>): boolean {
  return (
    a['authorization'] === b['authorization'] &&
    a['api-user'] === b['api-user'] &&
    a['user'] === b['user'] &&
    a['host'] === b['host'] &&
    a['version'] === b['version'] &&
    a['user-agent'] === b['user-agent'] &&
    a['content-type'] === b['content-type'] &&
    a['accept'] === b['accept'] &&
    a['idempotency-key'] === b['idempotency-key'] &&
    a['origin'] === b['origin'] &&
    (a['signature'] === undefined) === (b['signature'] === undefined) &&
    (a['api-key'] === undefined) === (b['api-key'] === undefined) &&
    (a['x-sandbox-secret'] === undefined) === (b['x-sandbox-secret'] === undefined) &&
    (a['cookie'] === undefined) === (b['cookie'] === undefined) &&
    (a['proxy-authorization'] === undefined) === (b['proxy-authorization'] === undefined)
  );
}

/** The header names `sameJournalHeaders` reads (for its test): shown by value, secret by presence. */
export const JOURNAL_HEADERS = { shown: [...KEPT_HEADERS, 'authorization'], secret: SECRET_HEADERS };

/** What marks a secret (names, headers, patterns): the tables `redaction` reads. */
function secretMarks() {
  const REDACTED = '[redacted]';

  /** Body fields whose value is a secret, at any depth (compared lower-case, `-` read as `_`). */
  const SECRET_FIELDS = new Set([
    'passwd',
    'passwd_confirm',
    'password',
    'password_confirm',
    'signature',
    'api_key',
    'apikey',
    'shared_key',
    'private_key',
    'key_pem',
    'secret',
    'control_secret',
    'token',
    'operator_token',
    'access_token',
    'authorization',
  ]);

  /** Fields that hold a redemption code (redacted only with --redact-codes). */
  const CODE_FIELDS = new Set(['code']);

  /** A reader session token (/reader/<32 hex>/) or a cart token (?t=<hex>) in a path or link. */
  const READER_TOKEN = /\/reader\/[0-9a-f]{32}(?=\/|$|\?|")/g;
  const CART_TOKEN = /([?&]t=)[0-9a-f]{1,64}/g;
  /** A PEM private key anywhere in a string. */
  const PEM = /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g;
  /** A code XXXX-XXXX-XXXX in a string. */
  const CODE_TEXT = /\b[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}\b/g;

  /** JSON text that may hold a secret: a secret field's key, a reader or cart link, a private key (or, with codes, a code). */
  const SUSPECT = new RegExp(
    `"(?:${[...SECRET_FIELDS].map((f) => f.replace(/_/g, '[-_]')).join('|')})"\\s*:|/reader/|[?&]t=|PRIVATE KEY`,
    'i',
  );
  const SUSPECT_CODES = new RegExp(`${SUSPECT.source}|"code"\\s*:|${CODE_TEXT.source}`, 'i');

  return {
    REDACTED,
    SECRET_FIELDS,
    CODE_FIELDS,
    KEPT_HEADERS,
    SECRET_HEADERS,
    READER_TOKEN,
    CART_TOKEN,
    PEM,
    CODE_TEXT,
    SUSPECT,
    SUSPECT_CODES,
  };
}

type Marks = ReturnType<typeof secretMarks>;

/** The redaction of values, strings and answers, with `m`'s marks (codes too when the options say so). */
function redaction(m: Marks) {
  const { REDACTED, SECRET_FIELDS, CODE_FIELDS, READER_TOKEN, CART_TOKEN, PEM, CODE_TEXT, SUSPECT, SUSPECT_CODES } = m;

  const fieldName = (k: string) => k.toLowerCase().replace(/-/g, '_');

  /** A copy of `value` with every secret replaced (a value with nothing to hide is returned as is). */
  function redactValue(value: unknown, o: RedactOptions): unknown {
    if (typeof value === 'string') return redactString(value, o);
    if (Array.isArray(value)) {
      let copy: unknown[] | undefined;
      for (let i = 0; i < value.length; i++) {
        const v = redactValue(value[i], o);
        if (v !== value[i]) (copy ??= value.slice())[i] = v;
      }
      return copy ?? value;
    }
    if (value && typeof value === 'object') {
      let copy: Record<string, unknown> | undefined;
      const obj = value as Record<string, unknown>;
      for (const k in obj) {
        const v = obj[k];
        const name = fieldName(k);
        let next: unknown;
        if (
          v !== null &&
          v !== undefined &&
          v !== '' &&
          (SECRET_FIELDS.has(name) || (o.codes && CODE_FIELDS.has(name) && typeof v === 'string'))
        )
          next = REDACTED;
        else next = redactValue(v, o);
        if (next !== v) (copy ??= { ...obj })[k] = next;
      }
      return copy ?? value;
    }
    return value;
  }

  /** A string with tokens in links, private keys and (with codes) redemption codes replaced. */
  function redactString(s: string, o: RedactOptions): string {
    if (s.length < 14) return s;
    let out = s;
    if (out.includes('/reader/')) out = out.replace(READER_TOKEN, `/reader/${REDACTED}`);
    if (out.includes('t=')) out = out.replace(CART_TOKEN, `$1${REDACTED}`);
    if (out.includes('PRIVATE KEY')) out = out.replace(PEM, REDACTED);
    if (o.codes) out = out.replace(CODE_TEXT, REDACTED);
    return out;
  }

  /**
   * An answer's JSON text as sent (`text`), with every secret redacted: answers that carry one by
   * design (`walk`: a created user's password, a reader link, a cart link, codes) are walked; any
   * other is kept as it is unless a quick look finds a secret's mark in it.
   */
  function redactedAnswer(value: () => unknown, text: string, walk: boolean, o: RedactOptions): string {
    if (
      walk ||
      text.includes('/reader/') ||
      text.includes('"passwd') ||
      text.includes('PRIVATE KEY') ||
      text.includes('t=') ||
      o.codes
    )
      return redactedJson(value(), o);
    return text;
  }

  /**
   * `value` as JSON text with every secret redacted. Most answers hold none (a book, a listing):
   * they are serialised once and checked with one scan; only one that may hold a secret is walked.
   */
  function redactedJson(value: unknown, o: RedactOptions): string {
    const text = JSON.stringify(value);
    if (text === undefined || !(o.codes ? SUSPECT_CODES : SUSPECT).test(text)) return text;
    return JSON.stringify(redactValue(value, o));
  }

  /**
   * JSON text with every secret redacted: the text as it is when it can hold none (no escape, which
   * could spell a secret's name or mark, and no secret's mark), else read and redacted.
   */
  function redactedJsonText(text: string, o: RedactOptions): string {
    if (!text.includes('\\') && !(o.codes ? SUSPECT_CODES : SUSPECT).test(text)) return text;
    return redactedJson(JSON.parse(text), o);
  }

  return { redactString, redactedJson, redactedJsonText, redactedAnswer };
}

/** The redaction of raw text, headers and paths, with `m`'s marks and `redactString` (`redaction`'s). */
function textRedaction(m: Marks, redactString: (s: string, o: RedactOptions) => string) {
  const { REDACTED, SECRET_FIELDS, CODE_FIELDS, KEPT_HEADERS, SECRET_HEADERS } = m;
  /**
   * A request's raw `request` text that is not JSON (it was refused with a 400): secret fields
   * are cut out as text, where they can be found.
   */
  function redactRawText(text: string, o: RedactOptions): string {
    const names = [...SECRET_FIELDS, ...(o.codes ? CODE_FIELDS : [])].join('|');
    const re = new RegExp(`("(?:${names})"\\s*:\\s*)("(?:[^"\\\\]|\\\\.)*"|[^,}\\s]+)`, 'gi');
    return redactString(text.replace(re, `$1"${REDACTED}"`), o);
  }

  /**
   * The headers worth keeping (names as normalised: lower case, `_` as `-`): KEPT_HEADERS as they
   * are, the secret ones as REDACTED, the auth scheme without its credentials.
   */
  function redactHeaders(headers: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const v = headers[name];
      if (v !== undefined) out[name] = v.length > 300 ? v.slice(0, 300) + '…' : v;
    }
    const authz = headers['authorization'];
    if (authz !== undefined) {
      const scheme = /^\s*(\S{0,40})/.exec(authz)?.[1] ?? '';
      // `CryptoAuth` and `SharedKeyAuth` are bare words; `Bearer <token>` carries the token.
      out['authorization'] = /\s\S/.test(authz.trim()) ? `${scheme} ${REDACTED}` : scheme;
    }
    for (const name of SECRET_HEADERS) if (headers[name] !== undefined) out[name] = REDACTED;
    return out;
  }

  /** A path with reader and cart tokens replaced. */
  function redactPath(path: string): string {
    return redactString(path, { codes: false });
  }

  return { redactRawText, redactHeaders, redactPath };
}

/** The text columns of a row (`rowText`), redacted with `r`. */
function rowTexts(
  r: ReturnType<typeof redaction> & ReturnType<typeof textRedaction>,
  codes: boolean,
): { rowText(p: PendingRow): RowText } {
  const { redactedJson, redactedJsonText, redactRawText, redactHeaders, redactPath, redactedAnswer } = r;
  /** A body kept in the journal is at most this many characters of JSON; longer ones are cut. */
  const MAX_BODY_CHARS = 64 * 1024;
  /** Rows of a listing (`results`) kept in a journaled answer; the rest are counted. */
  const MAX_LISTED = 20;
  /** Endpoints whose answers carry a secret or a code by design: walked field by field to redact them. */
  const WALKED = new Set([
    'user.create',
    'user.invite',
    'book.viewer',
    'checkout',
    'offers',
    'codes.generate',
    'redeem',
  ]);
  /**
   * Endpoints whose answers (2xx) are made of orders, purchases, books and names only, never a
   * secret, a token's link or a code: kept as the text sent, unread (the write routes a partner's
   * CI calls most; each is a row of its own). Any other answer is looked at (redactedAnswer).
   */
  const NO_SECRET = new Set(['order.external', 'order.free', 'order.refund', 'access.allow', 'access.revoke']);

  /** A listing's answer with its `results` cut to MAX_LISTED (the journal says how many more there were). */
  function shorten(body: unknown): unknown {
    const b = body as { results?: unknown } | null;
    if (!b || typeof b !== 'object' || !Array.isArray(b.results) || b.results.length <= MAX_LISTED) return body;
    return { ...b, results: b.results.slice(0, MAX_LISTED), journal_results_omitted: b.results.length - MAX_LISTED };
  }

  /** JSON text longer than MAX_BODY_CHARS, cut: a JSON object that says so and keeps the start as text. */
  function cut(text: string): string {
    if (text.length <= MAX_BODY_CHARS) return text;
    return JSON.stringify({ journal_truncated: true, chars: text.length, start: text.slice(0, MAX_BODY_CHARS) });
  }

  /** Headers as kept, by the headers as they came (JSON): a client sends the same ones again and again. */
  const headerTexts = new Map<string, string>();
  const headersText = (raw: string): string => {
    let kept = headerTexts.get(raw);
    if (kept === undefined) {
      kept = JSON.stringify(redactHeaders(JSON.parse(raw) as Record<string, string>));
      if (headerTexts.size >= 256) headerTexts.clear();
      headerTexts.set(raw, kept);
    }
    return kept;
  };

  const opts: RedactOptions = { codes };
  return {
    rowText(p: PendingRow): RowText {
      const [, , , , , status, , endpoint, , , rawUrl, headers, requestText, requestJson, responseText, responseJson] =
        p;
      const q = rawUrl.indexOf('?');
      const path = redactPath(q < 0 ? rawUrl : rawUrl.slice(0, q)).slice(0, 2000);
      const query = q < 0 ? '' : redactPath(rawUrl.slice(q + 1)).slice(0, 2000);
      let request: string | null = null;
      if (requestText !== null) {
        let payload: unknown;
        try {
          payload = JSON.parse(requestText);
        } catch {
          payload = requestText;
        }
        request =
          typeof payload === 'string'
            ? cut(JSON.stringify(redactRawText(payload, opts)))
            : cut(redactedJson(payload, opts));
      } else if (requestJson !== null) request = cut(redactedJsonText(requestJson, opts));
      let response: string | null = null;
      if (responseText !== null && responseText.length <= MAX_BODY_CHARS) {
        if (status < 400 && !codes && endpoint !== null && NO_SECRET.has(endpoint))
          return [path, query, headersText(headers), request, responseText];
        const walk = endpoint === null || WALKED.has(endpoint) || status >= 400;
        response = redactedAnswer(() => JSON.parse(responseText), responseText, walk, opts);
      } else {
        const text = responseText ?? responseJson;
        if (text !== null) response = cut(redactedJson(shorten(JSON.parse(text)), opts));
      }
      return [path, query, headersText(headers), request, response];
    },
  };
}

/** The journal's redaction and row text (see above); `codes`: redact redemption codes too. */
export function journalText(codes: boolean): { rowText(p: PendingRow): RowText } {
  const m = secretMarks();
  const r = redaction(m);
  return rowTexts({ ...r, ...textRedaction(m, r.redactString) }, codes);
}
