// `bookdist access ...`: grant and revoke a user's access to a book on a partner-hosted reader
// (internal eBook API, operator token), and keep a book's grants in sync with a roster. Every verb
// belongs to the bulk jobs. Each verb's declaration (./<verb>.cmd.ts) is tied to the module that
// runs it, loaded only when it runs.
import { group, runs } from '../define.js';
import { allow } from './allow.cmd.js';
import { revoke } from './revoke.cmd.js';
import { sync } from './sync.cmd.js';
import { summaryOf } from '../manifest.js';

export const commands = [
  group({
    name: 'access',
    summary: summaryOf('access'),
    description:
      'The access-control (internal eBook) API: give a user access to a book sold on your own reader, or ' +
      "take it back, or make a book's grants match a roster (sync). Authenticated with the operator token (BOOKDIST_TOKEN or the profile's token).",
    commands: [
      runs(allow, () => import('./allow.js')),
      runs(revoke, () => import('./revoke.js')),
      runs(sync, () => import('./sync.js')),
    ],
  }),
];
