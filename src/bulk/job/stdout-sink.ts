// Standard output as a job writes to it: every write is acknowledged by the real stream before the
// rows it carried count as written, so that a failed write (ENOSPC, EIO, /dev/full, a closed
// pipe) is seen by the job at the batch it hit, not swallowed after the summary said "done".
// The row writers print through a Context whose io.stdout is this sink.
import { Writable } from 'node:stream';

type Out = Writable & { isTTY?: boolean; columns?: number };
type WriteCallback = (error: Error | null | undefined) => void;

export class StdoutSink extends Writable {
  /** The first write error of the real stream. */
  error?: NodeJS.ErrnoException;
  /** Calls of write() so far (a writer that printed nothing for a batch buffers its rows). */
  accepted = 0;
  private waiters: Array<() => void> = [];

  constructor(private readonly real: Out) {
    super();
  }

  get isTTY(): boolean | undefined {
    return this.real.isTTY;
  }

  get columns(): number | undefined {
    return this.real.columns;
  }

  override write(chunk: unknown, encoding?: BufferEncoding | WriteCallback, cb?: WriteCallback): boolean {
    this.accepted++;
    // Writable.write takes a function in the encoding's place as the callback.
    return super.write(chunk, encoding as BufferEncoding, cb);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, cb: (error?: Error | null) => void): void {
    this.forward(chunk, cb);
  }

  override _writev(chunks: Array<{ chunk: Buffer }>, cb: (error?: Error | null) => void): void {
    this.forward(Buffer.concat(chunks.map((c) => c.chunk)), cb);
  }

  /** Resolves once every byte written so far has been acknowledged (or refused: see `error`). */
  flushed(): Promise<void> {
    if (this.writableLength === 0) return Promise.resolve();
    return new Promise((res) => this.waiters.push(res));
  }

  private forward(data: Buffer, cb: (error?: Error | null) => void): void {
    const done = (err?: Error | null) => {
      if (err) this.error ??= err as NodeJS.ErrnoException;
      // Errors are kept, not emitted: the job reports them, with what was written.
      cb();
      if (this.writableLength === 0) for (const w of this.waiters.splice(0)) w();
    };
    if (this.error) return done();
    try {
      this.real.write(data, done);
    } catch (e) {
      done(e as Error);
    }
  }
}
