// The declaration of what ./summary.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { verb } from '../define.js';

export const summary = verb({
  name: 'summary',
  summary: 'show how many codes you generated and how many were redeemed',
  description:
    'Calls GET /v1/codes/summary/ and shows the number of codes your account generated, how many were ' +
    "redeemed, and the redemption rate. The service's field redemption_percentage (in --json, -o csv|tsv) " +
    'is a fraction from 0 to 1 despite its name: 0.25 means 25% of the codes were redeemed.',
  examples: ['bookdist codes summary', 'bookdist codes summary --json'],
});
