// The root command as data: its description, global options and what its help lists. src/root.ts
// builds the commander root from it, and `bookdist --help` (also -h and a bare `bookdist`) renders
// the root help from it without loading commander or any command group: Node's start-up plus this
// file and ./commands/help/page.ts. Tests check the page byte for byte against the full tree's.
import { type HelpPage, renderPage } from './commands/help/page.js';
import { BULK_LISTING, MANIFEST } from './commands/manifest.js';

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
}

/** The global options, in the order help lists them (after -V, --version). */
export const ROOT_OPTIONS: readonly RootOption[] = [
  { flags: '--profile <name>', description: 'stored profile to use (env BOOKDIST_PROFILE)' },
  { flags: '--base-url <url>', description: 'service base URL (env BOOKDIST_BASE_URL)' },
  { flags: '--ca-file <file>', description: "CA certificates (PEM) to trust besides Node's, for a service with a private CA (env BOOKDIST_CA_FILE)" },
  { flags: '-o, --output <format>', description: 'output format', choices: OUTPUT_FORMATS },
  { flags: '--json', description: 'print JSON (same as -o json)' },
  { flags: '--fields <paths>', description: 'only these fields of each record, dotted paths relative to the record, comma-separated (e.g. hash_id,status.is_active)' },
  { flags: '--query <expr>', description: 'JMESPath expression over what --json prints (e.g. "results[].hash_id")' },
  { flags: '--color <when>', description: 'colour output; auto is off when piped, with NO_COLOR or TERM=dumb', choices: ['auto', 'always', 'never'], default: 'auto' },
  { flags: '--no-color', description: 'no colour (same as --color never)' },
  { flags: '--timeout <duration>', description: 'time limit per request (e.g. 30s, 2m; at most 24h)', default: '30s' },
  { flags: '--retries <n>', description: 'retries on 429 (always), and on 502/503/504 and lost connections for reads and idempotent writes', default: '3' },
  { flags: '--debug', description: 'trace requests and responses on stderr (secrets redacted); stack traces' },
  { flags: '-q, --quiet', description: 'no notices or progress on stderr, only errors' },
  { flags: '-y, --yes', description: 'assume yes for confirmations (required in scripts)' },
  { flags: '--dry-run', description: 'print the request as a curl line (secrets redacted) and send nothing; a payload that does not match the OpenAPI document is refused (exit 2)' },
];

/** What the root help prints after the page. */
export const ROOT_HELP_AFTER = '\nExit codes are documented by `bookdist help exit-codes`.';

/**
 * What the root help lists, in the full tree's order: each top-level command as [term,
 * description] and each bulk entry point, from the command manifest. `bookdist --help` shows these
 * without loading any group (loading them all costs more than Node's own start-up); a test checks
 * them against the full tree, so they cannot drift from the commands' definitions.
 */
export const ROOT_LISTING = {
  commands: MANIFEST.flatMap((g) => g.commands.map(([, term, summary]) => [term, summary] as const)),
  bulk: BULK_LISTING,
};

/** An option's help line as commander writes it: the description, then its choices and default. */
function optionLine(o: RootOption): string {
  const extra: string[] = [];
  if (o.choices) extra.push(`choices: ${o.choices.map((c) => JSON.stringify(c)).join(', ')}`);
  if (o.default !== undefined && /[<[]/.test(o.flags)) extra.push(`default: ${JSON.stringify(o.default)}`);
  return extra.length ? `${o.description} (${extra.join(', ')})` : o.description;
}

/** The root help at `width` columns, as `bookdist --help` prints it (the after-text included). */
export function rootHelpText(width: number): string {
  const page: HelpPage = {
    usage: 'bookdist [options] [command]',
    description: ROOT_DESCRIPTION,
    args: [],
    options: [['-V, --version', 'print the version'], ...ROOT_OPTIONS.map((o): [string, string] => [o.flags, optionLine(o)]), ['-h, --help', 'display help for command']],
    commands: ROOT_LISTING.commands.map(([term, description]) => [term.split(/[ |]/)[0], term, description]),
    bulk: ROOT_LISTING.bulk.map(([term, description]) => [term, description]),
    examples: [],
    globals: [],
  };
  return `${renderPage(page, width)}${ROOT_HELP_AFTER}\n`;
}
