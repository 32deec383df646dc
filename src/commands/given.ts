// The command line of this run as the user gave it, for the hint that repeats or resumes a job:
// made from the verb's declaration as commander parsed it. Each option keeps its value and its
// source there (given on the command line, a default, the environment), once, where the options
// are parsed; only what was given is repeated, so no default is stated twice.
import type { Command, Option } from 'commander';
import { shellQuote } from '../util/quote.js';
import { ROOT_OPTIONS } from './manifest.js';

export interface GivenChange {
  /** Options (by commander's attribute name) to give with this value, given or not. */
  set?: Readonly<Record<string, string | number>>;
  /** Options to leave out (by attribute name), e.g. `resume`, which the hint adds itself. */
  drop?: readonly string[];
  /** The arguments to give instead of those given (e.g. only the items a retry may mend). */
  args?: readonly string[];
  /** The job asks for a confirmation: a --yes given is repeated too. */
  confirms?: boolean;
}

/**
 * `bookdist <words> <options given> <arguments> <global options given>`: the command's words,
 * each option given on the command line in the order the declaration lists them, its arguments as
 * given, and the global options given that a repeated job needs to run as this one did (those
 * ROOT_OPTIONS marks `repeat`), every value quoted for the shell.
 */
export function givenCommand(cmd: Command, change: GivenChange = {}): string {
  const words: string[] = [];
  let root = cmd;
  for (let c: Command | null = cmd; c; c = c.parent) {
    words.unshift(c.name());
    root = c;
  }
  const args = cmd.registeredArguments.flatMap((_a, i) => {
    const v: unknown = cmd.processedArgs[i];
    return (Array.isArray(v) ? v : v === undefined ? [] : [v]).map(String);
  });
  const flags = cmd.options.flatMap((opt) => {
    const key = opt.attributeName();
    if (change.set && key in change.set) return [flagOf(opt), shellQuote(String(change.set[key]))];
    if (change.drop?.includes(key)) return [];
    return given(cmd, opt);
  });
  const globals = root === cmd ? [] : root.options.flatMap((opt) => (repeats(opt, change) ? given(root, opt) : []));
  return [...words, ...flags, ...(change.args ?? args).map(shellQuote), ...globals].join(' ');
}

/**
 * The command that repeats this job: as given, without --resume and --restart (the job's summary
 * adds --resume to it).
 */
export function jobCommand(cmd: Command, change: GivenChange = {}): string {
  return givenCommand(cmd, { ...change, drop: [...(change.drop ?? []), 'resume', 'restart'] });
}

/** The option as given on the command line (nothing when it was not), quoted. */
function given(cmd: Command, opt: Option): string[] {
  const key = opt.attributeName();
  if (cmd.getOptionValueSource(key) !== 'cli') return [];
  const v: unknown = cmd.getOptionValue(key);
  if (typeof v === 'boolean') return v !== opt.negate ? [flagOf(opt)] : [];
  return (Array.isArray(v) ? v : [v]).flatMap((x) => [flagOf(opt), shellQuote(String(x))]);
}

function flagOf(opt: Option): string {
  return opt.long ?? opt.short ?? '';
}

const REPEAT = new Map(ROOT_OPTIONS.map((o) => [o.flags, o.repeat]));

function repeats(opt: Option, change: GivenChange): boolean {
  const r = REPEAT.get(opt.flags);
  return r === true || (r === 'confirm' && Boolean(change.confirms));
}
