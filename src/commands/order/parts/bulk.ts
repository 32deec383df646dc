// `order create --from-csv|--from-ndjson FILE` (a nightly report of orders taken outside the
// service) and `order free --from-csv FILE`: specs on the bulk job engine.
//
// order create: `order_number` is required on every row; it makes each order idempotent (the
// service answers a repeat with the order it already made, reported as `exists`), so a batch
// cut short by a crash is simply sent again on --resume. Rows that share an order number form one
// order (their pricing ids are its items) and must be next to each other, as a report sorted by
// order number has them; the input is streamed, never held whole.
//   CSV columns: order_number, username, pricing_id (one per row, or several separated by spaces
//   or semicolons), order_type, org, billing_full_name (or billing_first_name + billing_last_name),
//   billing_postal_code, billing_country, optional billing_company_name, billing_line_1,
//   billing_line_2, billing_city, billing_state, label, send_email.
//   NDJSON: one object per line with the fields of POST /v1/order/external/ (digital_pricing as an
//   array, or pricing_id; billing_address and shipping_address as objects).
// order free: one free order per row: username, hash_id, optional expiration_date and label.
import { messageOf } from '../../../errors.js';
import { cellText as t } from '../../../output/format.js';
import type { Context } from '../../../context.js';
import * as v from '../../../validate/index.js';
import {
  chunks,
  countsText,
  ROWS_PER_BATCH,
  eachItem,
  failedRow,
  perItem,
  runJob,
  type JobSpec,
} from '../../../bulk/engine.js';
import { failureOf } from '../../../bulk/retry.js';
import { csvRows, inputFingerprint, ndjsonRows, type InputRow } from '../../../bulk/rows.js';
import { jobFlags, type BulkFlags } from '../../../bulk/flags.js';
import { isConflict } from '../../../api/errors.js';
import { isAnswer } from '../../../api/answer.js';
import type { Payload } from '../../../spec/contract.js';

type Status = 'ok' | 'exists' | 'invalid' | 'failed';

const ORDERS_PER_BATCH = 50;
const ORDER_COLUMNS = ['order_number', 'status', 'order_id', 'items', 'rows', 'message'] as const;
const BILLING = [
  'full_name',
  'first_name',
  'last_name',
  'company_name',
  'line_1',
  'line_2',
  'city',
  'state',
  'postal_code',
  'country',
] as const;

interface OrderResult extends Record<string, unknown> {
  order_number: string;
  status: Status;
  order_id: number | null;
  items: number;
  rows: string;
  message: string;
}

interface Group {
  number: string;
  rows: InputRow[];
  problem?: string;
}

/** Adjacent rows with the same order number, as one group; a number seen again later is a problem. */
async function* groups(rows: AsyncIterable<InputRow>): AsyncGenerator<Group> {
  const closed = new Set<string>();
  let cur: Group | undefined;
  for await (const r of rows) {
    const n = t(r.values.order_number).trim();
    if (cur && n === cur.number && n !== '') {
      cur.rows.push(r);
      continue;
    }
    if (cur) {
      closed.add(cur.number);
      yield cur;
    }
    cur = { number: n, rows: [r] };
    if (n !== '' && closed.has(n))
      cur.problem = `the rows of order ${n} must be next to each other (sort the file by order_number)`;
  }
  if (cur) yield cur;
}

function lineSpan(rows: InputRow[]): string {
  const a = rows[0].line;
  const b = rows[rows.length - 1].line;
  return a === b ? String(a) : `${a}-${b}`;
}

/** The zod schema of one order row (loaded only by this job), and the row check. */
async function orderSchema() {
  const { z, via, optional, yesNo, checkRow } = await import('../../../bulk/schema.js');
  const text = (max: number) =>
    z.preprocess(
      (x) => (typeof x === 'string' ? x.trim() : x),
      z.string({ message: 'required' }).min(1, 'required').max(max, `at most ${max} characters`),
    );
  const pricingIds = z.preprocess(
    (x) => (typeof x === 'string' ? x.split(/[\s;|]+/).filter(Boolean) : typeof x === 'number' ? [x] : x),
    z
      .array(
        via((s, f) => v.positiveInt(s, f), 'pricing_id'),
        { message: 'required' },
      )
      .min(1, 'required'),
  );
  const Order = z.object({
    order_number: via(v.orderNumber, 'order_number'),
    username: via(v.username, 'username'),
    digital_pricing: pricingIds,
    order_type: text(50),
    org: text(100),
    billing_address: z.any().transform((a, c) => {
      try {
        return v.address(a, 'billing_address', {
          billing: true,
          flags: Object.fromEntries(BILLING.map((k) => [k, `billing_${k}`])),
        });
      } catch (e) {
        c.addIssue({
          code: 'custom',
          message: messageOf(e)
            .replace(/^billing_address:? ?/, '')
            .replace(/\.$/, ''),
        });
        return z.NEVER;
      }
    }),
    shipping_address: optional(
      z.any().transform((a, c) => {
        try {
          return v.address(a, 'shipping_address');
        } catch (e) {
          c.addIssue({ code: 'custom', message: messageOf(e).replace(/\.$/, '') });
          return z.NEVER;
        }
      }),
    ),
    label: optional(via(v.label, 'label')),
    send_email: yesNo,
  });
  return { Order, checkRow };
}

/**
 * A group checked row by row (messages name the line) and merged into one order: once a group,
 * as its call is told to the ledger ahead of it (eachItem) and then made.
 */
function orderChecker(
  flag: string,
  { Order, checkRow }: Awaited<ReturnType<typeof orderSchema>>,
): (g: Group) => { order?: Payload<'order.external'>; problems: string[] } {
  /** One row in the shape of the endpoint's payload (CSV's billing_* columns become billing_address). */
  const payloadOfRow = (r: Record<string, unknown>): Record<string, unknown> => {
    if (flag === '--from-ndjson') return { ...r, digital_pricing: r.digital_pricing ?? r.pricing_id };
    const billing: Record<string, string> = {};
    for (const k of BILLING) {
      const value = r[`billing_${k}`];
      if (typeof value === 'string' && value) billing[k] = value;
    }
    return {
      order_number: r.order_number,
      username: r.username,
      digital_pricing: r.pricing_id,
      order_type: r.order_type,
      org: r.org,
      billing_address: billing,
      label: r.label,
      send_email: r.send_email,
    };
  };
  const checked = new WeakMap<Group, { order?: Payload<'order.external'>; problems: string[] }>();
  const check = (g: Group) => {
    let c = checked.get(g);
    if (c) return c;
    const problems: string[] = g.problem ? [g.problem] : [];
    let order: Payload<'order.external'> | undefined;
    for (const r of g.rows) {
      const x = r.problem ? { ok: false as const, message: r.problem } : checkRow(Order, payloadOfRow(r.values));
      if (!x.ok) problems.push(`line ${r.line}: ${x.message}`);
      else if (!order) order = { ...x.data, digital_pricing: [...x.data.digital_pricing] };
      else if (x.data.username !== order.username)
        problems.push(`line ${r.line}: username differs from the order's first row`);
      else order.digital_pricing.push(...x.data.digital_pricing);
    }
    c = { order: problems.length ? undefined : order, problems };
    checked.set(g, c);
    return c;
  };
  return check;
}

export async function runOrderCreateBulk(o: BulkFlags, ctx: Context): Promise<number> {
  const check = orderChecker(o.flag, await orderSchema());
  const input = await inputFingerprint(o.file, ctx, o.flag);
  const source =
    o.flag === '--from-ndjson'
      ? ndjsonRows(o.file, ctx, { flag: o.flag })
      : csvRows(o.file, ctx, {
          flag: o.flag,
          required: ['order_number', 'username', 'pricing_id', 'order_type', 'org'],
          optional: [...BILLING.map((k) => `billing_${k}`), 'label', 'send_email'],
        });

  const spec: JobSpec<Group, OrderResult> = {
    verb: 'order create',
    columns: ORDER_COLUMNS,
    unit: 'orders',
    source: () => chunks(groups(source), ORDERS_PER_BATCH),
    process: (batch, job) =>
      eachItem(
        batch.items,
        async (g) => {
          const make = (
            status: Status,
            message: string,
            made = { order_id: null as number | null, items: 0 },
          ): OrderResult => ({ order_number: g.number, status, ...made, rows: lineSpan(g.rows), message });
          const { order, problems } = check(g);
          if (!order) return { row: make('invalid', problems.join('; ')), invalid: true };
          const r = await job.call('order.external', { payload: order });
          if (r.ok && isAnswer(r.response)) {
            const body = r.response.body;
            const made = {
              order_id: body.order?.id ?? null,
              items: Array.isArray(body.order?.items) ? body.order.items.length : 0,
            };
            // A repeat (after a lost answer, a resume, or last night's report) returns the first order.
            const existed = /already exists/i.test(String(body?.message ?? ''));
            return { row: make(existed ? 'exists' : 'ok', String(body?.message ?? 'Order created.'), made) };
          }
          return failedRow(r, make, `order ${g.number}`);
        },
        job,
        (g) => {
          const { order } = check(g);
          return order && { name: 'order.external', args: { payload: order } };
        },
      ),
    status: (r) => r.status,
    describe: (c, st) =>
      countsText(c, st, 'order', [
        ['ok', 'created'],
        ['exists', 'existed'],
        ['invalid', 'invalid'],
        ['failed', 'failed'],
      ]),
    ...jobFlags(o, ctx),
    input: `${o.flag} ${o.file}`,
    identity: { [o.flag]: input },
    command: o.command,
    stdoutResumeHint: () => ({
      command: o.command,
      note: 'orders already made report "exists": order numbers make it safe',
    }),
    dryRunNote: `(dry run: the first valid order of ${o.file} is shown; nothing is sent)`,
  };
  return runJob(spec, ctx);
}

type FreeStatus = 'ok' | 'already' | 'invalid' | 'failed';
interface FreeResult extends Record<string, unknown> {
  row: number;
  status: FreeStatus;
  order_id: number | null;
  hash_id: string;
  username: string;
  message: string;
}

export async function runOrderFreeBulk(o: BulkFlags, ctx: Context): Promise<number> {
  const { z, via, optional, checkRow } = await import('../../../bulk/schema.js');
  const Row = z.object({
    username: via(v.username, 'username'),
    hash_id: via(v.hashId, 'hash_id'),
    expiration_date: optional(via(v.dateTime, 'expiration_date')),
    label: optional(via(v.label, 'label')),
  });
  const input = await inputFingerprint(o.file, ctx, o.flag);
  const check = perItem((row: InputRow) =>
    row.problem ? { ok: false as const, message: row.problem } : checkRow(Row, row.values),
  );
  // The key makes a repeat (after a lost answer, a crash, --resume of a torn batch) answer with the first order at a service that honours it, as the sandbox does.
  const keyOf = (batch: { key: string }, row: InputRow) => ({ 'idempotency-key': `${batch.key}-${row.line}` });
  const spec: JobSpec<InputRow, FreeResult> = {
    verb: 'order free',
    columns: ['row', 'status', 'order_id', 'hash_id', 'username', 'message'],
    unit: 'rows',
    source: () =>
      chunks(
        csvRows(o.file, ctx, {
          flag: o.flag,
          required: ['username', 'hash_id'],
          optional: ['expiration_date', 'label'],
        }),
        ROWS_PER_BATCH,
      ),
    process: (batch, job) =>
      eachItem(
        batch.items,
        async (row) => {
          const make = (status: FreeStatus, message: string, order_id: number | null = null): FreeResult => ({
            row: row.line,
            status,
            order_id,
            hash_id: t(row.values.hash_id),
            username: t(row.values.username),
            message,
          });
          const c = check(row);
          if (!c.ok) return { row: make('invalid', c.message), invalid: true };
          const r = await job.call('order.free', { payload: { ...c.data } }, keyOf(batch, row));
          if (r.ok && isAnswer(r.response))
            return {
              row: make(
                'ok',
                String(r.response.body.message ?? 'Free order created.'),
                r.response.body.order?.id ?? null,
              ),
            };
          if (r.ok && isConflict(r.response.status, r.response.body))
            return { row: make('already', failureOf(r.response).message) };
          return failedRow(r, make, `row ${row.line}`);
        },
        job,
        (row) => {
          const c = check(row);
          return c.ok
            ? { name: 'order.free', args: { payload: { ...c.data } }, headers: keyOf(batch, row) }
            : undefined;
        },
      ),
    status: (r) => r.status,
    describe: (c, st) =>
      countsText(c, st, 'row', [
        ['ok', 'given a free order'],
        ['already', 'already had access'],
        ['invalid', 'invalid'],
        ['failed', 'failed'],
      ]),
    ...jobFlags(o, ctx),
    input: `${o.flag} ${o.file}`,
    identity: { [o.flag]: input },
    command: o.command,
    dryRunNote: `(dry run: the first valid row of ${o.file} is shown; nothing is sent)`,
  };
  return runJob(spec, ctx);
}
