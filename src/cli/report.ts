// The error report: one shape for every failure, as a line on stderr or (under --json and
// -o json|ndjson) a JSON object, with the exit code it means; commander's usage errors with the
// usage line of the command that failed; stack traces only with --debug.
import type { Command, CommanderError } from 'commander';
import { CliError, ExitCode } from '../errors.js';
import type { IO } from '../context.js';
import type { ApiError } from '../api/errors.js';
import { clipLongWords, errorText } from '../output/text.js';

/** The JSON formats of -o, and the words that ask for one in a single argument (`-ojson`, `--output=ndjson`). */
const JSON_FORMATS = new Set(['json', 'ndjson']);
const JSON_OUTPUT_WORDS = new Set(['--output=', '-o', '-o='].flatMap((o) => [`${o}json`, `${o}ndjson`]));

/** Does argv ask for JSON (so that an error is reported as JSON too)? */
export function wantsJsonErrors(argv: string[]): boolean {
  // Set lookups, not regular expressions: this runs on every command (src/util/scan.ts says why).
  return (
    argv.includes('--json') ||
    argv.some((a) => a.startsWith('--json=')) ||
    argv.some((a, i) => (a === '-o' || a === '--output') && JSON_FORMATS.has(argv[i + 1] ?? '')) ||
    argv.some((a) => JSON_OUTPUT_WORDS.has(a))
  );
}

/** `Usage: bookdist book get [options] <isbn>` and where to read more, for a usage error. */
export function usageText(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  const full = names.join(' ');
  return `Usage: ${full} ${cmd.usage()}\nRun \`${full} --help\` for details.`;
}

/** What a thrown value may carry, as the layers below throw it (all optional: anything can be thrown). */
interface Thrown {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  exitCode?: unknown;
  stack?: unknown;
}

const isCommanderError = (e: Thrown): e is CommanderError =>
  typeof e.code === 'string' && e.code.startsWith('commander.');
const isApiError = (e: Thrown): e is ApiError => e.name === 'ApiError';
const isCliError = (e: Thrown): e is CliError => e instanceof CliError || e.name === 'CliError';

export function reportError(err: unknown, io: IO, opts: { json: boolean; debug: boolean; usage?: string }): number {
  const e: Thrown = typeof err === 'object' && err !== null ? err : {};
  // commander: help and version are not errors; usage errors exit 2, with the usage line.
  if (isCommanderError(e)) {
    const ce = e;
    if (ce.code === 'commander.helpDisplayed' || ce.code === 'commander.version' || ce.exitCode === 0) return 0;
    // `bookdist profile` without a verb: commander already printed the group's help on stderr.
    if (ce.code === 'commander.help') return ExitCode.USAGE;
    const message = ce.message.replace(/^error: /, '');
    if (opts.json) {
      const full = opts.usage ? `${message}\n${opts.usage}` : message;
      io.stderr.write(
        JSON.stringify({
          error: { status: null, message: clipLongWords(full), exit_code: ExitCode.USAGE, details: null },
        }) + '\n',
      );
    } else {
      io.stderr.write(`bookdist: ${errorText(message)}\n${opts.usage ? opts.usage + '\n' : ''}`);
    }
    return ExitCode.USAGE;
  }
  if (e.name === 'DryRun') return 0;
  let exitCode: number = ExitCode.ERROR;
  let status: number | undefined;
  let message = String(e.message ?? err);
  let details: Record<string, unknown> | undefined;
  if (isApiError(e)) {
    exitCode = e.exitCode;
    status = e.status;
    details = e.body && typeof e.body === 'object' ? stripEnvelope(e.body) : undefined;
    message = `${e.message} (HTTP ${e.status}, ${e.request.method} ${new URL(e.request.url).pathname})`;
  } else if (isCliError(e)) {
    exitCode = e.exitCode;
    status = e.status;
    details = e.details;
  } else if (e.name === 'AbortError' || e.exitCode === ExitCode.INTERRUPTED) {
    exitCode = ExitCode.INTERRUPTED;
    message = 'Interrupted.';
  } else if (e.name === 'ExitPromptError') {
    exitCode = ExitCode.INTERRUPTED;
    message = 'Cancelled.';
  } else if (!opts.debug) {
    message = `${message} (unexpected error; run with --debug for details)`;
  }
  if (opts.json) {
    io.stderr.write(
      JSON.stringify({
        error: {
          status: status ?? null,
          message: clipLongWords(message),
          exit_code: exitCode,
          details: details ?? null,
        },
      }) + '\n',
    );
  } else {
    io.stderr.write(`bookdist: ${errorText(message)}\n`);
  }
  if (opts.debug && typeof e.stack === 'string') io.stderr.write(`${e.stack}\n`);
  return exitCode;
}

function stripEnvelope(body: object): Record<string, unknown> | undefined {
  const {
    code: _c,
    error: _e,
    success: _s,
    test_mode: _t,
    message: _m,
    ...rest
  }: Record<string, unknown> = { ...body };
  return Object.keys(rest).length ? rest : undefined;
}
