// A plain description of the command tree for completions and the README reference: commands,
// subcommands, aliases, options (own and inherited from ancestors), option values and choices.
// Everything comes from the commander tree, so new commands appear on regeneration.
import type { Argument, Command, Option } from 'commander';
import type { IdKind } from '../../../cache/ids.js';

/** What follows a flag: nothing, a value it requires, or a value it may take. */
type Arity = 'none' | 'required' | 'optional';

/**
 * How a value can be completed: from fixed choices, as a file path, a profile's name (the stored
 * ones and the built-in sandbox), a stored profile's name only, or not at all.
 */
export type ValueKind =
  | { kind: 'choices'; choices: string[] }
  | { kind: 'file' }
  | { kind: 'profile' }
  | { kind: 'stored-profile' }
  | { kind: 'ids'; ids: IdKind }
  | { kind: 'free' };

/** Options and arguments whose values name a profile (completed from the config file). */
const profileValues = new WeakMap<object, 'profile' | 'stored-profile'>();

/** Mark an option or argument as taking a profile name: completion offers the stored profiles and sandbox. */
export function completesProfiles<T extends object>(optionOrArgument: T): T {
  profileValues.set(optionOrArgument, 'profile');
  return optionOrArgument;
}

/** Mark an argument as naming a stored profile (not the built-in sandbox, which e.g. cannot be removed). */
export function completesStoredProfiles<T extends object>(optionOrArgument: T): T {
  profileValues.set(optionOrArgument, 'stored-profile');
  return optionOrArgument;
}

function profileKind(o: object): ValueKind | undefined {
  const kind = profileValues.get(o);
  return kind ? { kind } : undefined;
}

export interface FlagSpec {
  /** `-o` and/or `--output`, short first. */
  names: string[];
  arity: Arity;
  value: ValueKind;
  description: string;
}

interface ArgSpec {
  name: string;
  variadic: boolean;
  value: ValueKind;
}

export interface CommandSpec {
  /** Names from the root, e.g. ['book', 'get']; [] for the root. */
  path: string[];
  name: string;
  aliases: string[];
  summary: string;
  /** A help command (`bookdist help <command...>`, `bookdist book help <command>`): its words name commands. */
  isHelp: boolean;
  /** Own options first, then those inherited from ancestors (global options), deduplicated. */
  flags: FlagSpec[];
  /** This command's own visible options, with its help option. */
  ownFlags: FlagSpec[];
  args: ArgSpec[];
  commands: CommandSpec[];
}

/** Choices that are safe to put unquoted in a shell word list. */
const PLAIN_WORD = /^[A-Za-z0-9_.:@+%,/-]+$/;
/** Value names that ask for a path: <file>, <pem>, <path>, <dir>, <key-file>, <out_dir>... */
const FILE_VALUE = /(^|[-_ ])(file|files|path|dir|directory|pem)$/i;

/**
 * Value names that take an id the completion cache keeps (src/cache/ids.ts): the option's or
 * argument's own declaration (`--hash-id <hash_id>`, `<username>`) says which kind it takes.
 */
const ID_VALUES: Readonly<Record<string, IdKind>> = {
  hash_id: 'book',
  isbn: 'isbn',
  sku: 'sku',
  username: 'user',
  email: 'email',
  address: 'email',
  order_id: 'order',
  purchase_id: 'purchase',
  item_id: 'purchase',
  pricing_id: 'price',
  price_id: 'price',
  org: 'org',
  organization: 'org',
  subdomain: 'label',
  label: 'label',
  user: 'user',
  ledger_id: 'ledger',
};

function valueKind(valueName: string | undefined, choices: readonly string[] | undefined): ValueKind {
  if (choices && choices.length && choices.every((c) => PLAIN_WORD.test(c)))
    return { kind: 'choices', choices: [...choices] };
  if (valueName && FILE_VALUE.test(valueName)) return { kind: 'file' };
  const ids = valueName ? ID_VALUES[valueName] : undefined;
  if (ids) return { kind: 'ids', ids };
  return { kind: 'free' };
}

/** One line of text for a completion menu. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function summaryOf(cmd: Command): string {
  return oneLine(cmd.summary() || (cmd.description() || '').split('\n')[0] || '');
}

function flagSpec(opt: Option): FlagSpec {
  const valueName = /[<[]([^>\]]+)[>\]]/.exec(opt.flags)?.[1]?.replace(/\.\.\.$/, '');
  const names = [opt.short, opt.long].filter((n): n is string => Boolean(n));
  return {
    names,
    arity: opt.required ? 'required' : opt.optional ? 'optional' : 'none',
    value: !(opt.required || opt.optional)
      ? { kind: 'free' }
      : (profileKind(opt) ?? valueKind(valueName, opt.argChoices)),
    description: oneLine(opt.description || ''),
  };
}

function argSpec(arg: Argument): ArgSpec {
  return { name: arg.name(), variadic: arg.variadic, value: profileKind(arg) ?? valueKind(arg.name(), arg.argChoices) };
}

/** Own visible options (with the help option), then those of every ancestor, nearest first. */
function flagsOf(cmd: Command): FlagSpec[] {
  const seen = new Set<string>();
  const out: FlagSpec[] = [];
  const add = (opt: Option) => {
    const spec = flagSpec(opt);
    // A subcommand's own option shadows an ancestor's option of the same name.
    const names = spec.names.filter((n) => !seen.has(n));
    if (!names.length) return;
    names.forEach((n) => seen.add(n));
    out.push({ ...spec, names });
  };
  cmd.createHelp().visibleOptions(cmd).forEach(add);
  for (let a = cmd.parent; a; a = a.parent) a.options.filter((o) => !o.hidden).forEach(add);
  return out;
}

/** Visible subcommands in the order help lists them, including commander's implicit `help`. */
export function visibleSubcommands(cmd: Command): Command[] {
  return cmd.createHelp().visibleCommands(cmd);
}

export function buildModel(program: Command): CommandSpec {
  const walk = (cmd: Command, path: string[]): CommandSpec => {
    const commands = visibleSubcommands(cmd);
    const isHelp = path.length > 0 && cmd.name() === 'help';
    return {
      path,
      name: cmd.name(),
      aliases: cmd.aliases().filter((a) => a !== cmd.name()),
      summary: summaryOf(cmd),
      isHelp,
      flags: isHelp ? [] : flagsOf(cmd),
      ownFlags: isHelp ? [] : cmd.createHelp().visibleOptions(cmd).map(flagSpec),
      args: isHelp ? [] : cmd.registeredArguments.map(argSpec),
      commands: commands.map((c) => walk(c, [...path, c.name()])),
    };
  };
  return walk(program, []);
}

/** Every command of the model, depth first, in tree order (the root first). */
export function allCommands(root: CommandSpec): CommandSpec[] {
  const out: CommandSpec[] = [];
  const visit = (c: CommandSpec) => {
    out.push(c);
    c.commands.forEach(visit);
  };
  visit(root);
  return out;
}
