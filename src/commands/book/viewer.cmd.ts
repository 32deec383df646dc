// The declaration of what ./viewer.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { option, verb } from '../define.js';

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
});
