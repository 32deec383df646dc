// `bookdist ledger ...`: the local record of every write (src/ledger/). Declarations only; each
// verb's code loads when it runs.
import { argument, group, option, options, verb } from '../define.js';
import { summaryOf } from '../manifest.js';

const FILTERS = options(
  option(
    '--since <date>',
    'only writes at or after this time: YYYY-MM-DD, an ISO date-time, or an age such as 24h, 7d',
  ),
  option('--until <date>', 'only writes before this time (same forms as --since)'),
  option('--op <operation>', 'only this operation, e.g. "order create", "codes generate", "access allow", api'),
  option('--status <status>', 'only writes whose outcome is this', { choices: ['unknown', 'failed', 'done'] }),
  option('--user <user>', 'only writes naming this user (username or e-mail address)'),
  option('--book <hash_id>', 'only writes naming this book'),
  option('--job <id>', 'only the writes of this bulk job (its job id)'),
  option('--org <org>', 'only writes naming this organization'),
  option('--label <label>', 'only writes naming this white label'),
);

const PROFILE_NOTE = 'The global --profile NAME selects the rows of that profile (it sends nothing here).';

export const list = verb({
  name: 'list',
  summary: 'list the writes recorded, newest last, with their outcome',
  description:
    'Lists the writes bookdist recorded on this machine: when, with which profile, what operation, what it ' +
    'named (user, book, order number, count...) and its status: done, failed, or unknown (no verified answer: ' +
    'see `bookdist help ledger`). ' +
    PROFILE_NOTE,
  options: [...FILTERS],
  examples: [
    'bookdist ledger list --since 7d',
    'bookdist ledger list --status unknown',
    'bookdist ledger list --op "codes generate" --json',
  ],
  load: () => import('./list.js'),
});

export const show = verb({
  name: 'show',
  summary: 'show one write: its intent, outcome and settlement',
  description:
    'Shows everything the ledger holds about one write, by the id `ledger list` shows (and the "outcome unknown" error names).',
  args: [argument('<ledger_id>', "the write's id (a number)")],
  examples: ['bookdist user create --email ledger.show@example.com', 'bookdist ledger show 1'],
  load: () => import('./show.js'),
});

const verify = verb({
  name: 'verify',
  summary: "check the ledger's chain of hashes (exit 1 naming the first broken row)",
  description:
    'Each row of the ledger carries the SHA-256 of the row before it. This checks the whole chain: exit 0 when it ' +
    'is whole, exit 1 naming the first row that breaks it (a row changed, removed or inserted by hand).',
  examples: ['bookdist ledger verify', 'bookdist ledger verify --json'],
  load: () => import('./verify.js'),
});

export const exportCmd = verb({
  name: 'export',
  summary: 'export the writes of a period, org or label as CSV or JSON (for finance)',
  description:
    'Writes the writes that match the filters as CSV (one row per write, a column per identifier) or JSON, to stdout ' +
    'or --out FILE: the monthly report of orders, refunds, codes and grants a partner sends to finance. ' +
    PROFILE_NOTE,
  options: [
    option('--format <format>', 'csv or json', { choices: ['csv', 'json'], default: 'csv' }),
    option('--out <file>', 'write to this new file (refused if it exists) instead of stdout'),
    ...FILTERS,
  ],
  examples: [
    'bookdist ledger export --since 2026-11-01 --until 2026-12-01 --org acme --format csv',
    'bookdist ledger export --since 30d --format json > ledger.json',
  ],
  load: () => import('./export.js'),
});

export const prune = verb({
  name: 'prune',
  summary: 'remove the writes recorded before a date',
  description:
    'Removes every write whose intent was recorded before DATE (with its outcome), keeping the ledger bounded; ' +
    'the rows kept are chained anew after a row that says what was pruned. Asks for confirmation on a terminal; --yes in scripts.',
  options: [
    option('--before <date>', 'remove writes before this time (YYYY-MM-DD, ISO date-time, or an age such as 90d)', {
      required: true,
    }),
  ],
  examples: ['bookdist ledger prune --before 90d --yes', 'bookdist ledger prune --before 2026-01-01 --yes'],
  load: () => import('./prune.js'),
});

export const reconcile = verb({
  name: 'reconcile',
  summary: 'settle writes whose outcome is unknown, by reads and idempotent re-sends',
  description:
    'For every write whose outcome is unknown, finds out through the interface whether it took effect, never with ' +
    "a request that could do anything twice: a user by e-mail; a refund by the purchase's state; processing by the " +
    "book's status; an order by its order number (re-sent: the service answers with the first order and creates " +
    "nothing) or by the user's orders; access allow/revoke by re-sending (its repeat says whether it had taken " +
    'effect); codes by their Idempotency-Key where the profile says the service honours keys. Each write becomes ' +
    'confirmed, applied now, not applied, probably, or still unknown, or the reason it cannot be settled. ' +
    'Exit 0 when all settle, 6 when some remain. ' +
    PROFILE_NOTE,
  options: [
    option('--since <date>', 'only writes at or after this time'),
    option('--all', 'check writes recorded as done too'),
  ],
  examples: [
    'bookdist ledger reconcile --dry-run',
    'bookdist ledger reconcile --json > reconcile.json || echo "some writes are still unknown (exit $?): see reconcile.json"',
  ],
  load: () => import('./reconcile.js'),
});

export const commands = [
  group({
    name: 'ledger',
    summary: summaryOf('ledger'),
    description:
      'bookdist records every write it sends (orders, refunds, free orders, users, codes, grants and revokes, ' +
      'processing, `bookdist api` writes, every item of every bulk job) in a local ledger: a row before the ' +
      'request is sent (made durable first) and a row after. It lives in $BOOKDIST_STATE_DIR, else ' +
      '$XDG_STATE_HOME/bookdist, else ~/.local/state/bookdist (ledger.ndjson, 0600 in a 0700 directory). It ' +
      'holds identifiers (usernames, e-mail addresses as given, hash ids, order numbers and ids, orgs, labels, ' +
      'counts, Idempotency-Keys) and never a secret: no key, token, signature or password, and no redemption ' +
      'code (a batch is kept as its count and SHA-256).\n\n' +
      'The states of a write:\n' +
      '  done: the service gave the answer the interface promises.\n' +
      '  failed: the service refused it, or it was never sent.\n' +
      '  unknown: no verified answer (a lost connection, a timeout, an HTML page, a redirect), or the process was killed: it may or may not have taken effect.\n\n' +
      '`bookdist ledger reconcile` settles unknown writes, each becoming:\n' +
      '  confirmed: it had taken effect.\n' +
      '  applied now: it had not; an idempotent re-send made it take effect now.\n' +
      '  not applied: it had not taken effect.\n' +
      '  probably: a read suggests it took effect, but more than one record could match.\n' +
      '  still unknown: the service could not be asked now (try again later).\n' +
      '  cannot settle: the interface offers no way to tell (the reason is given).\n\n' +
      "Turn it off with --no-ledger, BOOKDIST_LEDGER=off, or a profile's setting (`bookdist profile add --no-ledger`). " +
      "The embedded sandbox's writes are recorded under the profile name sandbox.",
    commands: [list, show, verify, exportCmd, prune, reconcile],
  }),
];
