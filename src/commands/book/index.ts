// `bookdist book ...`: look up, price, search and list books, open the reader, queue processing.
// Each verb's declaration (./<verb>.cmd.ts) is tied to the module that runs it, loaded only when it runs.
import { group, runs } from '../define.js';
import { processBooks } from './process.cmd.js';
import { summaryOf } from '../manifest.js';
import { get } from './get.cmd.js';
import { pricing } from './pricing.cmd.js';
import { search } from './search.cmd.js';
import { list } from './list.cmd.js';
import { viewer } from './viewer.cmd.js';

export const commands = [
  group({
    name: 'book',
    summary: summaryOf('book'),
    description:
      'Books of the catalogue: metadata, digital pricing, search, the reader URL for a user, and processing.',
    commands: [
      runs(get, () => import('./get.js')),
      runs(pricing, () => import('./pricing.js')),
      runs(search, () => import('./search.js')),
      runs(list, () => import('./list.js')),
      runs(viewer, () => import('./viewer.js')),
      runs(processBooks, () => import('./process.js')),
    ],
  }),
];
