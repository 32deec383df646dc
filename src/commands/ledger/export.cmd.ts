// The declaration of what ./export.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { option, verb } from '../define.js';
import { FILTERS, PROFILE_NOTE } from './options.js';

export const exportCmd = verb({
  name: 'export',
  summary: 'export the writes of a period, org or label as CSV or JSON (for finance)',
  description:
    'Writes the writes that match the filters as CSV (one row per write, a column per identifier) or JSON, to stdout ' +
    'or --out FILE: the monthly report of orders, refunds, codes and grants a partner sends to finance. ' +
    'It holds what was sent: writes a stopped bulk job had recorded ahead and never sent (unsent) are left out, ' +
    'and their number said on stderr, unless --status unsent selects them. ' +
    PROFILE_NOTE,
  options: [
    option('--format <format>', 'csv or json', { choices: ['csv', 'json'], default: 'csv' }),
    option('--out <file>', 'write to this new file (refused if it exists) instead of stdout'),
    ...FILTERS,
  ],
  examples: [
    'bookdist ledger export --since 2026-11-01 --until 2026-12-01 --org acme --format csv',
    'bookdist ledger export --since 30d --format json > ledger.json',
  ],
});
