// A file-system seam for in-process bulk tests: a disk that fills up at a chosen byte of a chosen
// file (what a process-level test could only do through an environment switch in production code).
import { nodeFs, type Fs, type SafeHandle } from '../../src/util/fs-safe.js';

/** A handle whose writes stop at `limit` bytes of the file and fail with ENOSPC, as on a full disk. */
function fullAt(fh: SafeHandle, path: string, size: number, limit: number): SafeHandle {
  return {
    fd: fh.fd,
    write: async (buf: Uint8Array, off: number, len: number, pos: null) => {
      const room = Math.max(0, limit - size);
      if (len > room) {
        if (room) await fh.write(buf, off, room, pos);
        size += room;
        throw Object.assign(new Error(`ENOSPC: no space left on device, write '${path}'`), {
          code: 'ENOSPC',
          errno: -28,
          syscall: 'write',
        });
      }
      const r = await fh.write(buf, off, len, pos);
      size += r.bytesWritten;
      return r;
    },
    read: (buf: Uint8Array, off: number, len: number, pos: number) => fh.read(buf, off, len, pos),
    truncate: async (n?: number) => {
      await fh.truncate(n);
      size = n ?? 0;
    },
    stat: () => fh.stat(),
    datasync: () => fh.datasync(),
    sync: () => fh.sync(),
    chmod: (m: number) => fh.chmod(m),
    readFile: (o: { encoding: 'utf8' }) => fh.readFile(o),
    close: () => fh.close(),
  };
}

/** nodeFs, except that `path` can hold at most `limit` bytes (writes past it fail with ENOSPC). */
export function fullDisk(path: string, limit: number): Fs {
  return {
    ...nodeFs,
    async createNew(p, opts) {
      const fh = await nodeFs.createNew(p, opts);
      return p === path ? fullAt(fh, p, 0, limit) : fh;
    },
    async openExisting(p, how) {
      const fh = await nodeFs.openExisting(p, how);
      return p === path ? fullAt(fh, p, (await fh.stat()).size, limit) : fh;
    },
  };
}

/** What happened to a file through the seam: bytes written to it, or an fsync/fdatasync of it. */
export interface FsEvent {
  op: 'write' | 'sync';
  path: string;
  /** The text written (write). */
  text?: string;
}

/** A handle that records its writes and syncs, in order, in `log`. */
function recording(fh: SafeHandle, path: string, log: FsEvent[]): SafeHandle {
  return {
    fd: fh.fd,
    write: async (buf: Uint8Array, off: number, len: number, pos: null) => {
      const r = await fh.write(buf, off, len, pos);
      log.push({ op: 'write', path, text: Buffer.from(buf.subarray(off, off + r.bytesWritten)).toString('utf8') });
      return r;
    },
    datasync: async () => {
      await fh.datasync();
      log.push({ op: 'sync', path });
    },
    sync: async () => {
      await fh.sync();
      log.push({ op: 'sync', path });
    },
    read: (buf: Uint8Array, off: number, len: number, pos: number) => fh.read(buf, off, len, pos),
    truncate: (n?: number) => fh.truncate(n),
    stat: () => fh.stat(),
    chmod: (m: number) => fh.chmod(m),
    readFile: (o: { encoding: 'utf8' }) => fh.readFile(o),
    close: () => fh.close(),
  };
}

/** nodeFs, recording every write and sync of every file opened through it (per path, in order). */
export function recordingFs(): Fs & { log: FsEvent[] } {
  const log: FsEvent[] = [];
  return {
    ...nodeFs,
    log,
    async createNew(p, opts) {
      return recording(await nodeFs.createNew(p, opts), p, log);
    },
    async openExisting(p, how) {
      return recording(await nodeFs.openExisting(p, how), p, log);
    },
  };
}
