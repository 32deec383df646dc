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
// Only node:fs's callback API is used: node:fs/promises would load more of Node at start-up.
import { close, constants, fstat, open, read, type Stats } from 'node:fs';

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
  const fd = await call<number>((cb) => open(path, constants.O_RDONLY | constants.O_NONBLOCK, cb));
  try {
    const st = await call<Stats>((cb) => fstat(fd, cb));
    if (st.isDirectory()) throw refusal('EISDIR', 'it is a directory');
    if (st.isFile()) {
      if (st.size > cap)
        throw refusal('ETOOBIG', `it is ${sizeText(st.size)}, more than the ${sizeText(cap)} such a file can be`);
    } else if (!st.isFIFO()) throw refusal('EDEVICE', `it is a ${st.isSocket() ? 'socket' : 'device'}, not a file`);
    return await readAll(fd, cap, st.isFIFO(), opts.timeoutMs ?? 10_000, opts.graceMs ?? 500);
  } finally {
    close(fd, () => {});
  }
}

async function readAll(fd: number, cap: number, pipe: boolean, timeoutMs: number, graceMs: number): Promise<string> {
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
      if (pipe && total === 0) {
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
