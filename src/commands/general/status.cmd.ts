// The declaration of what ./status.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { verb } from '../define.js';
import { summaryOf } from '../manifest.js';

export const status = verb({
  name: 'status',
  summary: summaryOf('status'),
  description: 'Calls GET / (no authentication) and shows the service host and its API versions.',
  examples: ['bookdist status', 'bookdist status --json'],
});
