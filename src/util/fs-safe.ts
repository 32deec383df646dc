// The one place where bookdist opens files it creates or rewrites (results and code files, job
// journals and locks, exported keys, config, the sandbox's database files), so that a symbolic
// link planted by someone who can write to the same directory never redirects a write:
//
// - every open uses O_NOFOLLOW (a link as the last component fails with ELOOP, or EEXIST for a
//   new file), and O_NONBLOCK so that a planted FIFO cannot hang the open (it is then refused as
//   "not a regular file");
// - new files are created with O_CREAT|O_EXCL, 0600 unless told otherwise;
// - files replaced as a whole are written to a temporary file with an unpredictable name in the
//   file's own directory (O_EXCL), fsynced, and renamed into place (rename replaces a link, it
//   never writes through one), then the directory is fsynced.
//
// `Fs` is the seam: the job engine (and whoever else wants its faults tested in-process) takes an
// Fs, `nodeFs` by default; a test passes one whose writes fail (ENOSPC, EIO) where it wants.
// Parent directories are trusted (as every Unix tool does): only the last component is checked.
// Named imports only: a namespace import of node:fs goes through the bundler's interop, which
// describes every export of node:fs on each start (scripts/build.mjs).
import {
  constants,
  chmodSync,
  closeSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  type Stats,
} from 'node:fs';
import type * as FsPromises from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join, resolve } from 'node:path';
import { errorCode } from '../errors.js';

const { O_WRONLY, O_RDONLY, O_RDWR, O_CREAT, O_EXCL, O_APPEND, O_NOFOLLOW, O_NONBLOCK } = constants;

/**
 * node:fs/promises, on first use: loading it loads fourteen more of Node's modules (readline, the
 * file watchers), about 3 ms on every command that imports this file (one request does, for its
 * cache of ids and its config), most of which never open a file through it (issue 31).
 */
const fsp = (): typeof FsPromises => process.getBuiltinModule('node:fs/promises');
const open: typeof FsPromises.open = (...args) => fsp().open(...args);
const lstatAsync: typeof FsPromises.lstat = ((...args: Parameters<typeof FsPromises.lstat>) =>
  fsp().lstat(...args)) as typeof FsPromises.lstat;
const renameAsync: typeof FsPromises.rename = (...args) => fsp().rename(...args);
const rm: typeof FsPromises.rm = (...args) => fsp().rm(...args);

/** What the callers need of an open file (a subset of node:fs/promises' FileHandle). */
export interface SafeHandle {
  readonly fd: number;
  /** Write at the current position (the end, for append opens); resolves with the bytes written. */
  write(buffer: Uint8Array, offset: number, length: number, position: null): Promise<{ bytesWritten: number }>;
  /** Read at `position` (a handle opened for reading). */
  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  datasync(): Promise<void>;
  sync(): Promise<void>;
  truncate(len?: number): Promise<void>;
  stat(): Promise<Stats>;
  chmod(mode: number): Promise<void>;
  readFile(options: { encoding: 'utf8' }): Promise<string>;
  close(): Promise<void>;
}

export interface Fs {
  /** A new file, created with O_EXCL|O_NOFOLLOW (EEXIST when anything, a link included, is there). */
  createNew(path: string, opts?: { mode?: number; append?: boolean }): Promise<SafeHandle>;
  /**
   * An existing regular file, never through a link (ELOOP), never a FIFO or device (ENOTREG).
   * `append`: writes go to the end; `readwrite`: read and write (truncate); `read`: read only.
   */
  openExisting(path: string, how: 'append' | 'readwrite' | 'read'): Promise<SafeHandle>;
  /** lstat, or undefined when nothing is there. */
  lstat(path: string): Promise<Stats | undefined>;
  /** The text of a regular file (not through a link), or undefined when nothing is there. */
  readText(path: string): Promise<string | undefined>;
  /** Replace `path` as a whole: unpredictable temporary file beside it, fsync, rename, fsync the directory. */
  writeFileAtomic(path: string, data: string | Uint8Array, mode?: number): Promise<void>;
  /** rename(2): a link at `to` is replaced, never followed. */
  rename(from: string, to: string): Promise<void>;
  /** Remove a file (or link) if it is there. */
  remove(path: string): Promise<void>;
  /** fsync a directory so that a created or renamed entry survives a crash (best effort). */
  syncDir(dir: string): void;
}

/** Thrown (as `code: 'ENOTREG'`) when a path names something other than a regular file. */
function notRegular(path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOTREG: not a regular file, open '${path}'`), { code: 'ENOTREG', path });
}

async function checkedRegular(fh: SafeHandle, path: string): Promise<SafeHandle> {
  const st = await fh.stat();
  if (!st.isFile()) {
    await fh.close();
    throw notRegular(path);
  }
  return fh;
}

/** A temporary name beside `path` that nobody can guess in advance. */
export function tempNameFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${randomBytes(9).toString('base64url')}.tmp`);
}

export const nodeFs: Fs = {
  async createNew(path, opts = {}) {
    const flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | (opts.append ? O_APPEND : 0);
    return open(path, flags, opts.mode ?? 0o600);
  },
  async openExisting(path, how) {
    const mode = how === 'append' ? O_WRONLY | O_APPEND : how === 'readwrite' ? O_RDWR : O_RDONLY;
    return checkedRegular(await open(path, mode | O_NOFOLLOW | O_NONBLOCK), path);
  },
  async lstat(path) {
    try {
      return await lstatAsync(path);
    } catch (e) {
      if (errorCode(e) === 'ENOENT') return undefined;
      throw e;
    }
  },
  async readText(path) {
    let fh: SafeHandle;
    try {
      // Stryker disable next-line StringLiteral: equivalent, any `how` but append and readwrite opens O_RDONLY
      fh = await this.openExisting(path, 'read');
    } catch (e) {
      if (errorCode(e) === 'ENOENT') return undefined;
      throw e;
    }
    try {
      return await fh.readFile({ encoding: 'utf8' });
    } finally {
      await fh.close();
    }
  },
  async writeFileAtomic(path, data, mode = 0o600) {
    const tmp = tempNameFor(path);
    const fh = await this.createNew(tmp, { mode });
    try {
      // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent, Buffer.from copies bytes whatever the encoding, and '' is utf8
      const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      let off = 0;
      while (off < buf.length) off += (await fh.write(buf, off, buf.length - off, null)).bytesWritten;
      await fh.sync();
    } catch (e) {
      await fh.close().catch(() => {});
      await rm(tmp, { force: true });
      throw e;
    }
    await fh.close();
    try {
      await renameAsync(tmp, path);
    } catch (e) {
      // Stryker disable next-line ObjectLiteral,BooleanLiteral: equivalent, the temporary file this call made is there (force matters only if another process removed it)
      await rm(tmp, { force: true });
      throw e;
    }
    this.syncDir(dirname(path));
  },
  rename: (from, to) => renameAsync(from, to),
  remove: (path) => rm(path, { force: true }),
  syncDir,
};

// Stryker disable BlockStatement: accepted, a directory's fsync shows only after a power loss
function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, O_RDONLY);
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    /* not supported on every platform */
  }
}
// Stryker restore BlockStatement

// ------------------------------------------------------------ synchronous forms (locks, config)

/** A new file (O_EXCL|O_NOFOLLOW, 0600 by default): the descriptor. */
export function createNewSync(path: string, mode = 0o600): number {
  return openSync(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
}

/** The text of a regular file, not through a link; undefined when nothing is there. */
export function readTextSync(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (e) {
    if (errorCode(e) === 'ENOENT') return undefined;
    throw e;
  }
  try {
    if (!fstatSync(fd).isFile()) throw notRegular(path);
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/** writeFileAtomic, synchronously. */
export function writeFileAtomicSync(path: string, data: string | Uint8Array, mode = 0o600): void {
  const tmp = tempNameFor(path);
  const fd = createNewSync(tmp, mode);
  try {
    writeFileSync(fd, data);
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: equivalent, the temporary file this call made is there (force matters only if another process removed it)
    rmSync(tmp, { force: true });
    throw e;
  }
  closeSync(fd);
  try {
    renameSync(tmp, path);
  } catch (e) {
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: equivalent, the temporary file this call made is there (force matters only if another process removed it)
    rmSync(tmp, { force: true });
    throw e;
  }
  syncDir(dirname(path));
}

/**
 * `mkdir -p`, one level at a time, for every directory bookdist creates. Node's recursive mkdir
 * never returns when a parent exists but cannot hold the child (a HOME under /proc, a parent that
 * is a dangling link: the child's ENOENT makes it create the parent again, which exists, for ever,
 * deaf to signals); here the child's error is the answer. A path that exists as a non-directory
 * is EEXIST, as with mkdir.
 */
export function makeDirSync(dir: string, mode = 0o700): void {
  const missing: string[] = [];
  for (let p = resolve(dir); ; p = dirname(p)) {
    const st = statSync(p, { throwIfNoEntry: false });
    if (st) {
      if (!missing.length && !st.isDirectory())
        throw Object.assign(new Error(`EEXIST: file already exists, mkdir '${p}'`), { code: 'EEXIST', path: p });
      break;
    }
    missing.push(p);
    // Stryker disable next-line ConditionalExpression: equivalent, the root always exists, so the loop ends at `if (st)` first
    if (dirname(p) === p) break;
  }
  for (const p of missing.reverse()) {
    try {
      mkdirSync(p, { mode });
    } catch (e) {
      // Stryker disable next-line ConditionalExpression,StringLiteral: accepted, EEXIST here means another process made the directory between the stat and the mkdir, a race no in-process test makes
      if (errorCode(e) !== 'EEXIST') throw e;
    }
  }
}

/**
 * A directory for private files (0700), created if missing; refused (ENOTDIR-like error with
 * code 'ENOTDIR' or 'ELOOP') when a link or a non-directory is there instead.
 */
export function privateDirSync(dir: string): void {
  makeDirSync(dir);
  const st = lstatSync(dir);
  if (st.isSymbolicLink())
    throw Object.assign(new Error(`ELOOP: a symbolic link, not a directory: '${dir}'`), { code: 'ELOOP', path: dir });
  // Stryker disable next-line ConditionalExpression,StringLiteral,ObjectLiteral: accepted, a defensive check: mkdirSync(recursive) already refuses a file or FIFO in place (EEXIST); only a swap by another process between the two calls reaches it
  if (!st.isDirectory())
    // Stryker disable next-line StringLiteral,ObjectLiteral: accepted, the same defensive check's error (see the line above)
    throw Object.assign(new Error(`ENOTDIR: not a directory: '${dir}'`), { code: 'ENOTDIR', path: dir });
  // Stryker disable next-line OptionalChaining: equivalent where bookdist runs (Linux, macOS: process.getuid exists)
  if ((st.mode & 0o077) !== 0 && st.uid === process.getuid?.()) chmodSync(dir, 0o700);
}

/**
 * What a path the user named as an output file is, for a clear refusal: 'missing', 'link'
 * (dangling or not), 'file' (regular), 'dir', or 'other' (FIFO, device, socket).
 */
export async function kindOf(
  fs: Fs,
  path: string,
): Promise<{ kind: 'missing' | 'link' | 'file' | 'dir' | 'other'; stats?: Stats }> {
  const st = await fs.lstat(path);
  if (!st) return { kind: 'missing' };
  if (st.isSymbolicLink()) return { kind: 'link', stats: st };
  if (st.isFile()) return { kind: 'file', stats: st };
  if (st.isDirectory()) return { kind: 'dir', stats: st };
  return { kind: 'other', stats: st };
}

/**
 * Take over an existing empty regular file the user owns (and nobody else links to) as a private
 * file: opened without following links, checked on the open descriptor, then set to 0600.
 * Returns the open handle (read-write), or a reason it may not be taken.
 */
export async function takeOverEmpty(fs: Fs, path: string): Promise<{ handle: SafeHandle } | { refused: string }> {
  let fh: SafeHandle;
  try {
    fh = await fs.openExisting(path, 'readwrite');
  } catch (e) {
    if (errorCode(e) === 'ELOOP') return { refused: 'it is a symbolic link' };
    if (errorCode(e) === 'ENOTREG') return { refused: 'it is not a regular file' };
    throw e;
  }
  const st = await fh.stat();
  // Stryker disable next-line OptionalChaining: equivalent where bookdist runs (Linux, macOS: process.getuid exists)
  const uid = process.getuid?.();
  // `uid !== undefined` → true is equivalent where bookdist runs (uid is never undefined there); it
  // is listed in test/mutation/accepted.md, not disabled: its line's other mutants are real bugs the tests kill.
  const why =
    st.size !== 0
      ? 'it is not empty'
      : uid !== undefined && st.uid !== uid
        ? 'it belongs to another user'
        : st.nlink !== 1
          ? 'it has other hard links'
          : undefined;
  if (why) {
    await fh.close();
    return { refused: why };
  }
  await fh.chmod(0o600);
  return { handle: fh };
}
