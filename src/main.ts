// Builds the context, runs the program, maps errors to exit codes.
import type { Command, CommanderError } from 'commander';
import { CliError, ExitCode } from './errors.js';
import type { Clock, Context, GlobalOptions, IO, OutputFormat } from './context.js';
import { createContext } from './context.js';
import type { HttpHandler } from './api/handler.js';
import { checkDuration } from './util/duration.js';
import { clipLongWords, errorText } from './output/text.js';

export interface MainOptions {
  io?: Partial<IO>;
  /** Install SIGINT/SIGTERM handlers (the real CLI does; in-process tests don't). */
  signals?: boolean;
  /** What sends HTTP requests (default: the node transport). In-process tests pass stubs. */
  http?: HttpHandler;
  /** Time and sleeping (default: the real clock). */
  clock?: Clock;
}

/** Signals that stop a command: gracefully (a bulk job finishes its batches in flight) the first time. */
const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

let warningFilterInstalled = false;
function filterExperimentalWarnings(): void {
  if (warningFilterInstalled) return;
  warningFilterInstalled = true;
  // node:sqlite (the sandbox's storage) is stable enough for us; its ExperimentalWarning is noise.
  const original = process.emitWarning.bind(process);
  process.emitWarning = ((warning: any, ...rest: any[]) => {
    const text = typeof warning === 'string' ? warning : warning?.message;
    const type = typeof rest[0] === 'string' ? rest[0] : rest[0]?.type ?? warning?.name;
    if (type === 'ExperimentalWarning' && /sqlite/i.test(String(text))) return;
    return (original as any)(warning, ...rest);
  }) as typeof process.emitWarning;
}

export async function main(argv: string[], options: MainOptions = {}): Promise<number> {
  filterExperimentalWarnings();
  const io: IO = {
    // A getter: process.stdin builds its stream (fs or tty, with their stream modules) when first
    // read, which most commands never do.
    get stdin() {
      return process.stdin;
    },
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    ...options.io,
  };
  const wantsJsonErrors =
    argv.includes('--json') ||
    argv.some((a) => a.startsWith('--json=')) ||
    argv.some((a, i) => (a === '-o' || a === '--output') && /^(json|ndjson)$/.test(argv[i + 1] ?? '')) ||
    argv.some((a) => /^(--output=|-o=?)(json|ndjson)$/.test(a));
  const debug = argv.includes('--debug');

  // `bookdist help exit-codes`: a help topic rather than a command.
  if ((argv[0] === 'help' && argv[1] === 'exit-codes') || (argv[0] === 'exit-codes')) {
    const { exitCodesText } = await import('./root.js');
    io.stdout.write(exitCodesText());
    return 0;
  }

  const cleanups: Array<() => void | Promise<void>> = [];
  const controller = new AbortController();
  let trapped = false;
  let interrupts = 0;
  let lastSignal = 0;
  // `conf` loads `when-exit`, whose handler re-sends every signal it catches to this process
  // (process.kill(process.pid, sig)): one Ctrl-C would arrive twice and count as the second,
  // "exit at once" one. While our handler's signal is being dispatched, such a self-kill is
  // dropped; and a repeat within a moment of the first (an echo from a handler that ran before
  // ours) counts once. A person's second Ctrl-C still exits at once.
  let swallowing = false;
  const realKill = process.kill;
  const killFilter = function (this: unknown, pid: number, sig?: string | number) {
    if (swallowing && pid === process.pid && typeof sig === 'string' && SIGNALS.includes(sig as NodeJS.Signals)) return true;
    return realKill.call(process, pid, sig as any);
  } as typeof process.kill;
  const onSignal = (sig: NodeJS.Signals) => {
    const now = Date.now();
    swallowing = true;
    setImmediate(() => (swallowing = false));
    if (interrupts > 0 && now - lastSignal < 250) return;
    lastSignal = now;
    interrupts++;
    controller.abort(new CliError(`Interrupted (${sig}).`, ExitCode.INTERRUPTED));
    if (!trapped || interrupts > 1) {
      io.stderr.write('\nInterrupted.\n');
      // At once: cleanups get a moment, but a graceful close of the HTTP pool would wait for the
      // requests in flight (what the first signal does); a bulk job's journal covers them.
      const bounded = new Promise((r) => setTimeout(r, 200).unref());
      void Promise.race([Promise.allSettled(cleanups.map((fn) => fn())), bounded]).finally(() => process.exit(ExitCode.INTERRUPTED));
    }
  };
  // `bookdist ... | head`: the reader went away. Stop quietly, as other Unix tools do.
  // Any other write error (a full disk, /dev/full, a closed descriptor): say so, exit 1, no stack trace.
  let outputTrap: ((err: NodeJS.ErrnoException) => void) | undefined;
  const onPipeError = (err: NodeJS.ErrnoException) => {
    if (outputTrap) return outputTrap(err);
    const broken = err?.code === 'EPIPE';
    if (!broken) io.stderr.write(`bookdist: cannot write the output (${err?.code ?? err?.message}); nothing more was written.\n`);
    void Promise.allSettled(cleanups.map((fn) => fn())).finally(() => process.exit(broken ? ExitCode.OK : ExitCode.ERROR));
  };
  if (options.signals !== false) {
    for (const sig of SIGNALS) process.on(sig, onSignal);
    process.kill = killFilter;
    process.stdout.on('error', onPipeError);
    // A closed stderr (`2>&1 | head -1`, a terminal gone): nothing can be said there any more, and a
    // job must not die half-way for it (an unhandled EPIPE would end the process mid-batch).
    if (!process.stderr.listenerCount('error')) process.stderr.on('error', () => {});
  }

  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    const { VERSION } = await import('./version.js');
    io.stdout.write(VERSION + '\n');
    return 0;
  }
  // The root help (a bare `bookdist`, -h, --help) from the root's own table: no commander, no
  // command group. Anything else with the root help (global options before -h) goes through
  // commander with the same table as stub commands (src/cli/tree.ts programFor).
  if (argv.length === 0 || (argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h'))) {
    const { rootHelpText } = await import('./root-help.js');
    const { helpWidth } = await import('./commands/help/page.js');
    io.stdout.write(rootHelpText(helpWidth(io.stdout, io.env)));
    return 0;
  }
  // Only the command group argv names (the whole tree for help, completion and the like).
  const { programFor } = await import('./cli/tree.js');
  const { setContextFactory, exitCodeOf } = await import('./commands/define.js');
  const { helpWidth } = await import('./commands/help/layout.js');
  const program = await programFor(argv);
  // Usage errors: commander's message is captured (not printed) so that it can be reported once,
  // with the usage line of the command that failed, as text or (under --json) as JSON.
  let usage: { message: string; command: Command } | undefined;
  const configure = (cmd: Command) => {
    cmd.exitOverride();
    cmd.configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      // Help reflows to the terminal, or to $COLUMNS when piped (80 without either).
      getOutHelpWidth: () => helpWidth(io.stdout, io.env),
      getErrHelpWidth: () => helpWidth(io.stderr, io.env),
      outputError: (s) => {
        usage = { message: s.trim(), command: cmd };
      },
    });
    cmd.commands.forEach(configure);
  };
  configure(program);

  let ctxRef: Context | undefined;
  setContextFactory(program, (command) => {
    ctxRef = createContext(io, globalsFrom(command), controller.signal, cleanups, {
      trap: () => (trapped = true),
      http: options.http,
      clock: options.clock,
    });
    ctxRef.trapOutputError = (handler) => (outputTrap = handler);
    return ctxRef;
  });

  let code = 0;
  try {
    if (argv.length === 0) {
      // A bare `bookdist` shows the help, as `bookdist --help` does.
      program.outputHelp();
      return 0;
    }
    await program.parseAsync(normaliseArgv(argv), { from: 'user' });
    code = exitCodeOf(program);
  } catch (err) {
    code = reportError(err, io, { json: wantsJsonErrors, debug, usage: usage && usageText(usage.command) });
  } finally {
    for (const fn of cleanups.reverse()) {
      try {
        await fn();
      } catch {}
    }
    if (options.signals !== false) {
      for (const sig of SIGNALS) process.off(sig, onSignal);
      if (process.kill === killFilter) process.kill = realKill;
    }
    // The EPIPE listener stays: output still buffered may fail after main() returns.
  }
  return code;
}

/** `--json=a,b` is `--json --fields a,b` (so a bare --json never swallows an argument). */
function normaliseArgv(argv: string[]): string[] {
  const out: string[] = [];
  for (const a of argv) {
    const m = /^--json=(.+)$/.exec(a);
    if (m) out.push('--json', '--fields', m[1]);
    else out.push(a);
  }
  return out;
}

function globalsFrom(command: Command): GlobalOptions {
  const o = command.optsWithGlobals();
  let root = command;
  while (root.parent) root = root.parent;
  // At most 24h (documented in --timeout's help); beyond Node's timer limit it would fire at once.
  const checked = checkDuration('--timeout', o.timeout ?? '30s', { maxMs: 86_400_000, max: '24h' });
  if ('problem' in checked) throw new CliError(checked.problem, ExitCode.USAGE);
  const timeout = checked.ms;
  const retries = Number(o.retries ?? 3);
  if (!Number.isInteger(retries) || retries < 0 || retries > 20) throw new CliError('--retries must be a whole number from 0 to 20.', ExitCode.USAGE);
  const fields = typeof o.fields === 'string' ? o.fields.split(',').map((s: string) => s.trim()).filter(Boolean) : undefined;
  if (typeof o.fields === 'string' && !fields?.length) throw new CliError('--fields needs at least one dotted path, e.g. --fields hash_id,title.', ExitCode.USAGE);
  if (o.json && o.output && o.output !== 'json') {
    throw new CliError(`--json and -o ${o.output} ask for two formats; give one (--json is -o json).`, ExitCode.USAGE);
  }
  if (typeof o.query === 'string' && !o.query.trim()) throw new CliError('--query needs a JMESPath expression, e.g. --query "results[].hash_id".', ExitCode.USAGE);
  return {
    profile: o.profile,
    baseUrl: o.baseUrl,
    caFile: o.caFile,
    output: o.output as OutputFormat | undefined,
    json: Boolean(o.json),
    fields: fields?.length ? fields : undefined,
    query: typeof o.query === 'string' ? o.query : undefined,
    // --no-color sets it to false.
    color: o.color === false ? 'never' : (o.color ?? 'auto'),
    timeout,
    timeoutExplicit: root.getOptionValueSource('timeout') === 'cli',
    retries,
    debug: Boolean(o.debug),
    quiet: Boolean(o.quiet),
    yes: Boolean(o.yes),
    dryRun: Boolean(o.dryRun),
  };
}

/** `Usage: bookdist book get [options] <isbn>` and where to read more, for a usage error. */
export function usageText(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  const full = names.join(' ');
  return `Usage: ${full} ${cmd.usage()}\nRun \`${full} --help\` for details.`;
}

export function reportError(err: unknown, io: IO, opts: { json: boolean; debug: boolean; usage?: string }): number {
  const e = err as any;
  // commander: help and version are not errors; usage errors exit 2, with the usage line.
  if (e && typeof e.code === 'string' && e.code.startsWith('commander.')) {
    const ce = e as CommanderError;
    if (ce.code === 'commander.helpDisplayed' || ce.code === 'commander.version' || ce.exitCode === 0) return 0;
    // `bookdist profile` without a verb: commander already printed the group's help on stderr.
    if (ce.code === 'commander.help') return ExitCode.USAGE;
    const message = ce.message.replace(/^error: /, '');
    if (opts.json) {
      const full = opts.usage ? `${message}\n${opts.usage}` : message;
      io.stderr.write(JSON.stringify({ error: { status: null, message: clipLongWords(full), exit_code: ExitCode.USAGE, details: null } }) + '\n');
    } else {
      io.stderr.write(`bookdist: ${errorText(message)}\n${opts.usage ? opts.usage + '\n' : ''}`);
    }
    return ExitCode.USAGE;
  }
  if (e?.name === 'DryRun') return 0;
  let exitCode: number = ExitCode.ERROR;
  let status: number | undefined;
  let message = String(e?.message ?? e);
  let details: Record<string, unknown> | undefined;
  if (e?.name === 'ApiError') {
    exitCode = e.exitCode;
    status = e.status;
    details = e.body && typeof e.body === 'object' ? stripEnvelope(e.body) : undefined;
    message = `${e.message} (HTTP ${e.status}, ${e.request.method} ${new URL(e.request.url).pathname})`;
  } else if (e instanceof CliError || e?.name === 'CliError') {
    exitCode = e.exitCode;
    status = e.status;
    details = e.details;
  } else if (e?.name === 'AbortError' || e?.exitCode === ExitCode.INTERRUPTED) {
    exitCode = ExitCode.INTERRUPTED;
    message = 'Interrupted.';
  } else if (e?.name === 'ExitPromptError') {
    exitCode = ExitCode.INTERRUPTED;
    message = 'Cancelled.';
  } else if (!opts.debug) {
    message = `${message} (unexpected error; run with --debug for details)`;
  }
  if (opts.json) {
    io.stderr.write(JSON.stringify({ error: { status: status ?? null, message: clipLongWords(message), exit_code: exitCode, details: details ?? null } }) + '\n');
  } else {
    io.stderr.write(`bookdist: ${errorText(message)}\n`);
  }
  if (opts.debug && e?.stack) io.stderr.write(e.stack + '\n');
  return exitCode;
}

function stripEnvelope(body: Record<string, unknown>): Record<string, unknown> | undefined {
  const { code: _c, error: _e, success: _s, test_mode: _t, message: _m, ...rest } = body as any;
  return Object.keys(rest).length ? rest : undefined;
}
