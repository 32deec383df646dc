// The declaration of what ./list.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { verb } from '../define.js';
import { FILTERS, PROFILE_NOTE } from './options.js';

export const list = verb({
  name: 'list',
  summary: 'list the writes recorded, newest last, with their outcome',
  description:
    'Lists the writes bookdist recorded on this machine: when, with which profile, what operation, what it ' +
    'named (user, book, order number, count...) and its status: done, failed, or unknown (no verified answer: ' +
    'see `bookdist help ledger`). ' +
    PROFILE_NOTE,
  options: [...FILTERS],
  examples: [
    'bookdist ledger list --since 7d',
    'bookdist ledger list --status unknown',
    'bookdist ledger list --op "codes generate" --json',
  ],
});
