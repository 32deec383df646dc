// The glue between commander and verbs: option definitions stay cheap (this file imports no
// heavy module); the verb module — its schema and run() — is imported only when it runs.
import { Argument, Command, Option } from 'commander';
import type { Context } from '../context.js';
import { usageError } from '../errors.js';
import { completesProfiles, completesStoredProfiles } from './completion/parts/model.js';
import { plainOption } from './plain-option.js';

/**
 * What a verb's parse() (or its run(), without parse) receives: its arguments by name and its
 * own options by commander's attribute name, both typed from the verb's declaration, so that a
 * flag misspelt in the verb is a compile error.
 */
export interface VerbInput<V extends VerbDecl> {
  /** Positional arguments, by name (`[hash_id]` is `args.hash_id`). */
  args: ArgsOf<V>;
  /** The command's own options (camelCase keys, as commander names them). */
  opts: OptsOf<V>;
  command: Command;
}

/** A verb's code, loaded when it runs: `parse` checks what commander parsed, `run` does the work. */
interface VerbModule<I, O = I> {
  /** Turn commander's input into validated options; throw usageError() naming the flag. */
  parse?(input: I, ctx: Context): O | Promise<O>;
  /** Do the work. Return an exit code to override 0. */
  run(options: O, ctx: Context): Promise<number | void>;
}

// ---------------------------------------------------------------------------------------------
// Declarations. A verb is declared once, as data: its words, help texts, arguments, options and
// examples, and the module that runs it. mount() makes the commander commands of it; the types
// below read the same declaration to type what the verb receives (VerbInput), so the flags
// string is the one place a flag is named.

/** An option: commander's flags string and description, and what else commander needs. */
interface OptionDecl {
  readonly flags: string;
  readonly description: string;
  /** commander's requiredOption: a usage error before the verb loads when it is missing. */
  readonly required?: true;
  /** It repeats into a list: `split` also takes comma-separated values (`--isbn a,b`), `whole` keeps each value as given. */
  readonly repeatable?: 'split' | 'whole';
  readonly default?: string;
  readonly choices?: readonly string[];
  /** Completion offers profile names (stored ones and sandbox, or stored ones only). */
  readonly completes?: 'profile' | 'stored-profile';
  /** Giving it runs the verb's bulk form, which prints result rows whatever the verb's own output. */
  readonly bulk?: true;
}

/** A positional argument: `<name>` (required), `[name]` (optional), `...` for a list. */
interface ArgumentDecl {
  readonly name: string;
  readonly description: string;
  readonly choices?: readonly string[];
  readonly completes?: 'profile' | 'stored-profile';
}

interface CommandText {
  readonly name: string;
  readonly alias?: string;
  readonly hidden?: true;
  readonly summary?: string;
  readonly description: string;
  /** One shell command line each; see examples(). */
  readonly examples?: readonly string[];
}

interface VerbDecl extends CommandText {
  readonly args?: readonly ArgumentDecl[];
  readonly options?: readonly OptionDecl[];
  /**
   * The verb's module (a literal import(), so that it loads only when the verb runs). Typed loosely
   * here: the module takes VerbInput<typeof its declaration>, which would make this type refer to
   * itself; src/program.ts checks each module against its declaration (ModuleMismatches).
   */
  readonly load?: () => Promise<unknown>;
  /** For the commands that only walk the tree (help): run at once, with no context. */
  readonly handle?: (input: VerbInput<VerbDecl>) => void;
}

interface GroupDecl extends CommandText {
  readonly commands: readonly CommandDecl[];
}

export type CommandDecl = VerbDecl | GroupDecl;

/** Declare an option (the literal flags string types the value the verb receives). */
export function option<const F extends string, const C extends Omit<OptionDecl, 'flags' | 'description'> = {}>(
  flags: F,
  description: string,
  config?: C,
): { readonly flags: F; readonly description: string } & C {
  return { ...config, flags, description } as { readonly flags: F; readonly description: string } & C;
}

/** Declare a positional argument. */
export function argument<const N extends string, const C extends Omit<ArgumentDecl, 'name' | 'description'> = {}>(
  name: N,
  description: string,
  config?: C,
): { readonly name: N; readonly description: string } & C {
  return { ...config, name, description } as { readonly name: N; readonly description: string } & C;
}

/** Options declared once and shared by several verbs, kept as a tuple so that they stay typed. */
export function options<const L extends readonly OptionDecl[]>(...list: L): L {
  return list;
}

/** Declare a verb (in `<module>.cmd.ts`, beside the `<module>.ts` that runs it). */
export function verb<const V extends Omit<VerbDecl, 'load'>>(decl: V): V {
  return decl;
}

/**
 * A verb's declaration and the module that runs it (a literal import(), so that it loads only when
 * the verb runs). The group's index.ts ties the two: the declaration imports nothing of its run, and
 * the run takes its option type from the declaration, so types flow one way and no import circles.
 */
export function runs<const V extends Omit<VerbDecl, 'load'>, M>(
  decl: V,
  load: () => Promise<M>,
): V & { readonly load: () => Promise<M> } {
  return { ...decl, load };
}

/** A verb that only walks the tree it is part of (help): it runs at once, with no context. */
export function handles<const V extends Omit<VerbDecl, 'load' | 'handle'>>(
  decl: V,
  handle: (input: VerbInput<V>) => void,
): V & { readonly handle: (input: VerbInput<VerbDecl>) => void } {
  return { ...decl, handle: handle };
}

/** Declare a group of commands (`book`, `sandbox clock`). */
export function group<const G extends GroupDecl>(decl: G): G {
  return decl;
}

// The types of a declaration's values, computed from its strings as commander parses them.
type LongName<F extends string> = F extends `${string}--${infer R}`
  ? R extends `${infer N} ${string}`
    ? N
    : R
  : never;
type Camel<S extends string> = S extends `${infer H}-${infer T}` ? `${H}${Camel<Capitalize<T>>}` : S;
/** commander's attribute name: `--isbn-file <file>` is isbnFile, `--no-check` is check. */
type OptionKey<F extends string> = Camel<LongName<F> extends `no-${infer P}` ? P : LongName<F>>;
/** A value: one of its choices, or any string (a repeatable option's parser takes the place of commander's choice check: the verb checks). */
type ItemOf<D> = D extends { readonly repeatable: string }
  ? string
  : D extends { readonly choices: readonly (infer C extends string)[] }
    ? C
    : string;
type Present<D> = D extends { readonly required: true } | { readonly default: string } ? never : undefined;
type OptionValue<D extends OptionDecl> =
  LongName<D['flags']> extends `no-${string}`
    ? boolean
    : D['flags'] extends `${string}<${string}>${string}`
      ? (D extends { readonly repeatable: string } ? ItemOf<D>[] : ItemOf<D>) | Present<D>
      : D['flags'] extends `${string}[${string}]${string}`
        ? ItemOf<D> | true | Present<D>
        : true | undefined;
type ArgKey<N extends string> = N extends `${'<' | '['}${infer K}`
  ? K extends `${infer B}...${'>' | ']'}`
    ? B
    : K extends `${infer B}${'>' | ']'}`
      ? B
      : never
  : never;
type ArgValue<D extends ArgumentDecl> = D['name'] extends `${string}...${string}`
  ? ItemOf<D>[]
  : D['name'] extends `<${string}`
    ? ItemOf<D>
    : ItemOf<D> | undefined;

type OptionList<V> = V extends { readonly options: infer L extends readonly OptionDecl[] } ? L[number] : never;
type ArgumentList<V> = V extends { readonly args: infer L extends readonly ArgumentDecl[] } ? L[number] : never;
/** The options a verb receives, from its declaration. */
export type OptsOf<V> = { [D in OptionList<V> as OptionKey<D['flags']>]: OptionValue<D> };
/** The arguments a verb receives, by name, from its declaration. */
type ArgsOf<V> = { [D in ArgumentList<V> as ArgKey<D['name']>]: ArgValue<D> };

/** Does the module take what the declaration gives: VerbInput<V> to its parse(), or without parse to its run()? */
type Takes<M, I> = M extends { parse: (input: infer P, ctx: Context) => unknown }
  ? [I] extends [P]
    ? true
    : false
  : M extends { run: (options: infer P, ctx: Context) => unknown }
    ? [I] extends [P]
      ? true
      : false
    : false;
type VerbMismatch<V> = V extends { readonly load: () => Promise<infer M> }
  ? V extends VerbDecl
    ? Takes<M, VerbInput<V>> extends true
      ? never
      : V['name']
    : never
  : never;
/** The names of the verbs, anywhere under these declarations, whose module does not take what the declaration gives. */
export type ModuleMismatches<L extends readonly CommandDecl[]> = {
  [K in keyof L]: L[K] extends { readonly commands: infer C extends readonly CommandDecl[] }
    ? ModuleMismatches<C>
    : VerbMismatch<L[K]>;
}[number];

/**
 * One style for every missing option (issue 17): what is missing, and the flag that gives it,
 * as the verbs' own checks say it (`Give the book with --hash-id.`). commander's
 * `required option '--isbn <isbn>' not specified` is said the same way.
 */
function missingOptionText(option: Pick<Option, 'long' | 'flags' | 'description'>): string {
  const what = option.description.replace(/\s*\((required|at least one)[^)]*\)\s*$/i, '').trim();
  const flag = option.long ?? option.flags;
  return what ? `Give ${what} with ${flag}.` : `Give ${flag}.`;
}

declare module 'commander' {
  // commander's own members that its .d.ts leaves out and bookdist uses.
  interface Command {
    /** Set by `.command(name, { hidden: true })`. */
    _hidden: boolean;
    /** Reports a missing required option (replaced below). */
    missingMandatoryOptionValue(option: Option): never;
  }
}

Command.prototype.missingMandatoryOptionValue = function (this: Command, option: Option): never {
  return this.error(missingOptionText(option), { code: 'commander.missingMandatoryOptionValue' });
};

type ContextFactory = (command: Command) => Context;
const factories = new WeakMap<Command, ContextFactory>();
const exitCodes = new WeakMap<Command, number>();

function root(cmd: Command): Command {
  let c = cmd;
  while (c.parent) c = c.parent;
  return c;
}

export function setContextFactory(program: Command, factory: ContextFactory): void {
  factories.set(program, factory);
}

export function exitCodeOf(program: Command): number {
  return exitCodes.get(program) ?? 0;
}

/** Make the commander commands of these declarations under `parent` (the program or a group). */
export function mount(parent: Command, decls: readonly CommandDecl[]): void {
  for (const decl of decls) {
    const cmd = parent.command(decl.name, { hidden: decl.hidden });
    if (decl.alias) cmd.alias(decl.alias);
    if (decl.summary !== undefined) cmd.summary(decl.summary);
    cmd.description(decl.description);
    if ('commands' in decl) mount(cmd, decl.commands);
    else mountVerb(cmd, decl);
    if (decl.examples) examples(cmd, [...decl.examples]);
  }
}

function mountVerb(cmd: Command, decl: VerbDecl): void {
  for (const a of decl.args ?? []) {
    const arg = new Argument(a.name, a.description);
    if (a.choices) arg.choices(a.choices);
    cmd.addArgument(a.completes ? marked(arg, a.completes) : arg);
  }
  const bulkKeys: string[] = [];
  for (const o of decl.options ?? []) {
    const opt = plainOption(o.flags, o.description);
    if (o.required) opt.makeOptionMandatory();
    if (o.default !== undefined) opt.default(o.default);
    if (o.choices) opt.choices(o.choices);
    if (o.repeatable) opt.argParser(o.repeatable === 'split' ? collect : append);
    if (o.bulk) bulkKeys.push(opt.attributeName());
    cmd.addOption(o.completes ? marked(opt, o.completes) : opt);
  }
  const input = (): VerbInput<VerbDecl> => ({
    args: Object.fromEntries(cmd.registeredArguments.map((a, i) => [a.name(), cmd.processedArgs[i]])),
    opts: cmd.opts(),
    command: cmd,
  });
  const { handle, load } = decl;
  if (handle) cmd.action(() => handle(input()));
  else if (load) cmd.action(() => runVerb(cmd, load, bulkKeys, input()));
}

/** Run a verb: its context, the output options checked, then its module's parse() and run(). */
async function runVerb(
  cmd: Command,
  load: () => Promise<unknown>,
  bulkKeys: string[],
  input: VerbInput<VerbDecl>,
): Promise<void> {
  const program = root(cmd);
  const factory = factories.get(program);
  if (!factory) throw new Error('no context factory registered');
  const ctx = factory(cmd);
  // A bulk form (--from-csv, --isbn-file...) prints result rows whatever the command's own kind.
  const bulk = bulkKeys.some((k) => cmd.getOptionValue(k) !== undefined);
  await checkOutputOptions(ctx, cmd, bulk);
  // The module takes what its declaration gives (checked in src/program.ts); here every
  // declaration is seen as one shape.
  const mod = (await load()) as VerbModule<VerbInput<VerbDecl>, unknown>;
  const options = mod.parse ? await mod.parse(input, ctx) : input;
  const code = await mod.run(options, ctx);
  if (typeof code === 'number') exitCodes.set(program, code);
}

/** Output options that cannot apply to this command, and a bad --query, fail before any request. */
async function checkOutputOptions(ctx: Context, command: Command, bulk: boolean): Promise<void> {
  const spec = ctx.output;
  const g = ctx.globals;
  const name = fullName(command);
  if (spec && (spec.kind === 'message' || spec.kind === 'text') && g.fields && !(bulk && spec.bulk)) {
    throw usageError(
      `--fields selects fields of records; \`${name}\` prints ${spec.kind === 'text' ? 'text' : 'a message'}, not records.`,
    );
  }
  if (spec?.kind === 'text' && spec.ndjson && (g.json || g.output)) {
    // A stream with no end: one JSON object per line, whichever of the JSON forms is asked for.
    if (g.query || (g.output && g.output !== 'json' && g.output !== 'ndjson')) {
      throw usageError(
        `\`${name}\` prints text lines, or one JSON object per line with --json or -o ndjson: ${g.query ? '--query' : `-o ${g.output}`} does not apply.`,
      );
    }
  } else if (spec?.kind === 'text' && (g.query || g.json || g.output)) {
    throw usageError(
      `\`${name}\` prints text, not data: --json, -o and --query do not apply${spec.ndjson ? ' (--json and -o ndjson print one JSON object per line)' : ''}.`,
    );
  }
  if (g.fields) {
    const problem = (await import('../output/format.js')).fieldsProblem(g.fields);
    if (problem) throw usageError(problem);
  }
  if (g.query) (await import('../output/query.js')).compileQuery(g.query);
}

function fullName(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

const exampleLists = new WeakMap<Command, string[]>();

/**
 * Give a command its examples: one shell command line each (no line breaks; help wraps them to
 * the width). Help shows them under "Examples:", the reference and the man page list them, and
 * test/docs/examples.test.ts runs every one against a freshly seeded sandbox.
 */
function examples(cmd: Command, lines: string[]): Command {
  exampleLists.set(cmd, [...(exampleLists.get(cmd) ?? []), ...lines]);
  return cmd;
}

/** The examples of a command, as given to examples(). */
export function examplesFor(cmd: Command): string[] {
  return exampleLists.get(cmd) ?? [];
}

function marked<T extends object>(x: T, kind: 'profile' | 'stored-profile'): T {
  return kind === 'profile' ? completesProfiles(x) : completesStoredProfiles(x);
}

/** Collect a repeatable option into an array, values split at commas. */
function collect(value: string, previous: string[] = []): string[] {
  return previous.concat(
    value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
}

/** Collect a repeatable option into an array, each value as given. */
function append(value: string, previous: string[] = []): string[] {
  return previous.concat(value);
}

/** The paging options every listing shares (book search, book list, import search). */
export const PAGING = options(
  option('--limit <n>', "rows per page, a whole number (default: the service's, 50; with --all: 500, its maximum)"),
  option('--offset <n>', 'rows to skip, a whole number', { default: '0' }),
  option(
    '--all',
    'fetch every page, from --offset on; a row is listed once, and a page with no new row stops with an error naming it',
  ),
);
