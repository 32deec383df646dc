// The write hook of the API client (src/api/write-hook.ts) that records every write in the
// ledger: an intent row, durable before the request is sent, and an outcome row after the
// client's verdict. Only identifiers are kept (a whitelist of fields): never a key, token,
// signature, password or redemption code (a batch of codes is kept as its count and SHA-256).
//
// Intents of one process are committed in groups: those asked for in the same turn of the event
// loop (a bulk job at its concurrency) share one lock and one write. Every intent is written
// (write(2)) and fdatasynced before its request is sent: a `kill -9` at any instant leaves it in
// the file (the kernel keeps what a killed process wrote), and so does a crash of the machine. A
// single write command fdatasyncs its intent at once. A bulk job commits its intents in groups
// (group commit): one fdatasync runs in the background at a time, and the intents written while
// it runs wait for the next one, which covers them all; a request leaves once its intent's
// fdatasync is done. So a job pays one fdatasync per group, not per item (one per intent made a
// sequential 3,100-item job take 20 times as long on a loaded 2-core machine), and its answers
// and outcomes go on while a sync runs.
// Outcomes go out with the next group, or when the command ends. A bulk job keeps the ledger's
// lock between its groups (the store lets it go when another process waits) and lets it go
// after IDLE_MS without one.
import type { WriteHook, WriteRequest, WriteTicket, WriteVerdict } from '../api/write-hook.js';
import { LedgerStore, sha256, type NewRow, type Row } from './store.js';
import { opOf } from './ops.js';

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

/** Payload fields kept in an intent: identifiers and counts, nothing else. */
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

function pick(from: Record<string, unknown> | undefined, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!from) return out;
  for (const f of fields) {
    const v = keep(from[f]);
    if (v !== undefined) out[f] = v;
  }
  return out;
}

function idempotencyKey(headers: Record<string, string>): string | undefined {
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === 'idempotency-key') return v;
  return undefined;
}

/** What the intent row of a write holds. */
export function intentOf(
  req: WriteRequest,
  op: { op: string; params?: Record<string, string> },
  meta: RecorderMeta,
): NewRow {
  const ids = { ...pick(req.payload, INTENT_FIELDS), ...op.params };
  const key = idempotencyKey(req.headers);
  const row: NewRow = {
    t: (meta.now?.() ?? new Date()).toISOString(),
    kind: 'intent',
    op: op.op,
    profile: meta.profile,
    host: meta.host,
    ids,
  };
  if (op.op === 'api') row.request = `${req.method} ${req.path}`;
  if (key) row.idempotency_key = key;
  if (req.payload && resendable(op.op, req, key)) {
    const text = JSON.stringify(req.payload);
    if (text.length <= 8192) row.resend = req.payload;
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
export function returnedIds(op: string, body: unknown): Record<string, unknown> {
  const b = obj(body) ?? {};
  const out: Record<string, unknown> = {};
  const order = obj(b.order);
  if (order) {
    if (num(order.id) !== undefined) out.order_id = order.id;
    if (Array.isArray(order.items)) out.purchase_ids = nums(list(order.items).map((i) => i.id));
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
  const row: NewRow = { t: now.toISOString(), kind: 'outcome', of, status };
  if (v.http !== undefined) row.http = v.http;
  if (Object.keys(ids).length) row.ids = ids;
  if (reason) row.reason = reason;
  row.pid = process.pid;
  return row;
}

/** An outcome is written with the next intent, or after this long at most. */
const OUTCOME_MS = 100;
/** A bulk job lets the ledger's lock go after this long without a write. */
const IDLE_MS = 10;

interface Pending {
  row: NewRow;
  resolve?: (r: Row) => void;
  reject?: (e: unknown) => void;
}

export class Recorder implements WriteHook {
  private queue: Pending[] = [];
  private scheduled = false;
  /** Something was written without an fdatasync: synced when the command ends. */
  private unsynced = false;
  /** A bulk job's fdatasync under way. */
  private syncing = false;
  /** A bulk job's intents written since the fdatasync under way began: they wait for the next. */
  private awaiting: Array<{ p: Pending; row: Row }> = [];
  private soon?: NodeJS.Immediate;
  private later?: NodeJS.Timeout;
  private idle?: NodeJS.Timeout;
  private readonly onExit = () => this.flush(true);

  constructor(
    readonly store: LedgerStore,
    private readonly meta: RecorderMeta,
  ) {}

  before(req: WriteRequest): Promise<WriteTicket | undefined> | undefined {
    const op = opOf(req);
    if (!op) return undefined;
    const row = intentOf(req, op, this.meta);
    const asked = op.op === 'codes generate' ? (row.ids as Record<string, unknown>).count : undefined;
    return new Promise<Row>((resolve, reject) => this.enqueue({ row, resolve, reject })).then((written) => ({
      id: String(written.n),
      after: (v: WriteVerdict) =>
        this.enqueue({
          row: outcomeOf(written.n, op.op, v, this.meta.now?.() ?? new Date(), asked),
        }),
    }));
  }

  /**
   * Queue a row. An intent is written in the next turn of the event loop (with the others asked
   * for meanwhile); an outcome waits for the next intent's write, OUTCOME_MS at most, or the end.
   */
  private enqueue(p: Pending): void {
    this.queue.push(p);
    if (!this.scheduled) {
      this.scheduled = true;
      process.on('exit', this.onExit);
    }
    if (p.resolve) {
      if (this.soon) return;
      this.soon = setImmediate(() => this.flush());
    } else if (!this.later && !this.soon) {
      this.later = setTimeout(() => this.flush(), OUTCOME_MS);
      this.later.unref();
    }
  }

  /**
   * Write what is queued under one lock; intents are fdatasynced before they resolve (a bulk
   * job's in groups: commitGroup). `end`: the command ends: everything on disk.
   */
  flush(end = false): void {
    if (this.soon) clearImmediate(this.soon);
    if (this.later) clearTimeout(this.later);
    this.soon = this.later = undefined;
    if (this.scheduled) {
      this.scheduled = false;
      process.off('exit', this.onExit);
      this.write();
    }
    if (end && this.unsynced) {
      this.unsynced = false;
      this.store.sync();
    }
    if (end) {
      if (this.idle) clearTimeout(this.idle);
      this.idle = undefined;
      this.store.close();
    }
  }

  private write(): void {
    const batch = this.queue;
    this.queue = [];
    const intents = batch.some((p) => p.resolve);
    const inJob = Boolean(this.meta.job?.());
    let written: Row[];
    try {
      written = this.store.append(
        batch.map((p) => p.row),
        intents && !inJob,
        inJob,
      );
    } catch (e) {
      for (const p of batch) p.reject?.(e);
      if (batch.some((p) => !p.resolve))
        this.meta.warn?.(`could not record outcomes in the ledger: ${(e as Error).message}`);
      return;
    }
    if (!inJob) {
      batch.forEach((p, i) => p.resolve?.(written[i]));
      return;
    }
    this.unsynced = true;
    this.letGoWhenIdle();
    if (!intents) return;
    batch.forEach((p, i) => {
      if (p.resolve) this.awaiting.push({ p, row: written[i] });
    });
    this.commitGroup();
  }

  /**
   * A bulk job's group commit: unless an fdatasync runs, start one for the intents written so
   * far; when it is done they resolve (their requests leave) and the next group starts. One that
   * fails rejects its intents: their requests are never sent.
   */
  private commitGroup(): void {
    if (this.syncing || !this.awaiting.length) return;
    const group = this.awaiting;
    this.awaiting = [];
    this.syncing = true;
    void this.store.syncInBackground().then((failed) => {
      this.syncing = false;
      if (failed) for (const { p } of group) p.reject?.(failed);
      else for (const { p, row } of group) p.resolve?.(row);
      this.commitGroup();
    });
  }

  /** The lock kept by a job is let go IDLE_MS after its last write. */
  private letGoWhenIdle(): void {
    if (this.idle) {
      this.idle.refresh();
      return;
    }
    this.idle = setTimeout(() => {
      this.idle = undefined;
      this.store.release();
    }, IDLE_MS);
    this.idle.unref();
  }
}
