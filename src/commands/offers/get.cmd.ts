// The declaration of what ./get.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { option, verb } from '../define.js';

export const get = verb({
  name: 'get',
  summary: 'list the price offers of a book by ISBN',
  description:
    'Calls GET /api/offers.json?isbn=<isbn> and lists the offers: price id (for `offers checkout --id`), ' +
    'price, condition and rental days. A missing book exits 3; one that is unpublished or sold only by ' +
    'code is refused by the store (exit 1, with its message).',
  options: [
    option('--isbn <isbn>', 'ISBN-10 or ISBN-13 (required)', { required: true }),
    option('--no-check', 'send the ISBN without verifying the check digit'),
  ],
  examples: ['bookdist offers get --isbn 9781614001379', 'bookdist offers get --isbn 1-61400-137-5 --json'],
});
