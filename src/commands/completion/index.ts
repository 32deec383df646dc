// `bookdist completion bash|zsh|fish|refresh`, and the hidden `__reference` used by
// scripts/gen-docs.mjs. Declarations only; the generators load when the command runs.
import { group, option, verb } from '../define.js';
import { summaryOf } from '../manifest.js';

const SCRIPT_TEXT =
  'generated from the command tree: commands, subcommands, options, the values of options with fixed ' +
  'choices (such as --output), and ids. The script is static: completing never runs bookdist and sends ' +
  'no request. Ids (hash ids, ISBNs, SKUs, usernames, e-mail addresses, order, purchase and price ids) ' +
  'come from a cache of what bookdist has read for the profile in use (the --profile on the line, ' +
  'else BOOKDIST_PROFILE, else the current profile), newest first, at most 100 at one TAB. The same scripts ship in completions/.';

/** One verb per shell: `bookdist completion bash` prints the bash script. */
function shellVerb<const N extends 'bash' | 'zsh' | 'fish'>(name: N, extra: string, examples: readonly string[]) {
  return verb({
    name,
    summary: `print the ${name} completion script`,
    description: `Prints the ${name} completion script, ${SCRIPT_TEXT}${extra}`,
    examples,
    load: () => import('./run.js'),
  });
}

const bash = shellVerb('bash', ' bash offers the bare ids.', [
  'source <(bookdist completion bash)',
  'bookdist completion bash > ~/.local/share/bash-completion/completions/bookdist',
]);
const zsh = shellVerb(
  'zsh',
  " zsh shows what each id stands for and also matches its words: `book get light<TAB>` offers The Lighthouse Keeper's Ledger.",
  ['bookdist completion zsh > ~/.zfunc/_bookdist', 'bookdist completion zsh | head -n 1'],
);
const fish = shellVerb('fish', ' fish shows what each id stands for and also matches its words.', [
  'bookdist completion fish > ~/.config/fish/completions/bookdist.fish',
  'bookdist completion fish | head -n 4',
]);

const refresh = verb({
  name: 'refresh',
  summary: 'put every book of the account into the completion cache',
  description:
    'Reads the whole book index of the profile in use, page by page, so that every hash id, ISBN ' +
    'and SKU completes at TAB with its title and author. The interface lists no users or orders: ' +
    'those enter the cache as commands read or create them. The cache (one directory per service ' +
    'and account under $XDG_CACHE_HOME/bookdist/ids, at most 10,000 ids of each kind, 0600 files) ' +
    'holds ids and what they stand for, never a code, key, token or password; removing it loses ' +
    'nothing. --no-cache or BOOKDIST_CACHE=off keep any command from adding to it (they cover this ' +
    "cache only, not Node's compile cache beside it).",
  examples: ['bookdist completion refresh', 'bookdist completion refresh --profile sandbox'],
  load: () => import('./refresh.js'),
});

const completion = group({
  name: 'completion',
  summary: summaryOf('completion'),
  description: 'Shell completion: the scripts for bash, zsh and fish, and the cache of ids they complete.',
  commands: [bash, zsh, fish, refresh],
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
