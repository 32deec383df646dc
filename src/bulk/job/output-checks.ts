// The checks of a job's file before anything is sent (output-file.ts opens it): the path is a
// regular file or nothing, never a link; on --resume, the job in the file is the same job (verb,
// options, format) against the same service and account.
import { access, constants, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Context } from '../../context.js';
import { usageError } from '../../errors.js';
import { kindOf, type Fs } from '../../util/fs-safe.js';
import type { JobService, Journal, JournalHeader } from './journal.js';
import type { JobFile, JobSpec } from './types.js';

/**
 * FILE must be a regular file or nothing; its directory writable. A link (dangling or not) is
 * refused. A pipe, a terminal, /dev/stdout: the job's file is cut back and re-read on --resume, and
 * its journal and lock go beside it; print to stdout by leaving the flag out instead.
 */
/** The names of the process's own descriptors: /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N. */
const DESCRIPTOR = /^\/dev\/(?:stdout|stderr|stdin|fd\/\d+)$|^\/proc\/(?:self|\d+)\/fd\/\d+$/;

export async function checkPath(file: JobFile, fs: Fs): Promise<void> {
  const dir = dirname(file.path);
  try {
    await access(dir, constants.W_OK);
  } catch {
    throw usageError(
      `${file.flag} ${file.display}: cannot write in ${dir} (missing or not writable). Choose another path.`,
    );
  }
  const { kind } = await kindOf(fs, file.path);
  // /dev/stdout is a link to a pipe or a terminal: say what it is, not that it may be planted.
  // Stryker disable next-line ConditionalExpression: equivalent (→ true), stat of what is no link names the kind lstat named
  const target = kind === 'link' ? await stat(file.path).catch(() => undefined) : undefined;
  if (kind === 'other' || (target && !target.isFile() && !target.isDirectory()))
    throw usageError(
      `${file.flag} ${file.display} is not a regular file (a pipe or a device); a job's file must be one it can resume. To print the results, leave out ${file.flag}.`,
    );
  // `--out /dev/stdout > results.csv`: the link leads to the file the shell opened. Say what it
  // is, not that it may be planted, and how to get the job's file.
  // Stryker disable next-line ConditionalExpression: accepted (→ true), an open descriptor's name is a link or a device (refused above); a closed one is refused either way
  if (kind === 'link' && DESCRIPTOR.test(file.path))
    throw usageError(
      `${file.flag} ${file.display} is one of this command's own descriptors, here a file the shell opened; a job needs a file it can resume, with its journal beside it. ` +
        `Give the file's own path as ${file.flag}, or leave out ${file.flag} to print the results. Nothing was written.`,
    );
  if (kind === 'link')
    throw usageError(
      `${file.flag} ${file.display} is a symbolic link; bookdist never writes results through one (someone who can write to ${dir} may have planted it). ` +
        'Give the path of a regular file, or remove the link. Nothing was written.',
    );
  if (kind === 'dir') throw usageError(`${file.flag} ${file.display} is a directory; give a file path.`);
}

function describeValue(v: unknown): string {
  return v === undefined || v === null ? '(not given)' : typeof v === 'string' ? v : JSON.stringify(v);
}

export function checkSameJob<I, R extends Record<string, unknown>>(
  spec: JobSpec<I, R>,
  file: JobFile,
  header: JournalHeader,
): void {
  if (header.verb !== spec.verb)
    throw usageError(`--resume: ${file.display} belongs to a \`${header.verb}\` job, not \`${spec.verb}\`.`);
  for (const flag of Object.keys({ ...header.identity, ...spec.identity })) {
    const was = header.identity[flag];
    const now = spec.identity[flag];
    if (JSON.stringify(was) !== JSON.stringify(now)) {
      throw usageError(
        `--resume: the job in ${file.display} was started with ${flag} ${describeValue(was)}, not ${describeValue(now)}. Give the same ${flag} (or start over with --restart).`,
      );
    }
  }
  if (header.format !== file.format)
    throw usageError(
      `--resume: ${file.display} was written as ${header.format}; give the same output format (-o ${header.format}).`,
    );
}

/**
 * A job belongs to one service and one account: --resume elsewhere would mix codes of two
 * services in one file. A journal of an older bookdist recorded neither: it resumes, with a warning.
 */
export function checkSameService(file: JobFile, saved: Journal, now: JobService, ctx: Context): void {
  const was = saved.header.service;
  if (!was || saved.chain === undefined) {
    ctx.warn(
      `--resume: the job journal of ${file.display} was written by an older bookdist (no service, account or digest recorded): ` +
        'it cannot be checked against the service of this run, nor for edits. Resuming as before.',
    );
    if (!was) return;
  }
  const who = (s: JobService) => `${s.base_url} as ${s.account ?? '(no account)'}`;
  if (was.base_url !== now.base_url || was.account !== now.account) {
    throw usageError(
      `--resume: the job in ${file.display} was started against ${who(was)}; this run would send to ${who(now)}. ` +
        'A job belongs to one service and account (its codes would be mixed in one file): resume it with the same profile, ' +
        '--base-url and account, or start over with --restart.',
    );
  }
}
