// The glue between commander and verbs: option definitions stay cheap (this file imports no
// heavy module); the verb module — its schema and run() — is imported only when it runs.
import { Command, type Option } from 'commander';
import type { Context } from '../context.js';
import { outputSpecOf } from '../output/model.js';
import { usageError } from '../errors.js';

export interface VerbInput {
  /** Positional arguments as commander parsed them. */
  args: any[];
  /** The command's own options (camelCase keys). */
  opts: Record<string, any>;
  command: Command;
}

export interface VerbModule<O = any> {
  /** Turn commander's input into validated options; throw usageError() naming the flag. */
  parse?(input: VerbInput, ctx: Context): O | Promise<O>;
  /** Do the work. Return an exit code to override 0. */
  run(options: O, ctx: Context): Promise<number | void>;
}

/**
 * One style for every missing option (issue 17): what is missing, and the flag that gives it,
 * as the verbs' own checks say it (`Give the book with --hash-id.`). commander's
 * `required option '--isbn <isbn>' not specified` is said the same way.
 */
export function missingOptionText(option: Pick<Option, 'long' | 'flags' | 'description'>): string {
  const what = option.description.replace(/\s*\((required|at least one)[^)]*\)\s*$/i, '').trim();
  const flag = option.long ?? option.flags;
  return what ? `Give ${what} with ${flag}.` : `Give ${flag}.`;
}

(Command.prototype as any).missingMandatoryOptionValue = function (this: Command, option: Option): never {
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

/** Attach a lazily loaded verb to a command. */
export function action<O>(cmd: Command, load: () => Promise<VerbModule<O>>): Command {
  return cmd.action(async (...received: any[]) => {
    const command = received[received.length - 1] as Command;
    const program = root(command);
    const factory = factories.get(program);
    if (!factory) throw new Error('no context factory registered');
    const ctx = factory(command);
    ctx.output = outputSpecOf(command);
    await checkOutputOptions(ctx, command);
    const mod = await load();
    const input: VerbInput = { args: command.processedArgs ?? received.slice(0, -2), opts: command.opts(), command };
    const options = mod.parse ? await mod.parse(input, ctx) : (input as unknown as O);
    const code = await mod.run(options, ctx);
    if (typeof code === 'number') exitCodes.set(program, code);
  });
}

/** Output options that cannot apply to this command, and a bad --query, fail before any request. */
async function checkOutputOptions(ctx: Context, command: Command): Promise<void> {
  const spec = ctx.output;
  const g = ctx.globals;
  const name = fullName(command);
  // A bulk mode (--from-csv, --isbn-file...) prints result rows whatever the command's own kind.
  const opts = command.opts();
  const bulk = spec?.bulk && ['fromCsv', 'fromNdjson', 'fromFile', 'isbnFile', 'hashIdFile'].some((k) => opts[k] !== undefined);
  if (spec && (spec.kind === 'message' || spec.kind === 'text') && g.fields && !bulk) {
    throw usageError(`--fields selects fields of records; \`${name}\` prints ${spec.kind === 'text' ? 'text' : 'a message'}, not records.`);
  }
  if (spec?.kind === 'text' && (g.query || g.json || g.output)) {
    throw usageError(`\`${name}\` prints text, not data: --json, -o and --query do not apply.`);
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
export function examples(cmd: Command, lines: string[]): Command {
  exampleLists.set(cmd, [...(exampleLists.get(cmd) ?? []), ...lines]);
  return cmd;
}

/** The examples of a command, as given to examples(). */
export function examplesFor(cmd: Command): string[] {
  return exampleLists.get(cmd) ?? [];
}

/** Collect a repeatable option into an array. */
export function collect(value: string, previous: string[] = []): string[] {
  return previous.concat(value.split(',').map((s) => s.trim()).filter(Boolean));
}

/** The paging options every listing shares (book search, book list, import search). */
export function pagingOptions(cmd: Command): Command {
  return cmd
    .option('--limit <n>', 'rows per page, a whole number (default: the service\'s, 50; with --all: 500, its maximum)')
    .option('--offset <n>', 'rows to skip, a whole number', '0')
    .option('--all', 'fetch every page, from --offset on');
}
