// `bookdist help <command...>`: the help of any command, at any depth (the declaration is
// ./help.cmd.ts). It only reads the tree it is part of: no context, nothing to load.
import type { Command } from 'commander';
import type { VerbInput } from '../define.js';
import type { help } from './help.cmd.js';
import { globalOptionsPage } from './parts/page.js';

export function showHelp({ args, command: self }: VerbInput<typeof help>): void {
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
