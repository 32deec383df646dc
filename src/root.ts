// The root command alone (global options, no command groups) and the lazy tree: a command run
// registers only the group its argv names. The full tree (src/program.ts) is built for help,
// completion, docs and anything this cannot place (a bare `bookdist`, an unknown word).
import { Command, Option } from 'commander';
import { EXIT_CODE_HELP } from './errors.js';
import { VERSION } from './version.js';
import { configureHelpLayout } from './commands/help/layout.js';
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
 * Where argv leads: `version` (no command word, --version before any --help: the root alone
 * answers), a group's name, or `full` (help, completion, a bare `bookdist`, an unknown word).
 */
export function route(argv: string[], root: Command = rootCommand()): { kind: 'version' } | { kind: 'group'; name: string } | { kind: 'full' } {
  const takesValue = new Set<string>();
  for (const o of root.options) {
    if (o.required || o.optional) {
      if (o.long) takesValue.add(o.long);
      if (o.short) takesValue.add(o.short);
    }
  }
  let version = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') return { kind: 'full' };
    if (a === '-h' || a === '--help') return { kind: 'full' };
    if (a === '-V' || a === '--version') {
      version = true;
      continue;
    }
    if (a.startsWith('-')) {
      if (takesValue.has(a)) i++;
      continue;
    }
    if (version) return { kind: 'full' };
    return Object.hasOwn(GROUPS, a) ? { kind: 'group', name: a } : { kind: 'full' };
  }
  return version ? { kind: 'version' } : { kind: 'full' };
}

/** The command tree argv needs: the root plus one group, the root alone, or the whole tree. */
export async function programFor(argv: string[]): Promise<Command> {
  const root = rootCommand();
  const where = route(argv, root);
  if (where.kind === 'version') return root;
  if (where.kind === 'group') {
    (await GROUPS[where.name]())(root);
    return root;
  }
  const { buildProgram } = await import('./program.js');
  return buildProgram();
}
