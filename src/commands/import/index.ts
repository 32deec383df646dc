// `bookdist import ...`: incoming titles that are not for sale yet.
// Each verb's declaration (./<verb>.cmd.ts) is tied to the module that runs it, loaded only when it runs.
import { group, runs } from '../define.js';
import { summaryOf } from '../manifest.js';
import { search } from './search.cmd.js';

export const commands = [
  group({
    name: 'import',
    summary: summaryOf('import'),
    description: 'Titles the service is importing: metadata received, files pending or being processed.',
    commands: [runs(search, () => import('./search.js'))],
  }),
];
