// `bookdist completion bash|zsh|fish`, and the hidden `__reference` used by scripts/gen-docs.mjs.
// Definitions only; the generators load when the command runs.
import { Argument, type Command } from 'commander';
import { action, examples } from '../define.js';
import { summaryOf } from '../manifest.js';

export function registerCompletion(program: Command): void {
  examples(
    action(
      program
        .command('completion')
        .summary(summaryOf('completion'))
        .description(
          'Prints a completion script for bash, zsh or fish, generated from the command tree: commands, ' +
            'subcommands, options, and the values of options with fixed choices (such as --output). ' +
            'The script is static: completing never runs bookdist. The same scripts ship in completions/.',
        )
        .addArgument(new Argument('<shell>', 'the shell to complete in').choices(['bash', 'zsh', 'fish'])),
      () => import('./run.js'),
    ),
    [
      'source <(bookdist completion bash)',
      'bookdist completion zsh > ~/.zfunc/_bookdist',
      'bookdist completion fish > ~/.config/fish/completions/bookdist.fish',
    ],
  );
  // For scripts/gen-docs.mjs: docs/commands.md and man/bookdist.1, from the tree of the built CLI.
  action(
    program
      .command('__reference', { hidden: true })
      .description('print the command reference: Markdown (docs/commands.md) or roff (man/bookdist.1)')
      .option('--man', 'print the man page instead of the Markdown reference'),
    () => import('./reference-run.js'),
  );
}
