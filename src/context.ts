// What a command may use. Commands never touch process.* or console directly.
import type { Writable, Readable } from 'node:stream';
import type { ApiClient } from './api/client.js';
import type { ResolvedConfig } from './config/resolve.js';
import type { OutputSpec } from './output/model.js';

export type OutputFormat = 'table' | 'json' | 'ndjson' | 'csv' | 'tsv';

export interface GlobalOptions {
  profile?: string;
  baseUrl?: string;
  output?: OutputFormat;
  /** --json given (true), optionally with a field list (then `fields` is set too). */
  json: boolean;
  fields?: string[];
  /** --query: a JMESPath expression over what --json would print. */
  query?: string;
  color: 'auto' | 'always' | 'never';
  /** Total time per request, in milliseconds. */
  timeout: number;
  /** --timeout was given on the command line (book process --wait reads it as the wait limit). */
  timeoutExplicit?: boolean;
  retries: number;
  debug: boolean;
  quiet: boolean;
  yes: boolean;
  dryRun: boolean;
}

export interface IO {
  stdin: Readable & { isTTY?: boolean };
  stdout: Writable & { isTTY?: boolean; columns?: number };
  stderr: Writable & { isTTY?: boolean; columns?: number };
  env: Record<string, string | undefined>;
  cwd: string;
}

export interface Clock {
  now(): Date;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export interface Context {
  io: IO;
  globals: GlobalOptions;
  /** What the running command prints (declared in the command tree, see output/model.ts). */
  output?: OutputSpec;
  clock: Clock;
  /** Aborted on the first Ctrl-C / SIGTERM. Long jobs stop starting new work when it fires. */
  signal: AbortSignal;
  /** Resolved configuration (flag > env > profile > default). Loads conf lazily. */
  config(): Promise<ResolvedConfig>;
  /** The HTTP client for the resolved profile. Starts the embedded sandbox when that is the profile. */
  api(): Promise<ApiClient>;
  /** True when both stdin and stdout are terminals: the only case where we may prompt. */
  interactive: boolean;
  /** Long jobs call this: the first Ctrl-C then only aborts `signal` (they finish in-flight work). */
  trapInterrupt(): void;
  /**
   * Long jobs printing to stdout call this: a write error on stdout (the reader of a pipe went
   * away: EPIPE) goes to `handler`, which stops the job and reports it, instead of ending the
   * process quietly.
   */
  trapOutputError?(handler: (err: NodeJS.ErrnoException) => void): void;
  /** Register a cleanup to run when the command ends (close servers, pools, files). */
  defer(fn: () => void | Promise<void>): void;
  /**
   * Show the TEST MODE notice only when stderr is a terminal (bulk jobs: a script's stderr holds
   * nothing but errors). Set before the first request.
   */
  noticesOnTtyOnly?: boolean;
  /** Write a human notice to stderr (suppressed by --quiet). */
  info(message: string): void;
  /** Write a warning to stderr (always shown). */
  warn(message: string): void;
}

export const realClock: Clock = {
  now: () => new Date(),
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const t = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(t);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};
