// The declaration of what ./pricing.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { option, verb } from '../define.js';

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
});
