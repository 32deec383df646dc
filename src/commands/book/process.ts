// `bookdist book process`: queue many books (bounded concurrency), optionally wait until each is
// processed, report per-book state changes on stderr and the results on stdout.
import type { Context } from '../../context.js';
import type { VerbInput } from '../define.js';
import { ExitCode, usageError } from '../../errors.js';
import * as v from '../../validate/index.js';
import { parseDuration, formatDuration } from '../../util/duration.js';
import { readList, inputError } from '../../bulk/lines.js';
import { runPool } from '../../bulk/pool.js';
import { callWithRetry, failureOf, type Failure } from '../../bulk/retry.js';
import { createRowWriter, outputFormat, style } from '../../output/index.js';
import { confirm } from '../confirm.js';

export interface Options {
  hashIds: string[];
  force: boolean;
  urgent: boolean;
  wait: boolean;
  intervalMs: number;
  concurrency: number;
}

type State = 'pending' | 'queued' | 'already_queued' | 'already_processed' | 'processed' | 'failed' | 'timed_out';

interface BookResult {
  hash_id: string;
  state: State;
  message: string;
  title?: string;
  processed_date?: string | null;
  failure?: Failure;
  /** This run queued it, or found it already queued. */
  wasQueued?: boolean;
}

const WAIT_DEFAULT_MS = 30 * 60_000;
const REQUEST_TIMEOUT_MS = 30_000;

export async function parse({ args, opts }: VerbInput, ctx: Context): Promise<Options> {
  const raw: Array<{ value: string; where: string }> = [];
  for (const a of (args[0] as string[] | undefined) ?? []) raw.push({ value: a, where: '<hash_id>' });
  if (opts.fromFile !== undefined) {
    try {
      for await (const l of readList(String(opts.fromFile), ctx, '--from-file')) raw.push({ value: l.value, where: `--from-file line ${l.line}:` });
    } catch (e) {
      throw inputError(e, String(opts.fromFile), '--from-file');
    }
  }
  if (!raw.length) throw usageError('Give the books to process: hash ids as arguments, or --from-file FILE (- for stdin).');
  const seen = new Set<string>();
  const hashIds: string[] = [];
  for (const r of raw) {
    const h = v.hashId(r.value, r.where);
    if (!seen.has(h)) (seen.add(h), hashIds.push(h));
  }
  const intervalMs = parseDuration(String(opts.interval ?? '5s'));
  if (intervalMs === undefined || intervalMs < 100) throw usageError(`--interval ${opts.interval}: give a duration of at least 100ms, like 5s or 1m.`);
  return {
    hashIds,
    force: Boolean(opts.force),
    urgent: Boolean(opts.urgent),
    wait: Boolean(opts.wait),
    intervalMs,
    concurrency: v.positiveInt(opts.concurrency ?? '4', '--concurrency', 64),
  };
}

const LABEL: Record<State, string> = {
  pending: 'pending',
  queued: 'queued',
  already_queued: 'already queued',
  already_processed: 'already processed',
  processed: 'processed',
  failed: 'failed',
  timed_out: 'timed out',
};

export async function run(o: Options, ctx: Context): Promise<number> {
  const n = o.hashIds.length;
  if (o.force) {
    await confirm(ctx, `Process ${n === 1 ? 'this book' : `${n} books`} again? Forced processing deletes the annotations of a processed book.`);
  }
  // With --wait, an explicit --timeout bounds the whole wait; requests keep a sane limit of their own.
  const g = ctx.globals;
  let waitLimit = WAIT_DEFAULT_MS;
  if (o.wait && g.timeoutExplicit) {
    waitLimit = g.timeout;
    g.timeout = Math.min(REQUEST_TIMEOUT_MS, g.timeout);
  }
  ctx.noticesOnTtyOnly = true; // bulk job: a script's stderr holds only errors
  const api = await ctx.api();
  if (ctx.globals.dryRun) {
    ctx.info(`(dry run: ${n} request(s) would be sent)`);
    await api.call('book.process', { params: { hash_id: o.hashIds[0] }, payload: { force: o.force, urgent: o.urgent } });
    return 0;
  }
  const st = style(ctx, 'stderr');
  const results: BookResult[] = o.hashIds.map((h) => ({ hash_id: h, state: 'pending', message: '' }));
  const say = (r: BookResult) => {
    const colour = r.state === 'failed' || r.state === 'timed_out' ? st.red : r.state === 'processed' || r.state === 'already_processed' ? st.green : (s: string) => s;
    const line = `${r.hash_id}  ${colour(LABEL[r.state])}${r.message && r.state !== 'processed' ? `  ${r.message}` : ''}`;
    if (r.state === 'failed' || r.state === 'timed_out') ctx.io.stderr.write(line + '\n');
    else ctx.info(line);
  };
  const retry = { retries: ctx.globals.retries, sleep: ctx.clock.sleep, signal: ctx.signal };
  ctx.trapInterrupt();
  const started = Date.now();

  // ---- queue
  await runPool(
    results,
    async (r) => {
      const out = await callWithRetry(api, 'book.process', { params: { hash_id: r.hash_id }, payload: { force: o.force, urgent: o.urgent } }, retry);
      if (!out.ok) {
        if (out.interrupted) return;
        r.state = 'failed';
        r.failure = out.failure;
        r.message = out.failure.message;
      } else if (out.response.status >= 400) {
        r.failure = failureOf(out.response);
        r.state = 'failed';
        r.message = r.failure.message;
      } else {
        const msg = String(out.response.body?.message ?? '');
        r.message = msg;
        r.state = /already processed/i.test(msg) ? 'already_processed' : /already queued/i.test(msg) ? 'already_queued' : 'queued';
        r.wasQueued = r.state !== 'already_processed';
      }
      say(r);
    },
    { concurrency: o.concurrency, signal: ctx.signal },
  );

  // ---- wait
  let lastPollFailure: Failure | undefined;
  if (o.wait && !ctx.signal.aborted) {
    const deadline = started + waitLimit;
    const waiting = () => results.filter((r) => r.state === 'queued' || r.state === 'already_queued');
    while (waiting().length && !ctx.signal.aborted) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      try {
        await ctx.clock.sleep(Math.min(o.intervalMs, left), ctx.signal);
      } catch {
        break;
      }
      const pending = waiting();
      const chunks: BookResult[][] = [];
      for (let i = 0; i < pending.length; i += 100) chunks.push(pending.slice(i, i + 100));
      lastPollFailure = undefined;
      await runPool(
        chunks,
        async (chunk) => {
          const byHash = new Map(chunk.map((r) => [r.hash_id, r]));
          const out = await callWithRetry(api, 'book.search', { payload: { hash_ids: [...byHash.keys()], limit: 500 } }, retry);
          if (!out.ok || out.response.status >= 400) {
            lastPollFailure = out.ok ? failureOf(out.response) : out.failure;
            if (!out.ok && out.interrupted) return;
            if (lastPollFailure.kind === 'error') {
              for (const r of chunk) (r.state = 'failed'), (r.failure = lastPollFailure), (r.message = `while waiting: ${lastPollFailure.message}`), say(r);
            }
            return;
          }
          const books: any[] = Array.isArray(out.response.body?.results) ? out.response.body.results : [];
          const seen = new Set<string>();
          for (const b of books) {
            const r = byHash.get(String(b?.hash_id ?? '').toLowerCase());
            if (!r) continue;
            seen.add(r.hash_id);
            r.title = b.title;
            const s = b.status ?? {};
            if (s.is_processed && !s.is_queued) {
              r.state = 'processed';
              r.processed_date = s.processed_date ?? null;
              r.message = s.processed_date ? `processed ${s.processed_date}` : 'processed';
              say(r);
            }
          }
          // A service whose search does not match hash_ids (or no longer lists a book): ask one by one.
          for (const r of chunk) {
            if (seen.has(r.hash_id)) continue;
            const one = await callWithRetry(api, 'book.get', { params: { hash_id: r.hash_id } }, retry);
            if (!one.ok || one.response.status >= 400) {
              const f = one.ok ? failureOf(one.response) : one.failure;
              if (f.kind === 'unavailable') {
                lastPollFailure = f;
                continue;
              }
              r.state = 'failed';
              r.failure = f;
              r.message = `while waiting: ${f.message}`;
              say(r);
              continue;
            }
            const b = one.response.body?.book ?? {};
            const s = b.status ?? {};
            r.title = b.title;
            if (s.is_processed && !s.is_queued) {
              r.state = 'processed';
              r.processed_date = s.processed_date ?? null;
              r.message = s.processed_date ? `processed ${s.processed_date}` : 'processed';
              say(r);
            }
          }
        },
        { concurrency: o.concurrency },
      );
    }
    if (!ctx.signal.aborted) {
      for (const r of waiting()) {
        if (lastPollFailure?.kind === 'unavailable') {
          r.state = 'failed';
          r.failure = lastPollFailure;
          r.message = `service unavailable while waiting: ${lastPollFailure.message}`;
        } else {
          r.state = 'timed_out';
          r.message = `still queued after ${formatDuration(Date.now() - started)}`;
        }
        say(r);
      }
    }
  }

  // ---- report
  const count = (...s: State[]) => results.filter((r) => s.includes(r.state)).length;
  const summary = {
    total: n,
    queued: results.filter((r) => r.wasQueued).length,
    already_processed: count('already_processed'),
    processed: count('processed'),
    failed: count('failed'),
    timed_out: count('timed_out'),
    not_started: count('pending'),
  };
  const rows = results.map((r) => ({
    hash_id: r.hash_id,
    state: r.state,
    message: r.message,
    ...(o.wait ? { title: r.title ?? null, processed_date: r.processed_date ?? null } : {}),
  }));
  const fmt = outputFormat(ctx);
  if (fmt === 'table' && n === 1 && !ctx.globals.fields && !ctx.globals.query) {
    const r = results[0];
    const s = style(ctx);
    const mark = r.state === 'failed' || r.state === 'timed_out' ? s.red('✗') : s.green('✓');
    ctx.io.stdout.write(`${mark} ${r.hash_id}  ${LABEL[r.state]}${r.message && r.message !== LABEL[r.state] ? ` — ${r.message}` : ''}\n`);
  } else {
    // --json: {summary, books: [...]}; --fields: the rows.
    const w = createRowWriter(ctx, { columns: [{ key: 'hash_id' }, { key: 'state' }, { key: 'message' }], envelope: { summary }, rowsKey: 'books' });
    for (const r of rows) w.write(r);
    await w.end();
  }
  const parts = [
    `${summary.queued} queued`,
    `${summary.already_processed} already processed`,
    ...(o.wait ? [`${summary.processed} processed`] : []),
    `${summary.failed} failed`,
    ...(o.wait ? [`${summary.timed_out} timed out`] : []),
    ...(summary.not_started ? [`${summary.not_started} not started`] : []),
  ];
  const failures = results.filter((r) => r.state === 'failed' || r.state === 'timed_out');
  const line = `${n} book(s): ${parts.join(', ')} (${formatDuration(Date.now() - started)}).`;
  if (ctx.signal.aborted) {
    ctx.warn(`interrupted. ${line} Run the same command again to continue (books already queued are reported as such).`);
    return ExitCode.INTERRUPTED;
  }
  if (failures.length) {
    const again = `bookdist book process${o.force ? ' --force' : ''}${o.urgent ? ' --urgent' : ''}${o.wait ? ' --wait' : ''}`;
    ctx.warn(
      line +
        (failures.length <= 10
          ? ` Retry just those with:\n  ${again} ${failures.map((r) => r.hash_id).join(' ')}`
          : ` Retry just those (the rows whose state is failed or timed_out) with e.g.:\n  bookdist book process ... -o csv | grep -E ',(failed|timed_out),' | cut -d, -f1 | ${again} --from-file -`),
    );
  } else {
    ctx.info(line);
  }
  if (!failures.length) return ExitCode.OK;
  if (n === 1 && failures[0].failure) return failures[0].failure.exitCode;
  const timedOut = failures.some((r) => r.state === 'timed_out');
  if (!timedOut && failures.every((r) => r.failure?.kind === 'unavailable')) return ExitCode.UNAVAILABLE;
  return ExitCode.PARTIAL;
}
