// The root command alone (global options, no command groups) and the lazy tree: a command run
// registers only the group its argv names. The full tree (src/program.ts) is built for help,
// completion, docs and anything this cannot place (a bare `bookdist`, an unknown word).
import { Command, Option } from 'commander';
import { EXIT_CODE_HELP } from './errors.js';
import { VERSION } from './version.js';
import { addCommandStubs, configureHelpLayout } from './commands/help/layout.js';
import { completesProfiles } from './commands/completion/model.js';

export { VERSION };

export const OUTPUT_FORMATS = ['table', 'json', 'ndjson', 'csv', 'tsv'] as const;

export function exitCodesText(): string {
  return (
    'Exit codes:\n' +
    EXIT_CODE_HELP.map(([code, text]) => `  ${String(code).padStart(3)}  ${text}`).join('\n') +
    '\n'
  );
}

/** `bookdist` with its global options and no commands. */
export function rootCommand(): Command {
  const program = new Command('bookdist');
  // Before any command is added: every command inherits the help layout.
  configureHelpLayout(program);
  program
    .description(
      'Admin and partner CLI for the digital book distribution service. ' +
        'With no profile configured it talks to a local sandbox of the whole service.',
    )
    .version(VERSION, '-V, --version', 'print the version')
    .addOption(completesProfiles(new Option('--profile <name>', 'stored profile to use (env BOOKDIST_PROFILE)')))
    .addOption(new Option('--base-url <url>', 'service base URL (env BOOKDIST_BASE_URL)'))
    .addOption(new Option('-o, --output <format>', 'output format').choices([...OUTPUT_FORMATS]))
    .addOption(new Option('--json', 'print JSON (same as -o json)'))
    .addOption(new Option('--fields <paths>', 'only these fields of each record, dotted paths relative to the record, comma-separated (e.g. hash_id,status.is_active)'))
    .addOption(new Option('--query <expr>', 'JMESPath expression over what --json prints (e.g. "results[].hash_id")'))
    .addOption(new Option('--color <when>', 'colour output; auto is off when piped, with NO_COLOR or TERM=dumb').choices(['auto', 'always', 'never']).default('auto'))
    .addOption(new Option('--no-color', 'no colour (same as --color never)'))
    .addOption(new Option('--timeout <duration>', 'time limit per request (e.g. 30s, 2m)').default('30s'))
    .addOption(new Option('--retries <n>', 'retries on 429, 503 and dropped connections').default('3'))
    .addOption(new Option('--debug', 'trace requests and responses on stderr (secrets redacted); stack traces'))
    .addOption(new Option('-q, --quiet', 'no notices or progress on stderr, only errors'))
    .addOption(new Option('-y, --yes', 'assume yes for confirmations (required in scripts)'))
    .addOption(new Option('--dry-run', 'print the request as a curl line (secrets redacted) and send nothing'))
    .addHelpText('after', '\nExit codes are documented by `bookdist help exit-codes`.');
  return program;
}

type Register = (program: Command) => void;

/**
 * Each top-level word and the group that defines it. `help` and `completion` are absent on
 * purpose: they walk the whole tree. A test checks this table against the full tree.
 */
export const GROUPS: Record<string, () => Promise<Register>> = {
  status: () => import('./commands/general/index.js').then((m) => m.registerGeneral),
  whoami: () => import('./commands/general/index.js').then((m) => m.registerGeneral),
  describe: () => import('./commands/general/index.js').then((m) => m.registerGeneral),
  api: () => import('./commands/general/index.js').then((m) => m.registerGeneral),
  profile: () => import('./commands/profile/index.js').then((m) => m.registerProfile),
  sandbox: () => import('./commands/sandbox/index.js').then((m) => m.registerSandbox),
  book: () => import('./commands/book/index.js').then((m) => m.registerBook),
  user: () => import('./commands/user/index.js').then((m) => m.registerUser),
  order: () => import('./commands/order/index.js').then((m) => m.registerOrder),
  codes: () => import('./commands/codes/index.js').then((m) => m.registerCodes),
  import: () => import('./commands/import/index.js').then((m) => m.registerImport),
  access: () => import('./commands/access/index.js').then((m) => m.registerAccess),
  offers: () => import('./commands/offers/index.js').then((m) => m.registerOffers),
};

/**
 * What the root help lists, in the full tree's order: each top-level command as [term,
 * description] and each bulk entry point. `bookdist --help` shows these without loading any group
 * (loading them all costs more than Node's own start-up); a test checks them against the full
 * tree, so they cannot drift from the commands' definitions.
 */
export const ROOT_LISTING = {
  commands: [
    ['status', 'show the service index: API versions and host'],
    ['whoami', 'show the calling account: profile and scopes'],
    ['describe [options]', 'list every endpoint of the service with its fields'],
    ['api [options] <method> <path>', 'send a raw signed request, like `gh api`'],
    ['profile', 'manage stored profiles: service URL, username and credentials'],
    ['sandbox', 'run the local sandbox service and its testing controls'],
    ['book', 'look up, search and list books; reader URLs; processing'],
    ['user', 'create, invite and look up users; their orders and purchases'],
    ['order', 'report orders, refund them, create free orders'],
    ['codes', 'generate redemption codes and read their statistics'],
    ['import', 'search imported titles that are not for sale yet'],
    ['access', "grant or revoke a user's access to a book"],
    ['offers', 'price offers for an ISBN and pre-filled cart links'],
    ['completion <shell>', 'print a shell completion script (bash, zsh or fish)'],
    ['help [command...]', 'show the help of a command, e.g. `bookdist help book get`'],
  ],
  bulk: [
    ['book get --isbn-file', 'look up every ISBN in a file'],
    ['book get --hash-id-file', 'look up every hash id in a file'],
    ['book process --from-file', 'read hash ids from FILE, one per line'],
    ['codes generate', 'generate redemption codes for a book, any number, resumably'],
    ['access allow --from-csv', 'grant one per row of a CSV file'],
    ['access revoke --from-csv', 'revoke one per row of a CSV file'],
  ],
} as const;

/** The root with stub commands from ROOT_LISTING: enough for the root help, nothing runs. */
export function rootHelpProgram(): Command {
  return addCommandStubs(rootCommand(), ROOT_LISTING.commands, ROOT_LISTING.bulk);
}

/**
 * Where argv leads: `version` (no command word, --version before any --help: the root alone
 * answers), `root-help` (no command word and no --version: a bare `bookdist`, `-h`, `--help`,
 * global options alone — all answered by the root help), a group's name, or `full` (help,
 * completion, `--`, an unknown word).
 */
export function route(
  argv: string[],
  root: Command = rootCommand(),
): { kind: 'version' } | { kind: 'root-help' } | { kind: 'group'; name: string } | { kind: 'full' } {
  const takesValue = new Set<string>();
  for (const o of root.options) {
    if (o.required || o.optional) {
      if (o.long) takesValue.add(o.long);
      if (o.short) takesValue.add(o.short);
    }
  }
  let version = false;
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') return { kind: 'full' };
    if (a === '-h' || a === '--help') {
      // --help before a command word is commander's root help only when no word follows.
      help = true;
      continue;
    }
    if (a === '-V' || a === '--version') {
      version = true;
      continue;
    }
    if (a.startsWith('-')) {
      if (takesValue.has(a)) i++;
      continue;
    }
    if (version || help) return { kind: 'full' };
    return Object.hasOwn(GROUPS, a) ? { kind: 'group', name: a } : { kind: 'full' };
  }
  if (version) return help ? { kind: 'full' } : { kind: 'version' };
  return { kind: 'root-help' };
}

/** The command tree argv needs: the root plus one group, the root alone (with stubs for its help), or the whole tree. */
export async function programFor(argv: string[]): Promise<Command> {
  const root = rootCommand();
  const where = route(argv, root);
  if (where.kind === 'version') return root;
  if (where.kind === 'root-help') return addCommandStubs(root, ROOT_LISTING.commands, ROOT_LISTING.bulk);
  if (where.kind === 'group') {
    (await GROUPS[where.name]())(root);
    return root;
  }
  const { buildProgram } = await import('./program.js');
  return buildProgram();
}
