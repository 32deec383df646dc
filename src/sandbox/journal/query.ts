// Reading the request journal: filters (method, path pattern, status, account, since, body
// fields), one request, clearing, and the matching that `sandbox requests verify` asserts on.
// The same code answers `--db` (a command's own connection) and the control routes of a running
// sandbox (`--url`).
import type { Row, Store } from '../db/store.js';
import { PACK_MAX, unpackTimes } from './pack.js';

export interface JournalFilter {
  method?: string;
  /** A path, or a pattern with `*` (any characters); a final `/` is optional on both sides. */
  path?: string;
  /** A status (201), or a class (2xx, 4xx). */
  status?: string;
  account?: string;
  /** Requests at or after this time (ms since the epoch, real time). */
  since?: number;
  /** Requests with an id above this (what `tail` has already shown). */
  afterId?: number;
  /** Body fields: `name=value` (a dotted path into the request body; the value as text or JSON), or `name` (present). */
  body?: string[];
}

/** One journaled request, as commands and control routes show it. */
export interface JournalEntry {
  id: number;
  at: string;
  sandbox_at: string;
  method: string;
  path: string;
  query: string;
  auth: string;
  account: string | null;
  status: number;
  duration_ms: number;
  endpoint: string | null;
  headers: Record<string, string>;
  request: unknown;
  response: unknown;
  changes: Record<string, unknown>;
  emails: number[];
}

const json = (text: unknown, empty: unknown): unknown => {
  if (typeof text !== 'string') return empty;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

function entryOf(r: Row): JournalEntry {
  return {
    id: r.id,
    at: isoMs(r.at),
    sandbox_at: isoMs(r.sandbox_at),
    method: r.method,
    path: r.path,
    query: r.query,
    auth: r.auth,
    account: r.account,
    status: r.status,
    duration_ms: r.duration_ms,
    endpoint: r.endpoint,
    headers: json(r.headers, {}) as Record<string, string>,
    request: json(r.request, null),
    response: json(r.response, null),
    changes: json(r.changes, {}) as Record<string, unknown>,
    emails: json(r.emails, []) as number[],
  };
}

/** ISO 8601 with milliseconds (requests a few ms apart stay apart). */
function isoMs(ms: number): string {
  return new Date(ms).toISOString();
}

/** A problem with a filter, named by the flag that gave it. */
export class FilterError extends Error {}

/** Check a filter's values (the same rules for --db and --url); throws FilterError. */
export function checkFilter(f: JournalFilter): JournalFilter {
  if (f.status !== undefined && !/^(\d{3}|[1-5]xx)$/i.test(f.status))
    throw new FilterError(`--status must be a status such as 201 or a class such as 4xx, not "${f.status}".`);
  for (const b of f.body ?? []) {
    if (!/^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*(=|$)/.test(b))
      throw new FilterError(
        `--body must be name=value (a field of the request body, dotted for nested fields, e.g. order_type=TestPlan), not "${b}".`,
      );
  }
  return f;
}

const hasTable = (store: Store) => store.hasTable('journal');

/** True when the journal can hold packed rows (pack.ts); a journal of an earlier version has no such column. */
const hasPacks = (store: Store): boolean =>
  store.all<{ name: string }>('PRAGMA table_info(journal)').some((c) => c.name === 'pack');

/**
 * The columns of a journal row, its answer included: a row whose answer is shared with others
 * (journal.ts, journal_bodies) takes the text from there. A journal of an earlier version has no such table.
 */
function columns(store: Store): string {
  return store.hasTable('journal_bodies')
    ? 'journal.*, coalesce(journal.response, (SELECT text FROM journal_bodies WHERE id = journal.response_body)) AS response'
    : '*';
}

/**
 * The requests a row holds: itself, or each request of a packed row (pack.ts) with its own id
 * and times.
 */
function unpack(r: Row): Row[] {
  if (!(r.pack instanceof Uint8Array)) return [r];
  return unpackTimes(r.pack).map(([at, sandboxAt, duration], i) => ({
    ...r,
    id: r.id + i,
    at,
    sandbox_at: sandboxAt,
    duration_ms: duration,
  }));
}

/** Requests matching `f`, oldest first (by the time each came; `tail` follows ids, the order rows are written); at most `limit` of the newest when given. */
export function listRequests(
  store: Store,
  f: JournalFilter,
  limit?: number,
): { total: number; requests: JournalEntry[] } {
  if (!hasTable(store)) return { total: 0, requests: [] };
  const where: string[] = [];
  const params: Array<string | number> = [];
  const and = (sql: string, ...values: Array<string | number>) => {
    where.push(sql);
    params.push(...values);
  };
  const packed = hasPacks(store);
  if (f.method) and('method = ?', f.method.toUpperCase());
  if (f.account) and('account = ?', f.account);
  // A packed row's requests came at or after its own `at`: its times are checked once unpacked.
  if (f.since !== undefined) and(packed ? '(at >= ? OR pack IS NOT NULL)' : 'at >= ?', f.since);
  if (f.afterId !== undefined) {
    if (packed) and('id > ? AND id + coalesce(n, 1) - 1 > ?', f.afterId - PACK_MAX, f.afterId);
    else and('id > ?', f.afterId);
  }
  if (f.status) {
    if (/xx$/i.test(f.status)) and('status / 100 = ?', Number(f.status[0]));
    else and('status = ?', Number(f.status));
  }
  const sql = `SELECT ${columns(store)} FROM journal${where.length ? ' WHERE ' + where.join(' AND ') : ''} ORDER BY at, id`;
  const path = f.path ? pathMatcher(f.path) : undefined;
  let rows = store.all(sql, ...params).filter((r) => !path || path(r.path));
  if (packed && rows.some((r) => r.pack instanceof Uint8Array)) {
    rows = rows
      .flatMap(unpack)
      .filter((r) => (f.since === undefined || r.at >= f.since) && (f.afterId === undefined || r.id > f.afterId))
      .sort((a, b) => a.at - b.at || a.id - b.id);
  }
  const body = (f.body ?? []).map(bodyMatcher);
  let entries = rows.map(entryOf);
  if (body.length) entries = entries.filter((e) => body.every((m) => m(e.request)));
  const total = entries.length;
  if (limit !== undefined && entries.length > limit) entries = entries.slice(entries.length - limit);
  return { total, requests: entries };
}

export function getRequest(store: Store, id: number): JournalEntry | undefined {
  if (!hasTable(store)) return undefined;
  if (!hasPacks(store)) {
    const r = store.get(`SELECT ${columns(store)} FROM journal WHERE id = ?`, id);
    return r ? entryOf(r) : undefined;
  }
  const r = store.get(
    `SELECT ${columns(store)} FROM journal WHERE id <= ? AND id > ? ORDER BY id DESC LIMIT 1`,
    id,
    id - PACK_MAX,
  );
  const one = r && unpack(r)[id - r.id];
  return one ? entryOf(one) : undefined;
}

/** Drop every journaled request; ids are never reused, so `tail` goes on after a clear. */
export function clearRequests(store: Store): number {
  if (!hasTable(store)) return 0;
  return store.tx(() => {
    const n = hasPacks(store)
      ? Number(store.get('SELECT coalesce(sum(coalesce(n, 1)), 0) AS n FROM journal')?.n ?? 0)
      : undefined;
    if (store.hasTable('journal_bodies')) store.run('DELETE FROM journal_bodies');
    const deleted = store.run('DELETE FROM journal').changes;
    return n ?? deleted;
  });
}

/** The id of the newest request (0 when none): where `tail` starts. */
export function lastRequestId(store: Store): number {
  if (!hasTable(store)) return 0;
  if (!hasPacks(store)) return Number(store.get('SELECT max(id) AS id FROM journal')?.id ?? 0);
  return Number(
    store.get('SELECT id + coalesce(n, 1) - 1 AS id FROM journal WHERE id = (SELECT max(id) FROM journal)')?.id ?? 0,
  );
}

/** `/v1/order/*` style patterns; a final `/` optional on both sides. */
function pathMatcher(pattern: string): (path: string) => boolean {
  const norm = (p: string) => (p.length > 1 ? p.replace(/\/+$/, '') : p);
  const want = norm(pattern);
  if (!want.includes('*')) return (p) => norm(p) === want;
  const re = new RegExp(
    '^' +
      want
        .split('*')
        .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*') +
      '$',
  );
  return (p) => re.test(norm(p));
}

/** The value at a dotted path of a body (undefined when absent). */
function fieldAt(body: unknown, path: string): unknown {
  let v: unknown = body;
  for (const k of path.split('.')) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[k];
  }
  return v;
}

/** The text a body value is compared as: strings as they are, everything else as JSON. */
const valueText = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

/** `name=value`: the field's text equals value (or its JSON, for numbers, booleans, null); `name`: present. */
function bodyMatcher(spec: string): (body: unknown) => boolean {
  const eq = spec.indexOf('=');
  const name = eq < 0 ? spec : spec.slice(0, eq);
  const want = eq < 0 ? undefined : spec.slice(eq + 1);
  return (body) => {
    const v = fieldAt(body, name);
    if (v === undefined) return false;
    return want === undefined || valueText(v) === want;
  };
}

/** Why a request does not match a filter (empty when it matches): one phrase per field that differs. */
export function mismatches(e: JournalEntry, f: JournalFilter): string[] {
  const out: string[] = [];
  if (f.method && e.method !== f.method.toUpperCase()) out.push(`method ${e.method}, not ${f.method.toUpperCase()}`);
  if (f.path && !pathMatcher(f.path)(e.path)) out.push(`path ${e.path}, not ${f.path}`);
  if (f.status) {
    const ok = /xx$/i.test(f.status)
      ? Math.floor(e.status / 100) === Number(f.status[0])
      : e.status === Number(f.status);
    if (!ok) out.push(`status ${e.status}, not ${f.status}`);
  }
  if (f.account && e.account !== f.account) out.push(`account ${e.account ?? '-'}, not ${f.account}`);
  for (const b of f.body ?? []) {
    if (bodyMatcher(b)(e.request)) continue;
    const eq = b.indexOf('=');
    const name = eq < 0 ? b : b.slice(0, eq);
    const v = fieldAt(e.request, name);
    out.push(
      v === undefined
        ? `body.${name} absent`
        : `body.${name} ${JSON.stringify(v)}, not ${JSON.stringify(b.slice(eq + 1))}`,
    );
  }
  return out;
}
