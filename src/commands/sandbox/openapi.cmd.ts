// The declaration of what ./openapi.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { option, verb } from '../define.js';

export const openapi = verb({
  name: 'openapi',
  summary: 'print the OpenAPI 3.1 document of the service',
  description:
    'Prints the OpenAPI 3.1 document of the whole service (every path, method, request field, response ' +
    'shape, the error body and the authentication schemes), generated from the same endpoint table as ' +
    'the client and the sandbox. A running sandbox serves it at GET /openapi.json.',
  options: [option('--server <url>', 'base URL to name under "servers"', { default: 'http://127.0.0.1:8710' })],
  examples: [
    'bookdist sandbox openapi > openapi.json',
    "bookdist sandbox openapi --server http://127.0.0.1:9000 | jq '.paths | keys'",
  ],
});
