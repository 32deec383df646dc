// General endpoints: status (GET /), whoami (GET /profile/), describe, and raw `api` requests.
// Declarations only; each verb's code loads when it runs.
import { argument, option, verb } from '../define.js';
import { summaryOf } from '../manifest.js';

const status = verb({
  name: 'status',
  summary: summaryOf('status'),
  description: 'Calls GET / (no authentication) and shows the service host and its API versions.',
  examples: ['bookdist status', 'bookdist status --json'],
  load: () => import('./status.js'),
});

const whoami = verb({
  name: 'whoami',
  summary: summaryOf('whoami'),
  description: "Calls GET /profile/ with the profile's credentials and shows the account, its scopes and test mode.",
  examples: ['bookdist whoami', 'bookdist whoami --json'],
  load: () => import('./whoami.js'),
});

export const describe = verb({
  name: 'describe',
  summary: summaryOf('describe'),
  description: 'Calls GET /v1/describe/ and lists each endpoint, its methods, scope and fields.',
  options: [option('--endpoint <name>', 'show only this endpoint (e.g. order.external)')],
  examples: ['bookdist describe', 'bookdist describe --endpoint codes.generate', 'bookdist describe -o json'],
  load: () => import('./describe.js'),
});

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
  load: () => import('./api.js'),
});

export const commands = [status, whoami, describe, api];
