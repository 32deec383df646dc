// The declaration of what ./reset.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { option, verb } from '../define.js';
import { DB_OPTION } from './options.js';

export const reset = verb({
  name: 'reset',
  summary: 'recreate the sandbox database from the seed (new keys and secrets)',
  description:
    'Deletes the sandbox database (orders, users, codes, grants, outbox, clock offset) and seeds it ' +
    'again: the same catalogue, hash ids and ISBNs, with newly generated keys and secrets. Titles loaded with ' +
    '`sandbox catalogue load` are removed too unless --keep-loaded (on a terminal it asks); it says which. ' +
    'Asks first on a terminal; in scripts it needs --yes. Also resets a database written by a newer bookdist.',
  options: [
    option('--keep-loaded', 'keep the titles loaded from catalogue files (same hash ids and price ids)'),
    DB_OPTION,
  ],
  examples: [
    'bookdist sandbox reset --yes',
    'bookdist sandbox reset --yes --keep-loaded',
    'bookdist sandbox reset --db ./dev.db --yes',
  ],
});
