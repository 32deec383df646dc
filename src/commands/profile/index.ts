// `bookdist profile add|list|show|use|remove|check`: stored profiles (conf) in the config directory.
// Each verb's declaration (./<verb>.cmd.ts) is tied to the module that runs it, loaded only when it runs.
import { group, runs } from '../define.js';
import { summaryOf } from '../manifest.js';
import { add } from './add.cmd.js';
import { list } from './list.cmd.js';
import { show } from './show.cmd.js';
import { use } from './use.cmd.js';
import { remove } from './remove.cmd.js';
import { check } from './check.cmd.js';

export const commands = [
  group({
    name: 'profile',
    summary: summaryOf('profile'),
    description:
      'Profiles hold a base URL, a username and credentials (an RSA key, a shared key and/or an ' +
      'access-control token). They live in $BOOKDIST_CONFIG_DIR, else $XDG_CONFIG_HOME/bookdist, else ' +
      '~/.config/bookdist (config.json and keys/, files 0600 in a 0700 directory).\n\nSettings resolve as flag > environment > profile > default; ' +
      'without any profile, bookdist uses the built-in "sandbox" profile (a local sandbox service).',
    commands: [
      runs(add, () => import('./add.js')),
      runs(list, () => import('./list.js')),
      runs(show, () => import('./show.js')),
      runs(use, () => import('./use.js')),
      runs(remove, () => import('./remove.js')),
      runs(check, () => import('./check.js')),
    ],
  }),
];
