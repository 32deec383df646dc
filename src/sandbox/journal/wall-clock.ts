// The journal's clock (`at`): wall-clock time in ms with a fraction, comparable across the
// processes that serve one database, without `performance`: the global loads perf_hooks (nine
// modules, about 3.2M instructions) the first time it is read, which every embedded command paid
// at start-up for this clock alone (issue 31).
//
// Wall-clock time is an origin plus the system's monotonic clock (process.hrtime: one clock for
// every process, as performance.now() is). The origin is Date.now() minus that clock; Date.now()
// drops the fraction of its millisecond, so each reading is short by up to 1 ms, and the highest
// reading so far is kept: each of a process's first SAMPLES readings takes one. The monotonic
// clock is read after Date.now(), so that a pause between the two (the thread descheduled) makes
// a reading shorter, never longer: the origin is never ahead. A process's first request is dated
// up to 1 ms early (never late, and never before an earlier one of the same process); after a
// few dozen, within microseconds.

/** Readings that refine the origin; after them a reading costs the monotonic clock only. */
const SAMPLES = 256;

let origin = Number.NEGATIVE_INFINITY;
let samples = 0;

/**
 * The monotonic clock, in ms (for durations): process.hrtime()'s seconds and nanoseconds, the same
 * clock as process.hrtime.bigint(), without the BigInt, which Number() converts through V8's
 * runtime: about 280 instructions a reading against 640 (callgrind, a loop of readings), and a
 * request reads it twice.
 */
export function monotonicMs(): number {
  const t = process.hrtime();
  return t[0] * 1e3 + t[1] / 1e6;
}

/** Wall-clock time in ms, with its fraction (see above); `mono` is monotonicMs() of the same moment. */
export function wallMs(mono: number): number {
  if (samples < SAMPLES) {
    samples++;
    const o = Date.now() - monotonicMs();
    if (o > origin) origin = o;
  }
  return origin + mono;
}
