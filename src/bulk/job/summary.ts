// How a job ends: one summary line (counts of what was *written*), the exit code, the command
// that continues it, and in CI a Markdown summary ($GITHUB_STEP_SUMMARY) and `::error::`
// annotations (GITHUB_ACTIONS=true). Exit codes: 0 ok, 6 partial, 7 unavailable (everything that
// failed failed because the service stayed unavailable), 130 interrupted (main() then dies of the
// signal: the shell sees 130, 143 or 129), 1 a failed write (the
// rows it could not write kept in the rescue file), 2 a bad input.
import { appendFileSync } from 'node:fs';
import { CliError, errorCode, ExitCode, messageOf } from '../../errors.js';
import { formatDuration } from '../../util/duration.js';
import type { Failure } from '../retry.js';
import { InputChanged } from './planner.js';
import { FileGone } from './output-file.js';
import type { Rescue } from './rescue.js';
import { statsOf, type JobState } from './types.js';

/**
 * The exit code of a finished bulk job: 0 when nothing failed; 7 when everything that failed
 * failed because the service stayed unavailable (retrying the job later may work); 6 otherwise.
 */
export function bulkExitCode(failures: Array<Pick<Failure, 'kind'>>, extraPartial = false): number {
  if (!failures.length) return extraPartial ? ExitCode.PARTIAL : ExitCode.OK;
  if (!extraPartial && failures.every((f) => f.kind === 'unavailable')) return ExitCode.UNAVAILABLE;
  return ExitCode.PARTIAL;
}

interface Ending {
  code: number;
  /** The summary, or the error (thrown as a CliError when `error`). */
  message: string;
  error?: CliError;
  /** The command that continues the job, when something is left to do. */
  resume?: string;
  /** Nothing left: the journal may go. */
  complete: boolean;
}

/** Everything ran, was written, and nothing is left for --resume. */
function isComplete<I, R extends Record<string, unknown>>(s: JobState<I, R>): boolean {
  return (
    s.sourceDone &&
    s.yielded === s.handled &&
    !s.fatal &&
    !s.writeError &&
    !s.sourceError &&
    s.notDone === 0 &&
    s.unsettled === 0 &&
    !s.redoLeft
  );
}

/** The command that continues the job: the one that repeats it (every flag of this run kept), with --resume. */
function resumeCommand<I, R extends Record<string, unknown>>(s: JobState<I, R>): string | undefined {
  if (!s.spec.file) {
    const hint = s.spec.stdoutResumeHint?.(statsOf(s));
    if (!hint) return undefined;
    // A here-document (the input on the lines after the command) keeps the note on the first line.
    const [first, ...rest] = hint.command.split('\n');
    return [first + (hint.note ? `  # ${hint.note}` : ''), ...rest].join('\n');
  }
  return `${s.spec.command} --resume`;
}

function rescueText(rescue: Rescue): string {
  if (rescue.path && rescue.count)
    return ` The ${rescue.count} result(s) the service returned that could not be written are kept in ${rescue.path} (readable only by you).`;
  if (rescue.error) return ` Results the service returned could not be kept either (${rescue.error}).`;
  return '';
}

function writeFailure<I, R extends Record<string, unknown>>(
  s: JobState<I, R>,
  text: string,
  resume: string | undefined,
  rescue: Rescue,
): CliError {
  const e = s.writeError;
  if (e instanceof FileGone) return fileGone(s, e, resume, rescue);
  const code = errorCode(e);
  const where = s.spec.file ? s.spec.file.display : 'stdout';
  const closed = !s.spec.file && code === 'EPIPE';
  const why = code
    ? `${code} (${closed ? 'the reader closed the pipe' : messageOf(e).replace(/^[A-Z]+: /, '')})`
    : messageOf(e);
  const next = closed
    ? `the job stopped there (results of requests in flight were not printed).${resume ? ` To continue, run:\n  ${resume}` : ''}`
    : `every batch written before it is kept.${rescueText(rescue)} Make room (or fix the disk), then continue:${resume ? `\n  ${resume}` : ''}`;
  return new CliError(`${s.spec.verb}: writing ${where} failed: ${why}. ${text}; ${next}`, ExitCode.ERROR);
}

/** FILE was deleted or replaced during the job: where what it held is now, and how to write it again. */
function fileGone<I, R extends Record<string, unknown>>(
  s: JobState<I, R>,
  e: FileGone,
  resume: string | undefined,
  rescue: Rescue,
): CliError {
  const where = s.spec.file!.display;
  const kept =
    rescue.path && rescue.count
      ? `The ${rescue.count} result(s) the service returned for it are kept in ${rescue.path} (readable only by you).`
      : rescue.error
        ? `What it held could not be kept (${rescue.error}).`
        : 'It held no results yet.';
  return new CliError(
    `${s.spec.verb}: ${where} was ${e.how} while the job was writing it: it does not hold the results. ${kept}` +
      (resume
        ? ` The job's journal is kept: to write every result to ${where} again (fetched with the same keys), run:\n  ${resume}`
        : // Stryker disable next-line StringLiteral: equivalent, FILE can be gone only in a file job, whose resume command always exists (resumeCommand)
          ''),
    ExitCode.ERROR,
  );
}

/**
 * A certificate or proxy failure: every request would fail alike, so the job stopped at the first
 * one (src/bulk/job/tools.ts), and it is mended outside the job (--ca-file, HTTPS_PROXY...).
 */
export function stopsAtOnce(f: Pick<Failure, 'exitCode'>): boolean {
  return f.exitCode === ExitCode.TLS || f.exitCode === ExitCode.PROXY;
}

/**
 * The ending of a job stopped by a certificate or proxy failure: its exit code (8 or 9), the
 * failure, the summary line, and the command that continues the job once that is fixed (for a
 * job without a file or a resume hint of its own, the command that runs it again).
 */
function mendOutside<I, R extends Record<string, unknown>>(
  s: JobState<I, R>,
  fatal: Failure,
  line: string,
  resume: string | undefined,
): Ending {
  const again = resume ?? s.spec.command;
  const error = new CliError(
    `${s.spec.verb}: ${fatal.message}\n${line} Once that is fixed, continue with:\n  ${again}`,
    fatal.exitCode,
  );
  return { code: fatal.exitCode, message: error.message, error, resume: again, complete: false };
}

/** What the job came to; nothing printed yet. */
export function ending<I, R extends Record<string, unknown>>(s: JobState<I, R>, rescue: Rescue): Ending {
  const { spec } = s;
  const stats = statsOf(s);
  const text = spec.describe(s.counts, stats);
  const resume = resumeCommand(s);
  const complete = isComplete(s);
  const fail = (error: CliError): Ending => ({
    code: error.exitCode,
    message: error.message,
    error,
    resume,
    complete: false,
  });
  // A usage error from the output layer (e.g. --fields naming no field of the rows) is the user's to fix.
  if (s.writeError instanceof CliError) return fail(s.writeError);
  if (s.writeError) return fail(writeFailure(s, text, resume, rescue));
  if (s.sourceError instanceof InputChanged) return fail(s.sourceError);
  if (s.sourceError) {
    const msg = messageOf(s.sourceError);
    const code = (s.sourceError as { exitCode?: number }).exitCode ?? ExitCode.USAGE;
    return fail(
      new CliError(`${msg} ${text} before it.${spec.file ? ` Fix the input, then continue:\n  ${resume}` : ''}`, code),
    );
  }
  const how = resume ? ` To continue, run:\n  ${resume}` : '';
  // Results kept aside (more than asked, or not results at all) are said wherever the job ends.
  const aside =
    // Stryker disable next-line ConditionalExpression: equivalent (→ true), rescueText of a rescue with neither is '', and its replace leaves it so
    rescue.count || rescue.error
      ? rescueText(rescue).replace(
          ' that could not be written',
          ' that were not written (more than asked, or malformed)',
        )
      : '';
  const line = `${spec.verb}: ${text} in ${formatDuration(stats.elapsedMs)}${spec.file ? ` → ${spec.file.display}` : ''}.${aside}`;
  if (s.fatal && stopsAtOnce(s.fatal)) return mendOutside(s, s.fatal, line, resume);
  if (s.fatal)
    return fail(
      new CliError(
        `${spec.verb}: ${s.fatal.message} (${text}).${spec.file && s.batches ? how : ''}`,
        s.fatal.exitCode,
        undefined,
        s.fatal.status,
      ),
    );
  const where = spec.file ? spec.file.display : 'stdout';
  if (s.ctx.signal.aborted && !complete)
    return { code: ExitCode.INTERRUPTED, message: `interrupted: ${text} → ${where}.${how}`, resume, complete };
  const exit = (code: number) => spec.exitCode?.(code, s.failures) ?? code;
  const redoable = s.failures.length > 0 || s.notDone > 0 || s.unsettled > 0;
  const message =
    line +
    (s.invalid ? (spec.invalidHint ?? ' Fix the invalid rows and run them again.') : '') +
    (redoable && resume ? ` To retry what failed, run:\n  ${resume}` : '');
  return {
    code: exit(bulkExitCode(s.failures, s.invalid > 0)),
    message,
    resume: redoable ? resume : undefined,
    complete,
  };
}

/** Workflow command text: `%`, CR and LF escaped as GitHub Actions reads them. */
function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** In CI: the Markdown step summary and, on GitHub Actions, an `::error::` annotation for a failed job. */
export function reportToCi<I, R extends Record<string, unknown>>(s: JobState<I, R>, end: Ending): void {
  const env = s.ctx.io.env;
  if (env.GITHUB_ACTIONS === 'true' && end.code !== ExitCode.OK) {
    s.ctx.io.stderr.write(`::error title=bookdist ${s.spec.verb} (exit ${end.code})::${escapeData(end.message)}\n`);
  }
  const path = env.GITHUB_STEP_SUMMARY;
  if (!path) return;
  const rows = Object.entries(s.counts).map(([status, n]) => `| ${status} | ${n} |`);
  const md = [
    `### bookdist ${s.spec.verb}: ${end.code === ExitCode.OK ? 'done' : `exit ${end.code}`}`,
    '',
    end.message.split('\n')[0],
    '',
    '| status | count |',
    '| --- | ---: |',
    ...(rows.length ? rows : ['| (none written) | 0 |']),
    ...(s.earlier ? [`| done in an earlier run | ${s.earlier} |`] : []),
    '',
    `Output: ${s.spec.file ? '`' + s.spec.file.display + '`' : 'stdout'}`,
    ...(end.resume && !end.complete ? ['', 'Unfinished. To continue:', '', '```sh', end.resume, '```'] : []),
    '',
  ].join('\n');
  try {
    appendFileSync(path, md + '\n');
  } catch (e) {
    s.ctx.warn(`GITHUB_STEP_SUMMARY ${path}: cannot append the job summary (${errorCode(e) ?? messageOf(e)}).`);
  }
}
