// The declaration of what ./create.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { option, verb } from '../define.js';
import { bulkOptions } from '../bulk-options.js';

export const create = verb({
  name: 'create',
  summary: 'create a user silently and show its password once',
  description:
    'Calls POST /v1/user/: creates the account without e-mailing anyone. The service generates a ' +
    'password unless --password-stdin gives one (read from stdin, never from the command line). ' +
    'A generated password is shown once, with a warning, and never logged. An existing e-mail ' +
    'address exits 5 and names the existing user.\n\n' +
    'With --from-csv ROSTER, one user per row of a CSV file whose header names email and optionally ' +
    'first_name,last_name,label: each row gets one result (row, status, username, email, message; status ' +
    'ok, exists, invalid or failed) on stdout or in --results FILE. An e-mail address that already has an ' +
    'account is `exists` with its username, not a failure, so a roster can be run again. Generated ' +
    'passwords are not recorded. The job exits 6 when rows were invalid or failed.',
  options: [
    option('--email <address>', "the user's e-mail address (required unless --from-csv)"),
    option('--first-name <name>', 'first name'),
    option('--last-name <name>', 'last name'),
    option('--password-stdin', 'read the password from stdin (one line) instead of generating one'),
    option('--label <subdomain>', 'white label (sub-domain) under your control'),
    option('--from-csv <file>', 'create one user per row of a CSV roster (- for stdin)', { bulk: true }),
    ...bulkOptions('row'),
  ],
  examples: [
    'bookdist user create --email grace@example.com --first-name Grace --last-name Hopper',
    'printf %s "$PW" | bookdist user create --email alan@example.com --password-stdin',
    'bookdist user create --from-csv roster.csv --results roster.results.csv',
  ],
});
