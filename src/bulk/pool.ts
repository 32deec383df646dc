// A bounded concurrency pool: at most `concurrency` workers at once, pulling items lazily from
// an (async) iterable so that memory stays flat in the number of items. When `signal` aborts
// (the first Ctrl-C), no new item starts; the pool waits for those in flight and resolves.

export interface PoolOptions {
  concurrency: number;
  /** Stop starting new items when aborted; in-flight items run to completion. */
  signal?: AbortSignal;
}

export interface PoolResult {
  /** Items handed to a worker. */
  started: number;
  /** True when the signal stopped the pool before the items ran out. */
  interrupted: boolean;
}

/**
 * Run `worker` over `items` with bounded concurrency. A worker that throws stops the pool
 * (no new items start); the pool waits for the others and then rethrows the first error.
 * Workers that want "record and go on" must catch their own errors.
 */
export async function runPool<T>(
  items: Iterable<T> | AsyncIterable<T>,
  worker: (item: T, index: number) => Promise<void>,
  opts: PoolOptions,
): Promise<PoolResult> {
  const concurrency = Math.max(1, Math.floor(opts.concurrency));
  const it: Iterator<T> | AsyncIterator<T> =
    Symbol.asyncIterator in items ? items[Symbol.asyncIterator]() : items[Symbol.iterator]();
  let index = 0;
  let started = 0;
  let exhausted = false;
  let failed = false;
  let firstError: unknown;
  // Pulling from the iterator is serialised so that async iterators see one next() at a time.
  let pulling: Promise<unknown> = Promise.resolve();
  const next = (): Promise<IteratorResult<T>> => {
    const p = pulling.then(() => it.next());
    pulling = p.catch(() => {});
    return p;
  };

  const lane = async () => {
    for (;;) {
      if (exhausted || failed || opts.signal?.aborted) return;
      const r = await next();
      if (r.done) {
        exhausted = true;
        return;
      }
      if (failed || opts.signal?.aborted) {
        // Pulled but not started: the item is simply not done (the caller's resume covers it).
        return;
      }
      const i = index++;
      started++;
      try {
        await worker(r.value, i);
      } catch (err) {
        if (!failed) {
          failed = true;
          firstError = err;
        }
        return;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  if (failed) throw firstError;
  return { started, interrupted: !exhausted && Boolean(opts.signal?.aborted) };
}
