// The one way to run a command in-process: the real main() (argument parsing, config from the
// given environment, the API client, error report, exit codes) with fake IO, and with either
// HTTP stubs (a StubRegistry as the handler) or a real sandbox over HTTP (its env). Optionally on
// a scripted terminal: stdin/stdout/stderr are TTYs and prompts are answered as they appear.
// What needs a process of its own (the launcher, signals, kill -9, exit on a broken pipe) runs
// bin/bookdist through test/helpers/cli.ts instead.
import { PassThrough, Writable } from 'node:stream';
import { main } from '../../src/main.js';
import type { Clock, IO } from '../../src/context.js';
import type { HttpHandler } from '../../src/api/handler.js';
import type { Fs } from '../../src/util/fs-safe.js';

export interface RunOptions {
  /** The whole environment the command sees (nothing of process.env leaks in). */
  env?: Record<string, string | undefined>;
  /** Written to stdin, which is then closed (not on a terminal). */
  input?: string;
  cwd?: string;
  /** Sends the HTTP requests (a StubRegistry); default: the node transport. */
  http?: HttpHandler;
  clock?: Clock;
  /** Run on a terminal of this many columns (stdin, stdout and stderr are TTYs). */
  tty?: { columns: number; rows?: number };
  /** On a terminal: each time the prompt text (stderr) matches the next pattern, type its answer. */
  answers?: Array<[RegExp, string]>;
  /** The file-system seam (e.g. a disk that fills up); default: src/util/fs-safe.ts nodeFs. */
  fs?: Fs;
  /** Standard output as given (e.g. one whose writes fail like /dev/full); its text is not collected. */
  stdout?: Writable;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  /** Standard output and error as one terminal would show them: in the order they were written. */
  output: string;
  /** Answers that were never asked for. */
  unanswered: number;
  /** Kept for callers written against the process runner (always null in-process). */
  signal: null;
}

export async function run(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const script = [...(opts.answers ?? [])];
  const tty = opts.tty ? { isTTY: true, columns: opts.tty.columns, rows: opts.tty.rows ?? 24 } : {};
  const stdin = Object.assign(new PassThrough(), opts.tty ? { isTTY: true } : {});
  if (!opts.tty) stdin.end(opts.input ?? '');
  let stdout = '';
  let stderr = '';
  let output = '';
  let pending = '';
  const out = Object.assign(
    new Writable({ write: (c, _e, cb) => ((stdout += c.toString()), (output += c.toString()), cb()) }),
    tty,
  );
  const err = Object.assign(
    new Writable({
      write(chunk, _e, cb) {
        stderr += chunk.toString();
        output += chunk.toString();
        pending += chunk.toString();
        const next = script[0];
        if (next && next[0].test(pending)) {
          script.shift();
          pending = '';
          setTimeout(() => stdin.write(next[1]), 5);
        }
        cb();
      },
    }),
    // Like process.stderr, a terminal is not ended when a prompt's stream piped into it ends.
    opts.tty
      ? {
          ...tty,
          end() {
            return this;
          },
        }
      : {},
  );
  const io: IO = {
    stdin,
    stdout: opts.stdout ?? out,
    stderr: err,
    env: { ...opts.env },
    cwd: opts.cwd ?? process.cwd(),
    fs: opts.fs,
  };
  const code = await main(args, { io, signals: false, http: opts.http, clock: opts.clock });
  return { code, stdout, stderr, output, unanswered: script.length, signal: null };
}

/** A runner bound to an environment (a sandbox's `env`, or `stubEnv()`) and a handler. */
export type Runner = (args: string[], opts?: Omit<RunOptions, 'http'>) => Promise<RunResult>;

export function runnerFor(env: Record<string, string | undefined>, http?: HttpHandler): Runner {
  return (args, opts = {}) => run(args, { ...opts, http, env: { ...env, ...opts.env } });
}

/** The service every stubbed run talks to (no request leaves the process). */
export const STUB_URL = 'http://api.bookdist.test';

/**
 * Environment of a stubbed run: a partner signing with a shared key (no key file to read), and
 * config/data directories that do not exist, so no profile of the machine is read.
 */
export function stubEnv(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    BOOKDIST_BASE_URL: STUB_URL,
    BOOKDIST_USERNAME: 'stubpartner',
    BOOKDIST_SHARED_KEY: 'stub-shared-key',
    BOOKDIST_CONFIG_DIR: '/nonexistent/bookdist-stub/config',
    BOOKDIST_DATA_DIR: '/nonexistent/bookdist-stub/data',
    NO_COLOR: '1',
    ...extra,
  };
}
