// `bookdist codes generate`: the declaration only; the verb loads when it runs.
import { option, verb } from '../define.js';
import { CONCURRENCY } from '../bulk-options.js';

export const generate = verb({
  name: 'generate',
  summary: 'generate redemption codes for a book, any number, resumably',
  description:
    'Generates redemption codes with POST /v1/codes/generate/. A large --count is split into requests of ' +
    "at most --batch-size codes (the service's maximum per request; 1000 in the sandbox), sent with " +
    '--concurrency requests in flight over keep-alive connections. Every code is streamed as it arrives: ' +
    'to --out FILE (CSV with a header row: code,deactivation_date,limit_days,hash_id,batch; or NDJSON / ' +
    'JSON with -o) or to stdout. A progress bar (done/total, rate, ETA) is drawn on stderr when it is a ' +
    'terminal, never with --quiet.\n\n' +
    'Nothing is lost or doubled: with --out, FILE (created 0600) is locked for the run (a second job on it ' +
    "exits 2 naming the first one's pid), each batch is written and fsynced to FILE before FILE.bookdist-job " +
    'records it as done, and every request carries an Idempotency-Key made of the job id and the batch ' +
    'number. After a crash, kill -9, full disk or Ctrl-C, run the same command with --resume: a batch cut ' +
    'short is fetched again with its original key (the service answers with the codes it already made), ' +
    'so FILE ends with exactly --count codes. Ctrl-C stops new batches, waits for those in flight and ' +
    'prints the resume command, then ends by the signal (exit 130, and a calling script stops); a second Ctrl-C ' +
    'stops at once. 429 and 503 answers and dropped ' +
    'connections are retried with backoff (Retry-After honoured; a wait over 2 s prints a line); a batch ' +
    'that still fails is reported and the job goes on, then exits 6 (7 if the service stayed unavailable) ' +
    'and --resume generates what is missing. Every code returned is checked: an answer that is not the documented ' +
    'one leaves its batch to --resume (asked again with the same key); a short batch is completed by asking for the ' +
    'rest with a new key; codes beyond the asked number, and entries that are not codes, go to the rescue file, ' +
    'duplicates are never written. --resume refuses a journal edited by hand, or a job started against another ' +
    'service or account; FILE deleted or replaced during the job sends its codes to the rescue file (exit 1). ' +
    'The job ends with one summary line on stderr.',
  options: [
    option('--hash-id <hash_id>', 'book to generate codes for (40 hex characters) (required)'),
    option('--org <org>', 'organization the codes are for (required)'),
    option('--count <n>', 'how many codes in total (required)'),
    option('--limit-days <days>', 'days of access counted from redemption (0: unlimited)'),
    option('--expires <date>', 'hard date after which access ends (YYYY-MM-DD [HH:MM:SS] or ISO 8601)'),
    option('--samples', 'generate sample codes'),
    option('--label <subdomain>', 'white label sub-domain under your control'),
    option('--batch-size <n>', "codes per request, 1 to 1000 (the service's maximum per request)", { default: '1000' }),
    CONCURRENCY,
    option('--out <file>', 'write the codes to FILE (CSV unless -o ndjson|json); makes the job resumable'),
    option(
      '--resume',
      'continue an interrupted job that wrote to --out FILE: generate exactly the remainder (no FILE yet: the job starts, so a script may always pass --resume)',
    ),
    option(
      '--restart',
      'abandon the interrupted job of --out FILE (the file is kept, renamed *.abandoned-*) and start over',
    ),
  ],
  examples: [
    'bookdist codes generate --hash-id cee313141a0ce9a22774b32f87855d677d864cfb --org acme --count 500',
    'bookdist codes generate --hash-id cee313141a0ce9a22774b32f87855d677d864cfb --org acme --count 100000 --out codes.csv',
    'bookdist codes generate --hash-id cee313141a0ce9a22774b32f87855d677d864cfb --org acme --count 2000 -o ndjson --out codes.ndjson',
  ],
});
