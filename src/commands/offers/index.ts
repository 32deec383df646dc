// `bookdist offers ...`: the store's price comparison endpoints (public, on the store host).
// Each verb's declaration (./<verb>.cmd.ts) is tied to the module that runs it, loaded only when it runs.
import { group, runs } from '../define.js';
import { summaryOf } from '../manifest.js';
import { get } from './get.cmd.js';
import { checkout } from './checkout.cmd.js';

export const commands = [
  group({
    name: 'offers',
    summary: summaryOf('offers'),
    description:
      "The store's public price comparison endpoints. They live on the profile's store URL (by default the " +
      'API base URL) and need no credentials.',
    commands: [runs(get, () => import('./get.js')), runs(checkout, () => import('./checkout.js'))],
  }),
];
