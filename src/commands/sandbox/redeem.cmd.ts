// The declaration of what ./redeem.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { argument, option, verb } from '../define.js';
import { DB_OPTION, URL_OPTION } from './options.js';

export const redeem = verb({
  name: 'redeem',
  summary: 'redeem a code for a user (counts in the code summary, gives access)',
  description:
    'Redeems a generated code as that user would: the user gets access to the book and the code counts as redeemed in `bookdist codes summary`.',
  args: [argument('<code>', 'the code, XXXX-XXXX-XXXX')],
  options: [option('--username <username>', 'the user who redeems it', { required: true }), DB_OPTION, URL_OPTION],
  examples: [
    'CODE=$(bookdist codes generate --hash-id cee313141a0ce9a22774b32f87855d677d864cfb --org acme --count 1 -o ndjson | jq -r .code)',
    'bookdist sandbox redeem "$CODE" --username 70172cfe97283c430dcd57f8358d7a',
    'bookdist codes generate --hash-id cee313141a0ce9a22774b32f87855d677d864cfb --org acme --count 1 -o ndjson | jq -r .code | xargs -I{} bookdist sandbox redeem {} --username 08ceaca1d21c845c4ee6c40395842d --url http://127.0.0.1:8710',
  ],
});
