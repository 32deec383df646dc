// The declaration of what ./show.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { argument, verb } from '../define.js';

export const show = verb({
  name: 'show',
  summary: 'show one write: its intent, outcome and settlement',
  description:
    'Shows everything the ledger holds about one write, by the id `ledger list` shows (and the "outcome unknown" error names).',
  args: [argument('<ledger_id>', "the write's id (a number)")],
  examples: ['bookdist user create --email ledger.show@example.com', 'bookdist ledger show 1'],
});
