// One error shape for every failed answer, whatever its body, and the exit code of each
// (`bookdist help exit-codes`, src/errors.ts).
import { CliError, ExitCode } from '../errors.js';
import { truncate } from '../util/quote.js';
import type { ApiResponse, RequestInfo } from './answer.js';

/** One error shape for every failed response, whatever its body. */
export class ApiError extends Error {
  constructor(
    public readonly status: number,
    message: string,
    public readonly body: unknown,
    public readonly request: RequestInfo,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** Exit code as documented in `bookdist help exit-codes`. */
  get exitCode(): number {
    return exitCodeForStatus(this.status, this.body);
  }
}

/*
 * What a request came to, for the ledger and the job engine: `done` (a verified answer: the one
 * the interface promises), `failed` (the service refused it, or a read got an answer that is not
 * the promised one), `unknown` (a write whose answer is not the promised one, or was lost: it may
 * have taken effect). ApiResponse.verdict carries it for answers, UnverifiedAnswer for errors.
 */

/**
 * An answer that is not the one the interface promises (issue 28): a redirect, an empty, HTML or
 * truncated body, `success: false`, a used field missing or of another type, a body over the cap.
 * A read's is `failed` (exit 1); a write's is `unknown` (exit 1, "the outcome is unknown"). Its
 * details hold the facts: status, content type, the first bytes, the Location of a redirect.
 */
export class UnverifiedAnswer extends CliError {
  /** The answer itself (set by the client): `bookdist api` still prints what the service said. */
  response?: ApiResponse;
  constructor(
    message: string,
    public readonly verdict: 'failed' | 'unknown',
    details: Record<string, unknown>,
    status?: number,
  ) {
    super(message, ExitCode.ERROR, { ...details, outcome: verdict }, status);
    this.name = 'UnverifiedAnswer';
  }
}

/** Thrown after --dry-run printed the request: nothing was sent. */
export class DryRun extends Error {
  constructor() {
    super('dry run');
    this.name = 'DryRun';
  }
}

/**
 * The exit code of a service answer (`bookdist help exit-codes`); one meaning per code:
 * 3 every not-found; 4 only credentials and scopes the service refused; 5 a conflict with state
 * this request did not create; 7 rate limited or unavailable; 1 a business rule refusal (refund
 * window, viewed share, printed pages...) or any other error, with the service's message.
 */
export function exitCodeForStatus(status: number, body?: unknown): number {
  const m = bodyMessage(body);
  if (isConflict(status, body)) return ExitCode.CONFLICT;
  if (status === 404 || (status === 400 && NOT_FOUND.test(m))) return ExitCode.NOT_FOUND;
  if (status === 401) return ExitCode.AUTH;
  if (status === 403) return !m || CREDENTIALS.test(m) ? ExitCode.AUTH : ExitCode.ERROR;
  if (status === 429 || status === 503) return ExitCode.UNAVAILABLE;
  return ExitCode.ERROR;
}

/** Refusals of credentials or scopes (decisions.md: Authentication, Scopes). */
const CREDENTIALS = /authenticat|authori[sz]|scope|credential|signature|api[- ]key|token|forbidden|permission/i;
/** Not-found answers that come as 400 (the price comparison's "The requested book does not exist"). */
const NOT_FOUND = /does not exist|not found/i;

/**
 * What an answer's body says: its `message`, else its `text` (an XML or text body), else ''.
 * (Not `messageOf` of src/errors.ts, which reads a thrown value.)
 */
function bodyMessage(body: unknown): string {
  if (!body) return '';
  const b = body as { message?: unknown; text?: unknown };
  return typeof b.message === 'string' ? b.message : typeof b.text === 'string' ? b.text : '';
}

/** Conflicts: 409, a body with `conflict: true`, or the service's "already" messages. */
export function isConflict(status: number, body?: unknown): boolean {
  if (status === 409) return true;
  if (status >= 400 && body) {
    if ((body as { conflict?: unknown }).conflict === true) return true;
    if (/already (has access|exists|used|registered)/i.test(bodyMessage(body))) return true;
  }
  return false;
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflict',
  410: 'Gone',
  413: 'Request too large',
  422: 'Unprocessable request',
  429: 'Too many requests',
  500: 'Internal server error',
  502: 'Bad gateway',
  503: 'Service unavailable',
  504: 'Gateway timeout',
};

/** The name of a status (`Too many requests`), when it has one here. */
export function statusText(status: number): string | undefined {
  return STATUS_TEXT[status];
}

/** The ApiError of a failed answer, worded with the service's own message where it gave one. */
export function toApiError(res: ApiResponse): ApiError {
  const b = res.body ?? {};
  let message: string =
    (typeof b.message === 'string' && b.message) ||
    (typeof b.detail === 'string' && b.detail) ||
    (typeof b.text === 'string' && truncate(b.text.trim(), 300)) ||
    // Not "HTTP 404": the report adds "(HTTP 404, GET /path)" itself.
    STATUS_TEXT[res.status] ||
    'The service answered without a message';
  if (res.status === 401 && /authentication failed/i.test(message)) {
    message += " (check the profile's username and key: `bookdist profile show`)";
  }
  return new ApiError(res.status, message, b, res.request);
}
