// The declaration of what ./usage.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { option, verb } from '../define.js';
import { DB_OPTION, URL_OPTION } from './options.js';

export const usage = verb({
  name: 'usage',
  summary: 'record pages read and printed by a user in a book (counts for refunds)',
  description:
    'Adds page views and prints for a user in a book, as the reader page would. The refund rules use ' +
    'them: more than 10% of the pages viewed, or any page printed, makes an item non-refundable.',
  options: [
    option('--username <username>', 'the user (30 hex characters)', { required: true }),
    option('--hash-id <hash_id>', 'the book', { required: true }),
    option('--viewed <pages>', 'pages viewed to add', { default: '0' }),
    option('--printed <pages>', 'pages printed to add', { default: '0' }),
    DB_OPTION,
    URL_OPTION,
  ],
  examples: [
    'bookdist sandbox usage --username 70172cfe97283c430dcd57f8358d7a --hash-id cee313141a0ce9a22774b32f87855d677d864cfb --viewed 40 --printed 0',
    'bookdist sandbox usage --username 70172cfe97283c430dcd57f8358d7a --hash-id cee313141a0ce9a22774b32f87855d677d864cfb --printed 1',
  ],
});
