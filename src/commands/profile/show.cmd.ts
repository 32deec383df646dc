// The declaration of what ./show.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { argument, verb } from '../define.js';

export const show = verb({
  name: 'show',
  summary: 'show each resolved setting and where it came from (secrets redacted)',
  description:
    'Resolves the settings a command would use (flag > environment > profile > default) and prints ' +
    'each with its source. Keys, shared keys and tokens are never printed, only whether they are set.',
  args: [argument('[name]', 'profile to show (default: the one in use)', { completes: 'profile' })],
  examples: [
    'bookdist profile show',
    'bookdist profile show sandbox --json',
    'BOOKDIST_BASE_URL=http://localhost:8080 bookdist profile show',
  ],
});
