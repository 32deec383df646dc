// `bookdist book process`: queue books (hash ids as arguments and/or --from-file, - for stdin), a
// spec on the bulk job engine: one POST per book, and with --wait a second phase (the engine's
// `settle`) that polls until the queued books are processed. Per-book state changes go to stderr;
// one result per book to stdout (one object with a summary under --json) or to --results FILE
// (resumable: books queued before an interrupt are waited for, never queued again).
import type { Context } from '../../context.js';
import type { VerbInput } from '../define.js';
import { ExitCode, usageError } from '../../errors.js';
import * as v from '../../validate/index.js';
import { checkDuration, formatDuration } from '../../util/duration.js';
import { escapeControls } from '../../output/text.js';
import { readList } from '../../bulk/lines.js';
import { inputFingerprint } from '../../bulk/rows.js';
import { chunks, eachItem, failedRow, runJob, type JobSpec, type PendingItem, type SettleTools } from '../../bulk/engine.js';
import { runPool } from '../../bulk/pool.js';
import { failureOf, type Failure } from '../../bulk/retry.js';
import { jobFlags, shellQuote } from '../../bulk/flags.js';
import { createRowWriter, outputFormat, style } from '../../output/index.js';
import { confirm } from '../confirm.js';

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
  /** The flags that repeat the job. */
  argv: string[];
}

type State = 'queued' | 'already_queued' | 'already_processed' | 'processed' | 'failed' | 'timed_out';
interface Book {
  hash_id: string;
  line?: number;
}
interface Row extends Record<string, unknown> {
  hash_id: string;
  state: State;
  message: string;
  title?: string | null;
  processed_date?: string | null;
}

const WAIT_DEFAULT_MS = 30 * 60_000;
const REQUEST_TIMEOUT_MS = 30_000;
/** Books per batch (one journal line each); --concurrency batches run at once. */
const BOOKS_PER_BATCH = 10;
/** Books per poll request with --wait. */
const POLL_CHUNK = 100;

const LABEL: Record<State, string> = {
  queued: 'queued',
  already_queued: 'already queued',
  already_processed: 'already processed',
  processed: 'processed',
  failed: 'failed',
  timed_out: 'timed out',
};

export async function parse({ args, opts }: VerbInput, _ctx: Context): Promise<Options> {
  const hashIds = ((args[0] as string[] | undefined) ?? []).map((a) => v.hashId(a, '<hash_id>'));
  const file = opts.fromFile !== undefined ? String(opts.fromFile) : undefined;
  if (!hashIds.length && file === undefined) throw usageError('Give the books to process: hash ids as arguments, or --from-file FILE (- for stdin).');
  const interval = checkDuration('--interval', opts.interval ?? '5s', { minMs: 100, maxMs: 3_600_000, max: '1h', like: '5s or 1m' });
  if ('problem' in interval) throw usageError(interval.problem);
  const intervalMs = interval.ms;
  const concurrency = v.positiveInt(opts.concurrency ?? '4', '--concurrency', 64);
  const results = opts.results !== undefined ? String(opts.results) : undefined;
  if ((opts.resume || opts.restart) && results === undefined) throw usageError(`--${opts.resume ? 'resume' : 'restart'} needs the --results FILE of the job.`);
  const argv = [...hashIds];
  if (file !== undefined) argv.push('--from-file', shellQuote(file));
  for (const [k, f] of [['force', '--force'], ['urgent', '--urgent'], ['wait', '--wait']] as const) if (opts[k]) argv.push(f);
  if (opts.wait && opts.interval !== undefined && opts.interval !== '5s') argv.push('--interval', shellQuote(String(opts.interval)));
  if (results !== undefined) argv.push('--results', shellQuote(results));
  if (concurrency !== 4) argv.push('--concurrency', String(concurrency));
  return { hashIds, file, force: Boolean(opts.force), urgent: Boolean(opts.urgent), wait: Boolean(opts.wait), intervalMs, concurrency, results, resume: Boolean(opts.resume), restart: Boolean(opts.restart), argv };
}

export async function run(o: Options, ctx: Context): Promise<number> {
  // With --wait, an explicit --timeout bounds the whole wait; requests keep a sane limit of their own.
  const g = ctx.globals;
  let waitLimit = WAIT_DEFAULT_MS;
  if (o.wait && g.timeoutExplicit) {
    waitLimit = g.timeout;
    g.timeout = Math.min(REQUEST_TIMEOUT_MS, g.timeout);
  }
  const started = Date.now();
  const input = o.file === undefined ? undefined : await inputFingerprint(o.file, ctx, '--from-file');
  // A file is checked whole before the first request (a bad line is exit 2 with nothing sent): one
  // streamed pass, nothing held. Stdin can be read once only: its lines are checked as they come.
  if (input !== undefined && input !== '-') for await (const l of readList(o.file!, ctx, '--from-file')) v.hashId(l.value, `--from-file line ${l.line}:`);
  const st = style(ctx, 'stderr');
  const say = (r: Row) => {
    const bad = r.state === 'failed' || r.state === 'timed_out';
    const colour = bad ? st.red : r.state === 'processed' || r.state === 'already_processed' ? st.green : (s: string) => s;
    const line = `${r.hash_id}  ${colour(LABEL[r.state])}${r.message && r.state !== 'processed' ? `  ${r.message}` : ''}`;
    if (bad) ctx.warn(line);
    else ctx.info(line);
  };
  const row = (b: Book, state: State, message: string, extra: Partial<Row> = {}): Row => ({
    hash_id: b.hash_id,
    state,
    message,
    ...(o.wait ? { title: extra.title ?? null, processed_date: extra.processed_date ?? null } : {}),
  });

  // What this run saw, for the summary and stdout: books read, queued (or found queued), failed.
  let total = 0;
  const order = new Map<string, number>();
  const queued = new Map<string, Row>();
  const failed: string[] = [];

  async function* books(): AsyncGenerator<Book> {
    const seen = new Set<string>();
    const one = (b: Book) => {
      if (seen.has(b.hash_id)) return false;
      seen.add(b.hash_id);
      order.set(b.hash_id, total++);
      return true;
    };
    for (const h of o.hashIds) if (one({ hash_id: h })) yield { hash_id: h };
    if (o.file !== undefined) {
      for await (const l of readList(o.file, ctx, '--from-file')) {
        const b = { hash_id: v.hashId(l.value, `--from-file line ${l.line}:`), line: l.line };
        if (one(b)) yield b;
      }
    }
    if (!total) throw usageError(`--from-file ${o.file}: no hash ids in it (blank lines and # comments are ignored).`);
  }

  // Books the service holds in its queue (the sandbox's "The Glass Meridian"): said once, as
  // soon as a poll sees it, and named again if the wait times out.
  const held = new Map<string, string>();
  const noteHeld = (hash: string, reason: string) => {
    if (held.has(hash)) return;
    held.set(hash, reason);
    ctx.warn(`${hash}  held: ${reason}; --wait keeps waiting for it until --timeout`);
  };

  /** One poll: the books of `chunk` that are processed now (or failed to be looked at), as results. */
  async function poll(chunk: PendingItem<Book>[], job: SettleTools<Book, Row>) {
    const results: Array<{ of: PendingItem<Book>; row: Row; failure?: Failure }> = [];
    let unavailable: Failure | undefined;
    const byHash = new Map(chunk.map((p) => [p.item.hash_id, p]));
    const settleIfProcessed = (p: PendingItem<Book>, b: any) => {
      const s = b?.status ?? {};
      if (s.is_queued && s.is_held === true) noteHeld(p.item.hash_id, typeof s.held_reason === 'string' ? s.held_reason : 'held in the queue');
      if (!(s.is_processed && !s.is_queued)) return;
      const r = row(p.item, 'processed', s.processed_date ? `processed ${s.processed_date}` : 'processed', { title: b.title ?? null, processed_date: s.processed_date ?? null });
      say(r);
      results.push({ of: p, row: r });
    };
    const failedWaiting = (p: PendingItem<Book>, f: Failure) => {
      const r = row(p.item, 'failed', `while waiting: ${f.message}`);
      say(r);
      failed.push(p.item.hash_id);
      results.push({ of: p, row: r, failure: { ...f, message: `${p.item.hash_id}: ${f.message}` } });
    };
    const out = await job.call('book.search', { payload: { hash_ids: [...byHash.keys()], limit: 500 } });
    if (!out.ok || out.response.status >= 400) {
      const f = out.ok ? failureOf(out.response) : out.failure;
      if (f.kind === 'error') for (const p of chunk) failedWaiting(p, f);
      return { results, unavailable: f.kind === 'unavailable' ? f : undefined };
    }
    const seen = new Set<string>();
    for (const b of Array.isArray(out.response.body?.results) ? out.response.body.results : []) {
      const p = byHash.get(String(b?.hash_id ?? '').toLowerCase());
      if (!p || seen.has(p.item.hash_id)) continue;
      seen.add(p.item.hash_id);
      settleIfProcessed(p, b);
    }
    // A service whose search does not match hash_ids (or no longer lists a book): ask one by one.
    for (const p of chunk) {
      if (seen.has(p.item.hash_id) || job.ctx.signal.aborted) continue;
      const one = await job.call('book.get', { params: { hash_id: p.item.hash_id } });
      if (!one.ok || one.response.status >= 400) {
        const f = one.ok ? failureOf(one.response) : one.failure;
        if (f.kind === 'unavailable') unavailable = f;
        else failedWaiting(p, f);
        continue;
      }
      settleIfProcessed(p, one.response.body?.book);
    }
    return { results, unavailable };
  }

  const spec: JobSpec<Book, Row> = {
    verb: 'book process',
    columns: o.wait ? ['hash_id', 'state', 'message', 'title', 'processed_date'] : ['hash_id', 'state', 'message'],
    unit: 'books',
    source: () => chunks(books(), BOOKS_PER_BATCH),
    process: (batch, job) =>
      eachItem(
        batch.items,
        async (b) => {
          const r = await job.call('book.process', { params: { hash_id: b.hash_id }, payload: { force: o.force, urgent: o.urgent } });
          if (!r.ok || r.response.status >= 400) {
            const x = failedRow(r, (state, message) => row(b, state, message), b.hash_id);
            if ('row' in x) failed.push(b.hash_id);
            return x;
          }
          const message = String(r.response.body?.message ?? '');
          const state: State = /already processed/i.test(message) ? 'already_processed' : /already queued/i.test(message) ? 'already_queued' : 'queued';
          const result = row(b, state, message);
          say(result);
          if (state === 'already_processed') return { row: result };
          queued.set(b.hash_id, result);
          // With --wait the book's result is its processing: the second phase waits for it.
          return o.wait ? { pending: true } : { row: result };
        },
        job,
      ),
    async settle(pending, job) {
      const deadline = started + waitLimit;
      let waiting = pending;
      let unavailable: Failure | undefined;
      while (waiting.length && !ctx.signal.aborted) {
        const left = deadline - Date.now();
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
        await runPool(
          polls,
          async (chunk) => {
            const r = await poll(chunk, job);
            if (r.unavailable) unavailable = r.unavailable;
            await job.commit(r.results);
            for (const x of r.results) done.add(x.of);
          },
          { concurrency: o.concurrency },
        );
        waiting = waiting.filter((p) => !done.has(p));
      }
      if (ctx.signal.aborted || !waiting.length) return;
      // The wait is over: what is still queued timed out (or the service stayed unavailable).
      const waited = formatDuration(Date.now() - started);
      await job.commit(
        waiting.map((p) => {
          const r = unavailable
            ? row(p.item, 'failed', `service unavailable while waiting: ${unavailable.message}`)
            : row(p.item, 'timed_out', `still queued after ${waited}${held.has(p.item.hash_id) ? ` (${held.get(p.item.hash_id)})` : ''}`);
          say(r);
          failed.push(p.item.hash_id);
          const failure: Failure = unavailable ?? { kind: 'error', message: `${p.item.hash_id}: still queued after ${waited}`, exitCode: ExitCode.PARTIAL };
          return { of: p, row: r, failure };
        }),
      );
    },
    status: (r) => r.state,
    describe: (c, stats) => {
      const n = (s: State) => c[s] ?? 0;
      const parts = [
        `${queued.size} queued`,
        `${n('already_processed')} already processed`,
        ...(o.wait ? [`${n('processed')} processed`] : []),
        `${n('failed')} failed`,
        ...(o.wait ? [`${n('timed_out')} timed out`] : []),
      ];
      return `${total} book(s): ${parts.join(', ')}${stats.earlier ? `, ${stats.earlier} done in an earlier run` : ''}`;
    },
    stdoutWriter: (out) => stdoutOf(out, o, order, queued, () => total),
    ...jobFlags(o, ctx),
    input: o.file !== undefined ? `--from-file ${o.file}` : 'the hash ids',
    identity: { '<hash_id>': o.hashIds, '--from-file': input ?? null, '--force': o.force, '--urgent': o.urgent, '--wait': o.wait },
    // --force asked for a confirmation: a resume after --yes needs it again.
    command: `bookdist book process ${o.argv.join(' ')}${o.force && ctx.globals.yes ? ' --yes' : ''}`,
    stdoutResumeHint: () => {
      const again = `bookdist book process${o.force ? ' --force' : ''}${o.urgent ? ' --urgent' : ''}${o.wait ? ' --wait' : ''}`;
      if (!ctx.signal.aborted && failed.length && failed.length <= 10) return `${again} ${failed.join(' ')}`;
      if (!ctx.signal.aborted && failed.length)
        return `bookdist book process ... -o csv | grep -E ',(failed|timed_out),' | cut -d, -f1 | ${again} --from-file - (the rows whose state is failed or timed_out)`;
      return `bookdist book process ${o.argv.join(' ')} (books already queued or processed are reported as such; add --results FILE to resume exactly)`;
    },
    confirm: o.force ? () => confirm(ctx, `Process ${total === 1 ? 'this book' : 'these books'} again? Forced processing deletes the annotations of a processed book.`) : undefined,
    // One book alone exits as the service said (3 not found, 4 not authorized).
    exitCode: (code, failures) => (total === 1 && failures.length ? failures[0].exitCode : code),
    dryRunNote: '(dry run: one request per book; the first is shown, nothing is sent)',
  };
  return runJob(spec, ctx);
}

/**
 * Stdout: the rows in input order once the job ends (books still waited for when it was
 * interrupted show their queue state); under --json one object `{summary, books}`; one book
 * alone as a table is one line.
 */
function stdoutOf(ctx: Context, o: Options, order: Map<string, number>, queued: Map<string, Row>, total: () => number) {
  const rows = new Map<string, Row>();
  return {
    write(r: Row) {
      rows.set(r.hash_id, r);
    },
    async end() {
      for (const [h, r] of queued) if (!rows.has(h)) rows.set(h, r);
      const list = [...rows.values()].sort((a, b) => (order.get(a.hash_id) ?? 0) - (order.get(b.hash_id) ?? 0));
      const count = (...s: State[]) => list.filter((r) => s.includes(r.state)).length;
      const summary = {
        total: total(),
        queued: queued.size,
        already_processed: count('already_processed'),
        processed: count('processed'),
        failed: count('failed'),
        timed_out: count('timed_out'),
        not_started: total() - list.length,
      };
      if (outputFormat(ctx) === 'table' && list.length === 1 && total() === 1 && !ctx.globals.fields && !ctx.globals.query) {
        const r = list[0];
        const s = style(ctx);
        const mark = r.state === 'failed' || r.state === 'timed_out' ? s.red('✗') : s.green('✓');
        ctx.io.stdout.write(`${mark} ${r.hash_id}  ${LABEL[r.state]}${r.message && r.message !== LABEL[r.state] ? ` — ${escapeControls(r.message)}` : ''}\n`);
        return;
      }
      // --json: {summary, books: [...]}; --fields: the rows.
      const w = createRowWriter(ctx, { columns: [{ key: 'hash_id' }, { key: 'state' }, { key: 'message' }], envelope: { summary }, rowsKey: 'books' });
      for (const r of list) w.write(o.wait ? r : { hash_id: r.hash_id, state: r.state, message: r.message });
      await w.end();
    },
  };
}
