// `bookdist ledger ...`: the local record of every write (src/ledger/). Each verb's
// declaration (./<verb>.cmd.ts) is tied to the module that runs it, loaded only when it runs.
import { group, runs } from '../define.js';
import { summaryOf } from '../manifest.js';
import { list } from './list.cmd.js';
import { show } from './show.cmd.js';
import { verify } from './verify.cmd.js';
import { exportCmd } from './export.cmd.js';
import { prune } from './prune.cmd.js';
import { reconcile } from './reconcile.cmd.js';

export const commands = [
  group({
    name: 'ledger',
    summary: summaryOf('ledger'),
    description:
      'bookdist records every write it sends (orders, refunds, free orders, users, codes, grants and revokes, ' +
      'processing, `bookdist api` writes, every item of every bulk job) in a local ledger: a row before the ' +
      'request is sent (made durable first) and a row after. It lives in $BOOKDIST_STATE_DIR, else ' +
      '$XDG_STATE_HOME/bookdist, else ~/.local/state/bookdist (ledger.ndjson, 0600 in a 0700 directory). It ' +
      'holds identifiers (usernames, e-mail addresses as given, hash ids, order numbers and ids, orgs, labels, ' +
      'counts, Idempotency-Keys) and never a secret: no key, token, signature or password, and no redemption ' +
      'code (a batch is kept as its count and SHA-256).\n\n' +
      'The states of a write:\n' +
      '  done: the service gave the answer the interface promises.\n' +
      '  failed: the service refused it, or it was never sent.\n' +
      '  unknown: no verified answer (a lost connection, a timeout, an HTML page, a redirect, a batch of codes of another size than asked), or the process was killed: it may or may not have taken effect.\n' +
      "  unsent: a bulk job records its next requests ahead and stopped (Ctrl-C, a fatal error) before sending this one: it never left. `ledger list` and `ledger export` leave these out and say how many (`--status unsent` selects them); reconcile leaves them alone, and the job's --resume sends the item.\n\n" +
      '`bookdist ledger reconcile` settles unknown writes, each becoming:\n' +
      '  confirmed: it had taken effect.\n' +
      '  applied now: it had not; an idempotent re-send made it take effect now.\n' +
      '  not applied: it had not taken effect.\n' +
      '  probably: a read suggests it took effect, but more than one record could match.\n' +
      '  still unknown: the service could not be asked now (try again later).\n' +
      '  cannot settle: the interface offers no way to tell (the reason is given).\n\n' +
      'With --all it also checks done writes where a read can; one that only a write could check is shown as not checked, with why, and stays done.\n\n' +
      "Turn it off with --no-ledger, BOOKDIST_LEDGER=off, or a profile's setting (`bookdist profile add --no-ledger`). " +
      "The embedded sandbox's writes are recorded under the profile name sandbox.",
    commands: [
      runs(list, () => import('./list.js')),
      runs(show, () => import('./show.js')),
      runs(verify, () => import('./verify.js')),
      runs(exportCmd, () => import('./export.js')),
      runs(prune, () => import('./prune.js')),
      runs(reconcile, () => import('./reconcile.js')),
    ],
  }),
];
