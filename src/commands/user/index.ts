// `bookdist user ...`: create and invite users, look them up, their orders and purchases.
// Declarations only; each verb's code loads when it runs.
import { argument, group, option, verb } from '../define.js';
import { bulkOptions } from '../bulk-options.js';
import { summaryOf } from '../manifest.js';

export const invite = verb({
  name: 'invite',
  summary: 'create a user and e-mail an invitation',
  description:
    'Calls POST /v1/user/invite/: creates the account and e-mails the user an invitation with a ' +
    'generated password. Prints the new username. An existing e-mail address exits 5 and names the ' +
    'existing user.',
  options: [
    option('--email <address>', "the user's e-mail address (required)", { required: true }),
    option('--first-name <name>', 'first name'),
    option('--last-name <name>', 'last name'),
    option('--label <subdomain>', 'white label (sub-domain) under your control'),
  ],
  examples: [
    'bookdist user invite --email ada@example.com --first-name Ada --last-name Byron',
    'bookdist user invite --email mary@example.com --label harborlane --json',
  ],
  load: () => import('./invite.js'),
});

export const create = verb({
  name: 'create',
  summary: 'create a user silently and show its password once',
  description:
    'Calls POST /v1/user/: creates the account without e-mailing anyone. The service generates a ' +
    'password unless --password-stdin gives one (read from stdin, never from the command line). ' +
    'A generated password is shown once, with a warning, and never logged. An existing e-mail ' +
    'address exits 5 and names the existing user.\n\n' +
    'With --from-csv ROSTER, one user per row of a CSV file whose header names email and optionally ' +
    'first_name,last_name,label: each row gets one result (row, status, username, email, message; status ' +
    'ok, exists, invalid or failed) on stdout or in --results FILE. An e-mail address that already has an ' +
    'account is `exists` with its username, not a failure, so a roster can be run again. Generated ' +
    'passwords are not recorded. The job exits 6 when rows were invalid or failed.',
  options: [
    option('--email <address>', "the user's e-mail address (required unless --from-csv)"),
    option('--first-name <name>', 'first name'),
    option('--last-name <name>', 'last name'),
    option('--password-stdin', 'read the password from stdin (one line) instead of generating one'),
    option('--label <subdomain>', 'white label (sub-domain) under your control'),
    option('--from-csv <file>', 'create one user per row of a CSV roster (- for stdin)', { bulk: true }),
    ...bulkOptions('row'),
  ],
  examples: [
    'bookdist user create --email grace@example.com --first-name Grace --last-name Hopper',
    'printf %s "$PW" | bookdist user create --email alan@example.com --password-stdin',
    'bookdist user create --from-csv roster.csv --results roster.results.csv',
  ],
  load: () => import('./create.js'),
});

export const get = verb({
  name: 'get',
  summary: 'show a user by username or e-mail',
  description:
    'Calls GET /v1/user/<username>/ or /v1/user/email/<email>/ and shows the user: name, e-mail, ' +
    'status, profile, owner and permissions. Give exactly one of <username> or --email. Unknown users exit 3.',
  args: [argument('[username]', "the user's username (30 hex characters)")],
  options: [option('--email <address>', 'look the user up by e-mail address')],
  examples: [
    'bookdist user get 70172cfe97283c430dcd57f8358d7a',
    'bookdist user get --email avery.reader@example.com --json',
  ],
  load: () => import('./get.js'),
});

export const orders = verb({
  name: 'orders',
  summary: "list a user's completed orders with their items",
  description:
    'Calls GET /v1/user/<username>/orders/ and shows each completed order with its items (book, price, ' +
    'purchase and expiry dates, whether it is refunded or still refundable) and totals.',
  args: [argument('<username>', "the user's username (30 hex characters)")],
  examples: [
    'bookdist user orders 70172cfe97283c430dcd57f8358d7a',
    'bookdist user orders 70172cfe97283c430dcd57f8358d7a -o json',
  ],
  load: () => import('./orders.js'),
});

export const purchase = verb({
  name: 'purchase',
  summary: 'show one purchase (order item) of a user',
  description:
    'Calls POST /v1/user/<username>/purchase/<purchase_id>/ and shows the purchase: book, price, ' +
    'dates and state. The purchase id is an item id of `user orders`. Without --refund-data the service ' +
    'answers faster and does not say whether a refund is still possible. Unknown purchases exit 3.',
  args: [
    argument('<username>', "the user's username (30 hex characters)"),
    argument('<purchase_id>', 'the purchase (order item) id, a whole number'),
  ],
  options: [option('--refund-data', 'also work out whether the purchase can still be refunded (slower)')],
  examples: [
    "ITEM=$(bookdist order free --username 70172cfe97283c430dcd57f8358d7a --hash-id d9c3042fe0428c908a6a57485f85569a2d9b4cb9 --json | jq '.order.items[0].id')",
    'bookdist user purchase 70172cfe97283c430dcd57f8358d7a "$ITEM"',
    'bookdist user purchase 70172cfe97283c430dcd57f8358d7a "$ITEM" --refund-data --json',
  ],
  load: () => import('./purchase.js'),
});

export const commands = [
  group({
    name: 'user',
    summary: summaryOf('user'),
    description:
      'Users of the service. A user is identified by its username, a 30-character hex hash that ' +
      '`user create` and `user invite` return: store it. Lookups by e-mail work too.',
    commands: [invite, create, get, orders, purchase],
  }),
];
