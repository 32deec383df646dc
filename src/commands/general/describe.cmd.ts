// The declaration of what ./describe.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { option, verb } from '../define.js';
import { summaryOf } from '../manifest.js';

export const describe = verb({
  name: 'describe',
  summary: summaryOf('describe'),
  description: 'Calls GET /v1/describe/ and lists each endpoint, its methods, scope and fields.',
  options: [option('--endpoint <name>', 'show only this endpoint (e.g. order.external)')],
  examples: ['bookdist describe', 'bookdist describe --endpoint codes.generate', 'bookdist describe -o json'],
});
