// The declaration of what ./invite.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { option, verb } from '../define.js';

export const invite = verb({
  name: 'invite',
  summary: 'create a user and e-mail an invitation',
  description:
    'Calls POST /v1/user/invite/: creates the account and e-mails the user an invitation with a ' +
    'generated password. Prints the new username. An existing e-mail address exits 5 and names the ' +
    'existing user.',
  options: [
    option('--email <address>', "the user's e-mail address (required)", { required: true }),
    option('--first-name <name>', 'first name'),
    option('--last-name <name>', 'last name'),
    option('--label <subdomain>', 'white label (sub-domain) under your control'),
  ],
  examples: [
    'bookdist user invite --email ada@example.com --first-name Ada --last-name Byron',
    'bookdist user invite --email mary@example.com --label harborlane --json',
  ],
});
