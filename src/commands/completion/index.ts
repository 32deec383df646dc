// `bookdist completion bash|zsh|fish`, and the hidden `__reference` used by scripts/gen-docs.mjs.
// Declarations only; the generators load when the command runs.
import { argument, option, verb } from '../define.js';
import { summaryOf } from '../manifest.js';

export const completion = verb({
  name: 'completion',
  summary: summaryOf('completion'),
  description:
    'Prints a completion script for bash, zsh or fish, generated from the command tree: commands, ' +
    'subcommands, options, and the values of options with fixed choices (such as --output). ' +
    'The script is static: completing never runs bookdist. The same scripts ship in completions/.',
  args: [argument('<shell>', 'the shell to complete in', { choices: ['bash', 'zsh', 'fish'] })],
  examples: [
    'source <(bookdist completion bash)',
    'bookdist completion zsh > ~/.zfunc/_bookdist',
    'bookdist completion fish > ~/.config/fish/completions/bookdist.fish',
  ],
  load: () => import('./run.js'),
});

/** For scripts/gen-docs.mjs: docs/commands.md and man/bookdist.1, from the tree of the built CLI. */
export const reference = verb({
  name: '__reference',
  hidden: true,
  description: 'print the command reference: Markdown (docs/commands.md) or roff (man/bookdist.1)',
  options: [option('--man', 'print the man page instead of the Markdown reference')],
  load: () => import('./reference-run.js'),
});

export const commands = [completion, reference];
