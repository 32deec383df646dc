// `bookdist help <command...>`: the help of any command, at any depth. commander's built-in help
// command only looks at its first word (`help book get` would show the help of `book`), so the
// root gets a real `help` command; groups keep commander's (`bookdist book help get`).
import type { Command } from 'commander';
import { argument, verb, type VerbInput } from '../define.js';
import { globalOptionsPage } from './parts/page.js';
import { summaryOf } from '../manifest.js';

const help = verb({
  name: 'help',
  summary: summaryOf('help'),
  description:
    'Shows the same help as `bookdist <command...> --help`: what the command does on the service, its ' +
    'options with their defaults, and examples. `bookdist help options` describes the global options ' +
    'that every command takes, and `bookdist help exit-codes` lists the exit codes.',
  args: [argument('[command...]', 'the command, e.g. book get')],
  examples: ['bookdist help book get', 'bookdist help options', 'bookdist help exit-codes'],
  // It only reads the tree it is part of: no context, nothing to load.
  handle: (input): void => showHelp(input as VerbInput<typeof help>),
});

function showHelp({ args, command: self }: VerbInput<typeof help>): void {
  const program = self.parent ?? self;
  const words = args.command;
  if (words.length === 1 && words[0] === 'options') {
    const out = program.configureOutput();
    const page = program.createHelp();
    const options = program.options
      .filter((o) => !o.hidden)
      .map((o): [string, string] => [page.optionTerm(o), page.optionDescription(o)]);
    out.writeOut?.(globalOptionsPage(options, out.getOutHelpWidth?.() ?? 80));
    return;
  }
  let target: Command = program;
  for (const word of words) {
    const next = target.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!next) {
      const known = target === program ? 'bookdist' : `bookdist ${pathOf(target)}`;
      return self.error(
        `unknown command "${[...pathOf(target).split(' ').filter(Boolean), word].join(' ')}"; run \`${known} --help\` for the commands.`,
      );
    }
    target = next;
  }
  target.help();
}

function pathOf(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c && c.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

export const commands = [help];
