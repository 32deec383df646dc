// WAL checkpoints off the event loop. SQLite's automatic checkpoint runs inside the COMMIT that
// crosses 1,000 WAL pages: that commit copies the pages into the database file and fsyncs it
// while every other request waits (about half of a commit's cost under sustained writes). A
// server that keeps writing hands that work to a worker thread with a connection of its own:
// a PASSIVE checkpoint there runs alongside the server's reads and writes and never blocks them.
// If the worker cannot run, the connection goes back to automatic checkpoints.
//
// A PASSIVE checkpoint alone never bounds the WAL under steady writes: SQLite writes the WAL from
// its start again only when a write begins after a checkpoint copied every frame, and each
// checkpoint ends with the frames of the commits made while it ran still to copy (the order row of
// bench/sandbox-throughput.mjs grew the WAL by ~130 MB/s, to over a GB in 9 s, and the file kept
// its peak size). So once the WAL holds more than WAL_BOUND_BYTES, the server's own connection
// finishes the copy right after one of its commits, between requests: a RESTART checkpoint, which
// copies only what came after the worker's (a moment's pages) and leaves nothing for the next
// write, which starts the WAL over; journal_size_limit then cuts the file back. In the order row
// (BENCH_SECONDS=10, load 10-15, nproc 2) the WAL file peaked at 694-1,237 MB before and kept
// it; with this it stays at 64 MB (67-94 MB at its sampled peaks), for about one such checkpoint
// a second on the event loop: 16-19 ms median (two fsyncs), 2-3 ms of CPU. CPU per order held:
// 77 and 76 µs at 16 and 50 connections (5 runs) against 76 and 78 before (6 runs).
import { Worker } from 'node:worker_threads';
import type { DatabaseSync } from 'node:sqlite';

// The worker opens its connection at the first checkpoint, not when it starts: a worker still
// starting when the server closes must not open (and so create) the database file after the
// server's own connection is gone and its directory may be being removed. It answers each
// request with the number of frames in the WAL (its connection then open): the server asks for
// the next checkpoint only after that answer, and a test waits for it instead of for a time.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { DatabaseSync } = require('node:sqlite');
let db, passive;
parentPort.on('message', (m) => {
  if (m === 'close') {
    try { db?.close(); } catch {}
    parentPort.close();
    return;
  }
  let frames = -1;
  try {
    db ??= new DatabaseSync(workerData.path, { timeout: 1000 });
    passive ??= db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
    frames = passive.get().log;
    // Past the bound, a second pass copies (and syncs) what came while the first ran: the
    // server's connection, which finishes the copy, is left a moment's pages, not the first's.
    if (frames > workerData.boundFrames) frames = passive.get().log;
  } catch {}
  // The frames in the WAL (-1: no checkpoint): past the bound, the server finishes the copy.
  parentPort.postMessage(frames);
});
`;

/** Default number of WAL pages SQLite checkpoints at (PRAGMA wal_autocheckpoint). */
const AUTO_PAGES = 1000;
/** How often the worker is asked to checkpoint while commits keep coming. */
const INTERVAL_MS = 250;
/**
 * The WAL past which the server's connection finishes a checkpoint itself (see the top): a few
 * tens of MB, so that the copy it is left with is a moment's pages, not the worker's whole share.
 */
export const WAL_BOUND_BYTES = 32 * 1024 * 1024;
/**
 * PRAGMA journal_size_limit: a WAL file started over is cut back to this size. Twice the bound:
 * the WAL runs past the bound by what comes until the worker's next report (up to ~32 MB a 250 ms
 * tick in the order row), and a file cut back below that would be extended again at every restart.
 */
export const WAL_KEPT_BYTES = 2 * WAL_BOUND_BYTES;

export class Checkpointer {
  private readonly worker: Worker;
  private readonly timer: NodeJS.Timeout;
  private dirty = false;
  /**
   * A checkpoint asked of the worker and not answered yet: no second one queues behind it, so the
   * worker is idle when its answer has the server's connection finish a checkpoint (`restart`),
   * which would find the checkpoint lock taken by a worker still busy with queued requests.
   */
  private asking = false;
  private stopped = false;
  /** The WAL frames past which the next commit finishes a checkpoint (WAL_BOUND_BYTES in pages). */
  private readonly boundFrames: number;
  /** The busy timeout of the server's connection, set back after its own checkpoint. */
  private readonly busyTimeout: number;
  /** The worker found the WAL past its bound: the next commit finishes a checkpoint (`restart`). */
  private restartDue = false;
  private restartQueued = false;
  /** Resolves once the worker has ended (its connection closed): nothing of it touches the files after. */
  private readonly ended: Promise<void>;

  constructor(
    private readonly db: DatabaseSync,
    path: string,
  ) {
    const pageSize = (this.db.prepare('PRAGMA page_size').get() as { page_size: number }).page_size;
    this.boundFrames = Math.ceil(WAL_BOUND_BYTES / pageSize);
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path, boundFrames: this.boundFrames } });
    // Before unref(): a 'message' listener added after it would hold the process open again.
    this.worker.on('message', (frames: number) => {
      this.asking = false;
      if (frames > this.boundFrames) this.restartDue = true;
    });
    this.worker.unref();
    const fallBack = () => void this.stop();
    this.worker.once('error', fallBack);
    this.ended = new Promise((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.once('exit', fallBack);
    this.db.exec('PRAGMA wal_autocheckpoint = 0');
    this.db.exec(`PRAGMA journal_size_limit = ${WAL_KEPT_BYTES}`);
    this.busyTimeout = (this.db.prepare('PRAGMA busy_timeout').get() as { timeout: number }).timeout;
    this.timer = setInterval(() => {
      if (!this.dirty || this.asking) return;
      this.dirty = false;
      this.asking = true;
      this.worker.postMessage('checkpoint');
    }, INTERVAL_MS);
    this.timer.unref();
  }

  /**
   * A transaction committed: checkpoint at the next tick of the timer, and past the bound finish
   * one now, once the code that committed has returned (a group's answers sent, its turn over).
   */
  committed(): void {
    this.dirty = true;
    if (this.restartDue && !this.restartQueued) {
      this.restartQueued = true;
      queueMicrotask(this.restart);
    }
  }

  /**
   * Copy what the worker's checkpoint left and have the next write start the WAL over (RESTART):
   * a moment's pages and two fsyncs on the event loop, once per WAL_BOUND_BYTES of writes. Never
   * waits: busy (another process writing or checkpointing, a reader still in the WAL) is given
   * up, and the worker's next checkpoint past the bound asks again. Not inside a transaction (a
   * group or snapshot opened since the commit): the next commit tries.
   */
  private readonly restart = (): void => {
    this.restartQueued = false;
    if (this.stopped || !this.db.isOpen || this.db.isTransaction) return;
    this.restartDue = false;
    try {
      this.db.exec('PRAGMA busy_timeout = 0');
      this.db.prepare('PRAGMA wal_checkpoint(RESTART)').get();
    } catch {
      /* given up: the worker's checkpoints go on */
    } finally {
      try {
        this.db.exec(`PRAGMA busy_timeout = ${this.busyTimeout}`);
      } catch {
        /* closing */
      }
    }
  };

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
