// The job engine as the bulk verbs see it: runJob over a JobSpec (src/bulk/job/), and the helpers
// their specs use. The engine's parts live in src/bulk/job/ (see run.ts).
export { runJob } from './job/run.js';
export {
  batchesAhead,
  chunks,
  countsText,
  eachItem,
  failedRow,
  perItem,
  ROWS_PER_BATCH,
  type ItemOutcome,
} from './job/items.js';
export type { BatchRecord, JobSpec, JobTools, PendingItem, SettleTools } from './job/types.js';
