// The one command manifest: every command group in the order help lists it, the top-level words
// each one defines with their summaries, the bulk entry points the root help lists, and the root
// command's description and global options. Plain data (no commander, no group is loaded), so
// that `bookdist --help` renders from it alone. Derived from it: the full tree (src/program.ts
// registers the groups in this order), the lazy tree (src/root.ts builds the root and routes a
// top-level word to its group's loader), the root help (src/root-help.ts), and through the full
// tree the completions, docs/commands.md and the man page.
// Each group's definitions take their top-level summaries from here (summaryOf), so no summary is
// written twice; test/foundation/lazy-tree.test.ts checks the terms against the built tree.

/** The command groups, one folder of src/commands/ each. */
export type GroupId =
  | 'general'
  | 'profile'
  | 'sandbox'
  | 'book'
  | 'user'
  | 'order'
  | 'codes'
  | 'import'
  | 'access'
  | 'offers'
  | 'ledger'
  | 'completion'
  | 'help';

/** A top-level command: its word, its term in the root help (with its arguments), its summary. */
type TopCommand = readonly [name: string, term: string, summary: string];

export interface ManifestGroup {
  id: GroupId;
  commands: readonly TopCommand[];
  /** Help and completion walk the whole tree: a run of theirs builds it all, never this group alone. */
  wholeTree?: true;
}

export const MANIFEST: readonly ManifestGroup[] = [
  {
    id: 'general',
    commands: [
      ['status', 'status', 'show the service index: API versions and host'],
      ['whoami', 'whoami', 'show the calling account: profile and scopes'],
      ['describe', 'describe [options]', 'list every endpoint of the service with its fields'],
      ['api', 'api [options] <method> <path>', 'send a raw signed request, like `gh api`'],
    ],
  },
  {
    id: 'profile',
    commands: [['profile', 'profile', 'manage stored profiles: service URL, username and credentials']],
  },
  { id: 'sandbox', commands: [['sandbox', 'sandbox', 'run the local sandbox service and its testing controls']] },
  { id: 'book', commands: [['book', 'book', 'look up, search and list books; reader URLs; processing']] },
  { id: 'user', commands: [['user', 'user', 'create, invite and look up users; their orders and purchases']] },
  { id: 'order', commands: [['order', 'order', 'report orders, refund them, create free orders']] },
  { id: 'codes', commands: [['codes', 'codes', 'generate redemption codes and read their statistics']] },
  { id: 'import', commands: [['import', 'import', 'search imported titles that are not for sale yet']] },
  { id: 'access', commands: [['access', 'access', "grant or revoke a user's access to a book"]] },
  { id: 'offers', commands: [['offers', 'offers', 'price offers for an ISBN and pre-filled cart links']] },
  {
    id: 'ledger',
    commands: [['ledger', 'ledger', 'the local record of every write: list, verify, export, reconcile']],
  },
  {
    id: 'completion',
    commands: [['completion', 'completion', 'shell completion scripts (bash, zsh, fish) and their cache of ids']],
    wholeTree: true,
  },
  // Last: `help` closes the list of commands, as commander's own help command does.
  {
    id: 'help',
    commands: [['help', 'help [command...]', 'show the help of a command, e.g. `bookdist help book get`']],
    wholeTree: true,
  },
];

/** The bulk entry points the root help lists: [command and flag, what it does]. */
const BULK_LISTING: ReadonlyArray<readonly [term: string, description: string]> = [
  ['book get --isbn-file', 'look up every ISBN in a file'],
  ['book get --hash-id-file', 'look up every hash id in a file'],
  ['book process --from-file', 'read hash ids from FILE, one per line'],
  ['user create --from-csv', 'create one user per row of a CSV roster'],
  ['order create --from-csv', 'report one order per order number of a CSV file'],
  ['order create --from-ndjson', 'report one order per order number of an NDJSON file'],
  ['order free --from-csv', 'one free order per row of a CSV file'],
  ['codes generate', 'generate redemption codes for a book, any number, resumably'],
  ['access allow --from-csv', 'grant one per row of a CSV file'],
  ['access revoke --from-csv', 'revoke one per row of a CSV file'],
  ['access sync', "make a book's grants match a roster: allow who is new, revoke who left"],
];

// The root command itself: its description, its global options and what its help lists. src/root.ts
// builds the commander root from these, src/root-help.ts the page `bookdist --help` prints.

const OUTPUT_FORMATS = ['table', 'json', 'ndjson', 'csv', 'tsv'] as const;

export const ROOT_DESCRIPTION =
  'Admin and partner CLI for the digital book distribution service. ' +
  'With no profile configured it talks to a local sandbox of the whole service.';

/** A global option: commander's flags, description, choices and default. */
export interface RootOption {
  flags: string;
  description: string;
  choices?: readonly string[];
  default?: string;
  /** May be given more than once (the values are collected in order). */
  repeatable?: boolean;
  /**
   * A job's resume command repeats it when it was given (src/commands/given.ts): it decides where
   * and how the job runs, or (`confirm`) it answers the job's confirmation.
   */
  repeat?: true | 'confirm';
}

/** The global options, in the order help lists them (after -V, --version). */
export const ROOT_OPTIONS: readonly RootOption[] = [
  { flags: '--profile <name>', description: 'stored profile to use (env BOOKDIST_PROFILE)', repeat: true },
  { flags: '--base-url <url>', description: 'service base URL (env BOOKDIST_BASE_URL)', repeat: true },
  {
    flags: '--ca-file <file>',
    description:
      "CA certificates (PEM) to trust besides Node's, for a service with a private CA (env BOOKDIST_CA_FILE)",
    repeat: true,
  },
  { flags: '-o, --output <format>', description: 'output format', choices: OUTPUT_FORMATS, repeat: true },
  { flags: '--json', description: 'print JSON (same as -o json)', repeat: true },
  {
    flags: '--fields <paths>',
    description:
      'only these fields of each record, dotted paths relative to the record, comma-separated (e.g. hash_id,status.is_active)',
  },
  { flags: '--query <expr>', description: 'JMESPath expression over what --json prints (e.g. "results[].hash_id")' },
  {
    flags: '--color <when>',
    description: 'colour output; auto is off when piped, with NO_COLOR or TERM=dumb',
    choices: ['auto', 'always', 'never'],
    default: 'auto',
  },
  { flags: '--no-color', description: 'no colour (same as --color never)' },
  {
    flags: '--timeout <duration>',
    description: 'time limit per request, its retries and Retry-After waits included (e.g. 30s, 2m; at most 24h)',
    default: '30s',
    repeat: true,
  },
  {
    flags: '--retries <n>',
    description: 'retries on 429 (always), and on 502/503/504 and lost connections for reads and idempotent writes',
    default: '3',
    repeat: true,
  },
  { flags: '--debug', description: 'trace requests and responses on stderr (secrets redacted); stack traces' },
  { flags: '-q, --quiet', description: 'no notices or progress on stderr, only errors' },
  { flags: '-y, --yes', description: 'assume yes for confirmations (required in scripts)', repeat: 'confirm' },
  {
    flags: '--no-cache',
    description: 'do not record the ids this command reads for shell completion (env BOOKDIST_CACHE=off)',
  },
  {
    flags: '--no-ledger',
    description: 'record no write of this run in the ledger (`bookdist help ledger`; env BOOKDIST_LEDGER=off)',
  },
  {
    flags: '--dry-run',
    description:
      'print the request as a curl line (secrets redacted) and send nothing; a payload that does not match the OpenAPI document is refused (exit 2)',
  },
  {
    flags: '--resolve <host:port:addr>',
    description:
      'connect to addr when connecting to host:port, as curl --resolve does (e.g. a staging address under the production name; the certificate is still checked for host); repeatable or comma-separated (env BOOKDIST_RESOLVE)',
    repeatable: true,
    repeat: true,
  },
];

/** What the root help prints after the page. */
export const ROOT_HELP_AFTER = '\nExit codes are documented by `bookdist help exit-codes`.';

/**
 * What the root help lists, in the full tree's order: each top-level command as [term,
 * description] and each bulk entry point. `bookdist --help` shows these without loading any group
 * (loading them all costs more than Node's own start-up); a test checks them against the full
 * tree, so they cannot drift from the commands' definitions.
 */
export const ROOT_LISTING = {
  commands: MANIFEST.flatMap((g) => g.commands.map(([, term, summary]) => [term, summary] as const)),
  bulk: BULK_LISTING,
};

/** The summary of a top-level command, for its group's definition. */
export function summaryOf(name: string): string {
  for (const g of MANIFEST) for (const [n, , summary] of g.commands) if (n === name) return summary;
  throw new Error(`no top-level command "${name}" in src/commands/manifest.ts`);
}

/** Each top-level word that routes to one group (not the whole-tree ones), and that group. */
export function groupOfWord(): ReadonlyMap<string, GroupId> {
  return new Map(
    MANIFEST.filter((g) => !g.wholeTree).flatMap((g) => g.commands.map(([name]) => [name, g.id] as const)),
  );
}
