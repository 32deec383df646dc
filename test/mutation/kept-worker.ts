// Under `npm run mutate` only (vitest.config.ts, BOOKDIST_MUTATE=1): one vitest worker thread kept for
// every mutant run, instead of a new one per run.
//
// Stryker's vitest runner calls vitest's `start()` once per mutant, and vitest ends its workers at
// the end of each run: every mutant paid for a new worker thread, vitest's runtime loaded in it and
// its environment set up, about 0.25 s of CPU, most of a mutant's cost when the tests that reach it
// take milliseconds. This pool keeps the one worker started and sends it each run. The unit project
// already shares one worker between its test files (isolate: false), and static-setup.ts empties the
// module registry before each test file, so each run evaluates the tree again with its own mutant,
// as a new worker would.
//
// What vitest's pool runner expects of a worker, and what this one does instead:
// - `start` message: sent to the thread the first time only; later runs are answered "started" here.
//   The worker reads its configuration (the test name filter Stryker sets for each mutant among it)
//   from that message, so each `run` message carries the latest one.
// - `stop` message: answered "stopped" here; the thread ends when vitest closes, when it exits on
//   its own (a mutant can make it), or every RECYCLE runs (what a run leaves behind stays bounded).
// BOOKDIST_MUTATE_NEW_WORKERS=1 npm run mutate ... runs without it (a new worker per mutant), to
// compare results.
import { EventEmitter } from 'node:events';
import type { PoolOptions, PoolRunnerInitializer, PoolWorker, Vitest, WorkerRequest } from 'vitest/node';
import { ThreadsPoolWorker } from 'vitest/node';

type StartRequest = Extract<WorkerRequest, { type: 'start' }>;

const NAME = 'kept-threads';
/** Runs one thread serves before a new one takes over. */
const RECYCLE = 200;

interface Kept {
  thread: ThreadsPoolWorker;
  /** The thread's messages, errors and exit, for the pool runner of the current run. */
  events: EventEmitter;
  booted: boolean;
  runs: number;
  /** The configuration of the latest run (its test name filter among it). */
  config: StartRequest['context']['config'] | undefined;
}

let kept: Kept | undefined;

async function end(k: Kept): Promise<void> {
  if (kept === k) kept = undefined;
  await k.thread.stop().catch(() => {});
}

class KeptWorker implements PoolWorker {
  readonly name = NAME;
  private readonly mine: [string, (...args: unknown[]) => void][] = [];
  private k: Kept | undefined;

  constructor(private readonly options: PoolOptions) {}

  on(event: string, callback: (...args: unknown[]) => void): void {
    this.mine.push([event, callback]);
    this.kept().events.on(event, callback);
  }

  off(event: string, callback: (...args: unknown[]) => void): void {
    this.kept().events.off(event, callback);
  }

  deserialize(data: unknown): unknown {
    return data;
  }

  async start(): Promise<void> {
    if (kept && kept.runs >= RECYCLE) await end(kept);
    if (kept) {
      this.k = kept;
      return;
    }
    const k: Kept = {
      thread: new ThreadsPoolWorker(this.options),
      events: new EventEmitter(),
      booted: false,
      runs: 0,
      config: undefined,
    };
    k.events.setMaxListeners(0);
    await k.thread.start();
    for (const event of ['message', 'error']) k.thread.on(event, (...a) => k.events.emit(event, ...a));
    k.thread.on('exit', (...a) => {
      if (kept === k) kept = undefined;
      k.events.emit('exit', ...a);
    });
    kept = k;
    this.k = k;
  }

  send(message: WorkerRequest): void {
    const k = this.kept();
    const answer = (type: 'started' | 'stopped') =>
      queueMicrotask(() => k.events.emit('message', { type, __vitest_worker_response__: true }));
    if (message.type === 'start') {
      k.config = message.context.config;
      if (k.booted) return answer('started');
      k.booted = true;
    } else if (message.type === 'stop') {
      return answer('stopped');
    } else if (message.type === 'run' || message.type === 'collect') {
      k.runs++;
      // The worker reads the run's `config` before the one it was started with.
      message = { ...message, context: { ...message.context, config: k.config } as typeof message.context };
    }
    k.thread.send(message);
  }

  async stop(): Promise<void> {
    const k = this.k;
    if (!k) return;
    for (const [event, callback] of this.mine.splice(0)) k.events.off(event, callback);
  }

  private kept(): Kept {
    const k = this.k ?? kept;
    if (!k) throw new Error(`${NAME}: the worker is not started`);
    return k;
  }
}

/** The pool of a project whose runs share one worker thread; the thread ends when `vitest` closes. */
export function keptWorkerPool(vitest: Vitest): PoolRunnerInitializer {
  vitest.onClose(async () => {
    if (kept) await end(kept);
  });
  return { name: NAME, createPoolWorker: (options) => new KeptWorker(options) };
}
