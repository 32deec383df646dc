// The command line of this run as the user gave it, for the hint that repeats or resumes a job:
// made from the verb's declaration as commander parsed it. Each option keeps its value and its
// source there (given on the command line, a default, the environment), once, where the options
// are parsed; only what was given is repeated, so no default is stated twice.
import type { Command } from 'commander';
import { shellQuote } from '../bulk/command-line.js';

export interface GivenChange {
  /** Options (by commander's attribute name) to give with this value, given or not. */
  set?: Readonly<Record<string, string | number>>;
  /** Options to leave out (by attribute name), e.g. `resume`, which the hint adds itself. */
  drop?: readonly string[];
  /** The arguments to give instead of those given (e.g. only the items a retry may mend). */
  args?: readonly string[];
}

/**
 * `bookdist <words> <options given> <arguments>`: the command's words, each option given on the
 * command line in the order the declaration lists them, and its arguments as given, every value
 * quoted for the shell. Global options are not included (src/bulk/command-line.ts, globalArgv).
 */
export function givenCommand(cmd: Command, change: GivenChange = {}): string {
  const words: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) words.unshift(c.name());
  const given = cmd.registeredArguments.flatMap((_a, i) => {
    const v: unknown = cmd.processedArgs[i];
    return (Array.isArray(v) ? v : v === undefined ? [] : [v]).map(String);
  });
  const args = (change.args ?? given).map(shellQuote);
  const flags = cmd.options.flatMap((opt) => {
    const key = opt.attributeName();
    const long = opt.long ?? opt.short ?? '';
    if (change.set && key in change.set) return [long, shellQuote(String(change.set[key]))];
    if (change.drop?.includes(key) || cmd.getOptionValueSource(key) !== 'cli') return [];
    const v: unknown = cmd.getOptionValue(key);
    if (typeof v === 'boolean') return v !== opt.negate ? [long] : [];
    return (Array.isArray(v) ? v : [v]).flatMap((x) => [long, shellQuote(String(x))]);
  });
  return [...words, ...flags, ...args].join(' ');
}
