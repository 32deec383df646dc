// The sandbox's refusals: an answer that is not a success, as the domain, the control routes and
// the checks throw it. Low in the sandbox's tree: the HTTP side (http/) writes it as the error
// body of interface.md section 7, the CLI's sandbox verbs turn it into a CLI error; the domain
// knows nothing of HTTP.

/** An answer to the client that is not a success: status, message, extra body fields. */
export class HttpError extends Error {
  constructor(
    public readonly status: number,
    message: string,
    public readonly extra: Record<string, unknown> = {},
    public readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const bad = (message: string, extra?: Record<string, unknown>) => new HttpError(400, message, extra);
export const notFound = (message: string) => new HttpError(404, message);
