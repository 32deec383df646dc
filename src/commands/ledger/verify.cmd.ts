// The declaration of what ./verify.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { verb } from '../define.js';

export const verify = verb({
  name: 'verify',
  summary: "check the ledger's chain of hashes (exit 1 naming the first broken row)",
  description:
    'Each row of the ledger carries the SHA-256 of the row before it. This checks the whole chain: exit 0 when it ' +
    'is whole, exit 1 naming the first row that breaks it (a row changed, removed or inserted by hand).',
  examples: ['bookdist ledger verify', 'bookdist ledger verify --json'],
});
