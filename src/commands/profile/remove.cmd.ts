// The declaration of what ./remove.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { argument, verb } from '../define.js';

export const remove = verb({
  name: 'remove',
  alias: 'rm',
  summary: 'delete a profile and its copied key',
  description:
    'Deletes the stored profile and the copy of its key in the config directory. The original key ' +
    'file you added it from is left alone. Asks first on a terminal; in scripts it needs --yes.',
  args: [argument('<name>', 'profile name', { completes: 'stored-profile' })],
  examples: [
    'bookdist profile add --name old --base-url https://api.example.com --token-stdin < token.txt',
    'bookdist profile remove old --yes',
  ],
});
