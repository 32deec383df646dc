// `bookdist help <command...>`: the help of any command, at any depth. commander's built-in help
// command only looks at its first word (`help book get` would show the help of `book`), so the
// root gets a real `help` command; groups keep commander's (`bookdist book help get`).
import type { Command } from 'commander';
import { examples } from '../define.js';
import { globalOptionsPage } from './page.js';
import { summaryOf } from '../manifest.js';

export function registerHelp(program: Command): void {
  examples(
    program
      .command('help')
      .summary(summaryOf('help'))
      .description(
        'Shows the same help as `bookdist <command...> --help`: what the command does on the service, its ' +
          'options with their defaults, and examples. `bookdist help options` describes the global options ' +
          'that every command takes, and `bookdist help exit-codes` lists the exit codes.',
      )
      .argument('[command...]', 'the command, e.g. book get')
      .action((words: string[], _opts: unknown, self: Command) => {
        if (words.length === 1 && words[0] === 'options') {
          const out = program.configureOutput();
          const help = program.createHelp();
          const options = program.options.filter((o) => !o.hidden).map((o): [string, string] => [help.optionTerm(o), help.optionDescription(o)]);
          out.writeOut?.(globalOptionsPage(options, out.getOutHelpWidth?.() ?? 80));
          return;
        }
        let target: Command = program;
        for (const word of words) {
          const next = target.commands.find((c) => c.name() === word || c.aliases().includes(word));
          if (!next) {
            const known = target === program ? 'bookdist' : `bookdist ${pathOf(target)}`;
            self.error(`unknown command "${[...pathOf(target).split(' ').filter(Boolean), word].join(' ')}"; run \`${known} --help\` for the commands.`);
          }
          target = next;
        }
        target.help();
      }),
    ['bookdist help book get', 'bookdist help options', 'bookdist help exit-codes'],
  );
}

function pathOf(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c && c.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}
