// Shared by the sandbox verbs: which database, opening it, and talking to a running sandbox.
import { recOf, type Rec } from '../../../output/index.js';
import type { Context } from '../../../context.js';
import type { HttpHandler, HttpResponse } from '../../../api/handler.js';
import { CliError, ExitCode, usageError, errorCode, messageOf } from '../../../errors.js';
import { cellText } from '../../../output/format.js';

/** The database path: --db, else sandbox.db in the data directory (as the built-in profile uses). */
export async function dbPathOf(ctx: Context, db: string | undefined): Promise<string> {
  // Relative to the command's working directory (not the process's: in-process runs differ).
  if (db) return db === ':memory:' ? db : (await import('node:path')).resolve(ctx.io.cwd, db);
  const { dataDir } = await import('../../../config/paths.js');
  const { embeddedDbPath } = await import('../../../sandbox/embedded.js');
  return embeddedDbPath(dataDir(ctx.io.env));
}

/** Open (and seed when empty) the sandbox database; closed when the command ends. */
export async function openStore(ctx: Context, db: string | undefined) {
  const path = await dbPathOf(ctx, db);
  if (path === ':memory:')
    throw usageError('--db :memory: is private to one process; use --url to reach a running sandbox.');
  const { Store } = await import('../../../sandbox/db/store.js');
  const { ensureSeeded } = await import('../../../sandbox/seed.js');
  const store = new Store(path);
  ctx.defer(() => store.close());
  ensureSeeded(store);
  return store;
}

/** Where a running sandbox is: its URL, and the database it serves when the caller named it. */
export interface ControlTarget {
  url: string;
  db?: string;
}

const SECRET_ENV = 'BOOKDIST_SANDBOX_SECRET';

/**
 * The control secret for a running sandbox: $BOOKDIST_SANDBOX_SECRET, else the secret kept in
 * its database (--db, else the default sandbox.db when it exists). Never created here.
 */
async function controlSecretFor(ctx: Context, db: string | undefined): Promise<string | undefined> {
  const fromEnv = ctx.io.env[SECRET_ENV]?.trim();
  if (fromEnv) return fromEnv;
  const path = await dbPathOf(ctx, db);
  const { existsSync } = await import('node:fs');
  if (path === ':memory:' || !existsSync(path)) return undefined;
  const { Store } = await import('../../../sandbox/db/store.js');
  const store = new Store(path);
  try {
    if (!store.hasSchema()) return undefined;
    const { controlSecret } = await import('../../../sandbox/control.js');
    return controlSecret(store);
  } finally {
    await store.close();
  }
}

/**
 * What the control routes are sent through: the command's HTTP handler (in-process tests' stub
 * registry), else the node transport, without a proxy (a sandbox is reached directly), closed
 * when the command ends.
 */
async function controlHttp(ctx: Context): Promise<HttpHandler> {
  if (ctx.http) return ctx.http;
  const { HttpTransport } = await import('../../../api/transport.js');
  const http = new HttpTransport({ connectTimeout: 10_000, connections: 4 });
  ctx.defer(() => http.close());
  return http;
}

/** A control route's answer: its status and JSON body. */
interface ControlAnswer {
  status: number;
  json: Rec;
}

/**
 * Calls to the /_sandbox/ control routes of a running sandbox, with its control secret (found
 * once). `request` hands back any answer; `call` turns an error answer into a CLI error.
 */
export async function controlClient(ctx: Context, target: ControlTarget) {
  const { url } = target;
  const secret = await controlSecretFor(ctx, target.db);
  if (!secret) {
    throw new CliError(
      `The control routes of ${url} need its control secret: set ${SECRET_ENV} to the control_secret that ` +
        '`bookdist sandbox credentials --db <its database>` prints, or add --db <its database>.',
      ExitCode.AUTH,
    );
  }
  const http = await controlHttp(ctx);
  // No deadline, as before: a catalogue part is answered once it is loaded, and the cancel of an
  // interrupted load is sent after Ctrl-C (which ctx.signal carries).
  const signal = new AbortController().signal;
  const request = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<ControlAnswer> => {
    const bytes = body instanceof Uint8Array;
    let res: HttpResponse;
    try {
      res = await http.send({
        method,
        url: url.replace(/\/+$/, '') + path,
        headers: {
          'x-sandbox-secret': secret,
          ...(method === 'POST' ? { 'content-type': bytes ? 'application/octet-stream' : 'application/json' } : {}),
        },
        body: body === undefined ? undefined : bytes ? body : JSON.stringify(body),
        signal,
      });
    } catch (err) {
      throw new CliError(
        `Could not reach the sandbox at ${url} (${errorCode(err) ?? messageOf(err)}). Is \`bookdist sandbox serve\` running?`,
        ExitCode.UNAVAILABLE,
      );
    }
    let json: Rec;
    try {
      json = recOf(JSON.parse(res.text));
    } catch {
      throw new CliError(`${url} did not answer like a sandbox (HTTP ${res.status}).`, ExitCode.ERROR);
    }
    return { status: res.status, json };
  };
  /** The body of a successful answer; an error answer as the CLI error it means. */
  const ok = ({ status, json }: ControlAnswer): Rec => {
    const message = cellText(json.message ?? `HTTP ${status}`);
    if (status === 401 || status === 403) {
      throw new CliError(
        `${message} (set ${SECRET_ENV}, or --db <the database ${url} serves>)`,
        ExitCode.AUTH,
        undefined,
        status,
      );
    }
    if (status >= 400) throw toCliError(status, message);
    return json;
  };
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown) => ok(await request(method, path, body));
  return { request, ok, call };
}

/** Call a /_sandbox/ control route of a running sandbox, with its control secret. */
export async function controlCall(
  ctx: Context,
  target: ControlTarget,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<Rec> {
  return (await controlClient(ctx, target)).call(method, path, body);
}

function toCliError(status: number, message: string): CliError {
  const code =
    status === 404
      ? ExitCode.NOT_FOUND
      : status === 409 || (status === 400 && /already/i.test(message))
        ? ExitCode.CONFLICT
        : status === 400
          ? ExitCode.USAGE
          : ExitCode.ERROR;
  return new CliError(message, code, undefined, status);
}

/** Run a sandbox domain call, turning its HTTP-style errors into CLI errors. */
export async function domainCall<T>(fn: () => T): Promise<T> {
  const { HttpError } = await import('../../../sandbox/errors.js');
  try {
    return fn();
  } catch (err) {
    if (err instanceof HttpError) throw toCliError(err.status, err.message);
    throw err;
  }
}

/** Drop the envelope fields of a control route's answer. */
export function strip(o: Record<string, unknown>): Record<string, unknown> {
  const { code: _c, success: _s, test_mode: _t, ...rest } = o;
  return rest;
}
