// The declaration of what ./search.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { PAGING, option, verb } from '../define.js';

export const search = verb({
  name: 'search',
  summary: 'search books by ISBN, title, author or hash id',
  description:
    'Calls POST /v1/book/search/ and lists the matching books. Criteria combine; --isbn and --hash-id ' +
    'repeat (or take comma-separated values). Shows one page (--limit, --offset) and says on stderr ' +
    'when there are more; --all fetches every page and prints rows as they arrive.',
  options: [
    option('--isbn <isbn>', 'ISBN to match (repeatable)', { repeatable: 'split' }),
    option('--title <words>', 'words of the title'),
    option('--author <words>', "words of the author's name"),
    option('--hash-id <hash_id>', 'hash id to match (repeatable)', { repeatable: 'split' }),
    ...PAGING,
    option('--no-check', 'send ISBNs without verifying the check digit'),
  ],
  examples: [
    'bookdist book search --title "winter atlas"',
    'bookdist book search --isbn 9781614001379 --isbn 9781614002741 --json',
    'bookdist book search --author Brennan --all -o ndjson',
  ],
});
