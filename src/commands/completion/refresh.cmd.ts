// The declaration of what ./refresh.ts runs: data only, so that the command tree loads none of
// the run; ./index.ts ties it to its run.
import { verb } from '../define.js';

export const refresh = verb({
  name: 'refresh',
  summary: 'put every book of the account into the completion cache',
  description:
    'Reads the whole book index of the profile in use, page by page, so that every hash id, ISBN ' +
    'and SKU completes at TAB with its title and author. The interface lists no users or orders: ' +
    'those enter the cache as commands read or create them. The cache (one directory per service ' +
    'and account under $XDG_CACHE_HOME/bookdist/ids, at most 10,000 ids of each kind, 0600 files) ' +
    'holds ids and what they stand for, never a code, key, token or password; removing it loses ' +
    'nothing. --no-cache or BOOKDIST_CACHE=off keep any command from adding to it (they cover this ' +
    'cache only, not the code cache beside it).',
  examples: ['bookdist completion refresh', 'bookdist completion refresh --profile sandbox'],
});
