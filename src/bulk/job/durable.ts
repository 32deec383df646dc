// Durable files for bulk jobs: appends are serialised, and `commit()` returns only after the
// data is on disk (fdatasync), so that a unit of work (a batch of codes, a result row) can be
// counted as done only once it would survive a crash or kill -9. Opened through the fs seam
// (src/util/fs-safe.ts): never through a symbolic link, new files exclusively and 0600.
import type { Stats } from 'node:fs';
import { dirname } from 'node:path';
import type { Fs, SafeHandle } from '../../util/fs-safe.js';

export class DurableFile {
  private chain: Promise<unknown> = Promise.resolve();
  private closed = false;

  private constructor(
    readonly path: string,
    private readonly fh: SafeHandle,
    /** Bytes in the file (after an optional truncation at open). */
    public size: number,
  ) {}

  /** A new file (fails if anything, a link included, is at `path`); its directory is fsynced. */
  static async create(fs: Fs, path: string): Promise<DurableFile> {
    const fh = await fs.createNew(path, { append: true });
    fs.syncDir(dirname(path));
    return new DurableFile(path, fh, 0);
  }

  /** An existing regular file, for appending; `truncateTo` cuts it first (drops a torn tail). */
  static async existing(fs: Fs, path: string, truncateTo?: number): Promise<DurableFile> {
    return DurableFile.adopt(await fs.openExisting(path, 'append'), path, truncateTo);
  }

  /** A file already open (e.g. an empty file taken over): appends go to the end. */
  static async adopt(fh: SafeHandle, path: string, truncateTo?: number): Promise<DurableFile> {
    try {
      if (truncateTo !== undefined) {
        await fh.truncate(truncateTo);
        await fh.datasync();
      }
      const { size } = await fh.stat();
      return new DurableFile(path, fh, size);
    } catch (e) {
      await fh.close();
      throw e;
    }
  }

  /** fstat of the open file (its inode, and whether it is still linked). */
  stat(): Promise<Stats> {
    return this.fh.stat();
  }

  /** Make the file private (0600) when group or others could read it (files that hold codes or passwords). */
  async chmodPrivate(): Promise<void> {
    const { mode } = await this.fh.stat();
    if (mode & 0o077) await this.fh.chmod(0o600);
  }

  /** Append text (in order with other appends). Not yet durable: call commit(). */
  append(text: string | Buffer): Promise<void> {
    // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent, Buffer.from of bytes copies them whatever the encoding, and '' is UTF-8
    const buf = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
    const p = this.chain.then(async () => {
      let off = 0;
      try {
        while (off < buf.length) off += (await this.fh.write(buf, off, buf.length - off, null)).bytesWritten;
      } finally {
        this.size += off;
      }
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
