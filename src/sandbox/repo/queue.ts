// The SQL of the processing queue: the queue columns of `books`. The order of work (urgent first,
// then first queued; a held book waits) lives in ../domain/queue.ts.
import type { Store } from '../db/store.js';
import type { BookRow } from './books.js';

export function anyQueued(store: Store): boolean {
  return !!store.get('SELECT 1 FROM books WHERE is_queued = 1 AND queue_hold = 0 LIMIT 1');
}

/** The book being processed now, if any. */
export function inProcess(store: Store): BookRow | undefined {
  return store.get<BookRow>(
    'SELECT * FROM books WHERE is_queued = 1 AND queue_hold = 0 AND processing_started_at IS NOT NULL ORDER BY processing_started_at LIMIT 1',
  );
}

/** The first book in queue order. */
export function queueHead(store: Store): BookRow | undefined {
  return store.get<BookRow>(
    'SELECT * FROM books WHERE is_queued = 1 AND queue_hold = 0 ORDER BY queue_seq, id LIMIT 1',
  );
}

/** The id of the first book in queue order not started yet. */
export function nextWaiting(store: Store): number | undefined {
  return store.get<{ id: number }>(
    'SELECT id FROM books WHERE is_queued = 1 AND queue_hold = 0 AND processing_started_at IS NULL ORDER BY queue_seq, id LIMIT 1',
  )?.id;
}

export function startProcessing(store: Store, id: number, at: number): void {
  store.run('UPDATE books SET processing_started_at = ? WHERE id = ?', at, id);
}

export function finishProcessing(store: Store, id: number, at: number): void {
  store.run(
    'UPDATE books SET is_queued = 0, is_processed = 1, processed_at = ?, processing_started_at = NULL, queue_urgent = 0, queue_seq = NULL WHERE id = ?',
    at,
    id,
  );
}

/** Move a queued book that has not started to `position` (urgent: ahead of the rest). */
export function makeUrgent(store: Store, id: number, position: number): void {
  store.run(
    'UPDATE books SET queue_urgent = 1, queue_seq = ? WHERE id = ? AND processing_started_at IS NULL',
    position,
    id,
  );
}

export function enqueue(store: Store, id: number, now: number, urgent: boolean, position: number): void {
  store.run(
    'UPDATE books SET is_queued = 1, queued_at = ?, queue_urgent = ?, queue_seq = ?, queue_hold = 0, processing_started_at = NULL WHERE id = ?',
    now,
    urgent ? 1 : 0,
    position,
    id,
  );
}
