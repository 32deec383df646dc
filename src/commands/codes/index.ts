// `bookdist codes ...`: redemption codes (generation is a bulk job, see generate.cmd.ts).
// Declarations only; each verb's code loads when it runs.
import { group, verb } from '../define.js';
import { generate } from './generate.cmd.js';
import { summaryOf } from '../manifest.js';

const summary = verb({
  name: 'summary',
  summary: 'show how many codes you generated and how many were redeemed',
  description:
    'Calls GET /v1/codes/summary/ and shows the number of codes your account generated, how many were ' +
    "redeemed, and the redemption rate. The service's field redemption_percentage (in --json, -o csv|tsv) " +
    'is a fraction from 0 to 1 despite its name: 0.25 means 25% of the codes were redeemed.',
  examples: ['bookdist codes summary', 'bookdist codes summary --json'],
  load: () => import('./summary.js'),
});

export const commands = [
  group({
    name: 'codes',
    summary: summaryOf('codes'),
    description: 'Redemption codes that give a user access to a book when redeemed.',
    commands: [generate, summary],
  }),
];
