// One error shape for every failure, and the documented exit codes (`bookdist help exit-codes`).

export const ExitCode = {
  OK: 0,
  ERROR: 1,
  USAGE: 2,
  NOT_FOUND: 3,
  AUTH: 4,
  CONFLICT: 5,
  PARTIAL: 6,
  UNAVAILABLE: 7,
  TLS: 8,
  PROXY: 9,
  INTERRUPTED: 130,
} as const;

export const EXIT_CODE_HELP: Array<[number, string]> = [
  [
    0,
    'ok, including an idempotent repeat that returns the existing object (an order_number used before); stderr says so',
  ],
  [
    1,
    'the service refused by a business rule (refund window, viewed share, printed pages...) with its message, or another error',
  ],
  [2, 'usage or invalid input (the message names the flag to fix)'],
  [3, 'not found (book, user, order, purchase, offer...)'],
  [4, 'credentials or scopes refused by the service (bad key or token, missing scope, not authorized for book)'],
  [5, 'conflict with state this request did not create (e-mail already registered, access already granted)'],
  [6, 'partial failure of a bulk job (some items failed; the summary says which)'],
  [7, 'rate limited or service unavailable after retries'],
  [
    8,
    "certificate problem: the service's certificate did not verify (unknown CA, expired, wrong host name); never retried; trust a private CA with --ca-file or BOOKDIST_CA_FILE",
  ],
  [
    9,
    'proxy problem: the proxy (HTTPS_PROXY/HTTP_PROXY) refused (407 asks for credentials) or could not be reached; never retried',
  ],
  // Asked to stop, bookdist stops gracefully (a bulk job writes what is in flight and prints how
  // to resume), then dies of the signal as `sleep` would: the shell reports 128 + its number, and
  // a script that ran bookdist stops too (bash goes on after a child that exited 130 normally).
  [129, 'SIGHUP (the terminal closed): as 130'],
  [
    130,
    'interrupted by Ctrl-C (SIGINT): a graceful stop (bulk jobs write what is in flight and print how to resume), then death by the signal, so a script that ran bookdist stops too; the shell reports 128 + the signal',
  ],
  [143, 'SIGTERM (kill, a supervisor): as 130'],
];

/** An error the CLI reports to the user: a message that names the fix, an exit code, details. */
export class CliError extends Error {
  constructor(
    message: string,
    public readonly exitCode: number = ExitCode.ERROR,
    public readonly details?: Record<string, unknown>,
    public readonly status?: number,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** The `code` of a system error (`ENOENT`, `EEXIST`, `ELOOP`...); undefined for anything else. */
export function errorCode(e: unknown): string | undefined {
  const code = typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

/** What a thrown value says: its `message`, or the value itself as text. */
export function messageOf(e: unknown): string {
  const message = typeof e === 'object' && e !== null ? (e as { message?: unknown }).message : undefined;
  return String(message ?? e);
}

/** A usage error that says why `flag FILE` cannot be read: "no such file", or the system's code. */
export function unreadableFile(flag: string, file: string, e: unknown): CliError {
  const code = errorCode(e);
  return usageError(
    `${flag} ${file}: cannot read it (${code === 'ENOENT' ? 'no such file' : (code ?? messageOf(e))}).`,
  );
}

export function usageError(message: string, details?: Record<string, unknown>): CliError {
  return new CliError(message, ExitCode.USAGE, details);
}
