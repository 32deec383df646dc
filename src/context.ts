// What a command may use. Commands never touch process.* or console directly.
import type { Writable, Readable } from 'node:stream';
import { colorWanted, formatNotice } from './output/text.js';
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
  now(): Date;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export interface Context {
  io: IO;
  globals: GlobalOptions;
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
  trapOutputError?(handler: (err: NodeJS.ErrnoException) => void): void;
  /** The bulk job that is running (its job id): the ledger records it with each write. */
  ledgerJob?: string;
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

const realClock: Clock = {
  now: () => new Date(),
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason as Error);
      const t = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(t);
        reject(signal!.reason as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

/**
 * The composition root: what a command gets. Config and the API client are made on first use;
 * the embedded sandbox is started (by connect) only when the resolved profile is the sandbox.
 */
export function createContext(
  io: IO,
  globals: GlobalOptions,
  signal: AbortSignal,
  cleanups: Array<() => void | Promise<void>>,
  seams: { trap?: () => void; http?: HttpHandler; clock?: Clock } = {},
): Context {
  let configP: Promise<ResolvedConfig> | undefined;
  let apiP: Promise<ApiClient> | undefined;
  const ctx: Context = {
    io,
    globals,
    clock: seams.clock ?? realClock,
    http: seams.http,
    signal,
    get interactive() {
      return Boolean(io.stdin.isTTY && io.stdout.isTTY);
    },
    defer: (fn) => void cleanups.push(fn),
    trapInterrupt: seams.trap ?? (() => {}),
    // Notices wrap at word boundaries on a terminal; data in them never drives it (output/text.ts).
    // Colour codes stay only when stderr gets colour, and only bookdist's own (issue 28).
    info: (m) => {
      if (!globals.quiet)
        io.stderr.write(formatNotice(m, io.stderr, '', colorWanted(globals.color, io.env, io.stderr.isTTY)));
    },
    warn: (m) =>
      io.stderr.write(formatNotice(m, io.stderr, 'warning: ', colorWanted(globals.color, io.env, io.stderr.isTTY))),
    config: () =>
      (configP ??= import('./config/resolve.js').then((m) =>
        m.loadConfig(io.env, {
          profile: globals.profile,
          baseUrl: globals.baseUrl,
          caFile: globals.caFile,
          resolve: globals.resolve?.join(','),
        }),
      )),
    api: () => (apiP ??= import('./connect.js').then((m) => m.connect(ctx))),
    apiFor: async (cfg, more) => {
      const { connect } = await import('./connect.js');
      return connect({ ...ctx, globals: { ...ctx.globals, ...more }, config: () => Promise.resolve(cfg) });
    },
  };
  return ctx;
}
