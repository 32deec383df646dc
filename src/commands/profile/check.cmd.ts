// The declaration of what ./check.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { argument, verb } from '../define.js';

export const check = verb({
  name: 'check',
  summary: "verify a profile's credentials and show its account, scopes and test mode",
  description:
    'Sends one signed GET /profile/ with the credentials of the profile (like `gh auth status`) and ' +
    'reports the account, its scopes and whether the service is in test mode. With NAME it checks the ' +
    'stored profile as stored; without, the settings the next command would use (flag > environment > ' +
    'profile > default). Refused credentials exit 4; an unknown profile exits 3.',
  args: [argument('[name]', 'profile to check (default: the one in use)', { completes: 'profile' })],
  examples: ['bookdist profile check', 'bookdist profile check sandbox --json'],
});
