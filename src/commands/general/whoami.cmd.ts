// The declaration of what ./whoami.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { verb } from '../define.js';
import { summaryOf } from '../manifest.js';

export const whoami = verb({
  name: 'whoami',
  summary: summaryOf('whoami'),
  description: "Calls GET /profile/ with the profile's credentials and shows the account, its scopes and test mode.",
  examples: ['bookdist whoami', 'bookdist whoami --json'],
});
