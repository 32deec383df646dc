// `ledger reconcile`: settle the writes whose outcome is unknown through what the interface
// allows, never with a request that could do anything twice: reads where one tells (a user by
// e-mail, a user's orders, a book's status), and re-sends where the interface makes the write
// idempotent (an order by its order_number, access allow/revoke, codes by an honoured
// Idempotency-Key). Each settlement is appended to the ledger as a `settled` row.
import type { Context } from '../../context.js';
import { ExitCode, messageOf } from '../../errors.js';
import type { ApiClient } from '../../api/client.js';
import { isAnswer, type ApiResponse } from '../../api/answer.js';
import { isConflict } from '../../api/errors.js';
import { emit } from '../../output/index.js';
import type { Answer } from '../../spec/contract.js';
import { loadConfig } from '../../config/resolve.js';
import { subjectOf, type Settlement, type Write } from '../../ledger/read.js';
import { sha256 } from '../../ledger/store.js';
import type { VerbInput } from '../define.js';
import type { reconcile } from './reconcile.cmd.js';
import { parseWhen, readLedger } from './parts/common.js';

interface Result {
  state: Settlement;
  how: string;
  ids?: Record<string, unknown>;
}

/** What reconcile needs of the service for one write: a client, and whether it honours keys. */
interface Target {
  api: ApiClient;
  keysHonoured: boolean;
}

/** How a write is settled: what it sends (for --dry-run), and the settling. */
interface Method {
  sends: string;
  settle(t: Target): Promise<Result>;
  /** Why it cannot be settled through the interface (then it sends nothing). */
  cannot?: string;
}

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
const int = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) ? v : undefined);
const cannot = (how: string): Method => ({
  sends: 'nothing',
  cannot: how,
  settle: async () => ({ state: 'cannot settle', how }),
});

/** The answer as a short phrase for `how`. */
function said(res: ApiResponse): string {
  const m = (res.body as { message?: unknown })?.message;
  return `HTTP ${res.status}${typeof m === 'string' && m ? `: "${m.slice(0, 80)}"` : ''}`;
}

/** A time window around the write: from a minute before its intent to ten minutes after its last row. */
function window(w: Write): [number, number] {
  const start = Date.parse(w.t) - 60_000;
  const end = Date.parse(w.finished ?? w.t) + 600_000;
  return [start, end];
}

function inWindow(v: unknown, [a, b]: [number, number]): boolean {
  const t = typeof v === 'string' ? Date.parse(v) : NaN;
  return !Number.isNaN(t) && t >= a && t <= b;
}

type Opts = { done: boolean };
type MethodOf = (w: Write, all: Write[], opts: Opts) => Method;

function byEmail(w: Write): Method {
  const email = str(w.ids.email);
  if (!email) return cannot('the write names no e-mail address to look the user up by');
  return {
    sends: `GET /v1/user/email/${email}/`,
    async settle({ api }) {
      const res = await api.callRecorded('user.email', { params: { email } });
      const username = str(res.body?.user?.username);
      if (res.status === 200 && username)
        return { state: 'confirmed', how: `a user with this e-mail exists (${username})`, ids: { username } };
      if (res.status === 404) return { state: 'not applied', how: 'no user has this e-mail address' };
      return { state: 'still unknown', how: `the look-up answered ${said(res)}` };
    },
  };
}

function orderCreate(w: Write, all: Write[]): Method {
  const i = w.ids;
  const number = str(i.order_number);
  if (!number || !w.resend) {
    const count = Array.isArray(i.digital_pricing) ? i.digital_pricing.length : -1;
    return byOrders(w, all, (o) => o.items.length === count, 'with as many items');
  }
  return {
    sends: `POST /v1/order/external/ (the same order, order_number ${number}: the service creates nothing when it exists)`,
    async settle({ api }) {
      const res = await api.callRecorded('order.external', { payload: w.resend });
      const order = res.body?.order;
      const ids = int(order?.id) !== undefined ? { order_id: order.id } : undefined;
      if (res.status === 200 && ids) {
        return /already exists/i.test(String(res.body?.message))
          ? { state: 'confirmed', how: `order ${order.id} has order_number ${number}`, ids }
          : { state: 'applied now', how: `it had not arrived; sent again, it made order ${order.id}`, ids };
      }
      return { state: 'still unknown', how: `the re-send answered ${said(res)}` };
    },
  };
}

function orderFree(w: Write, all: Write[]): Method {
  const book = str(w.ids.hash_id);
  if (!book) return cannot('the write names no book');
  return byOrders(w, all, (o) => o.items.some((it) => it?.book?.hash_id === book), `of book ${book}`);
}

function orderRefund(w: Write, all: Write[]): Method {
  const orderId = int(w.ids.order_id) ?? int(w.ids.id);
  if (orderId === undefined) return cannot('the write names no order id');
  const owner = all.find((x) => x.returned?.order_id === orderId && str(x.ids.username));
  const username = owner ? str(owner.ids.username) : undefined;
  if (!username)
    return cannot(
      `the ledger does not know whose order ${orderId} is; check it with \`bookdist user orders USERNAME\``,
    );
  const items = Array.isArray(w.ids.items)
    ? (w.ids.items as unknown[]).filter((x): x is number => typeof x === 'number')
    : [];
  return {
    sends: `GET /v1/user/${username}/orders/`,
    async settle({ api }) {
      const res = await api.call('user.orders', { params: { username } });
      if (res.status !== 200 || !isAnswer(res))
        return { state: 'still unknown', how: `the user's orders answered ${said(res)}` };
      const order = res.body.results.find((o) => o.id === orderId);
      if (!order) return { state: 'still unknown', how: `order ${orderId} is not among the user's completed orders` };
      const its = order.items.filter((it) => !items.length || items.includes(it?.id as number));
      const refunded = its.filter((it) => it?.is_refunded === true).length;
      if (its.length && refunded === its.length)
        return { state: 'confirmed', how: `order ${orderId}: ${refunded} item(s) refunded` };
      if (refunded === 0) return { state: 'not applied', how: `order ${orderId}: no item refunded` };
      return { state: 'probably', how: `order ${orderId}: ${refunded} of ${its.length} items refunded` };
    },
  };
}

function bookProcess(w: Write): Method {
  const book = str(w.ids.hash_id);
  if (!book) return cannot('the write names no book');
  return {
    sends: `GET /v1/book/${book}/`,
    async settle({ api }) {
      const res = await api.callRecorded('book.get', { params: { hash_id: book } });
      const st = res.body?.book?.status;
      if (res.status !== 200 || !st) return { state: 'still unknown', how: `the book look-up answered ${said(res)}` };
      if (st.is_queued === true) return { state: 'confirmed', how: 'the book is queued for processing' };
      if (st.is_processed === true)
        return { state: 'probably', how: 'the book is processed (the queue may have run it since)' };
      return { state: 'not applied', how: 'the book is neither queued nor processed' };
    },
  };
}

function access(w: Write, _all: Write[], opts: Opts): Method {
  if (!w.resend) return cannot('the ledger holds no payload to send again');
  if (opts.done) return cannot('only a write could check it; a re-send could undo a later change');
  const allow = w.op === 'access allow';
  return {
    sends: `POST /v1/access/${allow ? 'allow' : 'revoke'}/ again (its repeat says whether the first took effect)`,
    async settle({ api }) {
      const res = await api.callRecorded(allow ? 'access.allow' : 'access.revoke', { payload: w.resend });
      const ok = res.status === 200 && res.body?.success !== false && res.format === 'json';
      if (ok) return { state: 'applied now', how: `it had not taken effect; sent again: ${said(res)}` };
      if (allow && isConflict(res.status, res.body)) return { state: 'confirmed', how: 'the user already has access' };
      if (!allow && (res.status === 404 || /not found/i.test(String(res.body?.message))))
        return { state: 'confirmed', how: 'no access left to revoke (the first took effect)' };
      if (res.status >= 400 && res.status < 500 && res.status !== 429)
        return { state: 'not applied', how: `the service refuses it: ${said(res)}` };
      return { state: 'still unknown', how: `the re-send answered ${said(res)}` };
    },
  };
}

function codes(w: Write, _all: Write[], opts: Opts): Method {
  const key = w.idempotency_key;
  if (!key || !w.resend)
    return cannot(
      'a batch without an Idempotency-Key cannot be told apart: `codes summary` counts all codes, not batches',
    );
  if (opts.done) return cannot('only a write could check it (a re-send of the batch)');
  return {
    sends: `POST /v1/codes/generate/ again with Idempotency-Key ${key} (only where the service honours keys)`,
    async settle({ api, keysHonoured }) {
      if (!keysHonoured)
        return {
          state: 'cannot settle',
          how: 'the profile does not say the service honours Idempotency-Key (`profile add --idempotency-keys`); `codes summary` counts all codes, not batches',
        };
      const res = await api.callRecorded('codes.generate', { payload: w.resend, headers: { 'Idempotency-Key': key } });
      const got = Array.isArray(res.body?.codes)
        ? (res.body.codes as unknown[]).map((c) =>
            typeof c === 'string' ? c : String((c as { code?: unknown })?.code),
          )
        : undefined;
      if (res.status !== 200 || !got) return { state: 'still unknown', how: `the re-send answered ${said(res)}` };
      const digest = sha256(got.join('\n'));
      const same = w.returned?.codes_sha256 === digest;
      return {
        state: 'confirmed',
        how: `the service answers its key with ${got.length} codes: the batch exists once${same ? ' (the same codes as recorded)' : ''}; \`codes generate --resume\` puts them in the job's file`,
        ids: { codes: got.length, codes_sha256: digest },
      };
    },
  };
}

/** How each operation is settled. */
const METHODS: Record<string, MethodOf> = {
  'user create': byEmail,
  'user invite': byEmail,
  'order create': orderCreate,
  'order free': orderFree,
  'order refund': orderRefund,
  'book process': bookProcess,
  'access allow': access,
  'access revoke': access,
  'codes generate': codes,
};

function methodFor(w: Write, all: Write[], opts: Opts): Method {
  const m = METHODS[w.op];
  if (m) return m(w, all, opts);
  return cannot(
    w.request
      ? `a raw request (${w.request}): the ledger cannot tell what reads would show it`
      : 'no way through the interface',
  );
}

/** An order found among the user's completed orders, at the write's time and not claimed by another write. */
/** An order as the user's orders list it. */
type ListedOrder = Answer<'user.orders'>['results'][number];

function byOrders(w: Write, all: Write[], fits: (o: ListedOrder) => boolean, what: string): Method {
  const username = str(w.ids.username);
  if (!username) return cannot('the write names no user');
  const claimed = new Set(
    all.filter((x) => x !== w && x.returned?.order_id !== undefined).map((x) => x.returned!.order_id),
  );
  return {
    sends: `GET /v1/user/${username}/orders/`,
    async settle({ api }) {
      const res = await api.call('user.orders', { params: { username } });
      if (res.status !== 200 || !isAnswer(res))
        return { state: 'still unknown', how: `the user's orders answered ${said(res)}` };
      const win = window(w);
      const found = res.body.results.filter(
        (o) => !claimed.has(o.id) && fits(o) && o.items.some((it) => inWindow(it?.purchase_date, win)),
      );
      if (found.length === 1)
        return {
          state: 'confirmed',
          how: `order ${String(found[0].id)} ${what}, made at that time`,
          ids: { order_id: found[0].id },
        };
      if (found.length > 1)
        return {
          state: 'probably',
          how: `${found.length} orders ${what} could match: ${found.map((o) => String(o.id)).join(', ')}`,
        };
      return { state: 'not applied', how: `no order ${what} at that time` };
    },
  };
}

export async function run({ opts }: VerbInput<typeof reconcile>, ctx: Context): Promise<number> {
  const since = opts.since !== undefined ? parseWhen(opts.since, '--since', ctx.clock.now()) : undefined;
  const { store, writes } = readLedger(ctx);
  const profile = ctx.globals.profile;
  const todo = writes.filter(
    (w) =>
      (w.status === 'unknown' || (opts.all && w.status === 'done')) &&
      (!since || Date.parse(w.t) >= since.getTime()) &&
      (!profile || w.profile === profile),
  );
  const dry = ctx.globals.dryRun;
  // Reconcile's own re-sends are writes too: recorded, and marked as its.
  ctx.beginLedgerJob('reconcile');
  const targets = new Map<string, Promise<Target | { why: string }>>();
  const out: Array<Record<string, unknown>> = [];
  let open = 0;
  for (const w of todo) {
    const m = methodFor(w, writes, { done: w.status === 'done' });
    const row = { id: w.id, op: w.op, subject: subjectOf(w), was: w.status };
    // Settled (or not) without the service: what a run would say, dry or not, and why.
    let r: Result | undefined = m.cannot !== undefined ? { state: 'cannot settle', how: m.cannot } : undefined;
    // A done write that cannot be checked stays done: nothing is open, nothing is written.
    if (r && w.status === 'done') {
      out.push({ ...row, result: 'not checked', how: r.how });
      continue;
    }
    if (dry) {
      out.push({ ...row, result: r ? r.state : 'would send', how: r ? r.how : m.sends });
      continue;
    }
    if (!r) {
      const t = await (targets.get(w.profile + ' ' + w.host) ?? targetFor(ctx, w, targets));
      if ('why' in t) r = { state: 'still unknown', how: t.why };
      else {
        try {
          r = await m.settle(t);
        } catch (e) {
          r = { state: 'still unknown', how: messageOf(e).split('\n')[0].slice(0, 200) };
        }
      }
    }
    if (r.state === 'still unknown' || r.state === 'cannot settle') open++;
    // Only what changed the record is written: a row that stays unknown gets no new line.
    if (r.state !== 'still unknown')
      store.append(
        [
          {
            t: ctx.clock.now().toISOString(),
            kind: 'settled',
            of: w.id,
            state: r.state,
            how: r.how,
            ...(r.ids ? { ids: r.ids } : {}),
          },
        ],
        false,
      );
    out.push({ ...row, result: r.state, how: r.how });
  }
  await emit(ctx, out, {
    columns: [
      { key: 'id', label: 'ID', id: true },
      { key: 'op', label: 'OP', id: true },
      { key: 'result', label: 'RESULT', id: true },
      { key: 'how', label: 'HOW', min: 20 },
    ],
    empty: 'Nothing to reconcile: no write has an unknown outcome' + (opts.all ? ' and none is done.' : '.'),
  });
  if (!dry && out.length)
    ctx.info(`${out.length - open} of ${out.length} settled${open ? `; ${open} remain (exit 6)` : ''}.`);
  return open && !dry ? ExitCode.PARTIAL : ExitCode.OK;
}

/** A client for the profile and host the write went to, or why there is none. */
function targetFor(
  ctx: Context,
  w: Write,
  cache: Map<string, Promise<Target | { why: string }>>,
): Promise<Target | { why: string }> {
  const p = (async (): Promise<Target | { why: string }> => {
    let cfg;
    try {
      cfg = await loadConfig(ctx.io.env, {
        profile: w.profile === '(env)' ? undefined : w.profile,
        caFile: ctx.globals.caFile,
      });
    } catch (e) {
      return { why: `profile ${w.profile}: ${messageOf(e)}` };
    }
    if (!cfg.embedded) {
      let host = '';
      try {
        host = new URL(cfg.baseUrl?.value ?? '').host;
      } catch {
        /* below */
      }
      if (host !== w.host)
        return { why: `the write went to ${w.host}; profile ${w.profile} now points at ${host || 'no service'}` };
    } else if (w.profile !== 'sandbox') {
      return { why: `profile ${w.profile} is not set here` };
    }
    const api = await ctx.apiFor(cfg);
    return { api, keysHonoured: cfg.embedded || cfg.idempotencyKeys?.value === true };
  })();
  cache.set(w.profile + ' ' + w.host, p);
  return p;
}
