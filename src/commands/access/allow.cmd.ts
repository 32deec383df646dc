// `bookdist access allow`: the declaration only; the verb loads when it runs.
import { option, verb } from '../define.js';
import { bulkOptions } from '../bulk-options.js';

export const allow = verb({
  name: 'allow',
  summary: 'grant a user access to a book (one, or many from a CSV file)',
  description:
    'Grants access with POST /v1/access/allow/ (operator token). One grant from the flags, or one per row ' +
    'of --from-csv FILE, whose header names the columns hash_id,username,price and optionally ' +
    'expiration_date,email,send_email. Rows run --concurrency at a time; each gets one result ' +
    '(row, status, message; status ok, already, invalid or failed) on stdout, or in --results FILE ' +
    '(NDJSON, or CSV when FILE ends in .csv), written durably so that --resume continues an interrupted ' +
    'job. A user who already has access is reported as "already", not as a failure. A bulk job exits 6 ' +
    'when rows were invalid or failed, 7 when the service stayed unavailable. One grant exits 5 when the ' +
    'user already has access, 3 when the book or user does not exist.',
  options: [
    option('--hash-id <hash_id>', 'book (40 hex characters) (required unless --from-csv)'),
    option('--username <username>', 'user (30 hex characters) (required unless --from-csv)'),
    option('--price <price>', 'your external price, a decimal with at most two places (e.g. 12.01)'),
    option('--price-cents <cents>', 'the price in cents (1201 is 12.01)'),
    option('--expires <date>', 'access ends then (YYYY-MM-DD [HH:MM:SS] or ISO 8601)'),
    option('--email <email>', 'who sends out the access (tracking)'),
    option('--send-email', 'e-mail the user that access was granted'),
    option('--from-csv <file>', 'grant one per row of a CSV file (- for stdin)', { bulk: true }),
    ...bulkOptions('row'),
  ],
  examples: [
    'bookdist access allow --hash-id d9c3042fe0428c908a6a57485f85569a2d9b4cb9 --username 70172cfe97283c430dcd57f8358d7a --price 12.01 --expires 2030-01-31',
    'bookdist access allow --from-csv grants.csv --results grants.results.csv',
    'bookdist access allow --from-csv grants.csv --results grants.results.csv --resume',
  ],
});
