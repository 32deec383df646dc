// `bookdist access revoke`: the declaration only; the verb loads when it runs.
import { option, verb } from '../define.js';
import { bulkOptions } from '../bulk-options.js';

export const revoke = verb({
  name: 'revoke',
  summary: "revoke a user's access to a book (one, or many from a CSV file)",
  description:
    'Revokes access with POST /v1/access/revoke/ (operator token), after confirmation (--yes in scripts). ' +
    'One revocation from the flags, or one per row of --from-csv FILE (header: hash_id,username), run ' +
    '--concurrency at a time with one result per row (row, status, message) on stdout or in --results ' +
    'FILE (durable; --resume continues). A user without access is reported as "already", not as a ' +
    'failure. A bulk job exits 6 when rows were invalid or failed, 7 when the service stayed ' +
    'unavailable. One revocation exits 3 when the user has no access or the book or user does not exist.',
  options: [
    option('--hash-id <hash_id>', 'book (40 hex characters) (required unless --from-csv)'),
    option('--username <username>', 'user (30 hex characters) (required unless --from-csv)'),
    option('--from-csv <file>', 'revoke one per row of a CSV file (- for stdin)', { bulk: true }),
    ...bulkOptions('row'),
  ],
  examples: [
    'bookdist access allow --hash-id cee313141a0ce9a22774b32f87855d677d864cfb --username 70172cfe97283c430dcd57f8358d7a --price 9.99',
    'bookdist access revoke --hash-id cee313141a0ce9a22774b32f87855d677d864cfb --username 70172cfe97283c430dcd57f8358d7a --yes',
    'bookdist access revoke --from-csv revoke.csv --results revoke.results.ndjson --yes',
  ],
});
