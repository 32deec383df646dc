// WAL checkpoints off the event loop. SQLite's automatic checkpoint runs inside the COMMIT that
// crosses 1,000 WAL pages: that commit copies the pages into the database file and fsyncs it
// while every other request waits (about half of a commit's cost under sustained writes). A
// server that keeps writing hands that work to a worker thread with a connection of its own:
// a PASSIVE checkpoint there runs alongside the server's reads and writes and never blocks them.
// If the worker cannot run, the connection goes back to automatic checkpoints.
import { Worker } from 'node:worker_threads';
import type { DatabaseSync } from 'node:sqlite';

// The worker opens its connection at the first checkpoint, not when it starts: a worker still
// starting when the server closes must not open (and so create) the database file after the
// server's own connection is gone and its directory may be being removed. It says 'checkpointed'
// after each checkpoint (its connection open): a test waits for that instead of for a time.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { DatabaseSync } = require('node:sqlite');
let db;
parentPort.on('message', (m) => {
  if (m === 'close') {
    try { db?.close(); } catch {}
    parentPort.close();
    return;
  }
  try {
    db ??= new DatabaseSync(workerData.path, { timeout: 1000 });
    db.exec('PRAGMA wal_checkpoint(PASSIVE)');
    parentPort.postMessage('checkpointed');
  } catch {}
});
`;

/** Default number of WAL pages SQLite checkpoints at (PRAGMA wal_autocheckpoint). */
const AUTO_PAGES = 1000;
/** How often the worker is asked to checkpoint while commits keep coming. */
const INTERVAL_MS = 250;

export class Checkpointer {
  private readonly worker: Worker;
  private readonly timer: NodeJS.Timeout;
  private dirty = false;
  private stopped = false;
  /** Resolves once the worker has ended (its connection closed): nothing of it touches the files after. */
  private readonly ended: Promise<void>;

  constructor(
    private readonly db: DatabaseSync,
    path: string,
  ) {
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path } });
    this.worker.unref();
    const fallBack = () => void this.stop();
    this.worker.once('error', fallBack);
    this.ended = new Promise((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.once('exit', fallBack);
    this.db.exec('PRAGMA wal_autocheckpoint = 0');
    this.timer = setInterval(() => {
      if (!this.dirty) return;
      this.dirty = false;
      this.worker.postMessage('checkpoint');
    }, INTERVAL_MS);
    this.timer.unref();
  }

  /** A transaction committed: checkpoint at the next tick of the timer. */
  committed(): void {
    this.dirty = true;
  }

  /**
   * Back to SQLite's automatic checkpoints; the worker closes its connection and ends. The
   * promise resolves when it has ended: a server's close() waits for it, so that nothing writes
   * in the database's directory after close() (a test removes that directory next).
   */
  stop(): Promise<void> {
    if (this.stopped) return this.ended;
    this.stopped = true;
    clearInterval(this.timer);
    // The process waits for the worker to end: a caller awaiting `ended` with nothing else alive
    // (a long bulk job's last close) would otherwise see the event loop run dry and Node end the
    // process mid-await (exit 13, an unsettled top-level await) after the job's summary.
    this.worker.ref();
    try {
      if (this.db.isOpen) this.db.exec(`PRAGMA wal_autocheckpoint = ${AUTO_PAGES}`);
    } catch {
      /* closing */
    }
    try {
      this.worker.postMessage('close');
    } catch {
      /* already gone */
    }
    return this.ended;
  }
}
