// `bookdist book process`: the declaration only; the verb loads when it runs.
import { argument, option, verb } from '../define.js';
import { bulkOptions } from '../bulk-options.js';

export const processBooks = verb({
  name: 'process',
  summary: 'queue books for processing, optionally waiting until they are processed',
  description:
    'Queues books with POST /v1/book/<hash_id>/process/: hash ids as arguments and/or from --from-file ' +
    '(one per line, # comments ignored; - for stdin), --concurrency requests at a time. A book already ' +
    'queued or already processed is reported as such (not a failure); --force queues a processed book ' +
    'again, which deletes its annotations, and asks for confirmation (--yes in scripts).\n\n' +
    'With --wait it polls every --interval until every queued book is processed, printing one line per ' +
    'book on stderr as its state changes and a summary at the end (queued, already processed, processed, ' +
    'failed, timed out). With --wait, the global --timeout is the limit for the whole wait (default 30m) ' +
    'and each request keeps a 30s limit. Results go to stdout (one row per book; --json for one object), ' +
    'or with --results FILE one row per book to FILE, which makes the job resumable: after Ctrl-C, ' +
    '--resume queues only the books not queued yet and waits for the rest. ' +
    'Exit 0 only when every book succeeded; 6 when some failed or timed out; 7 when the service stayed ' +
    'unavailable (429/503/dropped connections after retries); one book alone exits as the service said ' +
    '(3 not found, 4 not authorized).',
  args: [argument('[hash_id...]', 'books to queue (40 hex characters each)')],
  options: [
    option('--from-file <file>', 'read hash ids from FILE, one per line (- for stdin)', { bulk: true }),
    option('--force', 'queue again even when already processed (deletes annotations; confirms)'),
    option('--urgent', 'put the books at the head of the queue'),
    option('--wait', 'poll until every book is processed (limit: --timeout, default 30m)'),
    option('--interval <duration>', 'time between polls with --wait (100ms to 1h)', { default: '5s' }),
    ...bulkOptions('book'),
  ],
  examples: [
    'bookdist book process 265e7ca3fb48ae61741b9b78ebf6cfb761af3a60',
    'bookdist book process --from-file hash_ids.txt --wait --timeout 20m --interval 2s',
    'bookdist book list --all -o ndjson | jq -r .hash_id | head -n 3 | bookdist book process --from-file - --wait --json',
  ],
});
