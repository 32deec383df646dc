import { readFile } from 'node:fs/promises';
import type { Context } from '../../context.js';
import { parseBulkFlags, type BulkFlags } from '../../bulk/flags.js';
import { jobCommand } from '../given.js';
import { usageError, unreadableFile } from '../../errors.js';
import { emit } from '../../output/index.js';
import { readAll } from '../../util/io.js';
import { address, label, nonEmpty, orderNumber, positiveInt, username, type Address } from '../../validate/index.js';
import type { OptsOf, VerbInput } from '../define.js';
import type { create } from './create.cmd.js';
import { orderCard } from './parts/view.js';

type Options = ({ mode: 'one' } & OneOptions) | ({ mode: 'bulk' } & BulkFlags);

interface OneOptions {
  username: string;
  pricingIds: number[];
  orderType: string;
  org: string;
  billing: Address;
  shipping?: Address;
  orderNumber?: string;
  label?: string;
  sendEmail?: boolean;
}

type CreateOpts = OptsOf<typeof create>;
/** The options that set one field of the billing address. */
type BillingOpt = Exclude<Extract<keyof CreateOpts, `billing${string}`>, 'billingFile'>;

/** Billing flags and the address field each sets. */
const BILLING_FLAGS: Array<[opt: BillingOpt, flag: string, field: keyof Address]> = [
  ['billingName', '--billing-name', 'full_name'],
  ['billingFirstName', '--billing-first-name', 'first_name'],
  ['billingLastName', '--billing-last-name', 'last_name'],
  ['billingCompany', '--billing-company', 'company_name'],
  ['billingLine1', '--billing-line1', 'line_1'],
  ['billingLine2', '--billing-line2', 'line_2'],
  ['billingCity', '--billing-city', 'city'],
  ['billingState', '--billing-state', 'state'],
  ['billingPostalCode', '--billing-postal-code', 'postal_code'],
  ['billingCountry', '--billing-country', 'country'],
];

async function readJsonFile(file: string, flag: string, ctx: Context): Promise<unknown> {
  let text: string;
  try {
    text = file === '-' ? await readAll(ctx.io.stdin) : await readFile(file, 'utf8');
  } catch (e) {
    throw unreadableFile(flag, file, e);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw usageError(
      `${flag} ${file}: not valid JSON; give an object such as {"full_name": "…", "postal_code": "…", "country": "US"}.`,
    );
  }
}

const ONE_FLAGS: Array<keyof CreateOpts> = [
  'username',
  'pricingId',
  'orderType',
  'org',
  'billingFile',
  'shippingFile',
  'orderNumber',
  'label',
  ...BILLING_FLAGS.map((b) => b[0]),
];

export async function parse({ opts: o, command }: VerbInput<typeof create>, ctx: Context): Promise<Options> {
  const inputs = { fromCsv: '--from-csv', fromNdjson: '--from-ndjson' };
  const bulk = parseBulkFlags(o, inputs, ONE_FLAGS, jobCommand(command));
  if (bulk) return { mode: 'bulk', ...bulk };
  if (o.username === undefined)
    throw usageError('Give the buyer with --username (or a report of orders with --from-csv or --from-ndjson FILE).');
  if (o.orderType === undefined) throw usageError('Give the payment plan with --order-type (e.g. TestPlan).');
  if (o.org === undefined) throw usageError('Give the organization with --org.');
  if (o.billingFile === '-' && o.shippingFile === '-')
    throw usageError('Only one of --billing-file and --shipping-file can read stdin (-).');
  const pricing = o.pricingId ?? [];
  if (!pricing.length) throw usageError('Give at least one --pricing-id (see `bookdist book pricing --isbn …`).');
  const pricingIds = pricing.map((v) => positiveInt(v, '--pricing-id'));

  // Billing: the file's fields, then the flags over them.
  const fromFile = o.billingFile !== undefined ? await readJsonFile(o.billingFile, '--billing-file', ctx) : {};
  if (!fromFile || typeof fromFile !== 'object' || Array.isArray(fromFile)) {
    throw usageError(`--billing-file ${o.billingFile}: must hold a JSON object of address fields.`);
  }
  const raw: Record<string, unknown> = { ...(fromFile as Record<string, unknown>) };
  const flagNames: Record<string, string> = {};
  for (const [opt, flag, field] of BILLING_FLAGS) {
    flagNames[field] = o.billingFile !== undefined ? `${flag} (or "${field}" in --billing-file)` : flag;
    const value = o[opt];
    if (value !== undefined) raw[field] = nonEmpty(value, flag, 200);
  }
  const billing = address(raw, o.billingFile !== undefined ? 'The billing address' : 'The billing address', {
    billing: true,
    flags: flagNames,
  });

  let shipping: Address | undefined;
  if (o.shippingFile !== undefined)
    shipping = address(await readJsonFile(o.shippingFile, '--shipping-file', ctx), `--shipping-file ${o.shippingFile}`);

  return {
    mode: 'one',
    username: username(o.username, '--username'),
    pricingIds,
    orderType: nonEmpty(o.orderType, '--order-type', 50),
    org: nonEmpty(o.org, '--org', 100),
    billing,
    shipping,
    orderNumber: o.orderNumber !== undefined ? orderNumber(o.orderNumber) : undefined,
    label: o.label !== undefined ? label(o.label) : undefined,
    sendEmail: o.email === false ? false : undefined,
  };
}

export async function run(o: Options, ctx: Context): Promise<number | void> {
  if (o.mode === 'bulk') {
    const { runOrderCreateBulk } = await import('./parts/bulk.js');
    return runOrderCreateBulk(o, ctx);
  }
  const api = await ctx.api();
  const body = await api.ok('order.external', {
    payload: {
      username: o.username,
      digital_pricing: o.pricingIds,
      billing_address: o.billing,
      shipping_address: o.shipping,
      order_type: o.orderType,
      org: o.org,
      label: o.label,
      send_email: o.sendEmail,
      order_number: o.orderNumber,
    },
    // The same order_number again returns the first order: safe to retry.
    idempotent: o.orderNumber !== undefined,
  });
  const existed = typeof body?.message === 'string' && /already exists/i.test(body.message);
  // One record, the order, in every format (`--fields items.id` gives the ids `order refund --item` takes).
  await emit(ctx, body, { card: (_order, s, answer) => orderCard(answer.order, s), message: !existed });
  if (existed) {
    // An idempotent repeat: the order this number created before. Exit 0, so a retry loop goes on.
    ctx.info(
      `Order number ${o.orderNumber ?? ''} was used before: nothing new was created; this is the existing order ${body.order?.id ?? ''}.`.replace(
        '  ',
        ' ',
      ),
    );
  }
}
