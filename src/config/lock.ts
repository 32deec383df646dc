// The lock of the profile store: config.json.lock in the config directory, created with O_EXCL
// and holding its owner's pid and host. A change waits for another bookdist's (up to 10 s); a lock
// whose owner is gone (killed while it held it) is taken over. Loaded only by the verbs that change
// the store.
import { closeSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { CliError, errorCode, ExitCode } from '../errors.js';
import { createNewSync, readTextSync } from '../util/fs-safe.js';
import { pidAlive } from '../util/pid.js';

/** How long a change waits for another bookdist changing the profiles at the same time. */
const LOCK_WAIT_MS = 10_000;

function lockOwnerGone(path: string): boolean {
  let owner: { pid?: unknown; host?: unknown } | undefined;
  try {
    owner = JSON.parse(readTextSync(path) ?? '');
  } catch {
    // Empty while its owner writes it (or left so by a kill at that instant): not taken over.
  }
  if (typeof owner?.pid !== 'number') return false;
  if (owner.host !== hostname()) return false;
  return !pidAlive(owner.pid);
}

/** Run `fn` holding the store's lock (waiting up to LOCK_WAIT_MS for another holder). */
export async function withStoreLock<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const path = join(dir, 'config.json.lock');
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    let fd: number | undefined;
    try {
      fd = createNewSync(path);
    } catch (e) {
      if (errorCode(e) !== 'EEXIST')
        throw new CliError(
          `Cannot lock the profiles in ${dir} (${errorCode(e)}): check that the directory is writable.`,
          ExitCode.ERROR,
        );
    }
    if (fd !== undefined) {
      writeSync(fd, JSON.stringify({ pid: process.pid, host: hostname() }));
      closeSync(fd);
      try {
        return await fn();
      } finally {
        rmSync(path, { force: true });
      }
    }
    if (lockOwnerGone(path)) {
      rmSync(path, { force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw new CliError(
        `The profiles in ${dir} are locked by another bookdist (${path}). Try again; if no bookdist is running, remove that file.`,
        ExitCode.ERROR,
      );
    }
    await new Promise((r) => setTimeout(r, 10 + Math.random() * 20));
  }
}
