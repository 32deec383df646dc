// The composition root: a command's Context, made once from everything it holds (its IO, global
// options, what it prints, the signal and cleanups of the run, and the seams tests replace).
// Config and the API client are made on first use; the embedded sandbox is started (by
// src/connect.ts) only when the resolved profile is the sandbox.
import type { ApiClient } from '../api/client.js';
import type { HttpHandler } from '../api/handler.js';
import type { ResolvedConfig } from '../config/resolve.js';
import type { Clock, Context, GlobalOptions, IO } from '../context.js';
import type { OutputSpec } from '../output/model.js';
import { colorWanted, formatNotice } from '../output/text.js';
import { sleep } from '../util/sleep.js';

const realClock: Clock = { now: () => new Date(), sleep };

/** Everything a Context holds, given once. */
export interface ContextParts {
  io: IO;
  globals: GlobalOptions;
  /** What the running command prints (declared in the command tree, see output/model.ts). */
  output?: OutputSpec;
  /** Aborted on the first Ctrl-C / SIGTERM. */
  signal: AbortSignal;
  /** The run's cleanups: defer() adds to them. */
  cleanups: Array<() => void | Promise<void>>;
  /** The process's signal trap: trapInterrupt() and trapOutputError() (none in-process). */
  trap?: () => void;
  trapOutputError?: (handler: (err: NodeJS.ErrnoException) => void) => void;
  /** Seams: the HTTP handler (in-process tests' stubs) and the clock. */
  http?: HttpHandler;
  clock?: Clock;
}

export function createContext(parts: ContextParts): Context {
  const { io, globals, output, signal, cleanups } = parts;
  let configP: Promise<ResolvedConfig> | undefined;
  let apiP: Promise<ApiClient> | undefined;
  let route: ((message: string, warning: boolean) => void) | undefined;
  let bulkJob = false;
  let ledgerJob: string | undefined;
  const say = (m: string, prefix: string) =>
    io.stderr.write(formatNotice(m, io.stderr, prefix, colorWanted(globals.color, io.env, io.stderr.isTTY)));
  const ctx: Context = {
    io,
    globals,
    output,
    clock: parts.clock ?? realClock,
    http: parts.http,
    signal,
    get interactive() {
      return Boolean(io.stdin.isTTY && io.stdout.isTTY);
    },
    defer: (fn) => void cleanups.push(fn),
    trapInterrupt: parts.trap ?? (() => {}),
    trapOutputError: parts.trapOutputError ?? (() => {}),
    get noticesOnTtyOnly() {
      return bulkJob;
    },
    beginBulkJob: () => void (bulkJob = true),
    get ledgerJob() {
      return ledgerJob;
    },
    beginLedgerJob: (id) => (ledgerJob = id),
    // Notices wrap at word boundaries on a terminal; data in them never drives it (output/text.ts).
    // Colour codes stay only when stderr gets colour, and only bookdist's own (issue 28).
    info: (m) => {
      if (globals.quiet) return;
      if (route) route(m, false);
      else say(m, '');
    },
    warn: (m) => (route ? route(m, true) : say(m, 'warning: ')),
    routeNotices: (to) => void (route = to),
    config: () =>
      (configP ??= import('../config/resolve.js').then((m) =>
        m.loadConfig(io.env, {
          profile: globals.profile,
          baseUrl: globals.baseUrl,
          caFile: globals.caFile,
          resolve: globals.resolve?.join(','),
        }),
      )),
    api: () => (apiP ??= import('../connect.js').then((m) => m.connect(ctx))),
    apiFor: async (cfg, more) => {
      const { connect } = await import('../connect.js');
      return connect({ ...ctx, globals: { ...ctx.globals, ...more }, config: () => Promise.resolve(cfg) });
    },
  };
  return ctx;
}
