// The declaration of what ./search.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { PAGING, option, verb } from '../define.js';

export const search = verb({
  name: 'search',
  summary: 'search imported titles by title, author or ISBN',
  description:
    'Calls POST /v1/import/search/ and lists incoming titles not yet for sale, with their identifiers ' +
    'and import status (file received, imported, deleted). Without criteria it lists them all. ' +
    'Shows one page (--limit, --offset) and says on stderr when there are more; --all fetches every page.',
  options: [
    option('--title <words>', 'words of the title'),
    option('--author <words>', "words of the author's name"),
    option('--isbn <isbn>', 'ISBN to match (repeatable)', { repeatable: 'split' }),
    ...PAGING,
    option('--no-check', 'send ISBNs without verifying the check digit'),
  ],
  examples: [
    'bookdist import search --title ecology',
    'bookdist import search --author Mehta --json',
    'bookdist import search --all -o csv',
  ],
});
