// One error shape for every failed answer, whatever its body, and the exit code of each
// (`bookdist help exit-codes`, src/errors.ts).
import { ExitCode } from '../errors.js';
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
  if (!body || typeof body !== 'object') return '';
  const b = body as { message?: unknown; text?: unknown };
  return typeof b.message === 'string' ? b.message : typeof b.text === 'string' ? b.text : '';
}

/** Conflicts: 409, a body with `conflict: true`, or the service's "already" messages. */
export function isConflict(status: number, body?: unknown): boolean {
  if (status === 409) return true;
  if (status >= 400 && body && typeof body === 'object') {
    if ((body as { conflict?: unknown }).conflict === true) return true;
    if (/already (has access|exists|used|registered)/i.test(bodyMessage(body))) return true;
  }
  return false;
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not found', 405: 'Method not allowed', 409: 'Conflict',
  410: 'Gone', 413: 'Request too large', 422: 'Unprocessable request', 429: 'Too many requests', 500: 'Internal server error',
  502: 'Bad gateway', 503: 'Service unavailable', 504: 'Gateway timeout',
};

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
    message += ' (check the profile\'s username and key: `bookdist profile show`)';
  }
  return new ApiError(res.status, message, b, res.request);
}
