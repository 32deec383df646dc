// `bookdist user ...`: create and invite users, look them up, their orders and purchases.
// Each verb's declaration (./<verb>.cmd.ts) is tied to the module that runs it, loaded only when it runs.
import { group, runs } from '../define.js';
import { summaryOf } from '../manifest.js';
import { invite } from './invite.cmd.js';
import { create } from './create.cmd.js';
import { get } from './get.cmd.js';
import { orders } from './orders.cmd.js';
import { purchase } from './purchase.cmd.js';

export const commands = [
  group({
    name: 'user',
    summary: summaryOf('user'),
    description:
      'Users of the service. A user is identified by its username, a 30-character hex hash that ' +
      '`user create` and `user invite` return: store it. Lookups by e-mail work too.',
    commands: [
      runs(invite, () => import('./invite.js')),
      runs(create, () => import('./create.js')),
      runs(get, () => import('./get.js')),
      runs(orders, () => import('./orders.js')),
      runs(purchase, () => import('./purchase.js')),
    ],
  }),
];
