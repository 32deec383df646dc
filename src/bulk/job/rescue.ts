// Results the service returned that could not be written (a full disk, EIO, /dev/full as stdout):
// they are codes or passwords that exist on the service and may not be fetched again, so they go
// to a rescue file, one JSON object per line, 0600 in a 0700 directory under the user's state
// directory ($XDG_STATE_HOME/bookdist/rescue, else ~/.local/state/bookdist/rescue), whose path
// the job prints. Created on the first rescued row only.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { stateDir } from '../../config/paths.js';
import { privateDirSync, type Fs, type SafeHandle } from '../../util/fs-safe.js';

export class Rescue {
  path?: string;
  count = 0;
  /** Why rows could not be kept either (the state directory's disk is full too). */
  error?: string;
  private fh?: SafeHandle;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly env: Record<string, string | undefined>,
    private readonly verb: string,
    private readonly fs: Fs,
  ) {}

  /** Keep rows (in order with other calls); never throws: a failure is recorded in `error`. */
  keep(rows: Array<Record<string, unknown>>): Promise<void> {
    if (!rows.length) return this.chain;
    this.chain = this.chain
      .then(() => this.write(rows))
      .catch((e) => {
        this.error ??= String(e?.code ?? e?.message ?? e);
      });
    return this.chain;
  }

  private async write(rows: Array<Record<string, unknown>>): Promise<void> {
    if (this.error) return;
    if (!this.fh) {
      const dir = join(stateDir(this.env), 'rescue');
      privateDirSync(dir);
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      this.path = join(dir, `${this.verb.replace(/\W+/g, '-')}-${stamp}-${randomBytes(4).toString('hex')}.ndjson`);
      // Stryker disable next-line ObjectLiteral,BooleanLiteral: equivalent, the file is new (O_EXCL) and written only through this handle, whose writes follow each other without O_APPEND too
      this.fh = await this.fs.createNew(this.path, { append: true });
    }
    const buf = Buffer.from(rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    let off = 0;
    while (off < buf.length) off += (await this.fh.write(buf, off, buf.length - off, null)).bytesWritten;
    await this.fh.datasync();
    this.count += rows.length;
  }

  async close(): Promise<void> {
    await this.chain;
    await this.fh?.close().catch(() => {});
    this.fh = undefined;
  }
}
