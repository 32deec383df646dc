// The ledger's file: `ledger.ndjson` in the state directory (BOOKDIST_STATE_DIR, else
// $XDG_STATE_HOME/bookdist, else ~/.local/state/bookdist), one JSON row a line, append-only.
//
// - Each row carries `n` (its id, increasing) and `prev`, the SHA-256 of the line before it (64
//   zeros for the first), so that a changed, removed or inserted row breaks the chain
//   (`ledger verify`).
// - Many processes append at once (bulk jobs, a terminal): every append holds an exclusive lock
//   (`ledger.lock`, src/ledger/lock.ts: created O_EXCL, holding the owner's pid; one left by a
//   killed process is broken) while it reads the last line for `n` and `prev` and writes. A single write releases
//   it at once. A bulk job keeps it across its burst of appends (`keep`; creating and removing
//   the lock file was most of the ledger's cost in a job): it lets it go when idle (the
//   recorder's IDLE_MS), after HOLD_MS, and at its next append after another process said that
//   it waits (`ledger.want`, which a taker that did not wait gives way to): a waiter waits a few
//   milliseconds, and while the lock is held no other process can have written.
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
/** The longest a process keeps the lock across appends before taking it anew (far below STALE_MS). */
const HOLD_MS = 1000;

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
  /** Lets the lock go if the process ends while holding it; removed by close(). */
  private exitHook?: () => void;
  /** The file kept open between appends of this process, its inode, and its end as last written. */
  private fd?: number;
  private ino?: number;
  private known?: { size: number; n: number; prev: string };
  /** Background fdatasyncs under way, and descriptors closed meanwhile (closed once they end). */
  private syncing = 0;
  private closeAfterSync: number[] = [];
  /** The file was created and its directory not yet fsynced. */
  private dirUnsynced = false;

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

  /** Let the lock go, if this process holds it. */
  release(): void {
    this.lock.release();
  }

  private openFile(): { fd: number; ino: number } {
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
    return { fd, ino: st.ino };
  }

  /**
   * Append rows under the lock; `durable`: fdatasync before returning; `keep`: keep holding the
   * lock for the next append (a bulk job's burst; `release()` lets it go), unless another process
   * waits for it. Returns the rows as written (with their `n`).
   */
  append(rows: NewRow[], durable: boolean, keep = false): Row[] {
    if (!rows.length) return [];
    this.ensureDir();
    const since = this.lock.since;
    if (since !== undefined && Date.now() - since > HOLD_MS) this.release();
    // Held since this process's last append: nobody else wrote, and the file was not replaced.
    const kept = this.lock.since !== undefined && this.fd !== undefined;
    if (this.lock.since === undefined) this.lock.take();
    let ok = false;
    try {
      const fd = kept ? this.fd! : this.current();
      // Nobody appended since this process did (the lock was kept, or the file ends where this
      // process left it): its own last row is the tail.
      const size = kept && this.known ? this.known.size : fs.fstatSync(fd).size;
      const end = this.known?.size === size ? this.known : tail(fd, size);
      let { n, prev } = end;
      const start = end.size;
      const written: Row[] = [];
      let text = '';
      for (const r of rows) {
        const row = { n: ++n, prev, ...r } as Row;
        const line = JSON.stringify(row);
        prev = sha256(line);
        text += line + '\n';
        written.push(row);
      }
      const buf = Buffer.from(text, 'utf8');
      let off = 0;
      try {
        while (off < buf.length) off += fs.writeSync(fd, buf, off, buf.length - off);
        if (durable) fs.fdatasyncSync(fd);
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
      this.known = { size: start + buf.length, n, prev };
      // A new file's name is made durable with its first durable row.
      if (start === 0) this.dirUnsynced = true;
      if (durable) this.syncDirOnce();
      ok = true;
      return written;
    } finally {
      if (!ok || !keep || this.lock.wanted()) this.release();
      else if (!this.exitHook) {
        // Let it go if the process ends while holding it (a killed process's is broken by the next taker).
        this.exitHook = () => this.release();
        process.once('exit', this.exitHook);
      }
    }
  }

  /** The open file, opened again when it was replaced (prune) or removed meanwhile. */
  private current(): number {
    if (this.fd !== undefined) {
      let same = false;
      try {
        const st = fs.lstatSync(this.path);
        same = st.isFile() && st.ino === this.ino && (st.mode & 0o077) === 0;
      } catch {
        /* removed: open anew */
      }
      if (same) return this.fd;
      this.closeFile();
    }
    ({ fd: this.fd, ino: this.ino } = this.openFile());
    return this.fd;
  }

  /** Let the file go (the command ends). */
  close(): void {
    this.release();
    this.closeFile();
    // A closed store is not kept alive by the process (a process that runs many commands, the tests).
    if (this.exitHook) process.off('exit', this.exitHook);
    this.exitHook = undefined;
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
    if (this.lock.since === undefined) this.lock.take();
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
