// Whether a process holding a lock file is still alive (the job's, the ledger's, the config's).
import { errorCode } from '../errors.js';

/** Is the process alive (on this host)? EPERM means it exists but is not ours. */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return errorCode(e) === 'EPERM';
  }
}
