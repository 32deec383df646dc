// The declaration of what ./get.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { argument, option, verb } from '../define.js';

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
});
