// `bookdist order ...`: report external orders, refund them, give free access.
// Each verb's declaration (./<verb>.cmd.ts) is tied to the module that runs it, loaded only when it runs.
import { group, runs } from '../define.js';
import { summaryOf } from '../manifest.js';
import { create } from './create.cmd.js';
import { refund } from './refund.cmd.js';
import { free } from './free.cmd.js';

export const commands = [
  group({
    name: 'order',
    summary: summaryOf('order'),
    description: 'Orders processed outside the service, their refunds, and free-access orders.',
    commands: [
      runs(create, () => import('./create.js')),
      runs(refund, () => import('./refund.js')),
      runs(free, () => import('./free.js')),
    ],
  }),
];
