// The sandbox's clock: real time plus an offset kept in the database (meta `clock_offset_ms`), so
// every process on one file sees the same time and `sandbox clock advance` moves it for all.
import type { Turn } from './turn.js';

/** What the clock reads and writes: the meta table, in the turn's memos and transactions. */
export type ClockHolder = Pick<Turn, 'memo' | 'tx'> & {
  meta(key: string): string | undefined;
  setMeta(key: string, value: string): void;
};

/** The tables the clock's memo is read from. */
const CLOCK_TABLES: readonly string[] = ['meta'];

/** The memo's compute, made once and given the holder: no closure (nor table list) made per call, which is every request's. */
const readOffset = (store: ClockHolder): number => Number(store.meta('clock_offset_ms') ?? 0);

/** The clock's offset from real time, in ms (0 until it is moved). */
export function clockOffset(store: ClockHolder): number {
  return store.memo('clock', CLOCK_TABLES, readOffset, store);
}

/** The sandbox's notion of now, in ms: real time plus the clock offset stored in the database. */
export function sandboxNow(store: ClockHolder): number {
  const off = clockOffset(store);
  return Date.now() + (Number.isFinite(off) ? off : 0);
}

/** Move the clock forward by `ms`. Returns the new offset. */
export function advanceClock(store: ClockHolder, ms: number): number {
  return store.tx(() => {
    const next = clockOffset(store) + ms;
    store.setMeta('clock_offset_ms', String(next));
    return next;
  });
}
