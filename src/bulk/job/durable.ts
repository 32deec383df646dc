// Durable files for bulk jobs: appends are serialised, and `commit()` returns only after the
// data is on disk (fdatasync), so that a unit of work (a batch of codes, a result row) can be
// counted as done only once it would survive a crash or kill -9.
import { open, rename, stat, type FileHandle } from 'node:fs/promises';
import { closeSync, fsyncSync, openSync } from 'node:fs';
import { dirname } from 'node:path';

export class DurableFile {
  private chain: Promise<unknown> = Promise.resolve();
  private closed = false;
  /**
   * Fault injection for tests (BOOKDIST_FAULT_ENOSPC_AT): once the file would grow past this many
   * bytes, the write stops there and fails with ENOSPC, as on a full disk.
   */
  failAfter?: number;

  private constructor(
    readonly path: string,
    private readonly fh: FileHandle,
    /** Bytes in the file (after an optional truncation at open). */
    public size: number,
  ) {}

  /**
   * Open for appending. `truncateTo` cuts the file first (drops a torn tail after a crash);
   * `fresh` creates it empty and fails if it exists.
   */
  static async open(path: string, opts: { truncateTo?: number; fresh?: boolean; failAfter?: number } = {}): Promise<DurableFile> {
    // 0600: code files and results hold bearer secrets and personal data.
    const fh = await open(path, opts.fresh ? 'wx' : 'a+', 0o600);
    try {
      if (opts.truncateTo !== undefined) {
        await fh.truncate(opts.truncateTo);
        await fh.datasync();
      }
      const { size } = await fh.stat();
      if (opts.fresh) syncDir(dirname(path));
      const f = new DurableFile(path, fh, size);
      f.failAfter = opts.failAfter;
      return f;
    } catch (e) {
      await fh.close();
      throw e;
    }
  }

  /** Append text (in order with other appends). Not yet durable: call commit(). */
  append(text: string | Buffer): Promise<void> {
    const buf = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
    const p = this.chain.then(async () => {
      let off = 0;
      if (this.failAfter !== undefined && this.size + buf.length > this.failAfter) {
        const room = Math.max(0, this.failAfter - this.size);
        if (room) await this.fh.write(buf, 0, room, null);
        this.size += room;
        throw Object.assign(new Error(`ENOSPC: no space left on device, write '${this.path}'`), { code: 'ENOSPC', errno: -28, syscall: 'write' });
      }
      while (off < buf.length) {
        const { bytesWritten } = await this.fh.write(buf, off, buf.length - off, null);
        off += bytesWritten;
      }
      this.size += buf.length;
    });
    this.chain = p.catch(() => {});
    return p;
  }

  /** Append and make it durable before resolving. */
  async appendDurably(text: string | Buffer): Promise<void> {
    await this.append(text);
    await this.commit();
  }

  /** Everything appended so far is on disk when this resolves. */
  commit(): Promise<void> {
    const p = this.chain.then(() => this.fh.datasync());
    this.chain = p.catch(() => {});
    return p;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.commit();
    } finally {
      await this.fh.close();
    }
  }
}

/** fsync a directory so that a newly created or renamed entry survives a crash (best effort). */
export function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    /* not supported on every platform */
  }
}

/** Write a small file atomically and durably (temp file, fsync, rename, fsync the directory). */
export async function writeFileDurably(path: string, text: string): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}`;
  const fh = await open(tmp, 'w', 0o600);
  try {
    await fh.writeFile(text, 'utf8');
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, path);
  syncDir(dirname(path));
}

export async function fileSize(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).size;
  } catch (e: any) {
    if (e?.code === 'ENOENT') return undefined;
    throw e;
  }
}
