// The declaration of what ./serve.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { option, verb } from '../define.js';
import { DB_HELP } from './options.js';

export const serve = verb({
  name: 'serve',
  summary: 'run the sandbox service in the foreground',
  description:
    'Runs the service until Ctrl-C or SIGTERM, one log line per request on stderr (method, path, status, time, account). Prints the base URL on stdout. ' +
    'Every request is kept in the request journal of the database (`bookdist sandbox requests`), bodies with secrets redacted. ' +
    'The /_sandbox/ control routes answer only requests addressed to the bound address (or an --allow-host name), from no foreign web origin, ' +
    'with a JSON body and the control secret (header X-Sandbox-Secret) that `bookdist sandbox credentials` prints.',
  options: [
    option('--host <host>', 'interface to listen on (anything but loopback needs --expose)', { default: '127.0.0.1' }),
    option('--expose', 'allow listening on a non-loopback interface (prints what that exposes)'),
    option('--allow-host <name>', 'another Host name the /_sandbox/ control routes answer (repeatable)', {
      repeatable: 'split',
    }),
    option(
      '--public-url <url>',
      'the URL that reader links and pages name (default: the bound address; never the Host header)',
    ),
    option('--port <port>', 'TCP port (0 picks a free one; a port in use is an error)', { default: '8710' }),
    option('--db <path>', DB_HELP + '; :memory: for a throwaway database'),
    option('--process-delay <duration>', 'time the worker takes to process a queued book (at most 24h)', {
      default: '2s',
    }),
    option('--fault-rate <fraction>', 'share of requests (0..1) that get an injected fault', { default: '0' }),
    option(
      '--fault <kind>',
      'fault kind (repeatable): 503, 429, reset (the connection is closed before the request is read), drop (the request is carried out and its answer dropped: a lost answer)',
      { choices: ['503', '429', 'reset', 'drop'], repeatable: 'split' },
    ),
    option('--latency <duration>', 'added to every request (e.g. 50ms; at most 10m)'),
    option(
      '--tls',
      'serve HTTPS with a certificate signed by a CA made and kept beside the database (printed at start and by `sandbox credentials`)',
    ),
    option('--cert <file>', 'serve HTTPS with this certificate (PEM; with --key)'),
    option('--key <file>', 'private key (PEM) of --cert'),
    option('--journal-size <n>', 'requests the request journal keeps (the oldest are dropped; `sandbox requests`)', {
      default: '10000',
    }),
    option('--no-journal', 'keep no request journal (`sandbox requests` then sees nothing new)'),
    option(
      '--redact-codes',
      'redact redemption codes in the request journal too (signatures, keys, tokens and passwords always are)',
    ),
  ],
  examples: [
    'bookdist sandbox serve --port 9000 --db ./dev.db --fault-rate 0.1 --fault 503 --fault 429 --latency 50ms',
    'bookdist sandbox serve --host 0.0.0.0 --expose --allow-host sandbox.internal',
    'bookdist sandbox serve --tls',
  ],
});
