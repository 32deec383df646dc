// An exclusive lock on a bulk job's files: FILE.bookdist-lock, created with O_EXCL and holding the
// owner's pid and host. A second job on the same file is refused naming the owner; a lock whose
// pid is gone (the owner was killed) is taken over only by --resume/--restart, which are the
// commands that continue or replace that job. Written by us rather than proper-lockfile because
// that library judges staleness by mtime, not by the owner's pid, and cannot name the owner.
import { writeSync, closeSync, unlinkSync, fsyncSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename } from 'node:path';
import { CliError, errorCode, ExitCode, messageOf } from '../../errors.js';
import { createNewSync, readTextSync } from '../../util/fs-safe.js';
import { pidAlive } from '../../util/pid.js';

const LOCK_SUFFIX = '.bookdist-lock';

export interface Lock {
  path: string;
  release(): void;
}

interface Owner {
  pid: number;
  host: string;
  started: string;
}

function readOwner(path: string): Owner | undefined {
  try {
    // Stryker disable next-line StringLiteral: equivalent, no file (a race) parses as nothing either way
    const o = JSON.parse(readTextSync(path) ?? '');
    // Stryker disable next-line OptionalChaining: equivalent, a lock of `null` throws here, caught as torn alike
    if (typeof o?.pid === 'number') return o;
  } catch {
    /* torn, foreign, or a planted link (not followed): treated as dead below */
  }
  return undefined;
}

/**
 * Take the lock of `file` (the job's output or results file). `takeOver`: a lock left by a dead
 * process may be replaced (the caller is resuming or restarting that job).
 */
export function acquireLock(file: string, flag: string, takeOver: boolean): Lock {
  const path = file + LOCK_SUFFIX;
  const me: Owner = { pid: process.pid, host: hostname(), started: new Date().toISOString() };
  // Stryker disable next-line EqualityOperator: accepted, a fourth try changes only how long a race is retried
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number;
    try {
      fd = createNewSync(path);
    } catch (e) {
      if (errorCode(e) !== 'EEXIST') {
        throw new CliError(
          `${flag} ${file}: cannot create the lock file ${basename(path)} (${errorCode(e) ?? messageOf(e)}). Check that the directory is writable.`,
          ExitCode.USAGE,
        );
      }
      const owner = readOwner(path);
      const sameHost = !owner || owner.host === me.host;
      if (owner && (!sameHost || pidAlive(owner.pid))) {
        throw new CliError(
          `${flag} ${file} is in use by another bookdist job (pid ${owner.pid}${sameHost ? '' : ` on ${owner.host}`}, started ${owner.started}). ` +
            'Wait for it to finish, or stop it (Ctrl-C or kill ' +
            owner.pid +
            ') and continue with --resume.',
          ExitCode.USAGE,
        );
      }
      if (!takeOver) {
        throw new CliError(
          `${flag} ${file}: a job${owner ? ` (pid ${owner.pid})` : ''} stopped without finishing and left ${basename(path)}. ` +
            'Continue it with --resume (or start over with --restart).',
          ExitCode.USAGE,
        );
      }
      // The owner is gone: take its lock over. Re-check after removing, so two resumers cannot both win.
      try {
        unlinkSync(path);
      } catch {
        /* another resumer removed it first; the O_EXCL create decides */
      }
      continue;
    }
    try {
      writeSync(fd, JSON.stringify(me) + '\n');
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const o = readOwner(path);
      if (o && o.pid !== process.pid) return; // not ours any more
      try {
        unlinkSync(path);
      } catch {
        /* already gone */
      }
    };
    // A second Ctrl-C exits at once: the lock goes with the process, not left for --resume to judge.
    process.once('exit', release);
    return {
      path,
      release() {
        process.off('exit', release);
        release();
      },
    };
  }
  throw new CliError(`${flag} ${file}: another job is taking over the same lock. Try again.`, ExitCode.USAGE);
}
