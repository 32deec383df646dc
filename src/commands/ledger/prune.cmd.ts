// The declaration of what ./prune.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { option, verb } from '../define.js';

export const prune = verb({
  name: 'prune',
  summary: 'remove the writes recorded before a date',
  description:
    'Removes every write whose intent was recorded before DATE (with its outcome), keeping the ledger bounded; ' +
    'the rows kept are chained anew after a row that says what was pruned. Asks for confirmation on a terminal; --yes in scripts.',
  options: [
    option('--before <date>', 'remove writes before this time (YYYY-MM-DD, ISO date-time, or an age such as 90d)', {
      required: true,
    }),
  ],
  examples: ['bookdist ledger prune --before 90d --yes', 'bookdist ledger prune --before 2026-01-01 --yes'],
});
