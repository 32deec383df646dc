// A command run: the command tree argv needs (./tree.ts), each command with a context of its own,
// commander's usage errors and every failure as one report and an exit code (./report.ts), and the
// cleanups when it ends. main() imports this only after the fast paths (src/cli/fast-paths.ts):
// the root help and --version load none of it.
import type { Command, CommanderError } from 'commander';
import { CliError, ExitCode } from '../errors.js';
import type { Clock, GlobalOptions, IO, OutputFormat } from '../context.js';
import { createContext } from './context.js';
import { outputSpecOf } from '../output/model.js';
import type { HttpHandler } from '../api/handler.js';
import { checkDuration } from '../util/duration.js';
import { hasLineTerminator } from '../util/scan.js';
import { exitCodeOf, setContextFactory } from '../commands/define.js';
import { helpWidth } from '../commands/help/parts/layout.js';
import { reportError, usageText, wantsJsonErrors } from './report.js';
import { withHint } from './hints.js';
import type { SignalTrap } from './signals.js';
import { programFor, withSiblings } from './tree.js';

/** What main() set up for the run: its signal trap (none in-process), its cleanups and abort signal, its seams. */
interface RunSetup {
  signals: SignalTrap | undefined;
  cleanups: Array<() => void | Promise<void>>;
  controller: AbortController;
  http?: HttpHandler;
  clock?: Clock;
}

export async function runCommand(argv: string[], io: IO, setup: RunSetup): Promise<number> {
  const { signals, cleanups, controller } = setup;
  const json = wantsJsonErrors(argv);
  const debug = argv.includes('--debug');
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

  setContextFactory(program, (command) =>
    createContext({
      io,
      globals: globalsFrom(command),
      output: outputSpecOf(command),
      signal: controller.signal,
      cleanups,
      trap: () => signals?.trap(),
      trapOutputError: (handler) => signals?.trapOutputError(handler),
      http: setup.http,
      clock: setup.clock,
    }),
  );

  let code: number;
  try {
    if (argv.length === 0) {
      // A bare `bookdist` shows the help, as `bookdist --help` does.
      program.outputHelp();
      return 0;
    }
    await program.parseAsync(normaliseArgv(argv), { from: 'user' });
    code = exitCodeOf(program);
  } catch (err) {
    const ce = err as CommanderError;
    if (ce?.code === 'commander.unknownCommand') ce.message = withHint(ce, usage?.command);
    if (ce?.code === 'commander.unknownOption')
      ce.message = withHint(ce, usage && (await withSiblings(argv, usage.command)));
    code = reportError(err, io, { json, debug, usage: usage && usageText(usage.command) });
  } finally {
    for (const fn of cleanups.reverse()) {
      try {
        await fn();
      } catch {
        /* a cleanup that fails must not hide the command's own exit code */
      }
    }
    signals?.release();
    // The EPIPE listener stays: output still buffered may fail after main() returns.
  }
  return code;
}

/** `--json=a,b` is `--json --fields a,b` (so a bare --json never swallows an argument). */
function normaliseArgv(argv: string[]): string[] {
  const out: string[] = [];
  for (const a of argv) {
    // What /^--json=(.+)$/ took (`.` stops at a line break), without compiling it on every run.
    const fields = a.startsWith('--json=') ? a.slice(7) : '';
    if (fields && !hasLineTerminator(fields)) out.push('--json', '--fields', fields);
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
  if (!Number.isInteger(retries) || retries < 0 || retries > 20)
    throw new CliError('--retries must be a whole number from 0 to 20.', ExitCode.USAGE);
  const fields =
    typeof o.fields === 'string'
      ? o.fields
          .split(',')
          .map((s: string) => s.trim())
          .filter(Boolean)
      : undefined;
  if (typeof o.fields === 'string' && !fields?.length)
    throw new CliError('--fields needs at least one dotted path, e.g. --fields hash_id,title.', ExitCode.USAGE);
  if (o.json && o.output && o.output !== 'json') {
    throw new CliError(`--json and -o ${o.output} ask for two formats; give one (--json is -o json).`, ExitCode.USAGE);
  }
  if (typeof o.query === 'string' && !o.query.trim())
    throw new CliError('--query needs a JMESPath expression, e.g. --query "results[].hash_id".', ExitCode.USAGE);
  return {
    profile: o.profile,
    baseUrl: o.baseUrl,
    caFile: o.caFile,
    resolve: o.resolve,
    output: o.output as OutputFormat | undefined,
    json: Boolean(o.json),
    fields: fields?.length ? fields : undefined,
    query: typeof o.query === 'string' ? o.query : undefined,
    // --no-color sets it to false.
    color: o.color === false ? 'never' : (o.color ?? 'auto'),
    timeout,
    timeoutExplicit: root.getOptionValueSource('timeout') === 'cli',
    timeoutText: root.getOptionValueSource('timeout') === 'cli' ? String(o.timeout) : undefined,
    retries,
    debug: Boolean(o.debug),
    quiet: Boolean(o.quiet),
    yes: Boolean(o.yes),
    dryRun: Boolean(o.dryRun),
    // --no-cache sets it to false.
    noCache: o.cache === false,
    ledger: o.ledger !== false,
  };
}
