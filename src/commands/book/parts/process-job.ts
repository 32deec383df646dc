// `book process`'s job (process.ts runs it): the books it reads, queues and, with --wait, waits
// for; what it says of each book on stderr, its summary line and the command that retries it.
import type { Context } from '../../../context.js';
import { ExitCode, usageError } from '../../../errors.js';
import * as v from '../../../validate/index.js';
import { formatDuration } from '../../../util/duration.js';
import { escapeControls, plural } from '../../../output/text.js';
import { readList } from '../../../bulk/lines.js';
import {
  failedRow,
  type ItemOutcome,
  type JobTools,
  type PendingItem,
  type SettleTools,
} from '../../../bulk/engine.js';
import { runPool } from '../../../bulk/pool.js';
import { failureOf, type Failure } from '../../../bulk/retry.js';
import type { GivenChange } from '../../given.js';
import { outputFormat, style } from '../../../output/index.js';
import { isAnswer } from '../../../api/answer.js';
import type { CallArgs, Verified } from '../../../spec/contract.js';

/** `book process`'s options, parsed (process.ts). */
export interface Options {
  /** Books given as arguments (validated). */
  hashIds: string[];
  file?: string;
  force: boolean;
  urgent: boolean;
  wait: boolean;
  intervalMs: number;
  concurrency: number;
  results?: string;
  resume: boolean;
  restart: boolean;
  /** The command that runs the job again, as given (src/commands/given.ts), changed as asked. */
  again: (change?: GivenChange) => string;
}

/** A book's outcome: each book ends in exactly one (the summary's counts add up to the books). */
export type State = 'queued' | 'already_queued' | 'already_processed' | 'processed' | 'failed' | 'held' | 'timed_out';
/** The outcomes in the order the summary names them. */
export const STATES: readonly State[] = [
  'queued',
  'already_queued',
  'processed',
  'already_processed',
  'failed',
  'held',
  'timed_out',
];
export interface Book {
  hash_id: string;
  line?: number;
}
export interface Row extends Record<string, unknown> {
  hash_id: string;
  state: State;
  message: string;
  title?: string | null;
  processed_date?: string | null;
}

/** Books per poll request with --wait. */
const POLL_CHUNK = 100;

export const LABEL: Record<State, string> = {
  queued: 'queued',
  already_queued: 'already queued',
  already_processed: 'already processed',
  processed: 'processed',
  failed: 'failed',
  held: 'held',
  timed_out: 'timed out',
};

export const bad = (s: State) => s === 'failed' || s === 'held' || s === 'timed_out';

/** What a run of `book process` saw (books read, queued, failed) and how it queues and waits. */
export class ProcessJob {
  total = 0;
  readonly order = new Map<string, number>();
  readonly queued = new Map<string, Row>();
  /** Books that failed in a way a retry may mend (the service unavailable, a wait that timed out). */
  readonly retryable: string[] = [];
  /** Books the service refused for good. */
  refused = 0;
  /** Books the service holds in its queue (the sandbox's "The Glass Meridian"), and why. */
  private readonly held = new Map<string, string>();
  private readonly started = Date.now();

  /** Results are lines on the terminal's stdout as they come (stdoutOf): stderr does not repeat them. */
  readonly onTerminal: boolean;
  /** Books held when the wait ended, and why. */
  private readonly stillHeld: string[] = [];

  constructor(
    private readonly o: Options,
    private readonly ctx: Context,
    private readonly deadline: number,
  ) {
    this.onTerminal = resultLines(ctx);
  }

  say(r: Row): void {
    if (this.onTerminal) return;
    const st = style(this.ctx, 'stderr');
    const colour = bad(r.state)
      ? st.red
      : r.state === 'processed' || r.state === 'already_processed'
        ? st.green
        : (x: string) => x;
    const line = `${escapeControls(r.hash_id)}  ${colour(LABEL[r.state])}${r.message && r.state !== 'processed' ? `  ${escapeControls(r.message)}` : ''}`;
    if (bad(r.state)) this.ctx.warn(line);
    else this.ctx.info(line);
  }

  /**
   * After the summary: a held book stays held however long a retry waits; what releases it is a
   * forced run (which deletes its annotations), so that is what is said, with the command.
   */
  adviseHeld(): void {
    if (!this.stillHeld.length) return;
    const books = this.stillHeld;
    const one = books.length === 1;
    const reasons = [...new Set(books.map((h) => this.held.get(h)))].join('; ');
    this.ctx.warn(
      `${one ? 'This book is' : `These ${books.length} books are`} held in the service's queue (${reasons}): waiting again will not process ${one ? 'it' : 'them'}. ` +
        `To process ${one ? 'it' : 'them'} anyway (forced processing deletes a processed book's annotations), run:\n  bookdist book process --wait --force --yes ${books.length <= 10 ? books.join(' ') : `--from-file - <<'EOF'\n${books.join('\n')}\nEOF`}`,
    );
  }

  row(b: Book, state: State, message: string, extra: Partial<Row> = {}): Row {
    return {
      hash_id: b.hash_id,
      state,
      message,
      ...(this.o.wait ? { title: extra.title ?? null, processed_date: extra.processed_date ?? null } : {}),
    };
  }

  /** A failed book: said, and remembered for the retry hint when a retry may succeed. */
  private failed(b: Book, f: Failure, row: Row): void {
    this.say(row);
    if (row.state === 'held') this.stillHeld.push(b.hash_id);
    else if (f.kind === 'unavailable' || row.state === 'timed_out') this.retryable.push(b.hash_id);
    else this.refused++;
  }

  async *books(): AsyncGenerator<Book> {
    const seen = new Set<string>();
    const one = (b: Book) => {
      if (seen.has(b.hash_id)) return false;
      seen.add(b.hash_id);
      this.order.set(b.hash_id, this.total++);
      return true;
    };
    for (const h of this.o.hashIds) if (one({ hash_id: h })) yield { hash_id: h };
    if (this.o.file !== undefined) {
      for await (const l of readList(this.o.file, this.ctx, '--from-file')) {
        const b = { hash_id: v.hashId(l.value, `--from-file line ${l.line}:`), line: l.line };
        if (one(b)) yield b;
      }
    }
    if (!this.total)
      throw usageError(`--from-file ${this.o.file}: no hash ids in it (blank lines and # comments are ignored).`);
  }

  /** The arguments of the call that queues a book: made by `queue`, and told to the ledger ahead of it (eachItem). */
  args(b: Book): CallArgs<'book.process'> {
    return { params: { hash_id: b.hash_id }, payload: { force: this.o.force, urgent: this.o.urgent } };
  }

  /** Queue one book; with --wait its result comes from the second phase. */
  async queue(b: Book, job: JobTools): Promise<ItemOutcome<Row>> {
    const r = await job.call('book.process', this.args(b));
    if (!r.ok || r.response.status >= 400) {
      const x = failedRow(r, (state, message) => this.row(b, state, message), b.hash_id);
      if ('row' in x && x.failure) this.failed(b, x.failure, x.row);
      return x;
    }
    const message = String(r.response.body?.message ?? '');
    const state: State = /already processed/i.test(message)
      ? 'already_processed'
      : /already queued/i.test(message)
        ? 'already_queued'
        : 'queued';
    const result = this.row(b, state, message);
    this.say(result);
    if (state === 'already_processed') return { row: result };
    this.queued.set(b.hash_id, result);
    return this.o.wait ? { pending: true } : { row: result };
  }

  /** A held book is said once, as soon as a poll sees it, and named again if the wait times out. */
  private noteHeld(hash: string, reason: string): void {
    if (this.held.has(hash)) return;
    this.held.set(hash, reason);
    this.ctx.info(`${hash}  held: ${reason}; --wait keeps waiting for it until --timeout`);
  }

  /** One poll: the books of `chunk` that are processed now (or failed to be looked at), as results. */
  private async poll(chunk: PendingItem<Book>[], job: SettleTools<Book, Row>) {
    const results: Array<{ of: PendingItem<Book>; row: Row; failure?: Failure }> = [];
    let unavailable: Failure | undefined;
    const byHash = new Map(chunk.map((p) => [p.item.hash_id, p]));
    const settleIfProcessed = (p: PendingItem<Book>, b: Verified<'Book'>) => {
      const s = b.status;
      if (s?.is_queued && s.is_held === true)
        this.noteHeld(p.item.hash_id, typeof s.held_reason === 'string' ? s.held_reason : 'held in the queue');
      if (!(s?.is_processed && !s.is_queued)) return;
      const date = typeof s.processed_date === 'string' ? s.processed_date : null;
      const r = this.row(p.item, 'processed', date ? `processed ${date}` : 'processed', {
        title: b.title,
        processed_date: date,
      });
      this.say(r);
      results.push({ of: p, row: r });
    };
    const failedWaiting = (p: PendingItem<Book>, f: Failure) => {
      const r = this.row(p.item, 'failed', `while waiting: ${f.message}`);
      this.failed(p.item, f, r);
      results.push({ of: p, row: r, failure: { ...f, message: `${p.item.hash_id}: ${f.message}` } });
    };
    const out = await job.call('book.search', { payload: { hash_ids: [...byHash.keys()], limit: 500 } });
    if (!out.ok || !isAnswer(out.response)) {
      const f = out.ok ? failureOf(out.response) : out.failure;
      if (f.kind === 'error') for (const p of chunk) failedWaiting(p, f);
      return { results, unavailable: f.kind === 'unavailable' ? f : undefined };
    }
    const seen = new Set<string>();
    for (const b of out.response.body.results) {
      const p = byHash.get(b.hash_id.toLowerCase());
      if (!p || seen.has(p.item.hash_id)) continue;
      seen.add(p.item.hash_id);
      settleIfProcessed(p, b);
    }
    // A service whose search does not match hash_ids (or no longer lists a book): ask one by one.
    for (const p of chunk) {
      if (seen.has(p.item.hash_id) || job.ctx.signal.aborted) continue;
      const one = await job.call('book.get', { params: { hash_id: p.item.hash_id } });
      if (!one.ok || !isAnswer(one.response)) {
        const f = one.ok ? failureOf(one.response) : one.failure;
        if (f.kind === 'unavailable') unavailable = f;
        else failedWaiting(p, f);
        continue;
      }
      settleIfProcessed(p, one.response.body.book);
    }
    return { results, unavailable };
  }

  /** --wait: poll until the queued books are processed, the wait ends, or the job is interrupted. */
  async settle(pending: PendingItem<Book>[], job: SettleTools<Book, Row>): Promise<void> {
    const { ctx, o } = this;
    let waiting = pending;
    let unavailable: Failure | undefined;
    while (waiting.length && !ctx.signal.aborted) {
      const left = this.deadline - Date.now();
      if (left <= 0) break;
      try {
        await ctx.clock.sleep(Math.min(o.intervalMs, left), ctx.signal);
      } catch {
        return; // interrupted: the books still waited for stay pending for --resume
      }
      const done = new Set<PendingItem<Book>>();
      const polls: PendingItem<Book>[][] = [];
      for (let i = 0; i < waiting.length; i += POLL_CHUNK) polls.push(waiting.slice(i, i + POLL_CHUNK));
      unavailable = undefined;
      const poll = async (chunk: PendingItem<Book>[]) => {
        const r = await this.poll(chunk, job);
        if (r.unavailable) unavailable = r.unavailable;
        await job.commit(r.results);
        for (const x of r.results) this.settled.add(x.row.hash_id);
        for (const x of r.results) done.add(x.of);
      };
      await runPool(polls, poll, { concurrency: o.concurrency });
      waiting = waiting.filter((p) => !done.has(p));
    }
    if (ctx.signal.aborted || !waiting.length) return;
    const ended = waiting.map((p) => this.timedOut(p, unavailable));
    await job.commit(ended);
    for (const x of ended) this.settled.add(x.row.hash_id);
  }

  /** The wait is over: what is still queued timed out (or the service stayed unavailable). */
  private timedOut(p: PendingItem<Book>, unavailable: Failure | undefined) {
    const waited = formatDuration(Date.now() - this.started);
    const held = this.held.get(p.item.hash_id);
    const r = unavailable
      ? this.row(p.item, 'failed', `service unavailable while waiting: ${unavailable.message}`)
      : held !== undefined
        ? this.row(p.item, 'held', `still queued after ${waited}: ${held}`)
        : this.row(p.item, 'timed_out', `still queued after ${waited}`);
    const failure: Failure = unavailable ?? {
      kind: 'error',
      message: `${p.item.hash_id}: still queued after ${waited}`,
      exitCode: ExitCode.PARTIAL,
    };
    this.failed(p.item, unavailable ?? { ...failure, kind: 'unavailable' }, r);
    return { of: p, row: r, failure };
  }

  /**
   * `3 books: 2 already processed, 1 held`: one outcome per book, so the parts add up to the books
   * (books an interrupt left waiting count as what the queue said; books never sent as not started).
   */
  describe(c: Record<string, number>, earlier: number): string {
    const n: Record<string, number> = { ...c };
    // With --wait, a book queued and not settled yet (interrupted) has no row: its queue state.
    for (const r of this.queued.values())
      if (this.o.wait && !this.settled.has(r.hash_id)) n[r.state] = (n[r.state] ?? 0) + 1;
    const parts = STATES.filter((s) => n[s]).map((s) => `${n[s]} ${LABEL[s]}`);
    const notStarted = this.total - earlier - STATES.reduce((a, s) => a + (n[s] ?? 0), 0);
    if (notStarted > 0) parts.push(`${notStarted} not started`);
    if (earlier) parts.push(`${earlier} done in an earlier run`);
    return `${plural(this.total, 'book')}${parts.length ? `: ${parts.join(', ')}` : ''}`;
  }

  /** Books whose final row was written (with --wait: processed, failed, held or timed out). */
  readonly settled = new Set<string>();

  /**
   * Without --results: a command that runs as printed (every flag kept) for the books a retry may
   * mend; as arguments when few, else on stdin from a here-document. Books the service refused for
   * good (not found, not authorized) are left out, and so are held books (adviseHeld says what
   * releases them).
   */
  retryHint(): { command: string; note?: string } | undefined {
    const { o, ctx } = this;
    // Every failure was a refusal for good (not found, not authorized): nothing to retry.
    if (!ctx.signal.aborted && !this.retryable.length && (this.refused > 0 || this.stillHeld.length > 0))
      return undefined;
    if (ctx.signal.aborted || !this.retryable.length)
      return {
        command: o.again(),
        note: 'books already queued or processed are reported as such; add --results FILE to resume exactly',
      };
    // The job's flags with the books to retry as its input, without --results.
    if (this.retryable.length <= 10)
      return { command: o.again({ args: this.retryable, drop: ['fromFile', 'results'] }) };
    return {
      command: `${o.again({ args: [], set: { fromFile: '-' }, drop: ['results'] })} <<'EOF'\n${this.retryable.join('\n')}\nEOF`,
    };
  }
}

/** Results as lines on a terminal, as each book ends (a table format on a terminal, nothing selected). */
export function resultLines(ctx: Context): boolean {
  return outputFormat(ctx) === 'table' && Boolean(ctx.io.stdout.isTTY) && !ctx.globals.fields && !ctx.globals.query;
}
