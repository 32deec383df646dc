// The root command: global options and the command groups. Only commander is loaded here;
// every verb's code is imported when it runs.
import { Command, Option } from 'commander';
import { EXIT_CODE_HELP } from './errors.js';
import { registerGeneral } from './commands/general/index.js';
import { registerProfile } from './commands/profile/index.js';
import { registerSandbox } from './commands/sandbox/index.js';
import { registerBook } from './commands/book/index.js';
import { registerUser } from './commands/user/index.js';
import { registerOrder } from './commands/order/index.js';
import { registerCodes } from './commands/codes/index.js';
import { registerImport } from './commands/import/index.js';
import { registerAccess } from './commands/access/index.js';
import { registerOffers } from './commands/offers/index.js';
import { registerCompletion } from './commands/completion/index.js';
import { registerHelp } from './commands/help/index.js';

declare const __BOOKDIST_VERSION__: string | undefined;
export const VERSION = typeof __BOOKDIST_VERSION__ !== 'undefined' ? __BOOKDIST_VERSION__ : '0.0.0-dev';

export const OUTPUT_FORMATS = ['table', 'json', 'ndjson', 'csv', 'tsv'] as const;

export function exitCodesText(): string {
  return (
    'Exit codes:\n' +
    EXIT_CODE_HELP.map(([code, text]) => `  ${String(code).padStart(3)}  ${text}`).join('\n') +
    '\n'
  );
}

export function buildProgram(): Command {
  const program = new Command('bookdist');
  program
    .description(
      'Admin and partner CLI for the digital book distribution service.\n' +
        'With no profile configured it talks to a local sandbox of the whole service.',
    )
    .version(VERSION, '-V, --version', 'print the version')
    .addOption(new Option('--profile <name>', 'stored profile to use (env BOOKDIST_PROFILE)'))
    .addOption(new Option('--base-url <url>', 'service base URL (env BOOKDIST_BASE_URL)'))
    .addOption(new Option('-o, --output <format>', 'output format').choices([...OUTPUT_FORMATS]))
    .addOption(new Option('--json', 'print JSON (same as -o json)'))
    .addOption(new Option('--fields <paths>', 'only these dotted fields, comma-separated (e.g. hash_id,status.is_active)'))
    .addOption(new Option('--color <when>', 'colour output').choices(['auto', 'always', 'never']).default('auto'))
    .addOption(new Option('--timeout <duration>', 'time limit per request (e.g. 30s, 2m)').default('30s'))
    .addOption(new Option('--retries <n>', 'retries on 429, 503 and dropped connections').default('3'))
    .addOption(new Option('--debug', 'trace requests and responses on stderr (secrets redacted); stack traces'))
    .addOption(new Option('-q, --quiet', 'no notices or progress on stderr, only errors'))
    .addOption(new Option('-y, --yes', 'assume yes for confirmations (required in scripts)'))
    .addOption(new Option('--dry-run', 'print the request as a curl line (secrets redacted) and send nothing'))
    .addHelpText('after', '\nExit codes are documented by `bookdist help exit-codes`.');

  registerGeneral(program);
  registerProfile(program);
  registerSandbox(program);
  registerBook(program);
  registerUser(program);
  registerOrder(program);
  registerCodes(program);
  registerImport(program);
  registerAccess(program);
  registerOffers(program);
  registerCompletion(program);
  // Keep last: `help` closes the list of commands, as commander's own help command does.
  registerHelp(program);
  return program;
}
