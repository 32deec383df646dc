// Reading the ledger: its rows checked against their chain, and folded into writes (an intent,
// its outcome, and what reconcile settled), as `ledger list/show/export/reconcile` see them.
import { GENESIS, sha256, splitLines, type Row } from './store.js';
import { cellText } from '../util/cell-text.js';
import { idsOf } from './rows.js';

/** What reconcile found, in the words `bookdist help ledger` explains. */
export type Settlement = 'confirmed' | 'applied now' | 'not applied' | 'probably' | 'still unknown' | 'cannot settle';

/** A write's outcome (`bookdist help ledger`). */
export type Status = 'done' | 'failed' | 'unknown' | 'unsent';

export interface Write {
  id: number;
  t: string;
  op: string;
  profile: string;
  host: string;
  job?: string;
  ids: Record<string, unknown>;
  idempotency_key?: string;
  request?: string;
  /** The payload as sent, for the writes reconcile re-sends. */
  resend?: Record<string, unknown>;
  /** done / failed / unknown: the outcome, as reconcile settled it when it did; unsent: told ahead by a job that stopped before sending it. */
  status: Status;
  /** The outcome as recorded when the request ended (unknown: none, the process died first). */
  recorded: Status;
  http?: number;
  returned?: Record<string, unknown>;
  reason?: string;
  finished?: string;
  settled?: Settlement;
  settled_at?: string;
  settled_how?: string;
}

interface Break {
  /** The 1-based line of the file. */
  line: number;
  /** The row's id when the line parses. */
  n?: number;
  why: string;
}

export interface Parsed {
  rows: Row[];
  /** The first place the chain breaks, if it does. */
  broken?: Break;
  /** A last line without its end (a writer killed mid-write); the next append cuts it. */
  torn: boolean;
}

export function parseLedger(text: string): Parsed {
  const { complete, torn } = splitLines(text);
  const rows: Row[] = [];
  let broken: Break | undefined;
  let prevHash = GENESIS;
  let prevN = 0;
  complete.forEach((line, i) => {
    let row: Row | undefined;
    try {
      const r = JSON.parse(line);
      if (r && typeof r === 'object' && typeof r.n === 'number' && typeof r.prev === 'string') row = r;
    } catch {
      /* below */
    }
    if (!row) {
      broken ??= { line: i + 1, why: 'it is not a ledger row (not JSON with n and prev)' };
      prevHash = sha256(line);
      return;
    }
    if (!broken) {
      if (row.prev !== prevHash) {
        broken = {
          line: i + 1,
          n: row.n,
          why:
            i === 0
              ? 'the first row does not start the chain'
              : `its prev is not the SHA-256 of the row before it (row ${prevN}): row ${prevN} was changed, or rows were removed or inserted between them`,
        };
      } else if (row.n <= prevN) {
        broken = { line: i + 1, n: row.n, why: `its id is not above the row before it (${prevN})` };
      }
    }
    prevHash = sha256(line);
    prevN = row.n;
    rows.push(row);
  });
  return { rows, broken, torn: torn !== undefined };
}

const s = (v: unknown) => (typeof v === 'string' ? v : undefined);

/** The writes of the rows, oldest first. */
export function foldWrites(rows: Row[]): Write[] {
  const byId = new Map<number, Write>();
  const out: Write[] = [];
  for (const r of rows) {
    if (r.kind === 'intent') {
      const resend = r.resend && typeof r.resend === 'object' ? (r.resend as Record<string, unknown>) : undefined;
      const own = r.ids && typeof r.ids === 'object' ? (r.ids as Record<string, unknown>) : {};
      const w: Write = {
        id: r.n,
        t: r.t,
        op: s(r.op) ?? '?',
        profile: s(r.profile) ?? '?',
        host: s(r.host) ?? '',
        job: s(r.job),
        // A compact intent (`"ids_from":"resend"`, rows.ts) names its ids in its payload; an
        // older one, and one without a payload kept, in `ids` alone.
        ids: r.ids_from === 'resend' && resend ? { ...idsOf(resend), ...own } : own,
        idempotency_key: s(r.idempotency_key),
        request: s(r.request),
        resend,
        status: 'unknown',
        recorded: 'unknown',
      };
      byId.set(r.n, w);
      out.push(w);
      continue;
    }
    const w = byId.get(Number(r.of));
    if (!w) continue;
    if (r.kind === 'outcome') {
      // Unsent: its job stopped before the request (written `failed`, with `unsent`, or by
      // earlier versions with only the reason).
      const unsent = r.unsent === true || (r.status === 'failed' && s(r.reason)?.startsWith('not sent:'));
      const st = unsent ? 'unsent' : r.status === 'done' || r.status === 'failed' ? r.status : 'unknown';
      w.status = w.recorded = st;
      w.http = typeof r.http === 'number' ? r.http : undefined;
      w.returned = r.ids as Record<string, unknown> | undefined;
      w.reason = s(r.reason);
      w.finished = r.t;
    } else if (r.kind === 'settled') {
      const st = s(r.state) as Settlement;
      w.settled = st;
      w.settled_at = r.t;
      w.settled_how = s(r.how);
      if (st === 'confirmed' || st === 'applied now') w.status = 'done';
      else if (st === 'not applied') w.status = 'failed';
      if (r.ids && typeof r.ids === 'object') w.returned = { ...w.returned, ...(r.ids as Record<string, unknown>) };
    }
  }
  return out;
}

export interface Filter {
  since?: Date;
  until?: Date;
  op?: string;
  profile?: string;
  status?: Status;
  user?: string;
  book?: string;
  job?: string;
  org?: string;
  label?: string;
}

export function matches(w: Write, f: Filter): boolean {
  const t = Date.parse(w.t);
  if (f.since && t < f.since.getTime()) return false;
  if (f.until && t >= f.until.getTime()) return false;
  if (f.op && w.op !== f.op) return false;
  if (f.profile && w.profile !== f.profile) return false;
  if (f.status && w.status !== f.status) return false;
  if (f.job && w.job !== f.job) return false;
  if (f.user) {
    const u = f.user.toLowerCase();
    const names = [w.ids.username, w.ids.email, w.returned?.username]
      .filter((x): x is string => typeof x === 'string')
      .map((x) => x.toLowerCase());
    if (!names.includes(u)) return false;
  }
  if (f.book && w.ids.hash_id !== f.book) return false;
  if (f.org && w.ids.org !== f.org) return false;
  if (f.label && w.ids.label !== f.label) return false;
  return true;
}

/** A short line of what a write named: the user, the book, the order, the count. */
export function subjectOf(w: Write): string {
  const i = w.ids;
  const parts: string[] = [];
  const add = (label: string, v: unknown) => {
    if (v !== undefined && v !== null && v !== '')
      parts.push(`${label} ${Array.isArray(v) ? v.join(',') : cellText(v)}`);
  };
  add('user', i.username ?? i.email ?? w.returned?.username);
  if (i.username && i.email) add('email', i.email);
  add('book', i.hash_id);
  add('order#', i.order_number);
  add('order', i.order_id ?? i.id ?? w.returned?.order_id);
  add('items', i.items);
  add('org', i.org);
  add('label', i.label);
  add('count', i.count);
  if (w.request) parts.push(w.request);
  return parts.join(' ');
}
