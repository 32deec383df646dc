// The rows the ledger's recorder (recorder.ts) writes for a write: its intent, before the request
// is sent, and its outcome, after the client's verdict. Only identifiers are kept (a whitelist of
// fields): never a key, token, signature, password or redemption code (a batch of codes is kept
// as its count and SHA-256).
import type { WriteRequest, WriteVerdict } from '../api/write-hook.js';
import { sha256, type NewRow } from './store.js';
import type { Op } from './ops.js';

export interface RecorderMeta {
  /** The profile's name (`sandbox` for the embedded sandbox). */
  profile: string;
  /** The base URL's host. */
  host: string;
  /** The bulk job the requests belong to, when one runs (read at each write). */
  job?: () => string | undefined;
  now?: () => Date;
  /** A record that could not be written after the request was sent (disk full...). */
  warn?: (message: string) => void;
}

/**
 * Payload fields kept in an intent: identifiers and counts, nothing else. An intent that keeps
 * its payload for a repeat (`resend`) does not write them twice: `"ids_from":"resend"` says its
 * ids are these fields of `resend` (idsOf), then its own `ids` (a path's, when any). Readers
 * (read.ts) read both forms, so a changed list changes what old rows of that form show: add a
 * field only with a new marker.
 */
const INTENT_FIELDS = [
  'username',
  'email',
  'hash_id',
  'order_number',
  'org',
  'label',
  'count',
  'order_id',
  'id',
  'items',
  'digital_pricing',
  'order_type',
  'price',
  'expiration_date',
  'limit_days',
  'samples',
  'force',
  'urgent',
  'type',
  'send_email',
] as const;

/**
 * Writes that `ledger reconcile` settles by sending them again (idempotent by their order number,
 * their Idempotency-Key, or by what they do): the payload is kept as sent, so that the repeat is
 * the same request. None of these payloads holds a secret (the signature is a header).
 */
function resendable(op: string, req: WriteRequest, key: string | undefined): boolean {
  if (op === 'access allow' || op === 'access revoke') return true;
  if (op === 'order create') return typeof req.payload?.order_number === 'string' && req.payload.order_number !== '';
  if (op === 'codes generate') return key !== undefined;
  return false;
}

function keep(v: unknown): unknown {
  if (typeof v === 'string') return v.length <= 200 ? v : undefined;
  if (typeof v === 'number' || typeof v === 'boolean') return v;
  if (
    Array.isArray(v) &&
    v.length <= 1000 &&
    v.every((x) => typeof x === 'number' || (typeof x === 'string' && x.length <= 40))
  )
    return v;
  return undefined;
}

/** The identifiers a payload names (INTENT_FIELDS, as kept): an intent's ids, and a compact intent's from its `resend`. */
export function idsOf(from: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!from) return out;
  for (const f of INTENT_FIELDS) {
    const given = from[f];
    if (given === undefined) continue;
    const v = keep(given);
    if (v !== undefined) out[f] = v;
  }
  return out;
}

/** The last second isoTime formatted: its "YYYY-MM-DDTHH:MM:SS." and its number. */
let second = NaN;
let secondText = '';

/**
 * `d.toISOString()`, made from the text of its second when the second is the last one's: V8
 * formats a date through printf, some 7,000 instructions a call, two a write (bench n2).
 */
export function isoTime(d: Date): string {
  const ms = d.getTime();
  // Years 0 to 9999 only (others are written with a sign and six digits); an invalid date throws as toISOString does.
  if (!(ms >= -62167219200000 && ms < 253402300800000)) return d.toISOString();
  const s = Math.floor(ms / 1000);
  if (s !== second) {
    second = s;
    secondText = d.toISOString().slice(0, 20);
  }
  const m = ms - s * 1000;
  return secondText + (m < 10 ? '00' : m < 100 ? '0' : '') + m + 'Z';
}

export function idempotencyKey(headers: Record<string, string>): string | undefined {
  for (const k in headers) if (k.length === 15 && k.toLowerCase() === 'idempotency-key') return headers[k];
  return undefined;
}

/** The longest payload an intent keeps for a repeat (`resend`), as JSON. */
const RESEND_MAX = 8192;

/**
 * Is `v`'s JSON at most `max` characters? Answered without making it where an upper bound of its
 * length says so (every character of a string escaped as \uXXXX): a payload of a few hundred
 * characters, as every row of a bulk job has, is never stringified for it.
 */
function jsonAtMost(v: unknown, max: number, text?: string): boolean {
  if (text !== undefined) return text.length <= max;
  const bound = jsonBound(v, max, 0);
  return bound <= max || (JSON.stringify(v) ?? '').length <= max;
}

/** An upper bound of the length of `v`'s JSON, or Infinity once above `max` (or not plain data). */
function jsonBound(v: unknown, max: number, depth: number): number {
  if (typeof v === 'string') return 2 + 6 * v.length;
  if (typeof v === 'number' || typeof v === 'boolean' || v === null || v === undefined) return 24;
  if (typeof v !== 'object' || depth > 8) return Infinity;
  if (Array.isArray(v)) {
    let n = 2;
    for (const x of v) if ((n += 1 + jsonBound(x, max, depth + 1)) > max) return Infinity;
    return n;
  }
  if (Object.getPrototypeOf(v) !== Object.prototype) return Infinity; // toJSON, a Date, a Map...
  let n = 2;
  for (const k in v)
    if ((n += 4 + 6 * k.length + jsonBound((v as Record<string, unknown>)[k], max, depth + 1)) > max) return Infinity;
  return n;
}

/** What the intent row of a write holds. */
export function intentOf(
  req: WriteRequest,
  op: Op,
  meta: RecorderMeta,
  /** The payload as JSON, when the caller made it already. */
  text?: string,
): NewRow {
  const key = idempotencyKey(req.headers);
  // Kept for a repeat: its ids are read from it (INTENT_FIELDS), not written twice.
  const resend =
    req.payload && resendable(op.op, req, key) && jsonAtMost(req.payload, RESEND_MAX, text) ? req.payload : undefined;
  const ids = resend ? {} : idsOf(req.payload);
  if (op.params) Object.assign(ids, op.params);
  const row: NewRow = {
    t: isoTime(meta.now?.() ?? new Date()),
    kind: 'intent',
    op: op.op,
    profile: meta.profile,
    host: meta.host,
    ids,
  };
  if (op.op === 'api') row.request = `${req.method} ${req.path}`;
  if (key) row.idempotency_key = key;
  if (resend) {
    row.resend = resend;
    row.ids_from = 'resend';
  }
  const job = meta.job?.();
  if (job) row.job = job;
  row.pid = process.pid;
  return row;
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
const num = (v: unknown) => (typeof v === 'number' ? v : undefined);

const obj = (v: unknown): Record<string, unknown> | undefined =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
const list = (v: unknown): Array<Record<string, unknown>> => (Array.isArray(v) ? v.map((x) => obj(x) ?? {}) : []);
const nums = (v: unknown[]): number[] => v.filter((x): x is number => typeof x === 'number');

/** The identifiers an answer returned: order id, purchase ids, a new user's username, the codes' count and digest. */
function returnedIds(op: string, body: unknown): Record<string, unknown> {
  const b = obj(body) ?? {};
  const out: Record<string, unknown> = {};
  const order = obj(b.order);
  if (order) {
    if (num(order.id) !== undefined) out.order_id = order.id;
    if (Array.isArray(order.items)) {
      // One array, no copies between (a row an order in a job).
      const ids: number[] = [];
      for (const item of order.items as unknown[]) {
        const id = obj(item)?.id;
        if (typeof id === 'number') ids.push(id);
      }
      out.purchase_ids = ids;
    }
  }
  if (Array.isArray(b.refunds)) {
    const refunds = list(b.refunds);
    out.refunded = nums(refunds.filter((r) => r.success === true).map((r) => r.purchase_id));
    out.not_refunded = nums(refunds.filter((r) => r.success !== true).map((r) => r.purchase_id));
  }
  if (op === 'user create' || op === 'user invite' || (op === 'api' && str(b.username))) {
    if (str(b.username)) out.username = b.username;
    if (b.conflict === true) out.conflict = true;
  }
  if (Array.isArray(b.codes)) {
    // Never the codes themselves: how many, and a digest to match them against a file (the
    // SHA-256 of the codes joined by line ends). One array and one flat string a batch: building
    // the text by concatenation left two cons strings a code (some 80 KB a 1,000-code batch) for
    // the scavenger, which in a job copies the batches in flight each time (bench n1, same run,
    // 5 rounds on a loaded machine: user CPU 1,903 -> 1,771 ms with the ledger, 1,678 without).
    const codes = b.codes as unknown[];
    const n = codes.length;
    const text = codes
      .map((c) =>
        typeof c === 'string'
          ? c
          : typeof (c as { code?: unknown } | null)?.code === 'string'
            ? (c as { code: string }).code
            : JSON.stringify(c),
      )
      .join('\n');
    out.codes = n;
    out.codes_sha256 = sha256(text);
  }
  return out;
}

/** The service's message, short, when it says why a write failed (never from a success, which may carry a password). */
function reasonOf(v: WriteVerdict): string | undefined {
  const b = v.body as { message?: unknown } | undefined;
  const m = v.reason ?? (typeof b?.message === 'string' ? b.message : undefined);
  if (!m) return undefined;
  // One line, no control characters, short.
  const s = m.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
  return s.length > 200 ? s.slice(0, 200) + '…' : s;
}

/**
 * The outcome row of a write. `asked`: the number of codes a batch asked for. A batch answered
 * with another number of codes is not the answer the interface promises: its outcome is unknown
 * (the codes returned were made; whether others were, the answer does not say), with the count
 * that came back.
 */
export function outcomeOf(of: number, op: string, v: WriteVerdict, now: Date, asked?: unknown): NewRow {
  const ids = v.status === 'failed' ? {} : returnedIds(op, v.body);
  let status = v.status;
  let reason = status === 'done' ? undefined : reasonOf(v);
  if (status === 'done' && typeof asked === 'number' && typeof ids.codes === 'number' && ids.codes !== asked) {
    status = 'unknown';
    reason = `the service returned ${ids.codes} code(s) for ${asked} asked: not the answer the interface promises`;
  }
  const row: NewRow = { t: isoTime(now), kind: 'outcome', of, status };
  if (v.http !== undefined) row.http = v.http;
  if (Object.keys(ids).length) row.ids = ids;
  if (reason) row.reason = reason;
  row.pid = process.pid;
  return row;
}
