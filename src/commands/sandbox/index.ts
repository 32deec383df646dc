// `bookdist sandbox ...`: run the local service and drive its testing controls. Declarations
// only; each verb's work is imported when it runs.
import { argument, group, option, verb } from '../define.js';
import { summaryOf } from '../manifest.js';

const DB_HELP = 'SQLite database of the sandbox (default: sandbox.db in the data directory, $BOOKDIST_DATA_DIR)';
const DB_OPTION = option('--db <path>', DB_HELP);
const URL_OPTION = option(
  '--url <url>',
  'drive a running sandbox over HTTP (/_sandbox/ routes) instead of opening its database; the control secret comes from $BOOKDIST_SANDBOX_SECRET or from --db',
);

export const serve = verb({
  name: 'serve',
  summary: 'run the sandbox service in the foreground',
  description:
    'Runs the service until Ctrl-C or SIGTERM, one log line per request on stderr (method, path, status, time, account). Prints the base URL on stdout. ' +
    'Every request is kept in the request journal of the database (`bookdist sandbox requests`), bodies with secrets redacted. ' +
    'The /_sandbox/ control routes answer only requests addressed to the bound address (or an --allow-host name), from no foreign web origin, ' +
    'with a JSON body and the control secret (header X-Sandbox-Secret) that `bookdist sandbox credentials` prints.',
  options: [
    option('--host <host>', 'interface to listen on (anything but loopback needs --expose)', { default: '127.0.0.1' }),
    option('--expose', 'allow listening on a non-loopback interface (prints what that exposes)'),
    option('--allow-host <name>', 'another Host name the /_sandbox/ control routes answer (repeatable)', {
      repeatable: 'split',
    }),
    option(
      '--public-url <url>',
      'the URL that reader links and pages name (default: the bound address; never the Host header)',
    ),
    option('--port <port>', 'TCP port (0 picks a free one; a port in use is an error)', { default: '8710' }),
    option('--db <path>', DB_HELP + '; :memory: for a throwaway database'),
    option('--process-delay <duration>', 'time the worker takes to process a queued book (at most 24h)', {
      default: '2s',
    }),
    option('--fault-rate <fraction>', 'share of requests (0..1) that get an injected fault', { default: '0' }),
    option(
      '--fault <kind>',
      'fault kind (repeatable): 503, 429, reset (the connection is closed before the request is read), drop (the request is carried out and its answer dropped: a lost answer)',
      { choices: ['503', '429', 'reset', 'drop'], repeatable: 'split' },
    ),
    option('--latency <duration>', 'added to every request (e.g. 50ms; at most 10m)'),
    option(
      '--tls',
      'serve HTTPS with a certificate signed by a CA made and kept beside the database (printed at start and by `sandbox credentials`)',
    ),
    option('--cert <file>', 'serve HTTPS with this certificate (PEM; with --key)'),
    option('--key <file>', 'private key (PEM) of --cert'),
    option('--journal-size <n>', 'requests the request journal keeps (the oldest are dropped; `sandbox requests`)', {
      default: '10000',
    }),
    option('--no-journal', 'keep no request journal (`sandbox requests` then sees nothing new)'),
    option(
      '--redact-codes',
      'redact redemption codes in the request journal too (signatures, keys, tokens and passwords always are)',
    ),
  ],
  examples: [
    'bookdist sandbox serve --port 9000 --db ./dev.db --fault-rate 0.1 --fault 503 --fault 429 --latency 50ms',
    'bookdist sandbox serve --host 0.0.0.0 --expose --allow-host sandbox.internal',
    'bookdist sandbox serve --tls',
  ],
  load: () => import('./serve.js'),
});

export const credentials = verb({
  name: 'credentials',
  summary: 'print the seeded accounts and operator token of a sandbox database',
  description:
    'Prints the partner and limited accounts (username, key_file = path of the private key PEM, ' +
    'public_key, shared_key) and the operator token, so that curl, the reference clients or ' +
    'your own code can talk to the sandbox. These are secrets of a local test service only.',
  options: [DB_OPTION],
  examples: ['bookdist sandbox credentials', 'bookdist sandbox credentials --json | jq -r .partner.key_file'],
  load: () => import('./credentials.js'),
});

export const openapi = verb({
  name: 'openapi',
  summary: 'print the OpenAPI 3.1 document of the service',
  description:
    'Prints the OpenAPI 3.1 document of the whole service (every path, method, request field, response ' +
    'shape, the error body and the authentication schemes), generated from the same endpoint table as ' +
    'the client and the sandbox. A running sandbox serves it at GET /openapi.json.',
  options: [option('--server <url>', 'base URL to name under "servers"', { default: 'http://127.0.0.1:8710' })],
  examples: [
    'bookdist sandbox openapi > openapi.json',
    "bookdist sandbox openapi --server http://127.0.0.1:9000 | jq '.paths | keys'",
  ],
  load: () => import('./openapi.js'),
});

export const reset = verb({
  name: 'reset',
  summary: 'recreate the sandbox database from the seed (new keys and secrets)',
  description:
    'Deletes the sandbox database (orders, users, codes, grants, outbox, clock offset) and seeds it ' +
    'again: the same catalogue, hash ids and ISBNs, with newly generated keys and secrets. Titles loaded with ' +
    '`sandbox catalogue load` are removed too unless --keep-loaded (on a terminal it asks); it says which. ' +
    'Asks first on a terminal; in scripts it needs --yes. Also resets a database written by a newer bookdist.',
  options: [
    option('--keep-loaded', 'keep the titles loaded from catalogue files (same hash ids and price ids)'),
    DB_OPTION,
  ],
  examples: [
    'bookdist sandbox reset --yes',
    'bookdist sandbox reset --yes --keep-loaded',
    'bookdist sandbox reset --db ./dev.db --yes',
  ],
  load: () => import('./reset.js'),
});

export const catalogueLoad = verb({
  name: 'load',
  summary: 'load an ONIX 3.0 or CSV catalogue file into the sandbox (adds, updates, withdraws)',
  description:
    'Reads the file as a stream and loads it in one transaction: every valid record is in (or, with --strict, none ' +
    'if any is refused). ONIX for Books 3.0 (reference or short tags): digital editions become books with their ' +
    'digital prices (rentals where a PriceCondition gives a duration) and their print ISBN (RelatedProduct) as ' +
    'isbn13/parent_isbn; print and audio editions are skipped and counted; NotificationType 03/04 update a ' +
    "title already loaded, 05 withdraws it. Books go under the record's publisher (created and given to the " +
    'partner account when new), or --publisher. A book loaded again is updated in place: same hash id, its ' +
    'orders and access kept. Refused records are listed with their record number, line and reason; --json ' +
    'prints the whole summary. Exit 6 when records were refused, 2 when the file cannot be read or --strict ' +
    'refused it.\n\n' +
    'CSV: a header row naming the columns (any order, any case), then one book per row: isbn13 (required; ' +
    'an ISBN-10 is converted), title (required for a new book), subtitle, author, publisher, language (en or ' +
    'eng), pages, publish_date (YYYY or YYYY-MM-DD), description, sku, print_isbn13, price and currency (a ' +
    'lifetime price; currency defaults to USD), rental_price with rental_days (a rental, in the same ' +
    'currency), and action: add (the default: adds the book, or updates it), update, or withdraw (off sale, ' +
    'its prices deactivated). An empty cell keeps what the book has. Example:\n' +
    '  isbn13,title,author,publish_date,price,currency,action\n' +
    '  9780000000019,Brief Lives,Anna Weber,2021-03-01,12.99,EUR,add',
  args: [argument('<file>', 'the catalogue file (.xml/.onix: ONIX; .csv: CSV; otherwise by its content)')],
  options: [
    option('--format <format>', 'onix or csv (default: from the file name or content)'),
    option('--publisher <name>', "load every title under this publisher (created when new) instead of the file's"),
    option('--strict', 'load nothing if any record is refused'),
    DB_OPTION,
    URL_OPTION,
  ],
  examples: [
    'bookdist sandbox catalogue load docs/samples/catalogue.onix.xml',
    'bookdist sandbox catalogue load titles.csv --publisher "Harbor Lane Press" --strict',
    'bookdist sandbox catalogue load feed.xml --url http://127.0.0.1:8710 --json',
  ],
  load: () => import('./catalogue.js'),
});

export const clockAdvance = verb({
  name: 'advance',
  summary: 'move the sandbox clock forward',
  description:
    'Adds the duration to the sandbox clock of that database; every sandbox process using it sees the new time.',
  args: [argument('<duration>', 'e.g. 15d, 36h, 90m, 30s')],
  options: [DB_OPTION, URL_OPTION],
  examples: ['bookdist sandbox clock advance 15d', 'bookdist sandbox clock advance 36h --url http://127.0.0.1:8710'],
  load: async () => (await import('./clock.js')).advance,
});

export const clockShow = verb({
  name: 'show',
  summary: "show the sandbox's notion of now and the offset from real time",
  description: "Prints the sandbox's current time and how far it has been moved ahead of real time.",
  options: [DB_OPTION, URL_OPTION],
  examples: ['bookdist sandbox clock show', 'bookdist sandbox clock show --json'],
  load: async () => (await import('./clock.js')).show,
});

export const usage = verb({
  name: 'usage',
  summary: 'record pages read and printed by a user in a book (counts for refunds)',
  description:
    'Adds page views and prints for a user in a book, as the reader page would. The refund rules use ' +
    'them: more than 10% of the pages viewed, or any page printed, makes an item non-refundable.',
  options: [
    option('--username <username>', 'the user (30 hex characters)', { required: true }),
    option('--hash-id <hash_id>', 'the book', { required: true }),
    option('--viewed <pages>', 'pages viewed to add', { default: '0' }),
    option('--printed <pages>', 'pages printed to add', { default: '0' }),
    DB_OPTION,
    URL_OPTION,
  ],
  examples: [
    'bookdist sandbox usage --username 70172cfe97283c430dcd57f8358d7a --hash-id cee313141a0ce9a22774b32f87855d677d864cfb --viewed 40 --printed 0',
    'bookdist sandbox usage --username 70172cfe97283c430dcd57f8358d7a --hash-id cee313141a0ce9a22774b32f87855d677d864cfb --printed 1',
  ],
  load: () => import('./usage.js'),
});

export const redeem = verb({
  name: 'redeem',
  summary: 'redeem a code for a user (counts in the code summary, gives access)',
  description:
    'Redeems a generated code as that user would: the user gets access to the book and the code counts as redeemed in `bookdist codes summary`.',
  args: [argument('<code>', 'the code, XXXX-XXXX-XXXX')],
  options: [option('--username <username>', 'the user who redeems it', { required: true }), DB_OPTION, URL_OPTION],
  examples: [
    'CODE=$(bookdist codes generate --hash-id cee313141a0ce9a22774b32f87855d677d864cfb --org acme --count 1 -o ndjson | jq -r .code)',
    'bookdist sandbox redeem "$CODE" --username 70172cfe97283c430dcd57f8358d7a',
    'bookdist codes generate --hash-id cee313141a0ce9a22774b32f87855d677d864cfb --org acme --count 1 -o ndjson | jq -r .code | xargs -I{} bookdist sandbox redeem {} --username 08ceaca1d21c845c4ee6c40395842d --url http://127.0.0.1:8710',
  ],
  load: () => import('./redeem.js'),
});

export const outbox = verb({
  name: 'outbox',
  summary: 'list the e-mails the service would have sent',
  description:
    'Lists the outbox: one e-mail per side effect (invitations, orders, refunds, access grants), honouring every send_email flag. Nothing is ever really sent.',
  options: [option('--to <address>', 'only e-mails to this address'), DB_OPTION, URL_OPTION],
  examples: ['bookdist sandbox outbox', 'bookdist sandbox outbox --to reader@example.com --json'],
  load: () => import('./outbox.js'),
});

const FILTER_OPTIONS = [
  option('--method <method>', 'only requests with this HTTP method (GET, POST...)'),
  option(
    '--path <pattern>',
    'only requests to this path; * matches any characters (/v1/order/*); a final / is optional',
  ),
  option('--status <status>', 'only answers with this status (201) or class (4xx)'),
  option(
    '--account <username>',
    'only requests made as this account (its username, or operator for the operator token)',
  ),
  option('--since <when>', 'only requests from this time on: an ISO time, or a duration back from now (10m, 2h)'),
  option(
    '--body <name=value>',
    'only requests whose body field has this value (dotted for nested fields; name alone: present) (repeatable)',
    { repeatable: 'whole' },
  ),
];

export const requestsList = verb({
  name: 'list',
  summary: 'list the requests the sandbox served (its request journal)',
  description:
    "Lists the requests in the sandbox's request journal, oldest first (the newest 100 unless --limit): time, method, path, status, " +
    'duration, auth mode and account. The journal lives in the sandbox database, so every `sandbox serve` on one file writes to and ' +
    'reads from one journal; it keeps the newest 10,000 requests by default (`sandbox serve --journal-size`), bodies with ' +
    'signatures, keys, tokens and passwords redacted. `requests show ID` prints one with its bodies, changes and e-mails.',
  options: [
    ...FILTER_OPTIONS,
    option('--limit <n>', 'show at most the newest n matching requests (default 100)'),
    DB_OPTION,
    URL_OPTION,
  ],
  examples: [
    'bookdist book list --limit 1',
    "bookdist sandbox requests list --method GET --path '/v1/book/*'",
    'bookdist sandbox requests list --status 4xx --since 10m --json',
  ],
  load: async () => (await import('./requests.js')).list,
});

export const requestsShow = verb({
  name: 'show',
  summary: 'show one journaled request: headers, bodies, what it changed, its e-mails',
  description:
    'Prints one request of the journal: time (real and sandbox clock), method, path, status, duration, auth mode and account, ' +
    'its headers and request and response bodies (secrets redacted), what it changed (orders, purchases, grants, users, codes, ' +
    'refunds, other rows by table) and the outbox e-mails it caused (`sandbox outbox` shows them). Exit 3 when the id is not in the journal.',
  args: [argument('<id>', 'the request id (from `sandbox requests list`)')],
  options: [DB_OPTION, URL_OPTION],
  examples: [
    'bookdist book list --limit 1',
    'bookdist sandbox requests show "$(bookdist sandbox requests list --limit 1 -o ndjson | jq -r .id)"',
    'bookdist sandbox requests list --limit 1 -o ndjson | jq -r .id | xargs bookdist sandbox requests show --json',
  ],
  load: async () => (await import('./requests.js')).show,
});

export const requestsTail = verb({
  name: 'tail',
  summary: 'follow the requests as the sandbox serves them, until Ctrl-C',
  description:
    'Prints each new request of the journal as one line (id, time, method, path, status, duration, auth, account), ' +
    'within a fraction of a second of its answer, until Ctrl-C. With --json (or -o ndjson) each request is one JSON object ' +
    'on a line of its own (NDJSON, the fields of `requests show --json`), written as it comes. The filters of `requests list` apply.',
  options: [...FILTER_OPTIONS, DB_OPTION, URL_OPTION],
  examples: [
    'timeout --preserve-status -s INT 1 bookdist sandbox requests tail --status 4xx',
    'timeout --preserve-status -s INT 1 bookdist sandbox requests tail --method POST --path "/v1/order/*"',
    'timeout --preserve-status -s INT 1 bookdist sandbox requests tail --json | jq -c "{id, status}"',
  ],
  load: async () => (await import('./requests.js')).tail,
});

export const requestsVerify = verb({
  name: 'verify',
  summary: 'assert how many journaled requests match (exit 0), else print a diff (exit 1)',
  description:
    'The one-line assertion of a CI job: counts the requests of the journal that match the filters (at least --method or --path) and ' +
    'exits 0 when there are exactly --count N, at least --at-least N, or none (--none); otherwise exits 1 and prints on stderr what ' +
    'was expected, the requests that matched, and the near misses (same path or method, one field different, with that field). ' +
    '--json prints the outcome as one JSON object on stdout. `requests clear` before a test run starts a clean journal.',
  options: [
    ...FILTER_OPTIONS,
    option('--count <n>', 'exactly n requests must match'),
    option('--at-least <n>', 'at least n requests must match'),
    option('--none', 'no request may match'),
    DB_OPTION,
    URL_OPTION,
  ],
  examples: [
    'bookdist book list --limit 1',
    'bookdist sandbox requests verify --method POST --path /v1/book/index/ --at-least 1',
    'bookdist sandbox requests verify --method POST --path /v1/order/refund/ --count 99  # exits 1',
  ],
  load: async () => (await import('./requests.js')).verify,
});

export const requestsClear = verb({
  name: 'clear',
  summary: 'empty the request journal (ids go on from where they were)',
  description:
    'Deletes every request of the journal, for every process serving the database. Request ids are never reused.',
  options: [DB_OPTION, URL_OPTION],
  examples: ['bookdist sandbox requests clear', 'bookdist sandbox requests clear --url http://127.0.0.1:8710'],
  load: async () => (await import('./requests.js')).clear,
});

export const fixturesApply = verb({
  name: 'apply',
  summary: 'set the sandbox up from a fixture file of named steps (JSON or YAML)',
  description:
    'Runs the steps of a fixture file in order: `call:` any operation of the service (its name in `bookdist describe`, e.g. ' +
    'order.external, with `payload:` and `params:`, `as:` partner, limited or operator) or `control:` a sandbox control ' +
    '(clock.advance, usage, redeem, catalogue.load, book.hold, book.release, book.fail, worker.run, with `with:`). A step uses ' +
    'what an earlier one returned with ${step.path} (e.g. ${order.order.id}). A fixture with a `name:` remembers what each step ' +
    'returned: applying it again makes nothing twice and prints the remembered results, and after a failed step it goes on from ' +
    'there once the file is fixed. Errors name the step and the field. Samples: docs/samples/*fixture*. Exit 2 when the file is ' +
    'not a fixture, 1 when a step fails.',
  args: [argument('<file>', 'the fixture file (.json, .yaml or .yml)')],
  options: [DB_OPTION, URL_OPTION],
  examples: [
    'bookdist sandbox fixtures apply docs/samples/refund-window.fixture.yaml',
    'bookdist sandbox fixtures apply docs/samples/code-batch.fixture.json --json',
    'bookdist sandbox fixtures apply docs/samples/held-book.fixture.yaml --url http://127.0.0.1:8710',
  ],
  load: () => import('./fixtures.js'),
});

const SNAPSHOT_NAME = argument('<name>', 'the snapshot name (letters, digits, ., _ and -)');

export const snapshotSave = verb({
  name: 'save',
  summary: "save the sandbox database's current state as a named snapshot",
  description:
    "Copies the database with SQLite's online backup into <db>.snapshots/<name>.db (replacing a snapshot of that name): a consistent " +
    'state, also while a sandbox serves the file. A snapshot belongs to its database (it holds its keys and secrets).',
  args: [SNAPSHOT_NAME],
  options: [DB_OPTION, URL_OPTION],
  examples: [
    'bookdist sandbox snapshot save baseline',
    'bookdist sandbox snapshot save baseline --url http://127.0.0.1:8710',
  ],
  load: async () => (await import('./snapshot.js')).save,
});

export const snapshotLoad = verb({
  name: 'load',
  summary: 'put the sandbox database back in the state of a snapshot',
  description:
    'Copies the snapshot back into the database in one write transaction: the clients of a running sandbox see the old state or the ' +
    'new one, never a mix. Everything goes back, the request journal and the clock included. Exit 3 when there is no such snapshot.',
  args: [SNAPSHOT_NAME],
  options: [DB_OPTION, URL_OPTION],
  examples: ['bookdist sandbox snapshot save baseline', 'bookdist sandbox snapshot load baseline'],
  load: async () => (await import('./snapshot.js')).load,
});

export const snapshotList = verb({
  name: 'list',
  summary: 'list the snapshots of the sandbox database',
  description: 'Lists the snapshots saved for this database: name, time saved, size.',
  options: [DB_OPTION, URL_OPTION],
  examples: ['bookdist sandbox snapshot save nightly', 'bookdist sandbox snapshot list --json'],
  load: async () => (await import('./snapshot.js')).list,
});

export const snapshotRm = verb({
  name: 'rm',
  summary: 'delete a snapshot',
  description: 'Deletes the snapshot file. Exit 3 when there is no such snapshot.',
  args: [SNAPSHOT_NAME],
  options: [DB_OPTION, URL_OPTION],
  examples: ['bookdist sandbox snapshot save scratch', 'bookdist sandbox snapshot rm scratch'],
  load: async () => (await import('./snapshot.js')).rm,
});

export const snapshotDiff = verb({
  name: 'diff',
  summary: 'what changed between two snapshots (or a snapshot and now), table by table',
  description:
    'For each table, the rows added, removed and changed between snapshot A and snapshot B (or the database now when B is left out), ' +
    'with up to 20 row ids of each. Text indexes are left out (they follow their tables).',
  args: [argument('<a>', 'the earlier snapshot'), argument('[b]', 'the later snapshot (default: the database now)')],
  options: [DB_OPTION, URL_OPTION],
  examples: [
    'bookdist sandbox snapshot save before',
    'bookdist sandbox clock advance 1d',
    'bookdist sandbox snapshot diff before',
  ],
  load: async () => (await import('./snapshot.js')).diff,
});

const WORKSPACE_NAME = argument('<name>', 'the workspace name (lower-case letters, digits and -, at most 40)');
const WORKSPACE_URL = option(
  '--url <url>',
  'the running sandbox that serves the workspaces (required); the control secret comes from $BOOKDIST_SANDBOX_SECRET or from --db',
);
const WORKSPACE_DB = option(
  '--db <path>',
  'the database that sandbox serves, to read its control secret from (default: sandbox.db in the data directory)',
);
const WORKSPACE_LIMITS =
  "A workspace made from a snapshot shares the snapshot's catalogue (books, prices, publishers, imports) read-only with the other " +
  "workspaces of that snapshot (the snapshot's file, linked once into <db>.workspaces/.bases/): its own file holds the rest " +
  'and the catalogue rows it changes or adds, so it grows with what it writes, not with the catalogue. ' +
  'A workspace cannot delete catalogue rows, and the uniqueness of a new ISBN or SKU is checked against its own books only.';

export const workspaceCreate = verb({
  name: 'create',
  summary: 'create an isolated workspace in a running sandbox and print its credentials and base URL',
  description:
    'Makes <db>.workspaces/<name>.db from a snapshot of the sandbox database (--from, see `sandbox snapshot save`) or a fresh seed ' +
    'and serves it on a port of its own (same host): its own base URL, so pages, links and unauthenticated routes reach it too. ' +
    'The workspace has its own partner and limited keys, shared keys, operator token and control secret, printed here (they are ' +
    "what this command is for): requests signed with the main sandbox's or another workspace's credentials are refused in it (401), " +
    'and its orders are seen nowhere else. Workspaces on disk are served again (on new ports) when the sandbox starts again. ' +
    'Exit 5 (conflict) when a workspace of that name exists, 3 when there is no such snapshot. ' +
    WORKSPACE_LIMITS,
  args: [WORKSPACE_NAME],
  options: [
    option('--from <snapshot>', 'start from this snapshot of the sandbox database (default: a fresh seed)'),
    WORKSPACE_URL,
    WORKSPACE_DB,
  ],
  examples: [
    'bookdist sandbox workspace create job-1 --url http://127.0.0.1:8710',
    'bookdist sandbox snapshot save baseline',
    'bookdist sandbox workspace create job-2 --from baseline --url http://127.0.0.1:8710 --json',
  ],
  load: async () => (await import('./workspace.js')).create,
});

export const workspaceList = verb({
  name: 'list',
  summary: 'list the workspaces a running sandbox serves',
  description:
    'Lists the workspaces of a running sandbox: name, base URL, time created, and the snapshot it was copied from (or the seed).',
  options: [WORKSPACE_URL, WORKSPACE_DB],
  examples: [
    'bookdist sandbox workspace create listed --url http://127.0.0.1:8710',
    'bookdist sandbox workspace list --url http://127.0.0.1:8710 --json',
  ],
  load: async () => (await import('./workspace.js')).list,
});

export const workspaceRm = verb({
  name: 'rm',
  summary: "stop a workspace's server and delete its database",
  description:
    "Stops the workspace's server and deletes its database and key files. Asks first on a terminal; in scripts it needs --yes. Exit 3 when there is no such workspace.",
  args: [WORKSPACE_NAME],
  options: [WORKSPACE_URL, WORKSPACE_DB],
  examples: [
    'bookdist sandbox workspace create scratch --url http://127.0.0.1:8710',
    'bookdist sandbox workspace rm scratch --yes --url http://127.0.0.1:8710',
  ],
  load: async () => (await import('./workspace.js')).rm,
});

export const commands = [
  group({
    name: 'sandbox',
    summary: summaryOf('sandbox'),
    description:
      'The sandbox is a local implementation of the whole service on SQLite. bookdist uses it when ' +
      'no profile is configured; partners can run it with `bookdist sandbox serve` and point any ' +
      'client at it. The controls (clock, usage, redeem, outbox) work on its database, so they ' +
      'reach every sandbox process that uses the same file.',
    commands: [
      serve,
      credentials,
      openapi,
      reset,
      group({
        name: 'catalogue',
        summary: 'bring your own catalogue: load ONIX 3.0 or CSV titles into the sandbox',
        description:
          "Loads a publisher's titles (identifiers, metadata, digital prices) into the sandbox database, under publishers " +
          'the partner account controls, so that an integration can be tried on the books it will sell.',
        commands: [catalogueLoad],
      }),
      group({
        name: 'clock',
        summary: 'show or move the sandbox clock (expirations, refund windows)',
        description:
          'The sandbox keeps its own notion of now (real time plus an offset stored in its database), so ' +
          'rental expirations and refund windows can be tested without waiting.',
        commands: [clockAdvance, clockShow],
      }),
      usage,
      redeem,
      outbox,
      group({
        name: 'requests',
        summary: 'the request journal: list, show, tail, verify (assert in CI), clear',
        description:
          'Every request a sandbox serves is kept in its database (time, method, path, auth, account, status, duration, redacted ' +
          'bodies, what it changed, the e-mails it caused), so a test can assert what its code sent: `sandbox requests verify`.',
        commands: [requestsList, requestsShow, requestsTail, requestsVerify, requestsClear],
      }),
      group({
        name: 'fixtures',
        summary: 'set the sandbox up for a test from a file of named steps',
        description:
          'A fixture is a JSON or YAML file of named steps (operations of the service and sandbox controls) that puts the ' +
          'sandbox in the state a test needs: a user who bought a book 20 days ago and read 12% of it, a held book, a code batch.',
        commands: [fixturesApply],
      }),
      group({
        name: 'snapshot',
        summary: 'save, load, list, remove and compare snapshots of the sandbox database',
        description:
          "Snapshots are copies of the sandbox database made with SQLite's online backup: save the state a test suite starts from, " +
          'load it before each test (atomically, also into a running sandbox), and diff two states table by table.',
        commands: [snapshotSave, snapshotLoad, snapshotList, snapshotRm, snapshotDiff],
      }),
      group({
        name: 'workspace',
        summary: 'isolated workspaces of a running sandbox, one per parallel CI job: create, list, rm',
        description:
          'A workspace is a copy of the sandbox database (from a snapshot or the seed) served by the running sandbox on a port of ' +
          "its own, with credentials of its own: parallel jobs, each in its own workspace, never see each other's orders. " +
          WORKSPACE_LIMITS,
        commands: [workspaceCreate, workspaceList, workspaceRm],
      }),
    ],
  }),
];
