// `bookdist offers ...`: the store's price comparison endpoints (public, on the store host).
// Declarations only; each verb's code loads when it runs.
import { group, option, verb } from '../define.js';
import { summaryOf } from '../manifest.js';

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
  load: () => import('./get.js'),
});

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
  load: () => import('./checkout.js'),
});

export const commands = [
  group({
    name: 'offers',
    summary: summaryOf('offers'),
    description:
      "The store's public price comparison endpoints. They live on the profile's store URL (by default the " +
      'API base URL) and need no credentials.',
    commands: [get, checkout],
  }),
];
