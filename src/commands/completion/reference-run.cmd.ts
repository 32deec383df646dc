// The declaration of what ./reference-run.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { option, verb } from '../define.js';

/** For scripts/gen-docs.mjs: docs/commands.md and man/bookdist.1, from the tree of the built CLI. */
export const reference = verb({
  name: '__reference',
  hidden: true,
  description: 'print the command reference: Markdown (docs/commands.md) or roff (man/bookdist.1)',
  options: [option('--man', 'print the man page instead of the Markdown reference')],
});
