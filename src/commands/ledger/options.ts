// Options and arguments that several of `ledger`'s declarations share.
import { option, options } from '../define.js';

export const FILTERS = options(
  option(
    '--since <date>',
    'only writes at or after this time: YYYY-MM-DD, an ISO date-time, or an age such as 24h, 7d',
  ),
  option('--until <date>', 'only writes before this time (same forms as --since)'),
  option('--op <operation>', 'only this operation, e.g. "order create", "codes generate", "access allow", api'),
  option(
    '--status <status>',
    'only writes whose outcome is this (`ledger list` and `ledger export` leave unsent writes out unless --status unsent)',
    {
      choices: ['unknown', 'failed', 'done', 'unsent'],
    },
  ),
  option('--user <user>', 'only writes naming this user (username or e-mail address)'),
  option('--book <hash_id>', 'only writes naming this book'),
  option('--job <id>', 'only the writes of this bulk job (its job id)'),
  option('--org <org>', 'only writes naming this organization'),
  option('--label <label>', 'only writes naming this white label'),
);

export const PROFILE_NOTE = 'The global --profile NAME selects the rows of that profile (it sends nothing here).';
