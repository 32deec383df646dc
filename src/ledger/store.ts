// The ledger's file: `ledger.ndjson` in the state directory (BOOKDIST_STATE_DIR, else
// $XDG_STATE_HOME/bookdist, else ~/.local/state/bookdist), one JSON row a line, append-only.
//
// - Each row carries `n` (its id, increasing) and `prev`, the SHA-256 of the line before it (64
//   zeros for the first), so that a changed, removed or inserted row breaks the chain
//   (`ledger verify`).
// - Many processes append at once (bulk jobs, a terminal): every append holds an exclusive lock
//   (`ledger.lock`, src/ledger/lock.ts: created O_EXCL, holding the owner's pid; one left by a
//   killed process is broken) only while it reads the last line for `n` and `prev` and writes,
//   never between appends and never during its fdatasync (which makes the process's own rows
//   durable, whoever appends after them): another writer waits for one write(2) at most, however
//   slow the holder is otherwise (a job under valgrind held it up to a second when jobs kept it
//   across their appends). A waiter says so (`ledger.want`), and a taker that did not wait gives
//   way to it for a few milliseconds.
// - The file is kept open across appends while it is the same file (prune replaces it whole),
//   never opened through a link, 0600 in a 0700 directory (src/util/fs-safe.ts).
// - Synchronous calls only: a single write command pays for no extra module (node:fs/promises
//   would load about fifteen) and the intent is on disk before the request leaves.
import * as fs from 'node:fs';
import { constants } from 'node:fs';
import { hash } from 'node:crypto';
import { join } from 'node:path';
import { privateDirSync, readTextSync, writeFileAtomicSync } from '../util/fs-safe.js';
import { errorCode } from '../errors.js';
import { LedgerLock, refused } from './lock.js';
import { stateDir } from '../config/paths.js';

export const LEDGER_FILE = 'ledger.ndjson';
export const GENESIS = '0'.repeat(64);

/** A row as written: its id and the hash of the row before it come first. */
export interface Row {
  n: number;
  prev: string;
  t: string;
  kind: 'intent' | 'outcome' | 'settled' | 'prune';
  [field: string]: unknown;
}

export type NewRow = Omit<Row, 'n' | 'prev'>;

/** One-shot (about a third of createHash's cost for a row: one per row written). */
export function sha256(text: string | Uint8Array): string {
  return hash('sha256', text, 'hex');
}

/** Where the ledger lives: the state directory (BOOKDIST_STATE_DIR, else XDG_STATE_HOME/bookdist, else ~/.local/state/bookdist). */
export const ledgerDir = stateDir;

export class LedgerStore {
  readonly dir: string;
  readonly path: string;
  private readonly lock: LedgerLock;
  private dirReady = false;
  /** The file kept open between appends of this process, its inode, and its end as last written. */
  private fd?: number;
  private ino?: number;
  private known?: { size: number; n: number; prev: string };
  /** Background fdatasyncs under way, and descriptors closed meanwhile (closed once they end). */
  private syncing = 0;
  private closeAfterSync: number[] = [];
  /** The file was created and its directory not yet fsynced. */
  private dirUnsynced = false;
  /** Where appends put their lines before writing them, kept (one a command, not one an append). */
  private buf = Buffer.alloc(0);

  constructor(dir: string) {
    this.dir = dir;
    this.path = join(dir, LEDGER_FILE);
    this.lock = new LedgerLock(dir);
  }

  private ensureDir(): void {
    if (this.dirReady) return;
    try {
      privateDirSync(this.dir);
    } catch (e) {
      const c = errorCode(e);
      throw refused(
        this.dir,
        c === 'ELOOP'
          ? 'directory is a symbolic link: refusing to write through it'
          : c === 'ENOTDIR'
            ? 'directory is not a directory'
            : 'directory cannot be created',
        c === 'ELOOP' || c === 'ENOTDIR' ? undefined : e,
      );
    }
    this.dirReady = true;
  }

  private openFile(): { fd: number; ino: number; size: number } {
    let fd: number;
    try {
      fd = fs.openSync(
        this.path,
        constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK,
        0o600,
      );
    } catch (e) {
      if (errorCode(e) === 'ELOOP')
        throw refused(this.path, 'is a symbolic link: refusing to write through it; remove the link');
      throw refused(this.path, 'cannot be opened', e);
    }
    const st = fs.fstatSync(fd);
    if (!st.isFile()) {
      fs.closeSync(fd);
      throw refused(this.path, 'is not a regular file');
    }
    if ((st.mode & 0o077) !== 0) fs.fchmodSync(fd, 0o600);
    return { fd, ino: st.ino, size: st.size };
  }

  /**
   * Append rows, holding the lock only while the tail is read and the rows written; `durable`:
   * fdatasync before returning (after the lock is let go: it makes this process's rows durable
   * whoever appends after them). Returns the id (`n`) of each row, in order.
   */
  append(rows: NewRow[], durable: boolean): number[] {
    if (!rows.length) return [];
    this.ensureDir();
    this.lock.take();
    const ids: number[] = [];
    let start: number;
    let fd: number;
    try {
      let size: number;
      ({ fd, size } = this.current());
      // The file ends where this process left it: its own last row is the tail (nobody appended since).
      const end = this.known?.size === size ? this.known : tail(fd, size);
      let { n, prev } = end;
      start = end.size;
      // Each line straight into one buffer, and hashed there (no line made as a string: it was
      // flattened for the hash, then encoded again for the write): `{"n":…,"prev":"…"`, then the
      // row's own JSON with its `{` made a `,`, its fields in their order, as
      // JSON.stringify({ n, prev, ...row }) writes it (a NewRow has no `n` or `prev`).
      const owns: string[] = [];
      let most = 0;
      for (const r of rows) {
        const own = JSON.stringify(r);
        owns.push(own);
        most += own.length * 3 + 128;
      }
      if (this.buf.length < most) this.buf = Buffer.allocUnsafe(Math.max(most, 2 * this.buf.length));
      const buf = this.buf;
      let len = 0;
      for (const own of owns) {
        const from = len;
        len += buf.write(`{"n":${++n},"prev":"${prev}"`, len, 'latin1');
        if (own.length > 2) {
          // The row's `{` becomes the `,` after `prev`.
          const at = len;
          len += buf.write(own, len);
          buf[at] = 0x2c;
        } else buf[len++] = 0x7d;
        prev = sha256(buf.subarray(from, len));
        buf[len++] = 0x0a;
        ids.push(n);
      }
      let off = 0;
      try {
        while (off < len) off += fs.writeSync(fd, buf, off, len - off);
      } catch (e) {
        this.known = undefined;
        // A short write (full disk) must not leave half a row for the next writer to chain to.
        try {
          fs.ftruncateSync(fd, start);
        } catch {
          /* the next writer drops a torn tail */
        }
        throw refused(this.path, 'could not be written', e);
      }
      this.known = { size: start + len, n, prev };
    } finally {
      this.lock.release();
    }
    // A new file's name is made durable with its first durable row.
    if (start === 0) this.dirUnsynced = true;
    if (durable) {
      try {
        fs.fdatasyncSync(fd);
      } catch (e) {
        throw refused(this.path, 'could not be made durable', e);
      }
      this.syncDirOnce();
    }
    return ids;
  }

  /**
   * The open file and its size, opened again when it was replaced (prune) or removed meanwhile.
   * The size is the path's (one call: the path is checked anyway), which is the open file's
   * while the path names it.
   */
  private current(): { fd: number; size: number } {
    if (this.fd !== undefined) {
      try {
        const st = fs.lstatSync(this.path);
        if (st.isFile() && st.ino === this.ino && (st.mode & 0o077) === 0) return { fd: this.fd, size: st.size };
      } catch {
        /* removed: open anew */
      }
      this.closeFile();
    }
    const opened = this.openFile();
    this.fd = opened.fd;
    this.ino = opened.ino;
    return opened;
  }

  /** Let the file go (the command ends). */
  close(): void {
    this.lock.release();
    this.closeFile();
  }

  /** Close the kept descriptor, once no background fdatasync uses it. */
  private closeFile(): void {
    const fd = this.fd;
    this.fd = this.ino = this.known = undefined;
    if (fd === undefined) return;
    if (this.syncing) this.closeAfterSync.push(fd);
    else fs.closeSync(fd);
  }

  private syncDirOnce(): void {
    if (!this.dirUnsynced) return;
    this.dirUnsynced = false;
    syncDir(this.dir);
  }

  /** fdatasync the file (rows another descriptor wrote included). */
  sync(): void {
    let fd: number;
    try {
      fd = fs.openSync(this.path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch {
      return; // nothing written yet, or refused at the next append
    }
    try {
      fs.fdatasyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    this.syncDirOnce();
  }

  /**
   * fdatasync in the background what this process wrote (a bulk job's group commit), on the
   * descriptor it wrote through: resolves with the error when it failed, undefined when done.
   */
  syncInBackground(): Promise<Error | undefined> {
    const fd = this.fd;
    if (fd === undefined) {
      // Let go meanwhile (the command ends): at once, on a descriptor of its own.
      try {
        this.sync();
        return Promise.resolve(undefined);
      } catch (e) {
        return Promise.resolve(refused(this.path, 'could not be made durable', e));
      }
    }
    this.syncDirOnce();
    this.syncing++;
    return new Promise((resolve) =>
      fs.fdatasync(fd, (e) => {
        if (--this.syncing === 0) for (const f of this.closeAfterSync.splice(0)) fs.closeSync(f);
        resolve(e ? refused(this.path, 'could not be made durable', e) : undefined);
      }),
    );
  }

  /** Every line of the file ('' when there is none), not through a link. */
  readText(): string {
    try {
      return readTextSync(this.path) ?? '';
    } catch (e) {
      if (errorCode(e) === 'ELOOP') throw refused(this.path, 'is a symbolic link: refusing to read through it');
      throw refused(this.path, 'cannot be read', e);
    }
  }

  /**
   * Rewrite the file under the lock (prune): `make` gets the complete lines and returns the rows to
   * keep, each with its own `n`; the chain is computed anew. Undefined from `make`: no change.
   */
  rewrite(
    make: (lines: string[]) => Array<{ n: number } & Record<string, unknown>> | undefined,
  ): { before: number; after: number } | undefined {
    this.ensureDir();
    this.lock.take();
    try {
      const lines = splitLines(this.readText()).complete;
      const rows = make(lines);
      if (!rows) return undefined;
      let prev = GENESIS;
      let text = '';
      for (const r of rows) {
        const { n, prev: _old, ...rest } = r;
        const line = JSON.stringify({ n, prev, ...rest });
        prev = sha256(line);
        text += line + '\n';
      }
      writeFileAtomicSync(this.path, text, 0o600);
      return { before: lines.length, after: rows.length };
    } finally {
      this.close();
    }
  }
}

/** The file's lines: complete ones, and a torn last line (a writer killed mid-write, or a crash). */
export function splitLines(text: string): { complete: string[]; torn?: string } {
  if (!text) return { complete: [] };
  const lines = text.split('\n');
  const last = lines.pop()!;
  return { complete: lines, torn: last === '' ? undefined : last };
}

/** The last row's id and hash; a torn last line is cut off first (we hold the lock). */
function tail(fd: number, size: number): { n: number; prev: string; size: number } {
  for (let len = 4096; ; len *= 4) {
    if (size === 0) return { n: 0, prev: GENESIS, size };
    const take = Math.min(size, len);
    const buf = Buffer.allocUnsafe(take);
    fs.readSync(fd, buf, 0, take, size - take);
    if (buf[take - 1] !== 0x0a) {
      // A torn last line: cut it off at the last line end (none within reach: read more).
      const cut = buf.lastIndexOf(0x0a);
      if (cut < 0 && take < size) continue;
      size = cut < 0 ? 0 : size - take + cut + 1;
      fs.ftruncateSync(fd, size);
      len = 1024; // read again from the new end
      continue;
    }
    const start = take >= 2 ? buf.lastIndexOf(0x0a, take - 2) + 1 : 0;
    if (start === 0 && take < size) continue; // the line starts before what was read
    const line = buf.subarray(start, take - 1).toString('utf8');
    let n = 0;
    try {
      n = Number(JSON.parse(line).n) || 0;
    } catch {
      /* a damaged last line: `ledger verify` names it; numbering goes on from 0 */
    }
    return { n, prev: sha256(line), size };
  }
}

function syncDir(dir: string): void {
  try {
    const fd = fs.openSync(dir, constants.O_RDONLY);
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    /* not supported everywhere */
  }
}
