// The options every row-driven bulk form shares (the job engine's flags), declared in one place so
// that they read the same in every verb's help.
import { option, options } from './define.js';

/** Requests in flight at once, for every bulk job. */
export const CONCURRENCY = option('--concurrency <n>', 'requests in flight at once (1 to 64)', { default: '4' });

/**
 * The job engine's flags; `what` is one input of the job (a row, a book, an order). `input`: the
 * verb is always a job (access sync), whose input is this argument; otherwise only its file form
 * (--from-csv) is.
 */
export function bulkOptions(what: string, input?: string) {
  return options(
    option(
      '--results <file>',
      `${input ? '' : 'with the file form: '}write one result per ${what} to FILE (0600, fsynced per batch; enables --resume)`,
    ),
    option(
      '--resume',
      `continue the interrupted job of --results FILE, given the same ${input ?? 'input'} (checked): only what has no final result is sent (no FILE yet: the job starts)`,
    ),
    option('--restart', 'abandon the interrupted job of --results FILE (kept as *.abandoned-*) and start over'),
    CONCURRENCY,
  );
}
