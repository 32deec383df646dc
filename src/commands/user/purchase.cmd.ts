// The declaration of what ./purchase.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { argument, option, verb } from '../define.js';

export const purchase = verb({
  name: 'purchase',
  summary: 'show one purchase (order item) of a user',
  description:
    'Calls POST /v1/user/<username>/purchase/<purchase_id>/ and shows the purchase: book, price, ' +
    'dates and state. The purchase id is an item id of `user orders`. Without --refund-data the service ' +
    'answers faster and does not say whether a refund is still possible. Unknown purchases exit 3.',
  args: [
    argument('<username>', "the user's username (30 hex characters)"),
    argument('<purchase_id>', 'the purchase (order item) id, a whole number'),
  ],
  options: [option('--refund-data', 'also work out whether the purchase can still be refunded (slower)')],
  examples: [
    "ITEM=$(bookdist order free --username 70172cfe97283c430dcd57f8358d7a --hash-id d9c3042fe0428c908a6a57485f85569a2d9b4cb9 --json | jq '.order.items[0].id')",
    'bookdist user purchase 70172cfe97283c430dcd57f8358d7a "$ITEM"',
    'bookdist user purchase 70172cfe97283c430dcd57f8358d7a "$ITEM" --refund-data --json',
  ],
});
