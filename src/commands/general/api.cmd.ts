// The declaration of what ./api.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { argument, option, verb } from '../define.js';
import { summaryOf } from '../manifest.js';

export const api = verb({
  name: 'api',
  summary: summaryOf('api'),
  description:
    'Sends a signed request to any path of the service and prints the response body as JSON. ' +
    'POST payloads are built from -f/-F fields or read from --input (a JSON object; a top-level ' +
    '"request" member is unwrapped) and sent form-encoded as the service expects. ' +
    'An answer that is not one the interface promises (a redirect, which is never followed; a body that is not JSON; ' +
    '"success": false) is an error after its JSON is printed, and for a write its outcome is unknown (so in the ledger).',
  args: [
    argument('<method>', 'GET or POST'),
    argument('<path>', 'path on the service, e.g. /v1/book/isbn/9780000000000/'),
  ],
  options: [
    option('-f, --field <key=value>', 'string field (repeatable)', { repeatable: 'whole' }),
    option('-F, --raw-field <key=value>', 'typed field: number, true/false, null or JSON (repeatable)', {
      repeatable: 'whole',
    }),
    option('--input <file>', 'read the JSON payload from a file, or - for stdin'),
    option('--auth <kind>', 'credentials to use; default from the path (access for /v1/access/, none for /)', {
      choices: ['partner', 'access', 'none'],
    }),
    option('--store', 'send to the price comparison (store) host'),
    option('-i, --include', 'print the status line and headers on stderr'),
  ],
  examples: [
    'bookdist api GET /v1/codes/summary/',
    'bookdist api POST /v1/book/search/ -F \'isbn=["9781614001379"]\'',
    `printf '{"isbn":["%s"],"limit":5}' 9781614001379 | bookdist api POST /v1/book/search/ --input -`,
  ],
});
