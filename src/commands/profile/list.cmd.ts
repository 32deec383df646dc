// The declaration of what ./list.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { verb } from '../define.js';

export const list = verb({
  name: 'list',
  alias: 'ls',
  summary: 'list stored profiles; * marks the current one',
  description:
    'Lists the stored profiles with their base URL, username and kind of credentials. The current ' +
    'profile is marked with *; with none stored, the built-in sandbox profile is in use.',
  examples: ['bookdist profile list', 'bookdist profile list --json'],
});
