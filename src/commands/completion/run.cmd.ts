// The declarations of what ./run.ts runs (bash, zsh, fish): data only, so that the command tree
// loads none of the run; ./index.ts ties each to its run.
import { verb } from '../define.js';

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
  });
}

export const bash = shellVerb('bash', ' bash offers the bare ids.', [
  'source <(bookdist completion bash)',
  'bookdist completion bash > ~/.local/share/bash-completion/completions/bookdist',
]);
export const zsh = shellVerb(
  'zsh',
  " zsh shows what each id stands for and also matches its words: `book get light<TAB>` offers The Lighthouse Keeper's Ledger.",
  ['bookdist completion zsh > ~/.zfunc/_bookdist', 'bookdist completion zsh | head -n 1'],
);
export const fish = shellVerb('fish', ' fish shows what each id stands for and also matches its words.', [
  'bookdist completion fish > ~/.config/fish/completions/bookdist.fish',
  'bookdist completion fish | head -n 4',
]);
