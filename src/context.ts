// What a command may use, as types only (every layer reads them; nothing here runs): the Context
// a command gets, its IO, clock and global options. src/cli/context.ts makes a Context, once per
// command, from everything it holds. Commands never touch process.* or console directly.
import type { Writable, Readable } from 'node:stream';
import type { ApiClient } from './api/client.js';
import type { HttpHandler } from './api/handler.js';
import type { ResolvedConfig } from './config/resolve.js';
import type { OutputSpec } from './output/model.js';
import type { Fs } from './util/fs-safe.js';

export type OutputFormat = 'table' | 'json' | 'ndjson' | 'csv' | 'tsv';

export interface GlobalOptions {
  profile?: string;
  baseUrl?: string;
  /** --ca-file: CA certificates (PEM) trusted besides Node's. */
  caFile?: string;
  /** --resolve HOST:PORT:ADDR, each time it was given. */
  resolve?: string[];
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
  /** --timeout as the user wrote it (`12s`), for commands that repeat the run. */
  timeoutText?: string;
  retries: number;
  debug: boolean;
  quiet: boolean;
  yes: boolean;
  dryRun: boolean;
  /** --no-cache: the ids this command reads are not recorded for completion (src/cache/ids.ts). */
  noCache?: boolean;
  /** false with --no-ledger: this run records no write in the ledger. */
  ledger?: boolean;
}

export interface IO {
  stdin: Readable & { isTTY?: boolean };
  stdout: Writable & { isTTY?: boolean; columns?: number };
  stderr: Writable & { isTTY?: boolean; columns?: number };
  env: Record<string, string | undefined>;
  cwd: string;
  /** The file-system seam for files bookdist creates or rewrites (default: src/util/fs-safe.ts nodeFs). */
  fs?: Fs;
}

export interface Clock {
  now: () => Date;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface Context {
  io: IO;
  /** The global flags as parsed; read-only: a verb that bounds its requests otherwise says so per call (book process --wait). */
  readonly globals: Readonly<GlobalOptions>;
  /** What the running command prints (declared in the command tree, see output/model.ts). */
  output?: OutputSpec;
  clock: Clock;
  /** What the API client sends requests through (undefined: the node transport). */
  http?: HttpHandler;
  /** Aborted on the first Ctrl-C / SIGTERM. Long jobs stop starting new work when it fires. */
  signal: AbortSignal;
  /** Resolved configuration (flag > env > profile > default). Loads conf lazily. */
  config(): Promise<ResolvedConfig>;
  /** The HTTP client for the resolved profile. Starts the embedded sandbox when that is the profile. */
  api(): Promise<ApiClient>;
  /** A client for another resolved configuration (profile check/verify), over the same seams. */
  apiFor(cfg: ResolvedConfig, globals?: Partial<GlobalOptions>): Promise<ApiClient>;
  /** True when both stdin and stdout are terminals: the only case where we may prompt. */
  interactive: boolean;
  /** Long jobs call this: the first Ctrl-C then only aborts `signal` (they finish in-flight work). */
  trapInterrupt(): void;
  /**
   * Long jobs printing to stdout call this: a write error on stdout (the reader of a pipe went
   * away: EPIPE) goes to `handler`, which stops the job and reports it, instead of ending the
   * process quietly.
   */
  trapOutputError(handler: (err: NodeJS.ErrnoException) => void): void;
  /** The job whose writes the ledger records (its id), once one began (beginLedgerJob). */
  readonly ledgerJob: string | undefined;
  /**
   * A job begins whose writes the ledger records under `id` (a bulk job's id, or `reconcile` for
   * its re-sends): each write from now on carries it. Returns `id`.
   */
  beginLedgerJob(id: string): string;
  /** Register a cleanup to run when the command ends (close servers, pools, files). */
  defer(fn: () => void | Promise<void>): void;
  /**
   * True once a bulk job began (beginBulkJob): the TEST MODE notice then shows only when stderr is
   * a terminal (a script's stderr holds nothing but errors).
   */
  readonly noticesOnTtyOnly: boolean;
  /** A bulk job begins, before its first request: see noticesOnTtyOnly. */
  beginBulkJob(): void;
  /** Write a human notice to stderr (suppressed by --quiet). */
  info: (message: string) => void;
  /** Write a warning to stderr (always shown). */
  warn(message: string): void;
  /**
   * While a progress bar is drawn on stderr, notices and warnings go through `to` (above the bar)
   * instead; `undefined` sends them to stderr again.
   */
  routeNotices(to: ((message: string, warning: boolean) => void) | undefined): void;
}
