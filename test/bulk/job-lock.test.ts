// The job lock on FILE (src/bulk/job/lock.ts), in-process on real files in a temporary directory:
// the lock file names its owner; a second job is refused while that owner lives (here, or on
// another host, whose pids cannot be judged); a dead owner's lock is taken over only by
// --resume/--restart; a torn lock or a planted link counts as dead; releasing removes only our own
// lock, once. Whole jobs are in engine.test.ts and the e2e files; these take milliseconds.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireLock, type Lock } from '../../src/bulk/job/lock.js';
import { CliError, ExitCode } from '../../src/errors.js';

const QUICK = { timeout: 5_000 };

/** No process has this pid (above every system's pid limit). */
const DEAD = 2 ** 30;

let dir: string;
let file: string;
let lockPath: string;
const held: Lock[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bookdist-lock-'));
  file = join(dir, 'codes.csv');
  lockPath = `${file}.bookdist-lock`;
});

afterEach(() => {
  for (const l of held.splice(0)) l.release();
  rmSync(dir, { recursive: true, force: true });
});

const take = (takeOver = false): Lock => {
  const l = acquireLock(file, '--out', takeOver);
  held.push(l);
  return l;
};

/** The usage error (exit 2) taking the lock gives: its message. */
function refused(takeOver = false): string {
  let err: unknown;
  try {
    take(takeOver);
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(CliError);
  expect((err as CliError).exitCode).toBe(ExitCode.USAGE);
  return (err as CliError).message;
}

const plant = (owner: object | string) =>
  writeFileSync(lockPath, typeof owner === 'string' ? owner : JSON.stringify(owner) + '\n');

const ownerOf = () => JSON.parse(readFileSync(lockPath, 'utf8')) as { pid: number; host: string; started: string };

const STARTED = '2026-11-28T05:00:00.000Z';

describe('the job lock', QUICK, () => {
  it('names its owner: this pid, this host, when it started; one line', () => {
    const before = Date.now();
    const l = take();
    expect(l.path).toBe(lockPath);
    const text = readFileSync(lockPath, 'utf8');
    expect(text.endsWith('}\n')).toBe(true);
    const o = ownerOf();
    expect(o.pid).toBe(process.pid);
    expect(o.host).toBe(hostname());
    expect(Date.parse(o.started)).toBeGreaterThanOrEqual(before - 1000);
  });

  it('a second job on the same file is refused while the first runs, naming it', () => {
    take();
    const { started } = ownerOf();
    expect(refused(true)).toBe(
      `--out ${file} is in use by another bookdist job (pid ${process.pid}, started ${started}). ` +
        `Wait for it to finish, or stop it (Ctrl-C or kill ${process.pid}) and continue with --resume.`,
    );
  });

  it('a live job of another process holds it too, --resume or not', () => {
    plant({ pid: process.ppid, host: hostname(), started: STARTED });
    expect(refused(true)).toContain(`in use by another bookdist job (pid ${process.ppid}, started ${STARTED})`);
    expect(ownerOf().pid).toBe(process.ppid);
  });

  it('a lock of another host is never judged dead (its pid means nothing here), and names the host', () => {
    plant({ pid: DEAD, host: 'build-7.example', started: STARTED });
    expect(refused(true)).toBe(
      `--out ${file} is in use by another bookdist job (pid ${DEAD} on build-7.example, started ${STARTED}). ` +
        `Wait for it to finish, or stop it (Ctrl-C or kill ${DEAD}) and continue with --resume.`,
    );
    expect(ownerOf().pid).toBe(DEAD);
  });

  it('a dead owner: refused without --resume/--restart, naming the pid and the way on', () => {
    plant({ pid: DEAD, host: hostname(), started: STARTED });
    expect(refused(false)).toBe(
      `--out ${file}: a job (pid ${DEAD}) stopped without finishing and left codes.csv.bookdist-lock. ` +
        'Continue it with --resume (or start over with --restart).',
    );
    expect(ownerOf().pid).toBe(DEAD);
  });

  it('a dead owner: --resume takes the lock over', () => {
    plant({ pid: DEAD, host: hostname(), started: STARTED });
    take(true);
    expect(ownerOf().pid).toBe(process.pid);
  });

  it('a torn lock, or one that names no pid, counts as dead', () => {
    for (const text of ['{"pid": 12', '', 'null', JSON.stringify({ pid: String(process.pid), host: hostname() })]) {
      plant(text);
      expect(refused(false)).toBe(
        `--out ${file}: a job stopped without finishing and left codes.csv.bookdist-lock. ` +
          'Continue it with --resume (or start over with --restart).',
      );
      take(true);
      expect(ownerOf().pid).toBe(process.pid);
      held.pop()!.release();
    }
  });

  it("a link planted in the lock's place is removed, not followed", () => {
    const target = join(dir, 'precious');
    writeFileSync(target, 'keep me');
    symlinkSync(target, lockPath);
    take(true);
    expect(ownerOf().pid).toBe(process.pid);
    expect(readFileSync(target, 'utf8')).toBe('keep me');
  });

  it('a lock that cannot be removed: the takeover gives up after a few tries', () => {
    mkdirSync(lockPath);
    expect(refused(true)).toBe(`--out ${file}: another job is taking over the same lock. Try again.`);
  });

  it("a directory that cannot hold the lock: the system's code, and what to check", () => {
    file = join(dir, 'missing', 'codes.csv');
    expect(refused(false)).toBe(
      `--out ${file}: cannot create the lock file codes.csv.bookdist-lock (ENOENT). Check that the directory is writable.`,
    );
  });
});

describe('releasing the lock', QUICK, () => {
  it('removes the file, closes it, and stops watching the exit', () => {
    const fds = () => (existsSync('/proc/self/fd') ? readdirSync('/proc/self/fd').length : 0);
    const exits = process.listenerCount('exit');
    const open = fds();
    const l = take();
    expect(fds()).toBe(open);
    expect(process.listenerCount('exit')).toBe(exits + 1);
    l.release();
    expect(existsSync(lockPath)).toBe(false);
    expect(process.listenerCount('exit')).toBe(exits);
  });

  it('at exit (a second Ctrl-C) the lock goes with the process', () => {
    const before = process.listeners('exit');
    take();
    const added = process.listeners('exit').filter((f) => !before.includes(f));
    expect(added).toHaveLength(1);
    (added[0] as () => void)();
    expect(existsSync(lockPath)).toBe(false);
  });

  it('a lock another job took since is left alone', () => {
    const l = take();
    plant({ pid: process.ppid, host: hostname(), started: STARTED });
    l.release();
    expect(ownerOf().pid).toBe(process.ppid);
  });

  it('releasing twice does not remove the lock of the job that came after', () => {
    const first = take();
    first.release();
    take();
    first.release();
    expect(ownerOf().pid).toBe(process.pid);
  });
});
