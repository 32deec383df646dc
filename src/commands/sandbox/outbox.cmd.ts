// The declaration of what ./outbox.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { option, verb } from '../define.js';
import { DB_OPTION, URL_OPTION } from './options.js';

export const outbox = verb({
  name: 'outbox',
  summary: 'list the e-mails the service would have sent',
  description:
    'Lists the outbox: one e-mail per side effect (invitations, orders, refunds, access grants), honouring every send_email flag. Nothing is ever really sent.',
  options: [option('--to <address>', 'only e-mails to this address'), DB_OPTION, URL_OPTION],
  examples: ['bookdist sandbox outbox', 'bookdist sandbox outbox --to reader@example.com --json'],
});
