// `bookdist book process`: queue books (hash ids as arguments and/or --from-file, - for stdin), a
// spec on the bulk job engine: one POST per book, and with --wait a second phase (the engine's
// `settle`) that polls until the queued books are processed. Per-book state changes go to stderr;
// one result per book to stdout (one object with a summary under --json) or to --results FILE
// (resumable: books queued before an interrupt are waited for, never queued again).
import type { Context } from '../../context.js';
import type { VerbInput } from '../define.js';
import type { processBooks } from './process.cmd.js';
import { usageError } from '../../errors.js';
import * as v from '../../validate/index.js';
import { checkDuration } from '../../util/duration.js';
import { readList } from '../../bulk/lines.js';
import { inputFingerprint } from '../../bulk/rows.js';
import { chunks, eachItem, runJob, type JobSpec } from '../../bulk/engine.js';
import { jobFlags } from '../../bulk/flags.js';
import { jobCommand, type GivenChange } from '../given.js';
import { confirm } from '../confirm.js';
import { ProcessJob, type Book, type Options, type Row } from './parts/process-job.js';
import { stdoutOf } from './parts/process-stdout.js';

const WAIT_DEFAULT_MS = 30 * 60_000;
const REQUEST_TIMEOUT_MS = 30_000;
/** Books per batch (one journal line each); --concurrency batches run at once. */
const BOOKS_PER_BATCH = 10;

export function parse({ args, opts, command }: VerbInput<typeof processBooks>): Options {
  const hashIds = args.hash_id.map((a) => v.hashId(a, '<hash_id>'));
  const file = opts.fromFile;
  if (!hashIds.length && file === undefined)
    throw usageError('Give the books to process: hash ids as arguments, or --from-file FILE (- for stdin).');
  const interval = checkDuration('--interval', opts.interval, {
    minMs: 100,
    maxMs: 3_600_000,
    max: '1h',
    like: '5s or 1m',
  });
  if ('problem' in interval) throw usageError(interval.problem);
  const intervalMs = interval.ms;
  const concurrency = v.positiveInt(opts.concurrency, '--concurrency', 64);
  const results = opts.results;
  if ((opts.resume || opts.restart) && results === undefined)
    throw usageError(`--${opts.resume ? 'resume' : 'restart'} needs the --results FILE of the job.`);
  // Forced processing asks for a confirmation: a --yes given is repeated.
  const again = (c: GivenChange = {}) => jobCommand(command, { ...c, confirms: Boolean(opts.force) });
  return {
    hashIds,
    file,
    force: Boolean(opts.force),
    urgent: Boolean(opts.urgent),
    wait: Boolean(opts.wait),
    intervalMs,
    concurrency,
    results,
    resume: Boolean(opts.resume),
    restart: Boolean(opts.restart),
    again,
  };
}

export async function run(o: Options, ctx: Context): Promise<number> {
  // With --wait, an explicit --timeout bounds the whole wait; requests keep a sane limit of their own.
  const g = ctx.globals;
  const waitBounded = o.wait && g.timeoutExplicit;
  const waitLimit = waitBounded ? g.timeout : WAIT_DEFAULT_MS;
  const input = o.file === undefined ? undefined : await inputFingerprint(o.file, ctx, '--from-file');
  // A file is checked whole before the first request (a bad line is exit 2 with nothing sent), in one
  // streamed pass; stdin's lines are checked as they come. The books of the arguments and of a file
  // are known before the first request: the progress line shows their total (stdin's once read).
  const known = new Set(o.hashIds);
  if (input !== undefined && input !== '-')
    for await (const l of readList(o.file!, ctx, '--from-file'))
      known.add(v.hashId(l.value, `--from-file line ${l.line}:`));
  const job = new ProcessJob(o, ctx, Date.now() + waitLimit);
  const spec: JobSpec<Book, Row> = {
    verb: 'book process',
    columns: o.wait ? ['hash_id', 'state', 'message', 'title', 'processed_date'] : ['hash_id', 'state', 'message'],
    unit: 'books',
    requestTimeout: waitBounded ? Math.min(REQUEST_TIMEOUT_MS, g.timeout) : undefined,
    total: input === '-' ? undefined : known.size,
    source: () => chunks(job.books(), BOOKS_PER_BATCH),
    // Each book's result is said once, by the job (its line, or its row on stdout): eachItem's own
    // line for a failed item would repeat the whole failure. The books' calls are told to the
    // ledger ahead (one fdatasync for a window of them), as the other row jobs' are.
    process: (batch, tools) =>
      eachItem(
        batch.items,
        (b) => job.queue(b, tools),
        { ctx: tools.ctx, log: () => {}, ahead: (calls) => tools.ahead(calls) },
        (b) => ({ name: 'book.process', args: job.args(b) }),
      ),
    settle: (pending, tools) => job.settle(pending, tools),
    status: (r) => r.state,
    describe: (c, stats) => job.describe(c, stats.earlier),
    stdoutWriter: (out) => stdoutOf(out, o, job.order, job.queued, () => job.total),
    ...jobFlags(o, ctx),
    input: o.file !== undefined ? `--from-file ${o.file}` : 'the hash ids',
    identity: {
      '<hash_id>': o.hashIds,
      '--from-file': input ?? null,
      '--force': o.force,
      '--urgent': o.urgent,
      '--wait': o.wait,
    },
    command: o.again(),
    stdoutResumeHint: () => job.retryHint(),
    confirm: o.force
      ? () =>
          confirm(
            ctx,
            `Process ${job.total === 1 ? 'this book' : 'these books'} again? Forced processing deletes the annotations of a processed book.`,
          )
      : undefined,
    // One book alone exits as the service said (3 not found, 4 not authorized).
    exitCode: (code, failures) => (job.total === 1 && failures.length ? failures[0].exitCode : code),
    dryRunNote: '(dry run: one request per book; the first is shown, nothing is sent)',
  };
  const code = await runJob(spec, ctx);
  job.adviseHeld();
  return code;
}
