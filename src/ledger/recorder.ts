// The write hook of the API client (src/api/write-hook.ts) that records every write in the
// ledger: an intent row, durable before the request is sent, and an outcome row after the
// client's verdict. What a row holds (identifiers only, never a secret): rows.ts.
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
// and outcomes go on while a sync runs. A row job also tells the recorder its next items' calls
// ahead (`ahead`, a window of them, refilled at half: eachItem in src/bulk/job/items.ts; a job of
// one call a batch, codes generate, tells its next batches' calls: batchesAhead): their intents go in
// one group, durable before any of them is sent, and each request's `before` then takes its own,
// so one fdatasync covers some 16 to 32 requests instead of one or two (bench n2). An intent told
// ahead whose request is never made (the job stopped first) gets an `unsent` outcome (status
// `failed` and `unsent: true` in the file) when the command ends; after a `kill -9` it stays unknown, which reconcile settles as it does
// any intent whose request may not have left.
// Outcomes go out with the next group, or when the command ends. The ledger's lock is held for
// each write only (store.ts), never between them.
import type { WriteHook, WriteRequest, WriteTicket, WriteVerdict } from '../api/write-hook.js';
import type { LedgerStore, NewRow } from './store.js';
import { opOf } from './ops.js';
import { idempotencyKey, intentOf, isoTime, outcomeOf, type RecorderMeta } from './rows.js';

/** An outcome is written with the next intent, or after this long at most. */
const OUTCOME_MS = 100;

interface Pending {
  row: NewRow;
  /** An intent's: called with its row's id once written (and, in a job, durable). */
  resolve?: (n: number) => void;
  reject?: (e: unknown) => void;
  /** An intent told ahead: its row's id, once written. */
  ahead?: Ahead;
}

/** An intent recorded ahead of its request (a bulk job's next items), until `before` takes it. */
interface Ahead {
  ticket?: Promise<WriteTicket | undefined>;
  n?: number;
  /** Its request's payload: `before` takes the first intent of its bucket (bucketOf) with the same. */
  payload?: Record<string, unknown>;
  /** That payload as JSON, made only when the payloads are not the same values (samePayload). */
  text?: string;
}

/**
 * Where intents told ahead wait for their requests: method, path and Idempotency-Key (short:
 * made once a request). The payload tells the requests of a bucket apart, compared in the order
 * told, where a request's own is first or nearly.
 */
function bucketOf(req: WriteRequest): string {
  return `${req.method} ${req.path} ${idempotencyKey(req.headers) ?? ''}`;
}

/**
 * The same fields with the same values (===): the call a job told is made with the values it
 * told, in a payload object of its own, so this answers without making either's JSON.
 */
function samePayload(a: Record<string, unknown> | undefined, b: Record<string, unknown> | undefined): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  let fields = 0;
  for (const k in a) {
    if (a[k] !== b[k]) return false;
    fields++;
  }
  for (const _ in b) fields--;
  return fields === 0;
}

const jsonOf = (payload: Record<string, unknown> | undefined): string => JSON.stringify(payload ?? null);

export class Recorder implements WriteHook {
  private queue: Pending[] = [];
  /** Intents told ahead, not yet taken by their request's `before`, by bucket (bucketOf). */
  private readonly told = new Map<string, Ahead[]>();
  private scheduled = false;
  /** Something was written without an fdatasync: synced when the command ends. */
  private unsynced = false;
  /** A bulk job's fdatasync under way. */
  private syncing = false;
  /** A bulk job's intents written since the fdatasync under way began, by their ids: they wait for the next. */
  private awaiting: Array<{ p: Pending; n: number }> = [];
  private soon?: NodeJS.Immediate;
  private later?: NodeJS.Timeout;
  private readonly onExit = () => this.flush(true);

  constructor(
    readonly store: LedgerStore,
    private readonly meta: RecorderMeta,
  ) {}

  before(req: WriteRequest): Promise<WriteTicket | undefined> | undefined {
    if (!this.told.size) return this.intent(req);
    const bucket = bucketOf(req);
    const told = this.told.get(bucket);
    if (!told) return this.intent(req);
    let i = told.findIndex((a) => samePayload(a.payload, req.payload));
    let text: string | undefined;
    if (i < 0) {
      // Equal values in other objects (a list made anew): the same JSON is the same request.
      text = jsonOf(req.payload);
      i = told.findIndex((a) => (a.text ??= jsonOf(a.payload)) === text);
    }
    if (i < 0) return this.intent(req, undefined, text);
    const a = i === 0 ? told.shift()! : told.splice(i, 1)[0];
    if (!told.length) this.told.delete(bucket);
    return a.ticket;
  }

  /**
   * Intents of requests a bulk job is about to send, recorded now in one group (one write and
   * one fdatasync for all of them): `before` of each then waits for nothing more, or for the
   * group's fdatasync only. One never sent is given a `failed` outcome (not sent) at the end.
   */
  ahead(reqs: WriteRequest[]): void {
    for (const req of reqs) {
      const a: Ahead = { payload: req.payload };
      a.ticket = this.intent(req, a);
      if (!a.ticket) continue;
      // Nobody may ever wait for it: its failure is the failure of the `before` that takes it.
      a.ticket.catch(() => {});
      const bucket = bucketOf(req);
      const told = this.told.get(bucket);
      if (told) told.push(a);
      else this.told.set(bucket, [a]);
    }
  }

  private intent(req: WriteRequest, ahead?: Ahead, text?: string): Promise<WriteTicket | undefined> | undefined {
    const op = opOf(req);
    if (!op) return undefined;
    const row = intentOf(req, op, this.meta, text);
    const asked = op.op === 'codes generate' ? (row.ids as Record<string, unknown>).count : undefined;
    // One promise a write; its ticket keeps the row's id, not the row.
    return new Promise<WriteTicket>((resolve, reject) =>
      this.enqueue({ row, resolve: (n) => resolve(this.ticket(n, op.op, asked)), reject, ahead }),
    );
  }

  private ticket(n: number, op: string, asked: unknown): WriteTicket {
    return {
      id: String(n),
      after: (v: WriteVerdict) => this.enqueue({ row: outcomeOf(n, op, v, this.meta.now?.() ?? new Date(), asked) }),
    };
  }

  /** Intents told ahead whose request was never sent (the job stopped first): an `unsent` outcome each. */
  private notSent(): void {
    const now = isoTime(this.meta.now?.() ?? new Date());
    for (const told of this.told.values())
      for (const a of told)
        if (a.n !== undefined)
          this.queue.push({
            row: {
              t: now,
              kind: 'outcome',
              of: a.n,
              // `failed` for a reader that knows no `unsent` (it never re-sends a failed write).
              status: 'failed',
              unsent: true,
              reason: 'not sent: the job stopped before this request',
              pid: process.pid,
            },
          });
    this.told.clear();
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
    if (end && this.told.size) {
      this.notSent();
      if (this.queue.length && !this.scheduled) {
        this.scheduled = true;
        process.on('exit', this.onExit);
      }
    }
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
    if (end) this.store.close();
  }

  private write(): void {
    const batch = this.queue;
    this.queue = [];
    const intents = batch.some((p) => p.resolve);
    const inJob = Boolean(this.meta.job?.());
    let written: number[];
    try {
      written = this.store.append(
        batch.map((p) => p.row),
        intents && !inJob,
      );
    } catch (e) {
      for (const p of batch) p.reject?.(e);
      if (batch.some((p) => !p.resolve))
        this.meta.warn?.(`could not record outcomes in the ledger: ${(e as Error).message}`);
      return;
    }
    batch.forEach((p, i) => {
      if (p.ahead) p.ahead.n = written[i];
    });
    if (!inJob) {
      batch.forEach((p, i) => p.resolve?.(written[i]));
      return;
    }
    this.unsynced = true;
    if (!intents) return;
    batch.forEach((p, i) => {
      if (p.resolve) this.awaiting.push({ p, n: written[i] });
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
      else for (const { p, n } of group) p.resolve?.(n);
      this.commitGroup();
    });
  }
}
