// The root command alone (global options, no command groups) and the lazy tree: a command run
// registers only the group its argv names (GROUPS, from the command manifest). The full tree
// (src/program.ts) is built for help, completion, docs and anything this cannot place (a bare
// `bookdist`, an unknown word); src/cli/tree.ts chooses which.
import { Command } from 'commander';
import { EXIT_CODE_HELP } from './errors.js';
import { VERSION } from './version.js';
import { addCommandStubs, configureHelpLayout } from './commands/help/parts/layout.js';
import { completesProfiles } from './commands/completion/parts/model.js';
import {
  groupOfWord,
  type GroupId,
  ROOT_DESCRIPTION,
  ROOT_HELP_AFTER,
  ROOT_LISTING,
  ROOT_OPTIONS,
} from './commands/manifest.js';
import type { CommandDecl } from './commands/define.js';
import { plainOption } from './commands/plain-option.js';

export { ROOT_LISTING };

export function exitCodesText(): string {
  return (
    'Exit codes:\n' + EXIT_CODE_HELP.map(([code, text]) => `  ${String(code).padStart(3)}  ${text}`).join('\n') + '\n'
  );
}

/** `bookdist` with its global options and no commands. */
export function rootCommand(): Command {
  const program = new Command('bookdist');
  // Before any command is added: every command inherits the help layout.
  configureHelpLayout(program);
  program.description(ROOT_DESCRIPTION).version(VERSION, '-V, --version', 'print the version');
  for (const o of ROOT_OPTIONS) {
    const option = plainOption(o.flags, o.description);
    if (o.choices) option.choices([...o.choices]);
    if (o.default !== undefined) option.default(o.default);
    if (o.repeatable) option.argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]);
    program.addOption(o.flags.startsWith('--profile ') ? completesProfiles(option) : option);
  }
  program.addHelpText('after', ROOT_HELP_AFTER);
  return program;
}

/** A group's command declarations (src/cli/tree.ts mounts them on the root). */
type Declarations = readonly CommandDecl[];

/**
 * How each group's definitions load, by the manifest's group id (a literal import() each, so that
 * the bundle splits every group into a chunk of its own). The type makes a new manifest group
 * fail to compile until it has its loader here.
 */
const LOADERS: Record<Exclude<GroupId, 'completion' | 'help'>, () => Promise<Declarations>> = {
  general: () => import('./commands/general/index.js').then((m) => m.commands),
  profile: () => import('./commands/profile/index.js').then((m) => m.commands),
  sandbox: () => import('./commands/sandbox/index.js').then((m) => m.commands),
  book: () => import('./commands/book/index.js').then((m) => m.commands),
  user: () => import('./commands/user/index.js').then((m) => m.commands),
  order: () => import('./commands/order/index.js').then((m) => m.commands),
  codes: () => import('./commands/codes/index.js').then((m) => m.commands),
  import: () => import('./commands/import/index.js').then((m) => m.commands),
  access: () => import('./commands/access/index.js').then((m) => m.commands),
  offers: () => import('./commands/offers/index.js').then((m) => m.commands),
  ledger: () => import('./commands/ledger/index.js').then((m) => m.commands),
};

/**
 * Each top-level word and the loader of the group that defines it, from the command manifest.
 * `help` and `completion` are absent on purpose: they walk the whole tree.
 */
export const GROUPS: Record<string, () => Promise<Declarations>> = Object.fromEntries(
  [...groupOfWord()].map(([word, id]) => [word, LOADERS[id as keyof typeof LOADERS]]),
);

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
