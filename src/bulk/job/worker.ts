// Running batches and the second phase: a batch's result is committed (rows written, journalled)
// before it counts; a batch with nothing to write is left to --resume; a fatal failure stops the
// job. Counts and progress change only once rows are written.
import { ExitCode, messageOf } from '../../errors.js';
import type { Committer } from './commit.js';
import type { Progress } from '../progress.js';
import type { BatchResult, JobState, JobTools, PendingItem, Planned, SettleTools } from './types.js';

export class Worker<I, R extends Record<string, unknown>> {
  constructor(
    private readonly s: JobState<I, R>,
    private readonly committer: Committer<R>,
    private readonly tools: JobTools,
    private readonly progress: Progress,
  ) {}

  private count(rows: R[]): void {
    for (const r of rows) {
      const st = this.s.spec.status(r);
      this.s.counts[st] = (this.s.counts[st] ?? 0) + 1;
    }
  }

  private fatal(e: unknown): void {
    const exitCode = (e as { exitCode?: number } | null | undefined)?.exitCode;
    this.s.fatal ??= { kind: 'error', message: messageOf(e), exitCode: exitCode ?? ExitCode.ERROR };
    this.s.stop.abort();
  }

  async run(batch: Planned<I>): Promise<void> {
    const s = this.s;
    s.handled++;
    try {
      let res: BatchResult<R>;
      try {
        res = await s.spec.process(batch, this.tools);
        await batch.turn?.wait;
      } catch (e) {
        return this.fatal(e);
      }
      if (res.fatal) {
        s.fatal ??= res.fatal;
        s.stop.abort();
      } else if (res.notDone) {
        s.notDone++;
        if ('failure' in res.notDone) {
          s.failures.push(res.notDone.failure);
          s.failedBatches++;
          s.failedUnits += s.weight(batch.items);
          s.lastFailure = res.notDone.failure.message;
        }
      } else await this.written(batch, res);
    } finally {
      batch.turn?.done();
    }
  }

  private async written(batch: Planned<I>, res: BatchResult<R>): Promise<void> {
    const s = this.s;
    const at = (i: number) => (batch.positions ? batch.positions[i] : i);
    const redo = res.redo?.map(at) ?? [];
    const pending = res.pending?.map(at) ?? [];
    try {
      await this.committer.commit(
        {
          batch: batch.number,
          ...(redo.length ? { redo } : {}),
          ...(pending.length ? { pending } : {}),
          ...(batch.digest ? { input_digest: batch.digest } : {}),
        },
        res.rows,
      );
    } catch {
      s.stop.abort();
      return;
    }
    if (redo.length) s.redoLeft = true;
    for (const i of res.pending ?? []) s.pending.push({ item: batch.items[i], batch: batch.number, position: at(i) });
    s.batches++;
    this.count(res.rows);
    s.failures.push(...(res.failures ?? []));
    s.invalid += res.invalid ?? 0;
    const some = (ps: number[] | undefined) => (ps?.length ? s.weight(ps.map((i) => batch.items[i])) : 0);
    s.done += s.weight(batch.items) - some(res.redo) - some(res.pending);
    this.progress.set(s.earlier + s.done);
  }

  /** The second phase over the pending items, once every batch is written. */
  async settle(): Promise<void> {
    const s = this.s;
    const open = new Set<PendingItem<I>>(s.pending);
    const tools: SettleTools<I, R> = {
      ...this.tools,
      commit: async (results) => {
        if (!results.length) return;
        const settled = results.filter((x) => !x.failure).map((x): [number, number] => [x.of.batch, x.of.position]);
        await this.committer.commit(
          { settled },
          results.map((x) => x.row),
        );
        for (const x of results) {
          open.delete(x.of);
          if (x.failure) {
            s.failures.push(x.failure);
            s.redoLeft = true;
          } else s.done += s.weight([x.of.item]);
        }
        this.count(results.map((x) => x.row));
        this.progress.set(s.earlier + s.done);
      },
    };
    try {
      await s.spec.settle!(s.pending, tools);
    } catch (e) {
      if (e !== s.writeError) this.fatal(e);
    }
    s.unsettled = open.size;
  }
}
