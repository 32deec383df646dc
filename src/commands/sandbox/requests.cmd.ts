// The declarations of what ./requests.ts runs (requestsList, requestsShow, requestsTail,
// requestsVerify, requestsClear): data only, so that the command tree loads none of the run;
// ./index.ts ties each to its run.
import { argument, option, verb } from '../define.js';
import { DB_OPTION, URL_OPTION } from './options.js';

const FILTER_OPTIONS = [
  option('--method <method>', 'only requests with this HTTP method (GET, POST...)'),
  option(
    '--path <pattern>',
    'only requests to this path; * matches any characters (/v1/order/*); a final / is optional',
  ),
  option('--status <status>', 'only answers with this status (201) or class (4xx)'),
  option(
    '--account <username>',
    'only requests made as this account (its username, or operator for the operator token)',
  ),
  option('--since <when>', 'only requests from this time on: an ISO time, or a duration back from now (10m, 2h)'),
  option(
    '--body <name=value>',
    'only requests whose body field has this value (dotted for nested fields; name alone: present) (repeatable)',
    { repeatable: 'whole' },
  ),
];
export const requestsList = verb({
  name: 'list',
  summary: 'list the requests the sandbox served (its request journal)',
  description:
    "Lists the requests in the sandbox's request journal, oldest first (the newest 100 unless --limit): time, method, path, status, " +
    'duration, auth mode and account. The journal lives in the sandbox database, so every `sandbox serve` on one file writes to and ' +
    'reads from one journal; it keeps the newest 10,000 requests by default (`sandbox serve --journal-size`), bodies with ' +
    'signatures, keys, tokens and passwords redacted. `requests show ID` prints one with its bodies, changes and e-mails.',
  options: [
    ...FILTER_OPTIONS,
    option('--limit <n>', 'show at most the newest n matching requests (default 100)'),
    DB_OPTION,
    URL_OPTION,
  ],
  examples: [
    'bookdist book list --limit 1',
    "bookdist sandbox requests list --method GET --path '/v1/book/*'",
    'bookdist sandbox requests list --status 4xx --since 10m --json',
  ],
});
export const requestsShow = verb({
  name: 'show',
  summary: 'show one journaled request: headers, bodies, what it changed, its e-mails',
  description:
    'Prints one request of the journal: time (real and sandbox clock), method, path, status, duration, auth mode and account, ' +
    'its headers and request and response bodies (secrets redacted), what it changed (orders, purchases, grants, users, codes, ' +
    'refunds, other rows by table) and the outbox e-mails it caused (`sandbox outbox` shows them). Exit 3 when the id is not in the journal.',
  args: [argument('<id>', 'the request id (from `sandbox requests list`)')],
  options: [DB_OPTION, URL_OPTION],
  examples: [
    'bookdist book list --limit 1',
    'bookdist sandbox requests show "$(bookdist sandbox requests list --limit 1 -o ndjson | jq -r .id)"',
    'bookdist sandbox requests list --limit 1 -o ndjson | jq -r .id | xargs bookdist sandbox requests show --json',
  ],
});
export const requestsTail = verb({
  name: 'tail',
  summary: 'follow the requests as the sandbox serves them, until Ctrl-C',
  description:
    'Prints each new request of the journal as one line (id, time, method, path, status, duration, auth, account), ' +
    'within a fraction of a second of its answer, until Ctrl-C. With --json (or -o ndjson) each request is one JSON object ' +
    'on a line of its own (NDJSON, the fields of `requests show --json`), written as it comes. The filters of `requests list` apply.',
  options: [...FILTER_OPTIONS, DB_OPTION, URL_OPTION],
  examples: [
    'timeout --preserve-status -s INT 2 bookdist sandbox requests tail --status 4xx',
    'timeout --preserve-status -s INT 2 bookdist sandbox requests tail --method POST --path "/v1/order/*"',
    'timeout --preserve-status -s INT 2 bookdist sandbox requests tail --json | jq -c "{id, status}"',
  ],
});
export const requestsVerify = verb({
  name: 'verify',
  summary: 'assert how many journaled requests match (exit 0), else print a diff (exit 1)',
  description:
    'The one-line assertion of a CI job: counts the requests of the journal that match the filters (at least --method or --path) and ' +
    'exits 0 when there are exactly --count N, at least --at-least N, or none (--none); otherwise exits 1 and prints on stderr what ' +
    'was expected, the requests that matched, and the near misses (same path or method, one field different, with that field). ' +
    '--json prints the outcome as one JSON object on stdout. `requests clear` before a test run starts a clean journal.',
  options: [
    ...FILTER_OPTIONS,
    option('--count <n>', 'exactly n requests must match'),
    option('--at-least <n>', 'at least n requests must match'),
    option('--none', 'no request may match'),
    DB_OPTION,
    URL_OPTION,
  ],
  examples: [
    'bookdist book list --limit 1',
    'bookdist sandbox requests verify --method POST --path /v1/book/index/ --at-least 1',
    'bookdist sandbox requests verify --method POST --path /v1/order/refund/ --count 99  # exits 1',
  ],
});
export const requestsClear = verb({
  name: 'clear',
  summary: 'empty the request journal (ids go on from where they were)',
  description:
    'Deletes every request of the journal, for every process serving the database. Request ids are never reused.',
  options: [DB_OPTION, URL_OPTION],
  examples: ['bookdist sandbox requests clear', 'bookdist sandbox requests clear --url http://127.0.0.1:8710'],
});
