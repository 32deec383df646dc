// The declaration of what ./checkout.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { option, verb } from '../define.js';

export const checkout = verb({
  name: 'checkout',
  summary: 'print the URL of a cart pre-filled with offers',
  description:
    'Calls GET /checkout?ids=…&rejoiner_ids=… on the store, which redirects to a pre-populated cart, and ' +
    "prints the cart's absolute URL (the redirect is not followed). --open also opens it in a browser " +
    'when on a terminal.',
  options: [
    option('--id <price_id>', 'price id of an offer, a whole number (repeatable; at least one)', {
      repeatable: 'split',
    }),
    option('--rejoiner-id <id>', 'rejoiner id of a book (repeatable)', { repeatable: 'split' }),
    option('--open', 'open the cart in a browser (on a terminal)'),
  ],
  examples: ['bookdist offers checkout --id 1', 'bookdist offers checkout --id 1 --id 3 --rejoiner-id rj-42 --open'],
});
