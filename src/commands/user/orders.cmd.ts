// The declaration of what ./orders.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { argument, verb } from '../define.js';

export const orders = verb({
  name: 'orders',
  summary: "list a user's completed orders with their items",
  description:
    'Calls GET /v1/user/<username>/orders/ and shows each completed order with its items (book, price, ' +
    'purchase and expiry dates, whether it is refunded or still refundable) and totals.',
  args: [argument('<username>', "the user's username (30 hex characters)")],
  examples: [
    'bookdist user orders 70172cfe97283c430dcd57f8358d7a',
    'bookdist user orders 70172cfe97283c430dcd57f8358d7a -o json',
  ],
});
