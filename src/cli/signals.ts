// Signals and broken pipes, for the real CLI (in-process tests run without them). The first
// SIGINT, SIGTERM or SIGHUP aborts the run's signal: a command that trapped it (a bulk job) stops
// gracefully, writing what is in flight; any other command, or a second signal, stops at once.
// Either way bookdist then dies of the signal it got (default handler, signal raised again), as
// `sleep` would: the shell reports 130, 143 or 129, and a script that ran bookdist stops too (bash
// goes on after a child that exited 130 normally; it stops after one killed by SIGINT). A reader
// that went away (`bookdist ... | head`) ends the run quietly; any other write error on stdout is
// one clear line and exit 1.
import { CliError, errorCode, ExitCode, messageOf } from '../errors.js';
import type { IO } from '../context.js';
import { cannotWrite } from './direct-out.js';

/** Signals that stop a command: gracefully (a bulk job finishes its batches in flight) the first time. */
const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

export interface SignalTrap {
  /** The running command stops gracefully on the first signal (a bulk job). */
  trap(): void;
  /** The running command handles write errors on stdout itself. */
  trapOutputError(handler: (err: NodeJS.ErrnoException) => void): void;
  /** Remove the signal handlers (the EPIPE listener stays: output still buffered may fail later). */
  release(): void;
  /** The first signal the run got, if any. */
  received(): NodeJS.Signals | undefined;
  /** Die of `sig` (after what is written to stdout and stderr has left): the caller sees a death by signal. */
  reraise(sig: NodeJS.Signals): Promise<never>;
  /**
   * End with `code` (after what is written has left) for a command that stopped on a signal with a
   * status of its own (`sandbox requests tail`, `sandbox serve`: 0). At once, not by letting the event
   * loop run dry: a natural end removes Node's signal handlers first and then takes milliseconds to
   * tear down, and the same signal sent again in them (`timeout -s INT` sends it to the command, then
   * to its process group; a loaded machine can hold it between the two) would end the process by the
   * default action instead, silently, as if killed (130).
   */
  exit(code: number): Promise<never>;
}

/** How long after a stopped command's handlers go a repeated stop signal is taken for the one that stopped it (exit() below). */
const ECHO_AFTER_RELEASE_MS = 1000;

/** The shell's status for a death by each signal (128 + its number), should the default action not end the process. */
const SHELL_STATUS: Record<string, number> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };

/** A write of nothing calls back once everything before it has been handed to the system (or the stream failed). */
function drained(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed || !stream.writable) return resolve();
    try {
      stream.write('', () => resolve());
    } catch {
      resolve();
    }
  });
}

export function trapSignals(
  io: IO,
  controller: AbortController,
  cleanups: Array<() => void | Promise<void>>,
): SignalTrap {
  let trapped = false;
  let interrupts = 0;
  let lastSignal = 0;
  // `conf` loads `when-exit`, whose handler re-sends every signal it catches to this process
  // (process.kill(process.pid, sig)): one Ctrl-C would arrive twice and count as the second,
  // "exit at once" one. While our handler's signal is being dispatched, such a self-kill is
  // dropped; and a repeat within a moment of the first (an echo from a handler that ran before
  // ours) counts once. A person's second Ctrl-C still exits at once.
  let swallowing = false;
  let first: NodeJS.Signals | undefined;
  // The function itself, to put back as it was; every call passes `this` (realKill.call(process, …)).
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const realKill = process.kill;
  const killFilter = function (this: unknown, pid: number, sig?: string | number) {
    if (swallowing && pid === process.pid && typeof sig === 'string' && SIGNALS.includes(sig as NodeJS.Signals))
      return true;
    return realKill.call(process, pid, sig);
  } as typeof process.kill;
  // The default action of the signal, from which nothing returns: every listener goes (ours, and
  // when-exit's, which would send it again), so Node restores the default disposition, and the
  // kill is the real one (the filter above drops self-sent signals while one is being handled).
  const die = (sig: NodeJS.Signals): never => {
    for (const s of SIGNALS) process.removeAllListeners(s);
    if (process.kill === killFilter) process.kill = realKill;
    realKill.call(process, process.pid, sig);
    process.exit(SHELL_STATUS[sig] ?? ExitCode.INTERRUPTED);
  };
  const onSignal = (sig: NodeJS.Signals) => {
    const now = Date.now();
    swallowing = true;
    setImmediate(() => (swallowing = false));
    if (interrupts > 0 && now - lastSignal < 250) return;
    lastSignal = now;
    interrupts++;
    first ??= sig;
    controller.abort(new CliError(`Interrupted (${sig}).`, ExitCode.INTERRUPTED));
    if (!trapped || interrupts > 1) {
      io.stderr.write('\nInterrupted.\n');
      // At once: cleanups get a moment, but a graceful close of the HTTP pool would wait for the
      // requests in flight (what the first signal does); a bulk job's journal covers them.
      const bounded = new Promise((r) => setTimeout(r, 200).unref());
      void Promise.race([Promise.allSettled(cleanups.map(async (fn) => fn())), bounded]).finally(() =>
        die(first ?? sig),
      );
    }
  };
  // `bookdist ... | head`: the reader went away. Stop quietly, as other Unix tools do.
  // Any other write error (a full disk, /dev/full, a closed descriptor): say so, exit 1, no stack trace.
  let outputTrap: ((err: NodeJS.ErrnoException) => void) | undefined;
  const onPipeError = (err: NodeJS.ErrnoException) => {
    if (outputTrap) return outputTrap(err);
    const broken = errorCode(err) === 'EPIPE';
    if (!broken) io.stderr.write(cannotWrite(errorCode(err) ?? messageOf(err)));
    void Promise.allSettled(cleanups.map(async (fn) => fn())).finally(() =>
      process.exit(broken ? ExitCode.OK : ExitCode.ERROR),
    );
  };
  for (const sig of SIGNALS) process.on(sig, onSignal);
  process.kill = killFilter;
  process.stdout.on('error', onPipeError);
  // A closed stderr (`2>&1 | head -1`, a terminal gone): nothing can be said there any more, and a
  // job must not die half-way for it (an unhandled EPIPE would end the process mid-batch).
  if (!process.stderr.listenerCount('error')) process.stderr.on('error', () => {});

  return {
    trap: () => void (trapped = true),
    trapOutputError: (handler) => void (outputTrap = handler),
    release() {
      // Stopped by a signal: main() ends the process itself (reraise or exit below). Until then the
      // same stop sent again is that one, dropped for a moment; after it, a signal ends the process.
      // Added before ours go: a signal with no listener at all is back to its default action.
      if (first) {
        const released = Date.now();
        const late = (sig: NodeJS.Signals) => {
          if (Date.now() - released < ECHO_AFTER_RELEASE_MS) return;
          die(sig);
        };
        for (const sig of SIGNALS) process.on(sig, late);
      }
      for (const sig of SIGNALS) process.off(sig, onSignal);
      if (process.kill === killFilter) process.kill = realKill;
    },
    received: () => first,
    async reraise(sig) {
      await flushed();
      return die(sig);
    },
    async exit(code) {
      await flushed();
      process.exit(code);
    },
  };
}

/**
 * What is written to stdout and stderr has left, or a second has passed: a reader that stopped
 * reading must not keep a stopped job alive. The timer stays referenced: the process must not end
 * normally (exit 0) before the caller ends it.
 */
async function flushed(): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const bounded = new Promise((r) => (timer = setTimeout(r, 1000)));
  await Promise.race([Promise.all([drained(process.stdout), drained(process.stderr)]), bounded]);
  clearTimeout(timer);
}
