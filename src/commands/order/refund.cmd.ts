// The declaration of what ./refund.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { option, verb } from '../define.js';

export const refund = verb({
  name: 'refund',
  summary: 'refund an order, or some of its items',
  description:
    'Calls POST /v1/order/refund/ for an order reported earlier; --item narrows it to a partial refund. ' +
    'An item is refundable within 30 days of purchase and 14 days of first access, while at most 10% ' +
    'of the book was viewed and nothing printed; otherwise the service refuses (exit 1) and nothing ' +
    'changes. Asks for confirmation on a terminal; scripts must pass --yes. Without --send-email or ' +
    "--no-email the organization's setting decides whether the user is e-mailed.",
  options: [
    option('--order-id <order_id>', 'the order, a whole number (required)', { required: true }),
    option('--item <item_id>', 'refund only this item (repeatable)', { repeatable: 'split' }),
    option('--send-email', 'e-mail the refund to the user'),
    option('--no-email', 'do not e-mail the refund'),
  ],
  examples: [
    'bookdist order create --username 08ceaca1d21c845c4ee6c40395842d --pricing-id 1 --pricing-id 3 --order-type TestPlan --org harborlane --billing-file billing.json --json > order.json',
    'bookdist order refund --order-id "$(jq .order.id order.json)" --item "$(jq \'.order.items[0].id\' order.json)" --yes',
    'bookdist order refund --order-id "$(jq .order.id order.json)" --no-email --yes',
  ],
});
