// Reading a small file the user names (a key, a CA bundle, the config file) so that no path can
// exhaust the machine or hang the command: /dev/zero read whole took 24 GB, a FIFO with no writer
// blocked open() for ever, deaf to Ctrl-C.
//
// - opened with O_NONBLOCK, as src/util/fs-safe.ts opens its files, so that a FIFO never blocks
//   the open (links are followed: a key kept behind a symbolic link is the user's choice);
// - a regular file over the cap is refused from its size, before a byte is read;
// - a pipe or FIFO (`--key-file <(pass show key)` is one) is read without blocking, up to the cap
//   and within a time limit, between timers, so signal handlers run meanwhile; one that gives
//   nothing and has no writer (read() says end of file at once) is refused after a short grace;
// - a device, a socket or a directory is refused at once.
// A regular file (every key, CA and config file but a pipe's) is opened, checked and read at once,
// synchronously: with O_NONBLOCK the open never waits on a FIFO, and a regular file's read does
// not wait on a writer. Only a pipe is read through node:fs's callback API (node:fs/promises
// would load more of Node at start-up), between timers: a callback call is a hop through libuv's
// thread pool, whose four threads start on the first one (a request's config and key read that
// way took eight hops and the four threads, which a command that reads only regular files and
// sends one request never needs otherwise; issue 31).
import { closeSync, constants, fstatSync, openSync, read, readSync } from 'node:fs';

/** 1 MiB: ample for a key or a CA bundle (a system's whole bundle is about 200 KB). */
const READ_CAP = 1 << 20;

export interface BoundedOptions {
  cap?: number;
  /** How long a pipe may take to end, ms. */
  timeoutMs?: number;
  /** How long a pipe may stay without a writer before it is refused, ms. */
  graceMs?: number;
}

/** Why a bounded read refused a file, as `code` on the error it throws. */
type RefusalCode = 'ETOOBIG' | 'EDEVICE' | 'EISDIR' | 'ENOWRITER' | 'ETIMEDOUT';

function refusal(code: RefusalCode, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code });
}

const call = <T>(f: (cb: (e: NodeJS.ErrnoException | null, v: T) => void) => void): Promise<T> =>
  new Promise((resolve, reject) => f((e, v) => (e ? reject(e) : resolve(v))));
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

function sizeText(n: number): string {
  return n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MiB` : n >= 1024 ? `${Math.round(n / 1024)} KiB` : `${n} bytes`;
}

/** The text of `path`, read within the bounds; throws ENOENT/EACCES as fs does, or a refusal. */
export async function readBounded(path: string, opts: BoundedOptions = {}): Promise<string> {
  const cap = opts.cap ?? READ_CAP;
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) throw refusal('EISDIR', 'it is a directory');
    if (st.isFile()) {
      if (st.size > cap)
        throw refusal('ETOOBIG', `it is ${sizeText(st.size)}, more than the ${sizeText(cap)} such a file can be`);
      return readFile(fd, cap, st.size);
    }
    if (!st.isFIFO()) throw refusal('EDEVICE', `it is a ${st.isSocket() ? 'socket' : 'device'}, not a file`);
    return await readPipe(fd, cap, opts.timeoutMs ?? 10_000, opts.graceMs ?? 500);
  } finally {
    closeSync(fd);
  }
}

/** A regular file's text, up to the cap (it may have grown since its size was read). */
function readFile(fd: number, cap: number, size: number): string {
  const chunks: Buffer[] = [];
  let total = 0;
  // Its size and one more byte: one read for the file, one that finds its end.
  const buf = Buffer.allocUnsafe(Math.min(Math.max(size + 1, 4096), 64 * 1024));
  for (;;) {
    const n = readSync(fd, buf, 0, buf.length, null);
    if (n === 0) break;
    total += n;
    if (total > cap) throw refusal('ETOOBIG', `it holds more than the ${sizeText(cap)} such a file can be`);
    chunks.push(Buffer.from(buf.subarray(0, n)));
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A pipe's text, up to the cap, within the time limit (see the top of this file). */
async function readPipe(fd: number, cap: number, timeoutMs: number, graceMs: number): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  const started = Date.now();
  const buf = Buffer.alloc(64 * 1024);
  for (;;) {
    let n: number;
    try {
      n = await call<number>((cb) => read(fd, buf, 0, buf.length, null, cb));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
      // A writer is there but has not written yet.
      if (Date.now() - started > timeoutMs)
        throw refusal('ETIMEDOUT', `it is a pipe that did not end within ${Math.round(timeoutMs / 1000)} s`);
      await pause(10);
      continue;
    }
    if (n === 0) {
      // End of file; for a pipe that gave nothing yet, perhaps its writer has not opened it yet.
      if (total === 0) {
        if (Date.now() - started < graceMs) {
          await pause(20);
          continue;
        }
        throw refusal('ENOWRITER', 'it is a pipe (FIFO) with no writer: nothing was written to it');
      }
      break;
    }
    total += n;
    if (total > cap) throw refusal('ETOOBIG', `it holds more than the ${sizeText(cap)} such a file can be`);
    chunks.push(Buffer.from(buf.subarray(0, n)));
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A reason for a message: "no such file", "permission denied", or the refusal's own words. */
export function unreadableReason(e: unknown): string {
  const err = e as NodeJS.ErrnoException | null;
  const code = err?.code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES') return 'permission denied';
  if (code === 'EISDIR') return 'it is a directory';
  if (code === 'ETOOBIG' || code === 'EDEVICE' || code === 'ENOWRITER' || code === 'ETIMEDOUT') return err!.message;
  return code ?? String(err?.message ?? e);
}
