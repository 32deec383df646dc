// The job's file (--out / --results FILE), before the first request: checked (a regular file or
// nothing, never a symbolic link: someone who can write to the directory may have planted it),
// locked (FILE.bookdist-lock), and either started (FILE created 0600 with O_EXCL, or an empty
// file of the user's taken over and set to 0600; a new journal) or resumed (the journal read, the
// options compared, FILE's tail after the last journalled batch cut once the input is checked).
// A job belongs to one service and account (the journal records both; --resume elsewhere is
// refused). While the job runs and before its summary, FILE is checked to still be the file it
// writes (same inode, still linked): if it was deleted or replaced, what it held goes to the
// rescue file (read back through a descriptor opened with it) and the job says where.
// The checks of the path and, on --resume, of the job and its service: output-checks.ts.
import { randomBytes } from 'node:crypto';
import { basename } from 'node:path';
import type { Context } from '../../context.js';
import { CliError, ExitCode, usageError } from '../../errors.js';
import { takeOverEmpty, type Fs, type SafeHandle } from '../../util/fs-safe.js';
import { DurableFile } from './durable.js';
import {
  earlierRuns,
  headerLine,
  JOURNAL_SUFFIX,
  outputEndOf,
  readJournal,
  type JobService,
  type Journal,
  type JournalHeader,
} from './journal.js';
import { acquireLock, type Lock } from './lock.js';
import { bytesOf, countRows, decodeRows, fileHeader } from './encode.js';
import type { Rescue } from './rescue.js';
import type { BatchRecord, JobFile, JobSpec, JobStats } from './types.js';
import { checkPath, checkSameJob, checkSameService } from './output-checks.js';

/** FILE was deleted or replaced while the job wrote it; what it held can still be read and rescued. */
export class FileGone extends Error {
  rescued = false;
  constructor(
    readonly how: 'deleted' | 'replaced by another file',
    private readonly rows: () => AsyncIterable<Record<string, unknown>>,
  ) {
    super(`the file was ${how} while the job was writing it`);
  }

  /** Everything FILE held, to the rescue file (once). */
  async rescue(rescue: Rescue): Promise<void> {
    if (this.rescued) return;
    this.rescued = true;
    let rows: Array<Record<string, unknown>> = [];
    try {
      for await (const r of this.rows()) {
        rows.push(r);
        if (rows.length >= 1000) {
          await rescue.keep(rows);
          rows = [];
        }
      }
    } catch (e) {
      rescue.error ??= String((e as { code?: string })?.code ?? e);
    }
    await rescue.keep(rows);
  }
}

export interface JobFiles {
  header: JournalHeader;
  journal?: DurableFile;
  /** FILE, open for appending (on --resume: once openOut() ran). */
  out?: DurableFile;
  /**
   * On --resume FILE is opened (its torn tail cut) only once the input has been checked;
   * `checkRows` is given the number of rows earlier runs left in it, first (it may throw).
   */
  openOut?(checkRows?: (rows: number) => void): Promise<void>;
  earlier: { batches: Map<number, BatchRecord>; settled: Set<string> };
  /** The job is finished: nothing to resume (a CI step that always adds --resume passes). */
  finished?: string;
  /** The journal's last digest, which the next line chains on (undefined: an older journal). */
  chain?: string;
  /** Throws FileGone when FILE is no longer the file the job writes (deleted, or replaced). */
  check(): Promise<void>;
  /** Nothing is left for --resume: FILE holds what the job counted, a JSON array is closed, the journal goes. */
  complete(stats: JobStats): Promise<void>;
  /** Close the files and release the lock. */
  close(): Promise<void>;
  /** Refused before the first request: remove what this run created (journal, a new FILE). */
  discard(): Promise<void>;
}

/** Check, lock and open the job's file (new or resumed). Nothing is sent yet. */
export async function prepareOutput<I, R extends Record<string, unknown>>(
  spec: JobSpec<I, R>,
  file: JobFile,
  ctx: Context,
  fs: Fs,
  service: JobService,
): Promise<JobFiles> {
  await checkPath(file, fs);
  const lock = acquireLock(file.path, file.flag, spec.resume || spec.restart);
  const files = new Files(file, fs, lock, service, spec.columns);
  try {
    await files.open(spec, ctx);
    return files;
  } catch (e) {
    await files.close();
    throw e;
  }
}

class Files implements JobFiles {
  header!: JournalHeader;
  journal?: DurableFile;
  out?: DurableFile;
  openOut?: (checkRows?: (rows: number) => void) => Promise<void>;
  earlier = { batches: new Map<number, BatchRecord>(), settled: new Set<string>() };
  finished?: string;
  chain?: string;
  /** FILE opened for reading: what it holds can be rescued even once it is deleted. */
  private reader?: SafeHandle;
  private expectedRows?: (stats: JobStats) => number;
  private created: string[] = [];
  /** An empty file of the user's taken over: emptied again when the job is refused. */
  private takenOver?: string;
  private readonly jpath: string;

  constructor(
    private readonly file: JobFile,
    private readonly fs: Fs,
    private readonly lock: Lock,
    private readonly service: JobService,
    private readonly columns: readonly string[],
  ) {
    this.jpath = file.path + JOURNAL_SUFFIX;
  }

  async open<I, R extends Record<string, unknown>>(spec: JobSpec<I, R>, ctx: Context): Promise<void> {
    const { file, fs } = this;
    if (spec.expectedRows) this.expectedRows = (st) => spec.expectedRows!(st);
    let saved = await readJournal(fs, this.jpath, file.flag, file.display).catch((e) => {
      if (spec.restart) return undefined;
      throw e;
    });
    const size = (await fs.lstat(file.path))?.size;
    if (spec.restart) {
      if (size) {
        const aside = `${file.path}.abandoned-${new Date().toISOString().replace(/[:.]/g, '-')}`;
        await fs.rename(file.path, aside);
        ctx.warn(`--restart: kept the earlier ${file.display} as ${basename(aside)}; starting over.`);
      }
      await fs.remove(this.jpath);
      saved = undefined;
    } else if (!saved && size && !spec.resume) {
      throw usageError(
        `${file.flag} ${file.display} exists and is never overwritten. Choose another file, or remove it.`,
      );
    } else if (!saved && size && spec.resume) {
      this.finished = `${file.flag} ${file.display}: no interrupted job to resume (no ${basename(this.jpath)}): the job finished, nothing was sent. A new job needs another file.`;
      return;
    } else if (saved && !spec.resume) {
      throw usageError(
        `${file.flag} ${file.display}: an interrupted job left ${basename(this.jpath)}. Continue it with --resume, or start over with --restart.`,
      );
    }
    if (saved) await this.resume(spec, ctx, saved, size);
    else await this.start(spec);
    this.journal = await DurableFile.existing(fs, this.jpath);
  }

  /** A new job: the journal's header, FILE created (or an empty file of the user's taken over) with its header. */
  private async start<I, R extends Record<string, unknown>>(spec: JobSpec<I, R>): Promise<void> {
    const { file, fs } = this;
    const line = headerLine({
      v: 1,
      verb: spec.verb,
      job_id: randomBytes(8).toString('hex'),
      started: new Date().toISOString(),
      format: file.format,
      identity: spec.identity,
      service: this.service,
    });
    this.header = line.header;
    this.chain = line.header.chain;
    await fs.writeFileAtomic(this.jpath, line.text);
    this.created.push(this.jpath);
    if ((await fs.lstat(file.path)) === undefined) {
      this.out = await DurableFile.create(fs, file.path);
      this.created.push(file.path);
    } else {
      const taken = await takeOverEmpty(fs, file.path);
      if ('refused' in taken)
        throw usageError(
          `${file.flag} ${file.display} exists and ${taken.refused}; results are only written to a new file or an empty one of yours. Choose another file.`,
        );
      this.out = await DurableFile.adopt(taken.handle, file.path, 0);
      this.takenOver = file.path;
    }
    await this.out.appendDurably(fileHeader(file.format, spec.columns));
    await this.openReader();
  }

  /** FILE for reading, the same inode as the one written (checked on the descriptors). */
  private async openReader(): Promise<void> {
    // Stryker disable next-line StringLiteral: equivalent, any `how` but append and readwrite opens O_RDONLY
    this.reader = await this.fs.openExisting(this.file.path, 'read');
    const [a, b] = await Promise.all([this.reader.stat(), this.out!.stat()]);
    if (a.ino !== b.ino || a.dev !== b.dev)
      throw usageError(
        `${this.file.flag} ${this.file.display} changed while it was being opened; run the command again.`,
      );
  }

  /** The rows FILE holds (its header row skipped), read through the descriptor. */
  private rows(): AsyncIterable<Record<string, unknown>> {
    return decodeRows(this.file.format, this.columns, bytesOf(this.reader!, 0, this.out!.size));
  }

  async check(): Promise<void> {
    // FILE is open for reading once it is open for writing (on --resume: once openOut() ran).
    if (!this.reader) return;
    const own = await this.out!.stat();
    const now = await this.fs.lstat(this.file.path).catch(() => undefined);
    // A path that still names this inode keeps it linked: deleted means nothing is at the path.
    const how = !now ? 'deleted' : now.ino !== own.ino || now.dev !== own.dev ? 'replaced by another file' : undefined;
    if (how) throw new FileGone(how, () => this.rows());
  }

  /** --resume: the same job (or refuse naming what changed); FILE's torn tail is cut once the input is checked. */
  private async resume<I, R extends Record<string, unknown>>(
    spec: JobSpec<I, R>,
    ctx: Context,
    saved: Journal,
    size: number | undefined,
  ): Promise<void> {
    const { file, fs } = this;
    checkSameJob(spec, file, saved.header);
    checkSameService(file, saved, this.service, ctx);
    this.header = saved.header;
    this.chain = saved.chain;
    const hdr = fileHeader(file.format, spec.columns);
    let records = saved.records;
    let validEnd = outputEndOf(records, Buffer.byteLength(hdr));
    if (size === undefined) {
      if (records.length) ctx.warn(`${file.display} is gone; its batches are fetched again with their original keys.`);
      await fs.writeFileAtomic(this.jpath, JSON.stringify(saved.header) + '\n');
      this.chain = saved.header.chain;
      records = [];
      validEnd = Buffer.byteLength(hdr);
    } else if (size < validEnd) {
      throw usageError(
        `${file.flag} ${file.display} holds ${size} bytes but the job journal recorded ${validEnd}: the file was cut or edited. ` +
          'Restore it, or start over with --restart (the file is kept with a .abandoned suffix).',
      );
    }
    this.earlier = earlierRuns(records);
    const cut = Math.max(0, (size ?? validEnd) - validEnd);
    // Without FILE there is no record either (above).
    const fileEnd = records.length === 0 ? 0 : validEnd;
    const journalEnd = saved.validEnd;
    this.openOut = async (checkRows) => {
      // The rows earlier runs left (read before anything is cut): each one seen, and their number
      // checked against the journal's (which may refuse the job, FILE untouched).
      if (spec.earlierRow && fileEnd > 0) {
        // Stryker disable next-line StringLiteral: equivalent, any `how` but append and readwrite opens O_RDONLY
        const fh = await fs.openExisting(file.path, 'read');
        let n = 0;
        try {
          for await (const row of decodeRows(file.format, this.columns, bytesOf(fh, 0, fileEnd))) {
            spec.earlierRow(row as Record<string, string>);
            n++;
          }
        } finally {
          await fh.close();
        }
        checkRows?.(n);
      }
      // Stryker disable next-line OptionalChaining: accepted, defensive: the journal was read just before and the job's lock keeps other bookdist runs away; only another program removing it in between reaches it
      const journalSize = (await fs.lstat(this.jpath))?.size ?? 0;
      if (journalEnd < journalSize) {
        // A torn journal line: cut it so that the next line starts clean.
        await (await DurableFile.existing(fs, this.jpath, journalEnd)).close();
      }
      if (cut)
        ctx.warn(
          `${file.display}: cut ${cut} byte(s) after the last complete batch (a batch being written when the job stopped, or bytes added by hand); that batch is fetched again.`,
        );
      this.out =
        size === undefined
          ? await DurableFile.create(fs, file.path)
          : await DurableFile.existing(fs, file.path, fileEnd);
      await this.out.chmodPrivate();
      if (this.out.size === 0) await this.out.appendDurably(hdr);
      await this.openReader();
    };
  }

  async complete(stats: JobStats): Promise<void> {
    if (!this.out) return;
    if (this.expectedRows) {
      const want = this.expectedRows(stats);
      // Stryker disable next-line BooleanLiteral: equivalent, reusing the chunk's buffer only spares a copy: countRows is done with a chunk before it asks for the next
      const have = await countRows(this.file.format, bytesOf(this.reader!, 0, this.out.size, 1 << 16, true));
      if (have !== want) {
        throw new CliError(
          `${this.file.flag} ${this.file.display} holds ${have} row(s) but the job counted ${want}; its journal ${basename(this.jpath)} is kept. ` +
            'Check the file (was it written to by something else?), then continue with --resume, or start over with --restart.',
          ExitCode.ERROR,
        );
      }
    }
    if (this.file.format === 'json') await this.out.appendDurably(']\n');
    await this.journal!.close(); // open since open(), before FILE was
    await this.fs.remove(this.jpath);
  }

  async close(): Promise<void> {
    await this.reader?.close().catch(() => {});
    this.reader = undefined;
    await this.out?.close().catch(() => {});
    await this.journal?.close().catch(() => {});
    this.lock.release();
  }

  async discard(): Promise<void> {
    await this.close();
    for (const p of this.created) await this.fs.remove(p).catch(() => {});
    this.created = [];
    if (this.takenOver) {
      const fh = await this.fs.openExisting(this.takenOver, 'readwrite').catch(() => undefined);
      await fh?.truncate(0).finally(() => void fh.close().catch(() => {})); // closed as the files above
    }
  }
}
