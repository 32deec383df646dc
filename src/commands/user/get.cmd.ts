// The declaration of what ./get.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { argument, option, verb } from '../define.js';

export const get = verb({
  name: 'get',
  summary: 'show a user by username or e-mail',
  description:
    'Calls GET /v1/user/<username>/ or /v1/user/email/<email>/ and shows the user: name, e-mail, ' +
    'status, profile, owner and permissions. Give exactly one of <username> or --email. Unknown users exit 3.',
  args: [argument('[username]', "the user's username (30 hex characters)")],
  options: [option('--email <address>', 'look the user up by e-mail address')],
  examples: [
    'bookdist user get 70172cfe97283c430dcd57f8358d7a',
    'bookdist user get --email avery.reader@example.com --json',
  ],
});
