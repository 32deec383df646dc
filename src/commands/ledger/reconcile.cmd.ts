// The declaration of what ./reconcile.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { option, verb } from '../define.js';
import { PROFILE_NOTE } from './options.js';

export const reconcile = verb({
  name: 'reconcile',
  summary: 'settle writes whose outcome is unknown, by reads and idempotent re-sends',
  description:
    'For every write whose outcome is unknown, finds out through the interface whether it took effect, never with ' +
    "a request that could do anything twice: a user by e-mail; a refund by the purchase's state; processing by the " +
    "book's status; an order by its order number (re-sent: the service answers with the first order and creates " +
    "nothing) or by the user's orders; access allow/revoke by re-sending (its repeat says whether it had taken " +
    'effect); codes by their Idempotency-Key where the profile says the service honours keys. Each write becomes ' +
    'confirmed, applied now, not applied, probably, or still unknown, or the reason it cannot be settled. ' +
    'Exit 0 when all settle, 6 when some remain. ' +
    PROFILE_NOTE,
  options: [
    option('--since <date>', 'only writes at or after this time'),
    option('--all', 'check writes recorded as done too'),
  ],
  examples: [
    'bookdist ledger reconcile --dry-run',
    'bookdist ledger reconcile --json > reconcile.json || echo "some writes are still unknown (exit $?): see reconcile.json"',
  ],
});
