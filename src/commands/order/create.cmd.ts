// The declaration of what ./create.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { option, verb } from '../define.js';
import { bulkOptions } from '../bulk-options.js';

export const create = verb({
  name: 'create',
  summary: 'report an order processed outside the service',
  description:
    'Calls POST /v1/order/external/: records an order you charged for yourself, giving the user access ' +
    'to the books of the pricing entries (ids from `book pricing`). The billing address needs a name ' +
    '(--billing-name, or --billing-first-name and --billing-last-name), a postal code and a country; ' +
    "give it with flags, as a JSON file (--billing-file, fields as in the service's address object), or " +
    'both (flags win). --order-number (at most 20 characters) makes the call idempotent: a number used ' +
    'before returns the first order, says so on stderr and exits 0. Shows the order with its items and totals.\n\n' +
    'With --from-csv or --from-ndjson FILE (a nightly report of orders taken outside the service), one order ' +
    'per order number: order_number is required on every row (it makes each order idempotent), and rows ' +
    'that share it form one order (keep them together, as a report sorted by order number does). CSV ' +
    'columns: order_number, username, pricing_id, order_type, org, billing_full_name (or ' +
    'billing_first_name and billing_last_name), billing_postal_code, billing_country, optional ' +
    'billing_company_name, billing_line_1, billing_line_2, billing_city, billing_state, label, ' +
    'send_email. NDJSON: one object per line with the fields of the endpoint (digital_pricing as an ' +
    'array, billing_address as an object). Each order gets one result (order_number, status, order_id, ' +
    'items, rows, message; status ok, exists, invalid or failed) on stdout or in --results FILE.',
  options: [
    option('--username <username>', 'the buyer (30 hex characters) (required unless --from-csv or --from-ndjson)'),
    option(
      '--pricing-id <pricing_id>',
      'pricing entry sold, a whole number (repeatable; at least one unless --from-csv or --from-ndjson)',
      { repeatable: 'split' },
    ),
    option(
      '--order-type <plan>',
      'payment plan to execute, e.g. TestPlan or ExternalPlan (required unless --from-csv or --from-ndjson)',
    ),
    option('--org <organization>', 'organization supplying the order (required unless --from-csv or --from-ndjson)'),
    option('--billing-file <file>', 'billing address as a JSON object (- for stdin)'),
    option('--billing-name <name>', 'billing full name'),
    option('--billing-first-name <name>', 'billing first name (with --billing-last-name)'),
    option('--billing-last-name <name>', 'billing last name'),
    option('--billing-company <name>', 'billing company name'),
    option('--billing-line1 <text>', 'billing address line 1'),
    option('--billing-line2 <text>', 'billing address line 2'),
    option('--billing-city <city>', 'billing city'),
    option('--billing-state <state>', 'billing state or region'),
    option('--billing-postal-code <code>', 'billing postal code'),
    option('--billing-country <country>', 'billing country, e.g. US'),
    option('--shipping-file <file>', 'shipping address as a JSON object, for print-on-demand books (- for stdin)'),
    option('--order-number <number>', 'your order number, at most 20 characters; makes retries safe'),
    option('--label <subdomain>', 'white label (sub-domain) under your control'),
    option('--no-email', "do not e-mail the transaction to the label's members (default: e-mail them)"),
    option('--from-csv <file>', 'report one order per order number of a CSV file (- for stdin)', { bulk: true }),
    option('--from-ndjson <file>', 'report one order per order number of an NDJSON file (- for stdin)', { bulk: true }),
    ...bulkOptions('order'),
  ],
  examples: [
    'bookdist order create --username 70172cfe97283c430dcd57f8358d7a --pricing-id 1 --order-type TestPlan --org harborlane ' +
      '--billing-name "Ada Byron" --billing-postal-code 04101 --billing-country US',
    'bookdist order create --username 70172cfe97283c430dcd57f8358d7a --pricing-id 1 --pricing-id 3 --order-type ExternalPlan --org harborlane ' +
      '--billing-file billing.json --order-number WEB-10023 --no-email --json',
  ],
});
