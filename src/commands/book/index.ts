// `bookdist book ...`: look up, price, search and list books, open the reader, queue processing.
// Declarations only; each verb's code loads when it runs.
import { PAGING, argument, group, option, verb } from '../define.js';
import { processBooks } from './process.cmd.js';
import { summaryOf } from '../manifest.js';

export const get = verb({
  name: 'get',
  summary: 'show one book by hash id, ISBN or SKU',
  description:
    'Looks a book up with GET /v1/book/<hash_id>/, /v1/book/isbn/<isbn>/ or /v1/book/sku/<sku>/ and shows ' +
    'its title, author, identifiers, status flags and digital pricing. Give exactly one of <hash_id>, ' +
    '--isbn or --sku. ISBNs may have hyphens or spaces; the check digit is verified unless --no-check. ' +
    'With --isbn-file or --hash-id-file it looks up many books (one per line) as a bulk job. ' +
    'A book that does not exist exits 3.',
  args: [argument('[hash_id]', 'book hash id (40 hex characters)')],
  options: [
    option('--isbn <isbn>', 'ISBN-10 or ISBN-13'),
    option('--sku <sku>', "the book's SKU, e.g. HLP-0001"),
    option('--isbn-file <file>', 'look up every ISBN in a file (one per line; - for stdin)', { bulk: true }),
    option('--hash-id-file <file>', 'look up every hash id in a file (one per line; - for stdin)', { bulk: true }),
    option('--no-check', 'send ISBNs without verifying the check digit'),
  ],
  examples: [
    'bookdist book get --isbn 978-1-61400-137-9',
    'bookdist book get cee313141a0ce9a22774b32f87855d677d864cfb --json',
    'bookdist book get --sku HLP-0001 -o json --fields title,digital_pricing',
  ],
  load: () => import('./get.js'),
});

export const pricing = verb({
  name: 'pricing',
  summary: 'show the digital pricing of a book by ISBN',
  description:
    "Calls GET /v1/book/isbn/<isbn>/pricing/ and lists the book's digital pricing entries: the id to " +
    'pass to `order create --pricing-id`, price and currency, and whether access is limited in time.',
  options: [
    option('--isbn <isbn>', 'ISBN-10 or ISBN-13 (required)', { required: true }),
    option('--no-check', 'send the ISBN without verifying the check digit'),
  ],
  examples: ['bookdist book pricing --isbn 9781614001379', 'bookdist book pricing --isbn 1-61400-137-5 -o csv'],
  load: () => import('./pricing.js'),
});

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
  load: () => import('./search.js'),
});

export const list = verb({
  name: 'list',
  summary: 'list the books your account controls',
  description:
    'Calls POST /v1/book/index/ (the form that takes limit and offset) and lists the books of the publishers your account controls, by id. ' +
    'Shows one page (--limit, --offset) and says on stderr when there are more; --all fetches every page.',
  options: PAGING,
  examples: [
    'bookdist book list',
    'bookdist book list --limit 10 --offset 20',
    'bookdist book list --all -o csv > books.csv',
  ],
  load: () => import('./list.js'),
});

export const viewer = verb({
  name: 'viewer',
  summary: 'print the reader URL of a book for a user',
  description:
    'Calls POST /v1/book/viewer/ and prints the URL that opens the book in the reader as that user. ' +
    'The user needs an active purchase or access grant for the book (otherwise exit 3). Asking for the ' +
    'URL is not a page view. --open also opens it in a browser when on a terminal.',
  options: [
    option('--username <username>', 'the reader (30 hex characters) (required)', { required: true }),
    option('--hash-id <hash_id>', 'the book (40 hex characters) (required)', { required: true }),
    option('--open', 'open the URL in a browser (on a terminal)'),
  ],
  examples: [
    'bookdist book viewer --username 70172cfe97283c430dcd57f8358d7a --hash-id cee313141a0ce9a22774b32f87855d677d864cfb',
    'bookdist book viewer --username 70172cfe97283c430dcd57f8358d7a --hash-id cee313141a0ce9a22774b32f87855d677d864cfb --open',
  ],
  load: () => import('./viewer.js'),
});

export const commands = [
  group({
    name: 'book',
    summary: summaryOf('book'),
    description:
      'Books of the catalogue: metadata, digital pricing, search, the reader URL for a user, and processing.',
    commands: [get, pricing, search, list, viewer, processBooks],
  }),
];
