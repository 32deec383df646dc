// `bookdist codes ...`: redemption codes (generation is a bulk job).
// Each verb's declaration (./<verb>.cmd.ts) is tied to the module that runs it, loaded only when it runs.
import { group, runs } from '../define.js';
import { generate } from './generate.cmd.js';
import { summaryOf } from '../manifest.js';
import { summary } from './summary.cmd.js';

export const commands = [
  group({
    name: 'codes',
    summary: summaryOf('codes'),
    description: 'Redemption codes that give a user access to a book when redeemed.',
    commands: [runs(generate, () => import('./generate.js')), runs(summary, () => import('./summary.js'))],
  }),
];
