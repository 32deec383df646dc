// The ledger's lock (src/ledger/store.ts): `ledger.lock` in the ledger's directory, created O_EXCL
// and holding the owner's pid; one left by a killed process is broken. It is held only for one
// append's write (store.ts). A process that waits for it says so (`ledger.want`), and a new taker
// that did not wait gives way to the waiter for a few milliseconds, so that a process appending
// again and again cannot keep a waiter out. Synchronous calls only (see store.ts).
import * as fs from 'node:fs';
import { constants } from 'node:fs';
import { join } from 'node:path';
import { createNewSync, readTextSync } from '../util/fs-safe.js';
import { pidAlive } from '../util/pid.js';
import { CliError, errorCode, ExitCode, messageOf } from '../errors.js';

const LOCK_FILE = 'ledger.lock';
/** Made by a process that waits for the lock: a new taker gives way. */
const WANT_FILE = 'ledger.want';
/** The longest a lock may be held by a live process before it is judged abandoned. */
const STALE_MS = 30_000;
/** The longest an append waits for the lock. */
const WAIT_MS = 20_000;
/** The longest a taker gives way to a waiter (ledger.want) before taking the lock anyway (the waiter died). */
const YIELD_MS = 20;

/** The ledger's refusal of a file it cannot use safely: nothing was sent. */
export function refused(path: string, why: string, e?: unknown): CliError {
  return new CliError(
    `The ledger ${path} ${why}${e ? ` (${errorCode(e) ?? messageOf(e)})` : ''}. Nothing was sent. ` +
      'Fix it, point BOOKDIST_STATE_DIR at a private directory, or turn the ledger off for this command with --no-ledger (BOOKDIST_LEDGER=off).',
    ExitCode.USAGE,
    { file: path },
  );
}

const sleepBuf = new Int32Array(new SharedArrayBuffer(4));
function pause(ms: number): void {
  Atomics.wait(sleepBuf, 0, 0, ms);
}

export class LedgerLock {
  private readonly lockPath: string;
  private readonly wantPath: string;
  /** The lock while this process holds it: its file's inode. */
  private held?: { ino: number };

  constructor(dir: string) {
    this.lockPath = join(dir, LOCK_FILE);
    this.wantPath = join(dir, WANT_FILE);
  }

  /** Does another process wait for the lock? */
  private wanted(): boolean {
    return fs.existsSync(this.wantPath);
  }

  /** Take the lock (waiting a millisecond or two at a time). */
  take(): void {
    const started = Date.now();
    let waited = false;
    let yielded = false;
    for (let wait = 1; ; wait = 2) {
      // A process is waiting: give way to it (unless this one waits too, or it has waited too long: dead).
      if (!waited && Date.now() - started < YIELD_MS && this.wanted()) {
        yielded = true;
        pause(1);
        continue;
      }
      let fd: number;
      try {
        fd = createNewSync(this.lockPath);
      } catch (e) {
        if (errorCode(e) !== 'EEXIST') throw refused(this.lockPath, 'lock cannot be created', e);
        waited = true;
        this.want();
        this.breakIfAbandoned();
        if (Date.now() - started > WAIT_MS)
          throw refused(this.lockPath, `lock has been held for more than ${WAIT_MS / 1000} s by another process`);
        pause(wait);
        continue;
      }
      try {
        fs.writeSync(fd, String(process.pid));
        this.held = { ino: fs.fstatSync(fd).ino };
      } catch (e) {
        fs.closeSync(fd);
        fs.rmSync(this.lockPath, { force: true });
        throw refused(this.lockPath, 'lock cannot be written', e);
      }
      fs.closeSync(fd);
      if (waited || yielded) fs.rmSync(this.wantPath, { force: true });
      return;
    }
  }

  /** Say that this process waits for the lock (not through a link: then it only waits longer). */
  private want(): void {
    try {
      fs.closeSync(
        fs.openSync(
          this.wantPath,
          constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK,
          0o600,
        ),
      );
    } catch {
      /* ignore */
    }
  }

  /** Let the lock go, if this process holds it (one broken meanwhile as abandoned is left alone). */
  release(): void {
    const held = this.held;
    if (!held) return;
    this.held = undefined;
    try {
      if (fs.lstatSync(this.lockPath).ino === held.ino) fs.unlinkSync(this.lockPath);
    } catch {
      /* broken by another process after STALE_MS: nothing to release */
    }
  }

  /** A lock whose owner is dead (killed while holding it), or held far too long, is removed. */
  private breakIfAbandoned(): void {
    let owner: number;
    let age: number;
    try {
      const st = fs.lstatSync(this.lockPath);
      age = Date.now() - st.mtimeMs;
      owner = Number(readTextSync(this.lockPath));
    } catch {
      return; // gone meanwhile, or a link (not followed): the create decides
    }
    // An empty lock is one being written this instant: give it time.
    const dead = owner > 0 ? !pidAlive(owner) : age > 1000;
    if (!dead && age < STALE_MS) return;
    // Move it aside under a name of our own, then look at what was moved: only that owner's lock
    // is removed; one taken meanwhile by a live process is put back.
    const aside = `${this.lockPath}.${process.pid}.${Math.random().toString(36).slice(2)}`;
    try {
      fs.renameSync(this.lockPath, aside);
    } catch {
      return;
    }
    let moved = NaN;
    try {
      moved = Number(readTextSync(aside));
    } catch {
      /* unreadable: remove */
    }
    if (moved !== owner && moved > 0 && pidAlive(moved)) {
      try {
        fs.linkSync(aside, this.lockPath);
      } catch {
        /* someone else holds it now: theirs wins */
      }
    }
    try {
      fs.unlinkSync(aside);
    } catch {
      /* ignore */
    }
  }
}
