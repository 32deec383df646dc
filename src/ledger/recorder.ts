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
// one group, written when told (not in the next turn), durable before any of them is sent, and each request's `before` then takes its own,
// so one fdatasync covers some 16 to 32 requests instead of one or two (bench n2). An intent told
// ahead whose request is never made (the job stopped first) gets an `unsent` outcome (status
// `failed` and `unsent: true` in the file) when the command ends; after a `kill -9` it stays unknown, which reconcile settles as it does
// any intent whose request may not have left.
// Outcomes go out with the next group, a second after the first of them at most (OUTCOME_MS), or
// when the command ends. The ledger's lock is held for each write only (store.ts), never between
// them.
// What an intent costs a bulk job is mostly garbage (the V8 scavenger copies what is alive at each
// collection, a job's requests in flight included): an intent is one object, which is its
// request's ticket too, and the intents of a write share one group, which makes a promise only
// for a request that has to wait for it; one told ahead and durable by then is answered at once.
import type { WriteHook, WriteRequest, WriteTicket, WriteVerdict } from '../api/write-hook.js';
import type { LedgerStore, NewRow } from './store.js';
import { opOf } from './ops.js';
import { idempotencyKey, intentOf, isoTime, outcomeOf, type RecorderMeta } from './rows.js';

/** The number of codes a batch asks for, as its intent keeps it. */
const countOf = (req: WriteRequest): unknown => {
  const c = req.payload?.count;
  return typeof c === 'number' ? c : undefined;
};

/**
 * An outcome is written with the next intent, or after this long at most (or when the command
 * ends). Outcomes are not made durable as they are written (only intents must be: a lost outcome
 * leaves its write unknown, which reconcile settles), so this bounds what a `kill -9` leaves
 * unknown and how late another process sees them, not what a crash loses. A job that tells its
 * calls ahead writes few intents (codes generate: two groups for 100 batches), so its outcomes
 * went out mostly on this timer: at 100 ms, some 22 appends (a lock cycle, a write and their
 * file calls each) for a 100,000-code job, at 1 s some 4 (bench n1).
 */
const OUTCOME_MS = 1000;

/**
 * The intents of one write (append): settled once durable (in a bulk job, once the fdatasync
 * that covers them is done), or with the error that kept them from being. A promise is made only
 * when a request has to wait for it: an intent told ahead is most often durable before its
 * request asks for it, and is then answered at once.
 */
class Group {
  done = false;
  error?: Error;
  private waiting?: { promise: Promise<void>; resolve: () => void; reject: (e: Error) => void };

  wait(): Promise<void> {
    if (this.done) return this.error === undefined ? Promise.resolve() : Promise.reject(this.error);
    if (!this.waiting) {
      let resolve!: () => void;
      let reject!: (e: Error) => void;
      const promise = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      this.waiting = { promise, resolve, reject };
    }
    return this.waiting.promise;
  }

  settle(error?: Error): void {
    this.done = true;
    this.error = error;
    const w = this.waiting;
    this.waiting = undefined;
    if (!w) return;
    if (error === undefined) w.resolve();
    else w.reject(error);
  }
}

/**
 * A write's intent, queued until written, and then its request's ticket: it keeps the row's id,
 * the operation and the count of codes asked for (an outcome's), not the row. One told ahead also
 * keeps what `before` matches its request by (method, path, Idempotency-Key, payload) until taken.
 */
class Intent implements WriteTicket {
  /** The row, until written. */
  row?: NewRow;
  /** Its id, once written. */
  n?: number;
  method?: string;
  path?: string;
  key?: string;
  payload?: Record<string, unknown>;
  /** That payload as JSON, made only when the payloads are not the same values (samePayload). */
  text?: string;

  constructor(
    private readonly rec: Recorder,
    row: NewRow,
    private readonly op: string,
    private readonly asked: unknown,
    readonly group: Group,
  ) {
    this.row = row;
  }

  get id(): string {
    return String(this.n);
  }

  after(v: WriteVerdict): void {
    this.rec.ended(this.n!, this.op, v, this.asked);
  }

  /** The ticket once the intent is durable: at once when it is, else when its group is. */
  ready(): WriteTicket | Promise<WriteTicket> {
    const g = this.group;
    if (!g.done) return g.wait().then(() => this);
    return g.error === undefined ? this : Promise.reject(g.error);
  }
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

/**
 * The payload fields that place a told intent in a bucket of its own (Recorder.told), in this
 * order: the first a payload has as a string or a number names its bucket. The most selective
 * identifiers first: an order's number is its own, so `before` compares one told intent instead
 * of passing over those every lane told (a job of 4 lanes has up to 200 told at once; their
 * scan was some 10% of the recorder's CPU in a harness driving it as order create does). A
 * request with the same values, or the same JSON, has the same value in that field: it is in
 * the same bucket whatever the order of its fields. The bucket is the value alone (no string is
 * made for it: one a request was some 250 bytes of garbage); `takes` compares the rest, the path
 * included.
 */
const BUCKET_FIELDS = ['order_number', 'email', 'username', 'id', 'hash_id'] as const;

/** The bucket of told intents a request's is in: the first of BUCKET_FIELDS its payload names, else ''. */
function bucketOf(req: WriteRequest): string {
  const p = req.payload;
  if (p)
    for (const f of BUCKET_FIELDS) {
      const v = p[f];
      if (typeof v === 'string') return v;
      if (typeof v === 'number') return String(v);
    }
  return '';
}

/**
 * The first intent of a bucket told for this request (its method, path, Idempotency-Key and
 * payload: the same values, or with `text`, the same JSON), or -1.
 */
function takes(told: Intent[], req: WriteRequest, key: string | undefined, text?: string): number {
  for (let i = 0; i < told.length; i++) {
    const a = told[i];
    if (a.method !== req.method || a.path !== req.path || a.key !== key) continue;
    if (text === undefined ? samePayload(a.payload, req.payload) : (a.text ??= jsonOf(a.payload)) === text) return i;
  }
  return -1;
}

export class Recorder implements WriteHook {
  /** Rows to write: intents (until written) and outcomes. */
  private queue: Array<Intent | NewRow> = [];
  /** The group of the intents queued (written with the next write). */
  private next?: Group;
  /** Intents told ahead, not yet taken by their request's `before`, by their bucket (bucketOf). */
  private readonly told = new Map<string, Intent[]>();
  private scheduled = false;
  /** Something was written without an fdatasync: synced when the command ends. */
  private unsynced = false;
  /** A bulk job's fdatasync under way. */
  private syncing = false;
  /** A bulk job's groups written since the fdatasync under way began: they wait for the next. */
  private awaiting: Group[] = [];
  private soon?: NodeJS.Immediate;
  private later?: NodeJS.Timeout;
  private readonly onExit = () => this.flush(true);

  constructor(
    readonly store: LedgerStore,
    private readonly meta: RecorderMeta,
  ) {}

  before(req: WriteRequest): Promise<WriteTicket | undefined> | WriteTicket | undefined {
    const bucket = this.told.size ? bucketOf(req) : undefined;
    const told = bucket === undefined ? undefined : this.told.get(bucket);
    let text: string | undefined;
    if (told) {
      const key = idempotencyKey(req.headers);
      let i = takes(told, req, key);
      // Equal values in other objects (a list made anew): the same JSON is the same request.
      if (i < 0) i = takes(told, req, key, (text = jsonOf(req.payload)));
      if (i >= 0) {
        const a = i === 0 ? told.shift()! : told.splice(i, 1)[0];
        if (!told.length) this.told.delete(bucket!);
        a.payload = a.text = undefined;
        return a.ready();
      }
    }
    return this.intent(req, text)?.ready();
  }

  /**
   * Intents of requests a bulk job is about to send, recorded now in one group (one write and
   * one fdatasync for all of them): `before` of each then waits for nothing more, or for the
   * group's fdatasync only. One never sent is given a `failed` outcome (not sent) at the end.
   */
  ahead(reqs: WriteRequest[]): void {
    for (const req of reqs) {
      const a = this.intent(req);
      if (!a) continue;
      a.method = req.method;
      a.path = req.path;
      a.key = idempotencyKey(req.headers);
      a.payload = req.payload;
      const bucket = bucketOf(req);
      const told = this.told.get(bucket);
      if (told) told.push(a);
      else this.told.set(bucket, [a]);
    }
    // Written now, and their fdatasync started, not in the next turn of the event loop (enqueue):
    // the job's first request of them waits for that group, and the turn came only after the
    // other lanes' answers, and each one's next request signed, were handled (a wait of 1-12 ms
    // a batch with a store that wrote nothing, half the first request's wait: bench n2).
    if (this.next) this.flush();
  }

  private intent(req: WriteRequest, text?: string): Intent | undefined {
    const op = opOf(req);
    if (!op) return undefined;
    const row = intentOf(req, op, this.meta, text);
    const asked = op.op === 'codes generate' ? countOf(req) : undefined;
    const i = new Intent(this, row, op.op, asked, (this.next ??= new Group()));
    this.enqueue(i);
    return i;
  }

  /** A ticket's verdict: its outcome row. */
  ended(n: number, op: string, v: WriteVerdict, asked: unknown): void {
    this.enqueue(outcomeOf(n, op, v, this.meta.now?.() ?? new Date(), asked));
  }

  /** Intents told ahead whose request was never sent (the job stopped first): an `unsent` outcome each. */
  private notSent(): void {
    const now = isoTime(this.meta.now?.() ?? new Date());
    for (const told of this.told.values())
      for (const a of told)
        if (a.n !== undefined)
          this.queue.push({
            t: now,
            kind: 'outcome',
            of: a.n,
            // `failed` for a reader that knows no `unsent` (it never re-sends a failed write).
            status: 'failed',
            unsent: true,
            reason: 'not sent: the job stopped before this request',
            pid: process.pid,
          });
    this.told.clear();
  }

  /**
   * Queue a row. An intent is written in the next turn of the event loop (with the others asked
   * for meanwhile); an outcome waits for the next intent's write, OUTCOME_MS at most, or the end.
   */
  private enqueue(p: Intent | NewRow): void {
    this.queue.push(p);
    if (!this.scheduled) {
      this.scheduled = true;
      process.on('exit', this.onExit);
    }
    if (p instanceof Intent) {
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
    // The group of the intents of this write (none: outcomes only).
    const group = this.next;
    this.next = undefined;
    const inJob = Boolean(this.meta.job?.());
    let written: number[];
    try {
      written = this.store.append(
        batch.map((p) => (p instanceof Intent ? p.row! : p)),
        group !== undefined && !inJob,
      );
    } catch (e) {
      group?.settle(e instanceof Error ? e : new Error(String(e)));
      if (batch.some((p) => !(p instanceof Intent)))
        this.meta.warn?.(`could not record outcomes in the ledger: ${(e as Error).message}`);
      return;
    }
    batch.forEach((p, i) => {
      if (!(p instanceof Intent)) return;
      p.n = written[i];
      p.row = undefined;
    });
    if (!inJob) {
      group?.settle();
      return;
    }
    this.unsynced = true;
    if (!group) return;
    this.awaiting.push(group);
    this.commitGroup();
  }

  /**
   * A bulk job's group commit: unless an fdatasync runs, start one for the groups written so
   * far; when it is done they are settled (their requests leave) and the next fdatasync starts.
   * One that fails fails its intents: their requests are never sent.
   */
  private commitGroup(): void {
    if (this.syncing || !this.awaiting.length) return;
    const groups = this.awaiting;
    this.awaiting = [];
    this.syncing = true;
    void this.store.syncInBackground().then((failed) => {
      this.syncing = false;
      for (const g of groups) g.settle(failed);
      this.commitGroup();
    });
  }
}
