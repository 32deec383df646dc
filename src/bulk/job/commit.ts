// Making a batch's rows final. File jobs: rows are fsynced to FILE, then a journal line saying
// where FILE now ends is fsynced (group commit: batches that complete while a write is under way
// are written together, one fdatasync of FILE then one of the journal for all of them, each
// batch's line still after its rows, in file order). Stdout jobs: rows count once the real
// stdout acknowledged them. Either way, rows that could not be written go to the rescue file
// (a closed pipe excepted: its reader chose to stop reading), and the job stops.
import type { Context } from '../../context.js';
import { errorCode } from '../../errors.js';
import { createRowWriter, type RowWriter } from '../../output/index.js';
import type { DurableFile } from './durable.js';
import { encodeRows, inColumnOrder } from './encode.js';
import { journalLine, type NewRecord } from './journal.js';
import type { Rescue } from './rescue.js';
import { StdoutSink } from './stdout-sink.js';
import type { JobFile, JobState } from './types.js';
import { FileGone } from './output-file.js';

export interface Committer<R> {
  /** Write rows (file jobs: and journal `record`); rejects with the write error once the job cannot write. */
  commit(record: NewRecord, rows: R[]): Promise<void>;
  /** The job ends: close stdout's output (a JSON array, a table printed at the end). */
  end(): Promise<void>;
}

/** A write error the rows of which are kept, except a closed pipe on stdout. */
function keepRows(e: unknown): boolean {
  return errorCode(e) !== 'EPIPE';
}

export class FileCommitter<R extends Record<string, unknown>> implements Committer<R> {
  private queue: Array<{ record: NewRecord; rows: R[]; resolve: () => void; reject: (e: unknown) => void }> = [];
  private flushing = false;
  /** Whether a JSON array already holds a row (the next one is preceded by a comma). */
  private hasRows?: boolean;

  constructor(
    private readonly s: JobState<unknown, R>,
    private readonly file: JobFile,
    private readonly out: () => DurableFile,
    private readonly journal: DurableFile,
    private readonly rescue: Rescue,
    /** The journal's last digest (undefined: an older journal, continued without digests). */
    private chain: string | undefined,
    /** Whether FILE is still the file the job writes (throws FileGone when it is not). */
    private readonly check: () => Promise<void>,
  ) {}

  commit(record: NewRecord, rows: R[]): Promise<void> {
    rows = inColumnOrder(rows, this.s.spec.columns);
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ record, rows, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  async end(): Promise<void> {}

  private async flush(): Promise<void> {
    this.flushing = true;
    while (this.queue.length) {
      const group = this.queue.splice(0);
      try {
        // eslint-disable-next-line @typescript-eslint/only-throw-error -- the error the write failed with, thrown again as it was
        if (this.s.writeError) throw this.s.writeError;
        await this.write(group);
        for (const g of group) g.resolve();
      } catch (e) {
        this.s.writeError ??= e;
        // FILE gone: everything it held, this group's rows included, goes to the rescue file.
        if (e instanceof FileGone && !e.rescued) await e.rescue(this.rescue);
        else await this.rescue.keep(group.flatMap((g) => g.rows));
        for (const g of group) g.reject(e);
      }
    }
    this.flushing = false;
  }

  private async write(group: Array<{ record: NewRecord; rows: R[] }>): Promise<void> {
    const out = this.out();
    const fmt = this.file.format;
    // Stryker disable next-line ConditionalExpression,BooleanLiteral: equivalent (→ true), only a JSON array reads hasRows; CSV, TSV and NDJSON rows are written alike either way
    this.hasRows ??= fmt === 'json' ? out.size > 2 : false;
    let text = '';
    let lines = '';
    let end = out.size;
    let chain = this.chain;
    for (const g of group) {
      const t = encodeRows(fmt, this.s.spec.columns, g.rows, !this.hasRows);
      if (g.rows.length) this.hasRows = true;
      text += t;
      end += Buffer.byteLength(t);
      const line = journalLine(g.record, end, chain);
      lines += line.text;
      chain = line.chain;
    }
    if (text) await out.appendDurably(text);
    // FILE deleted or replaced meanwhile: nothing is journalled as written to it.
    await this.check();
    await this.journal.appendDurably(lines);
    this.chain = chain;
  }
}

export class StdoutCommitter<R extends Record<string, unknown>> implements Committer<R> {
  private chain: Promise<unknown> = Promise.resolve();
  /** Rows handed to a writer that prints them only at the end (a table, --query): not written yet. */
  private held: R[] = [];
  readonly sink: StdoutSink;
  private readonly writer: RowWriter;

  constructor(
    private readonly s: JobState<unknown, R>,
    private readonly rescue: Rescue,
  ) {
    const { spec, ctx } = s;
    this.sink = new StdoutSink(ctx.io.stdout);
    const out: Context = Object.assign(Object.create(Object.getPrototypeOf(ctx)), ctx, {
      io: { ...ctx.io, stdout: this.sink },
    });
    this.writer =
      spec.stdoutWriter?.(out) ??
      createRowWriter(out, {
        // Stryker disable next-line LogicalOperator: equivalent, without columns the row writer takes the first row's keys, already in the job's column order (inColumnOrder)
        columns: spec.stdoutColumns ?? spec.columns.map((key) => ({ key })),
        format: spec.stdoutFormat,
      });
  }

  commit(_record: NewRecord, rows: R[]): Promise<void> {
    rows = inColumnOrder(rows, this.s.spec.columns);
    const p = this.chain.then(() => this.print(rows));
    this.chain = p.catch(() => {});
    return p;
  }

  private async print(rows: R[]): Promise<void> {
    if (this.s.writeError) return this.fail(this.s.writeError, rows);
    const before = this.sink.accepted;
    try {
      for (const r of rows) this.writer.write(r);
    } catch (e) {
      // A usage error of the output layer (--fields naming no field): nothing of it was printed.
      return this.fail(e, rows);
    }
    if (this.sink.accepted === before) {
      this.held.push(...rows);
      return;
    }
    await this.sink.flushed();
    if (this.sink.error) return this.fail(this.sink.error, [...this.held.splice(0), ...rows]);
    this.held = [];
  }

  private async fail(e: unknown, rows: R[]): Promise<never> {
    this.s.writeError ??= e;
    this.s.stop.abort();
    if (keepRows(e)) await this.rescue.keep(rows);
    throw e;
  }

  async end(): Promise<void> {
    await this.chain;
    if (this.s.writeError) return;
    try {
      await this.writer.end();
      await this.sink.flushed();
    } catch (e) {
      this.s.writeError ??= e;
    }
    this.s.writeError ??= this.sink.error;
    if (this.s.writeError && this.held.length) {
      // A writer that prints at the end printed none of them: they are not counted as written.
      for (const r of this.held) this.s.counts[this.s.spec.status(r)]--;
      this.s.done = Math.max(0, this.s.done - this.held.length);
      if (keepRows(this.s.writeError)) await this.rescue.keep(this.held.splice(0));
    }
  }
}
