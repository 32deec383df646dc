// `bookdist access sync`: the declaration only; the verb loads when it runs.
import { argument, option, verb } from '../define.js';
import { bulkOptions } from '../bulk-options.js';

export const sync = verb({
  name: 'sync',
  summary: "make a book's grants match a roster: allow who is new, revoke who left",
  description:
    'Compares the users who should have access to the book (ROSTER, a CSV file with a username or an email ' +
    'column; e-mail addresses become usernames through the users this ledger saw created, else by a look-up, ' +
    'GET /v1/user/email/<email>/) with the grants the ledger knows for that book under this profile (its ' +
    'access allow and revoke writes), and plans the allows (at --price) and the revokes that make them ' +
    'equal. The interface lists no grants, so grants made outside this ledger (another machine, --no-ledger, ' +
    "the service's own pages) are unknown to it: give the previous roster with --assume-current FILE to count " +
    'its users as having access where the ledger has no record of them, so that those who left are revoked. ' +
    'A write whose outcome the ledger does not know is planned again (harmless: a repeated allow answers ' +
    '"already has access", a repeated revoke "Purchase record not found", both reported as already).\n\n' +
    'The plan is printed first. --dry-run prints it and sends no write (e-mail addresses the ledger cannot ' +
    'resolve are looked up: reads only). Otherwise it runs as a bulk job, after confirmation when it revokes ' +
    '(--yes in scripts): --concurrency changes at once, one result per change (row, action, status, username, ' +
    'email, message; status ok, already, invalid or failed) on stdout or in --results FILE, durably, so that ' +
    "--resume continues an interrupted sync with the same plan (when the book's grants changed meanwhile, it is refused " +
    'naming the writes that changed them: --restart plans again from the grants as they are, repeating nothing). ' +
    'Every change is recorded in the ledger with ' +
    "the job's id (`bookdist ledger list --job ID`). Exits 6 when rows were invalid (an unknown e-mail " +
    'address) or changes failed, 7 when the service stayed unavailable.',
  args: [argument('<roster>', 'CSV file whose header names username or email (- for stdin)')],
  options: [
    option('--hash-id <hash_id>', 'the book (40 hex characters) (required)', { required: true }),
    option(
      '--price <price>',
      'your external price of each new grant, e.g. 12.01 (required when the plan allows anyone)',
    ),
    option(
      '--assume-current <file>',
      'the previous roster (same columns): its users have access unless the ledger records otherwise',
    ),
    ...bulkOptions('change', 'ROSTER'),
  ],
  examples: [
    'bookdist access sync team.csv --hash-id d9c3042fe0428c908a6a57485f85569a2d9b4cb9 --price 12.00 --dry-run',
    'bookdist access sync team.csv --hash-id d9c3042fe0428c908a6a57485f85569a2d9b4cb9 --price 12.00 --results team.sync.csv --yes',
    'bookdist access sync team.csv --hash-id d9c3042fe0428c908a6a57485f85569a2d9b4cb9 --price 12.00 --assume-current team.before.csv --dry-run',
  ],
});
