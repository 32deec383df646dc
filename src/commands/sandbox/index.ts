// `bookdist sandbox ...`: run the local service and drive its testing controls. Option
// definitions only; each verb's work is imported when it runs.
import { type Command, Option } from 'commander';
import { action, collect, examples } from '../define.js';
import { summaryOf } from '../manifest.js';

const DB_HELP = 'SQLite database of the sandbox (default: sandbox.db in the data directory, $BOOKDIST_DATA_DIR)';
const URL_HELP = 'drive a running sandbox over HTTP (/_sandbox/ routes) instead of opening its database; the control secret comes from $BOOKDIST_SANDBOX_SECRET or from --db';

export function registerSandbox(program: Command): void {
  const group = program
    .command('sandbox')
    .summary(summaryOf('sandbox'))
    .description(
      'The sandbox is a local implementation of the whole service on SQLite. bookdist uses it when ' +
        'no profile is configured; partners can run it with `bookdist sandbox serve` and point any ' +
        'client at it. The controls (clock, usage, redeem, outbox) work on its database, so they ' +
        'reach every sandbox process that uses the same file.',
    );

  examples(
    action(
      group
        .command('serve')
        .summary('run the sandbox service in the foreground')
        .description(
          'Runs the service until Ctrl-C or SIGTERM, one log line per request on stderr (method, path, status, time, account). Prints the base URL on stdout. ' +
            'The /_sandbox/ control routes answer only requests addressed to the bound address (or an --allow-host name), from no foreign web origin, ' +
            'with a JSON body and the control secret (header X-Sandbox-Secret) that `bookdist sandbox credentials` prints.',
        )
        .option('--host <host>', 'interface to listen on (anything but loopback needs --expose)', '127.0.0.1')
        .option('--expose', 'allow listening on a non-loopback interface (prints what that exposes)')
        .option('--allow-host <name>', 'another Host name the /_sandbox/ control routes answer (repeatable)', collect)
        .option('--public-url <url>', 'the URL that reader links and pages name (default: the bound address; never the Host header)')
        .option('--port <port>', 'TCP port (0 picks a free one; a port in use is an error)', '8710')
        .option('--db <path>', DB_HELP + '; :memory: for a throwaway database')
        .option('--process-delay <duration>', 'time the worker takes to process a queued book (at most 24h)', '2s')
        .option('--fault-rate <fraction>', 'share of requests (0..1) that get an injected fault', '0')
        .addOption(new Option('--fault <kind>', 'fault kind (repeatable)').choices(['503', '429', 'reset']).argParser(collect))
        .option('--latency <duration>', 'added to every request (e.g. 50ms; at most 10m)')
        .option('--tls', 'serve HTTPS with a certificate signed by a CA made and kept beside the database (printed at start and by `sandbox credentials`)')
        .option('--cert <file>', 'serve HTTPS with this certificate (PEM; with --key)')
        .option('--key <file>', 'private key (PEM) of --cert'),
      () => import('./serve.js'),
    ),
    [
      'bookdist sandbox serve --port 9000 --db ./dev.db --fault-rate 0.1 --fault 503 --fault 429 --latency 50ms',
      'bookdist sandbox serve --host 0.0.0.0 --expose --allow-host sandbox.internal',
      'bookdist sandbox serve --tls',
    ],
  );

  examples(
    action(
      group
        .command('credentials')
        .summary('print the seeded accounts and operator token of a sandbox database')
        .description(
          'Prints the partner and limited accounts (username, key_file = path of the private key PEM, ' +
            'public_key, shared_key) and the operator token, so that curl, the reference clients or ' +
            'your own code can talk to the sandbox. These are secrets of a local test service only.',
        )
        .option('--db <path>', DB_HELP),
      () => import('./credentials.js'),
    ),
    ['bookdist sandbox credentials', 'bookdist sandbox credentials --json | jq -r .partner.key_file'],
  );

  examples(
    action(
      group
        .command('openapi')
        .summary('print the OpenAPI 3.1 document of the service')
        .description(
          'Prints the OpenAPI 3.1 document of the whole service (every path, method, request field, response ' +
            'shape, the error body and the authentication schemes), generated from the same endpoint table as ' +
            'the client and the sandbox. A running sandbox serves it at GET /openapi.json.',
        )
        .option('--server <url>', 'base URL to name under "servers"', 'http://127.0.0.1:8710'),
      () => import('./openapi.js'),
    ),
    ['bookdist sandbox openapi > openapi.json', 'bookdist sandbox openapi --server http://127.0.0.1:9000 | jq \'.paths | keys\''],
  );

  examples(
    action(
      group
        .command('reset')
        .summary('recreate the sandbox database from the seed (new keys and secrets)')
        .description(
          'Deletes the sandbox database (orders, users, codes, grants, outbox, clock offset) and seeds it ' +
            'again: the same catalogue, hash ids and ISBNs, with newly generated keys and secrets. Titles loaded with ' +
            '`sandbox catalogue load` are removed too unless --keep-loaded (on a terminal it asks); it says which. ' +
            'Asks first on a terminal; in scripts it needs --yes. Also resets a database written by a newer bookdist.',
        )
        .option('--keep-loaded', 'keep the titles loaded from catalogue files (same hash ids and price ids)')
        .option('--db <path>', DB_HELP),
      () => import('./reset.js'),
    ),
    ['bookdist sandbox reset --yes', 'bookdist sandbox reset --yes --keep-loaded', 'bookdist sandbox reset --db ./dev.db --yes'],
  );

  const catalogue = group
    .command('catalogue')
    .summary('bring your own catalogue: load ONIX 3.0 or CSV titles into the sandbox')
    .description(
      'Loads a publisher\'s titles (identifiers, metadata, digital prices) into the sandbox database, under publishers ' +
        'the partner account controls, so that an integration can be tried on the books it will sell.',
    );
  examples(
    action(
      catalogue
        .command('load')
        .summary('load an ONIX 3.0 or CSV catalogue file into the sandbox (adds, updates, withdraws)')
        .description(
          'Reads the file as a stream and loads it in one transaction: every valid record is in (or, with --strict, none ' +
            'if any is refused). ONIX for Books 3.0 (reference or short tags): digital editions become books with their ' +
            'digital prices (rentals where a PriceCondition gives a duration) and their print ISBN (RelatedProduct) as ' +
            'isbn13/parent_isbn; print and audio editions are skipped and counted; NotificationType 03/04 update a ' +
            'title already loaded, 05 withdraws it. CSV: a header row with isbn13, title, author, publisher, language, ' +
            'pages, publish_date, description, sku, print_isbn13, price, currency, rental_price, rental_days, action ' +
            '(README, "Bring your own catalogue"). Books go under the record\'s publisher (created and given to the ' +
            'partner account when new), or --publisher. A book loaded again is updated in place: same hash id, its ' +
            'orders and access kept. Refused records are listed with their record number, line and reason; --json ' +
            'prints the whole summary. Exit 6 when records were refused, 2 when the file cannot be read or --strict ' +
            'refused it.',
        )
        .argument('<file>', 'the catalogue file (.xml/.onix: ONIX; .csv: CSV; otherwise by its content)')
        .option('--format <format>', 'onix or csv (default: from the file name or content)')
        .option('--publisher <name>', 'load every title under this publisher (created when new) instead of the file\'s')
        .option('--strict', 'load nothing if any record is refused')
        .option('--db <path>', DB_HELP),
      () => import('./catalogue.js'),
    ),
    [
      'bookdist sandbox catalogue load docs/samples/catalogue.onix.xml',
      'bookdist sandbox catalogue load titles.csv --publisher "Harbor Lane Press" --strict',
      'bookdist sandbox catalogue load feed.xml --json | jq .refusals',
    ],
  );

  const clock = group
    .command('clock')
    .summary('show or move the sandbox clock (expirations, refund windows)')
    .description(
      'The sandbox keeps its own notion of now (real time plus an offset stored in its database), so ' +
        'rental expirations and refund windows can be tested without waiting.',
    );
  examples(
    action(
      clock
        .command('advance')
        .summary('move the sandbox clock forward')
        .description('Adds the duration to the sandbox clock of that database; every sandbox process using it sees the new time.')
        .argument('<duration>', 'e.g. 15d, 36h, 90m, 30s')
        .option('--db <path>', DB_HELP)
        .option('--url <url>', URL_HELP),
      () => import('./clock.js').then((m) => m.advance),
    ),
    ['bookdist sandbox clock advance 15d', 'bookdist sandbox clock advance 36h --url http://127.0.0.1:8710'],
  );
  examples(
    action(
      clock
        .command('show')
        .summary('show the sandbox\'s notion of now and the offset from real time')
        .description('Prints the sandbox\'s current time and how far it has been moved ahead of real time.')
        .option('--db <path>', DB_HELP)
        .option('--url <url>', URL_HELP),
      () => import('./clock.js').then((m) => m.show),
    ),
    ['bookdist sandbox clock show', 'bookdist sandbox clock show --json'],
  );

  examples(
    action(
      group
        .command('usage')
        .summary('record pages read and printed by a user in a book (counts for refunds)')
        .description(
          'Adds page views and prints for a user in a book, as the reader page would. The refund rules use ' +
            'them: more than 10% of the pages viewed, or any page printed, makes an item non-refundable.',
        )
        .requiredOption('--username <username>', 'the user (30 hex characters)')
        .requiredOption('--hash-id <hash_id>', 'the book')
        .option('--viewed <pages>', 'pages viewed to add', '0')
        .option('--printed <pages>', 'pages printed to add', '0')
        .option('--db <path>', DB_HELP)
        .option('--url <url>', URL_HELP),
      () => import('./usage.js'),
    ),
    [
      'bookdist sandbox usage --username 70172cfe97283c430dcd57f8358d7a --hash-id cee313141a0ce9a22774b32f87855d677d864cfb --viewed 40 --printed 0',
      'bookdist sandbox usage --username 70172cfe97283c430dcd57f8358d7a --hash-id cee313141a0ce9a22774b32f87855d677d864cfb --printed 1',
    ],
  );

  examples(
    action(
      group
        .command('redeem')
        .summary('redeem a code for a user (counts in the code summary, gives access)')
        .description('Redeems a generated code as that user would: the user gets access to the book and the code counts as redeemed in `bookdist codes summary`.')
        .argument('<code>', 'the code, XXXX-XXXX-XXXX')
        .requiredOption('--username <username>', 'the user who redeems it')
        .option('--db <path>', DB_HELP)
        .option('--url <url>', URL_HELP),
      () => import('./redeem.js'),
    ),
    [
      'CODE=$(bookdist codes generate --hash-id cee313141a0ce9a22774b32f87855d677d864cfb --org acme --count 1 -o ndjson | jq -r .code)',
      'bookdist sandbox redeem "$CODE" --username 70172cfe97283c430dcd57f8358d7a',
      'bookdist codes generate --hash-id cee313141a0ce9a22774b32f87855d677d864cfb --org acme --count 1 -o ndjson | jq -r .code | xargs -I{} bookdist sandbox redeem {} --username 08ceaca1d21c845c4ee6c40395842d --url http://127.0.0.1:8710',
    ],
  );

  examples(
    action(
      group
        .command('outbox')
        .summary('list the e-mails the service would have sent')
        .description('Lists the outbox: one e-mail per side effect (invitations, orders, refunds, access grants), honouring every send_email flag. Nothing is ever really sent.')
        .option('--to <address>', 'only e-mails to this address')
        .option('--db <path>', DB_HELP)
        .option('--url <url>', URL_HELP),
      () => import('./outbox.js'),
    ),
    ['bookdist sandbox outbox', 'bookdist sandbox outbox --to reader@example.com --json'],
  );
}
