// The declaration of what ./credentials.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { verb } from '../define.js';
import { DB_OPTION } from './options.js';

export const credentials = verb({
  name: 'credentials',
  summary: 'print the seeded accounts and operator token of a sandbox database',
  description:
    'Prints the partner and limited accounts (username, key_file = path of the private key PEM, ' +
    'public_key, shared_key) and the operator token, so that curl, the reference clients or ' +
    'your own code can talk to the sandbox. These are secrets of a local test service only.',
  options: [DB_OPTION],
  examples: ['bookdist sandbox credentials', 'bookdist sandbox credentials --json | jq -r .partner.key_file'],
});
