// The entry point: the answers that need no command tree (src/cli/fast-paths.ts) and the signal
// and pipe handlers (src/cli/signals.ts) here; then, in one import, the command run
// (src/cli/run.ts): the tree argv needs, a context per command, failures as one report and an exit
// code. The root help and --version load nothing of the run (each module is start-up time).
import { trapSignals } from './cli/signals.js';
import { ExitCode } from './errors.js';
import { fastPath, helpTopic, isRootHelp } from './cli/fast-paths.js';
import { stdoutIsPlain, writeStdout } from './cli/direct-out.js';
import type { Clock, IO } from './context.js';
import type { HttpHandler } from './api/handler.js';

export interface MainOptions {
  io?: Partial<IO>;
  /** Install SIGINT/SIGTERM handlers (the real CLI does; in-process tests don't). */
  signals?: boolean;
  /** What sends HTTP requests (default: the node transport). In-process tests pass stubs. */
  http?: HttpHandler;
  /** Time and sleeping (default: the real clock). */
  clock?: Clock;
}

let warningFilterInstalled = false;
function filterExperimentalWarnings(): void {
  if (warningFilterInstalled) return;
  warningFilterInstalled = true;
  // node:sqlite (the sandbox's storage) is stable enough for us; its ExperimentalWarning is noise.
  // emitWarning(warning, type?) or emitWarning(warning, { type }): both forms are passed on as they came.
  const original = process.emitWarning.bind(process) as (warning: string | Error, ...rest: unknown[]) => void;
  process.emitWarning = (warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning?.message;
    const options = rest[0] as string | { type?: string } | undefined;
    const type = typeof options === 'string' ? options : (options?.type ?? (warning as Error | undefined)?.name);
    if (type === 'ExperimentalWarning' && /sqlite/i.test(String(text))) return;
    return original(warning, ...rest);
  };
}

export async function main(argv: string[], options: MainOptions = {}): Promise<number> {
  // The root help to a file or a pipe (not a terminal, not a test's IO): straight to fd 1, before
  // anything builds process.stdout and Node's streams with it (src/cli/direct-out.ts).
  if (!options.io && isRootHelp(argv) && stdoutIsPlain()) {
    const { rootHelpFor } = await import('./root-help.js');
    return writeStdout(rootHelpFor({}, process.env), true);
  }
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
  // Answered without commander or any command group: the exit-codes topic before anything else.
  const topic = await helpTopic(argv, io);
  if (topic !== undefined) return topic;

  const cleanups: Array<() => void | Promise<void>> = [];
  const controller = new AbortController();
  const signals = options.signals !== false ? trapSignals(io, controller, cleanups) : undefined;

  // --version and the root help: with the signal and pipe handlers in place (`bookdist -h | head`).
  const fast = await fastPath(argv, io);
  if (fast !== undefined) return fast;
  // Anything else runs a command (the whole tree for help, completion and the like).
  const { runCommand } = await import('./cli/run.js');
  const code = await runCommand(argv, io, { signals, cleanups, controller, http: options.http, clock: options.clock });
  // Stopped by a signal (gracefully: what was in flight is written, the resume command printed):
  // die of it, so that the shell sees 130/143/129 by signal and a script that ran bookdist stops.
  // Stopped by one with a status of its own (`requests tail`: 0): end with it, at once (signals.ts: exit).
  const sig = signals?.received();
  if (sig) await (code === ExitCode.INTERRUPTED ? signals!.reraise(sig) : signals!.exit(code));
  return code;
}
