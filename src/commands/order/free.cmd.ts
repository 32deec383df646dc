// The declaration of what ./free.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { option, verb } from '../define.js';
import { bulkOptions } from '../bulk-options.js';

export const free = verb({
  name: 'free',
  summary: 'give a user free access to a book',
  description:
    'Calls POST /v1/order/free/: creates a free (0.00) order of the book for the user, optionally ending ' +
    'on --expires (ISO 8601 or YYYY-MM-DD [HH:MM:SS], sent as YYYY-MM-DD HH:MM:SS). With --from-csv FILE ' +
    '(columns username, hash_id, optional expiration_date, label), one free order per row, each with one ' +
    'result (row, status, order_id, hash_id, username, message) on stdout or in --results FILE.',
  options: [
    option('--username <username>', 'the user (30 hex characters) (required unless --from-csv)'),
    option('--hash-id <hash_id>', 'the book (40 hex characters) (required unless --from-csv)'),
    option('--expires <date>', 'when access ends (default: never)'),
    option('--label <subdomain>', 'white label (sub-domain) under your control'),
    option('--from-csv <file>', 'one free order per row of a CSV file (- for stdin)', { bulk: true }),
    ...bulkOptions('row'),
  ],
  examples: [
    'bookdist order free --username 70172cfe97283c430dcd57f8358d7a --hash-id cee313141a0ce9a22774b32f87855d677d864cfb',
    'bookdist order free --username 70172cfe97283c430dcd57f8358d7a --hash-id cee313141a0ce9a22774b32f87855d677d864cfb --expires 2030-12-31',
    'bookdist order free --from-csv gifts.csv --results gifts.results.csv',
  ],
});
