// Transactions and the turn. Every write goes through `tx` (BEGIN IMMEDIATE ... COMMIT); a served
// request's go through `serve`, which shares one read snapshot and one group commit per turn of
// the event loop among the requests of that turn. Values read from the database (`memo`) are
// kept while that snapshot stands. A connection that keeps committing hands its WAL checkpoints
// to a worker thread (checkpointer.ts).
import type { SQLInputValue } from 'node:sqlite';
import { Connection } from './connection.js';

/** Commits after which a connection checkpoints from a worker thread instead of in its commits. */
const BACKGROUND_CHECKPOINTS_AFTER = 100;

/** Memos kept at once (accounts by name, the clock...); beyond this they are all dropped. */
const MAX_MEMOS = 1000;

/** Requests in one group commit at most; the next one starts a new group. */
const MAX_GROUP = 200;

/** Connections of this process with a group commit open (see `Turn.serve`). */
const OPEN_GROUPS = new Set<Turn>();

export class Turn extends Connection {
  /** Transactions open on this connection (a `tx` inside a `tx` joins the outer one). */
  private depth = 0;
  /** True while the turn's read snapshot (`serve`) is open (no write has started in it). */
  private reading = false;
  /** Values derived from the database (`memo`), valid until it changes; see `serve`. */
  private readonly memos = new Map<string, { value: unknown; tables: readonly string[] }>();
  private dataVersion = -1;
  /**
   * Moves whenever a write transaction may see another state than reads made before it: a commit
   * of another connection seen (as a snapshot or a group begins), and every write transaction
   * begun outside a served turn (its reads had no snapshot). A handler that finds it unchanged
   * once its write began knows that what it read is what its transaction sees.
   */
  readEpoch = 0;
  private endScheduled = false;
  /** True while `serve` runs a request's work: its writes join the turn's group commit. */
  private serving = false;
  /** The turn's group commit, while its write transaction is open (see `serve`). */
  private group?: {
    waiting: Array<(err?: unknown) => void>;
    requests: number;
    before: Array<(failed?: unknown) => void>;
  };
  private commits = 0;
  private checkpointer?: { committed(): void; stop(): Promise<void> };
  /** Settles once the checkpointer's module is loaded and it started (or did not): awaited by tests. */
  private checkpointerStarted?: Promise<void>;
  /** Answers of this turn's requests that wrote nothing (`afterCommit`). */
  private answers: Array<(err?: unknown) => void> = [];
  /**
   * Set by the request journal (../journal/) while a request's handler runs: each write's table,
   * whether it inserted, the row id it inserted and the rows it changed.
   */
  onWrite?: { wrote(table: string | undefined, insert: boolean, id: number, changes: number): void };
  /** Called when another connection committed (see `checkDataVersion`); set by the text index's upkeep. */
  protected onOtherCommit?: () => void;

  run(sql: string, ...params: SQLInputValue[]): { changes: number; lastInsertRowid: number } {
    if (this.depth === 0) this.settleForWrite();
    const w = this.write(sql);
    if (this.memos.size) this.forget(w.table);
    if (w.copy !== undefined) w.copy.stmt.run(...params.slice(params.length - w.copy.params));
    const r = w.stmt.run(...params);
    const out = { changes: Number(r.changes), lastInsertRowid: Number(r.lastInsertRowid) };
    if (this.onWrite !== undefined) this.onWrite.wrote(w.table, w.insert, out.lastInsertRowid, out.changes);
    return out;
  }

  /**
   * Run `fn` in one write transaction (BEGIN IMMEDIATE); rolled back when it throws. `light`: a
   * small commit made on a timer (the request journal's rows of lookups, every FLUSH_MS), which
   * does not count towards handing checkpoints to a worker thread (BACKGROUND_CHECKPOINTS_AFTER).
   */
  tx<T>(fn: () => T, light = false): T {
    if (this.depth > 0) return fn();
    if (this.serving) return this.groupTx(fn);
    this.settleForWrite();
    this.readEpoch++;
    const out = this.bracket('BEGIN IMMEDIATE', 'COMMIT', 'ROLLBACK', fn);
    this.committed(light);
    return out;
  }

  /**
   * Run `fn`, which awaits between its writes (a catalogue read as a stream), in one write
   * transaction. Only for a connection that nothing else uses meanwhile (a command's own, or a
   * second connection of a server): a request served on this connection during an await would
   * write into this transaction.
   */
  async txAsync<T>(fn: () => Promise<T>): Promise<T> {
    if (this.depth > 0 || this.serving || this.group)
      throw new Error('txAsync: this connection is already in a transaction');
    this.settleForWrite();
    this.stmt('BEGIN IMMEDIATE').run();
    this.depth++;
    try {
      const out = await fn();
      this.stmt('COMMIT').run();
      this.committed();
      return out;
    } catch (err) {
      this.memos.clear();
      try {
        this.db.exec('ROLLBACK');
      } catch {
        /* already rolled back */
      }
      throw err;
    } finally {
      this.depth--;
    }
  }

  /** `fn` between the statements `begin` and `end`; when it throws, `undo` (if it can) and rethrow. */
  private bracket<T>(begin: string, end: string, undo: string, fn: () => T): T {
    this.stmt(begin).run();
    this.depth++;
    try {
      const out = fn();
      this.stmt(end).run();
      return out;
    } catch (err) {
      // A memo made from what is now undone would outlive it.
      this.memos.clear();
      try {
        this.db.exec(undo);
      } catch {
        /* already rolled back (SQLite does so on some errors; a group's commit then says so) */
      }
      throw err;
    } finally {
      this.depth--;
    }
  }

  /**
   * One request's work (`fn`, synchronous).
   *
   * Its reads use the turn's read snapshot (one read transaction, opened here if none is open),
   * shared by every request served in the same turn of the event loop and ended (COMMIT) when the
   * turn is over (`setImmediate`): each autocommit statement would take and drop the WAL read lock
   * on its own (two `fcntl` calls, most of the system time of a signed GET). A snapshot never
   * outlives the turn, so a commit by another connection is seen by the next turn's requests, as
   * it would be had they arrived a moment later.
   *
   * Its writes (`tx`) join the turn's **group commit**: the first write of a turn ends the
   * snapshot and opens one write transaction, each request's writes are a savepoint in it (rolled
   * back alone when they fail), and one COMMIT at the end of the turn makes them all durable.
   * Sixteen clients creating orders put about fifteen requests in a turn: fifteen commits (each
   * writing the same pages to the WAL) become one. Answer the request from `afterCommit`, never
   * before: an answer is sent only once what it says is committed (a `kill -9` loses nothing
   * acknowledged).
   */
  serve<T>(fn: () => T): T {
    if (this.depth === 0 && !this.reading && !this.group) this.beginRead();
    this.serving = true;
    try {
      return fn();
    } finally {
      this.serving = false;
    }
  }

  /**
   * Call `cb` (the request's answer) once the turn's group commit is done (`err` when it failed),
   * or, for a request that wrote nothing, when the turn ends. The answers of a turn go out
   * together: a client woken by the first is still awake for the rest, where answers written one
   * by one between requests wake it (and the core it sleeps on) once each, which costs the
   * server CPU on every request when many clients are busy (bench/sandbox-throughput.mjs). An
   * answer waits at most for the rest of its turn's requests.
   */
  afterCommit(cb: (err?: unknown) => void): void {
    if (this.group) return void this.group.waiting.push(cb);
    this.answers.push(cb);
    if (this.answers.length === 1) setImmediate(this.sendAnswers);
  }

  private readonly sendAnswers = (): void => {
    const answers = this.answers;
    this.answers = [];
    for (const cb of answers) cb();
  };

  /** A request's `tx` inside `serve`: a savepoint in the turn's group transaction. */
  private groupTx<T>(fn: () => T): T {
    if (!this.group) {
      this.settleForWrite();
      this.stmt('BEGIN IMMEDIATE').run();
      // Between the snapshot's end and this lock another process may have committed.
      this.checkDataVersion();
      this.group = { waiting: [], requests: 0, before: [] };
      OPEN_GROUPS.add(this);
      setImmediate(() => this.commitGroup());
    }
    try {
      return this.bracket('SAVEPOINT request', 'RELEASE request', 'ROLLBACK TO request; RELEASE request', fn);
    } finally {
      // A turn that serves very many writers commits early, so no answer waits behind too many.
      if (this.group && ++this.group.requests >= MAX_GROUP) this.commitGroup();
    }
  }

  /** Commit the turn's group (if one is open) and answer the requests waiting for it. */
  commitGroup(): void {
    const g = this.group;
    if (!g) return;
    this.group = undefined;
    OPEN_GROUPS.delete(this);
    let failed: unknown;
    try {
      if (!this.db.isOpen) throw new Error('The sandbox database was closed before its writes were committed.');
      if (this.db.isTransaction) {
        if (g.before.length) this.beforeCommit(g.before);
        this.stmt('COMMIT').run();
      } else throw new Error('The sandbox database rolled back the transaction of these writes.');
      this.committed();
    } catch (err) {
      failed = err;
      try {
        if (this.db.isOpen && this.db.isTransaction) this.db.exec('ROLLBACK');
      } catch {
        /* already rolled back */
      }
      this.memos.clear();
      // What ran before the COMMIT is undone: each is told.
      for (const fn of g.before) fn(failed);
    }
    for (const cb of g.waiting) cb(failed);
  }

  /**
   * Run `fn` as the turn's group commit ends, in its transaction, just before its COMMIT: the
   * request journal writes the rows of the group's requests there, all in one go rather than a
   * savepoint each. When `fn` throws, the group fails as a whole (rolled back, every request
   * answered with the error); whenever the group fails before its COMMIT is done, `fn(err)` is
   * called after the rollback (whether `fn()` ran or not). False (nothing done) when no group is
   * open.
   */
  atGroupCommit(fn: (failed?: unknown) => void): boolean {
    if (!this.group) return false;
    this.group.before.push(fn);
    return true;
  }

  /** The `atGroupCommit` work of a group, inside its transaction (a write there joins it, as in `tx`). */
  private beforeCommit(fns: Array<(failed?: unknown) => void>): void {
    this.depth++;
    try {
      for (const fn of fns) fn();
    } finally {
      this.depth--;
    }
  }

  /**
   * Before a write outside `serve` (the worker, a control route, another command in this
   * process): commit the group of this connection and of any other connection of this process to
   * the same file (it holds the write lock until the end of the turn: waiting for it here would
   * block the very loop that ends it), and end the read snapshot.
   */
  private settleForWrite(): void {
    if (this.group && !this.serving) this.commitGroup();
    commitOtherGroups(this);
    if (this.reading) this.endRead();
  }

  private committed(light = false): void {
    if (this.checkpointer) this.checkpointer.committed();
    else if (!light && ++this.commits === BACKGROUND_CHECKPOINTS_AFTER) this.startCheckpointer();
  }

  private beginRead(): void {
    this.stmt('BEGIN DEFERRED').run();
    this.reading = true;
    this.checkDataVersion();
    if (!this.endScheduled) {
      this.endScheduled = true;
      setImmediate(() => {
        this.endScheduled = false;
        if (this.reading && this.db.isOpen) this.endRead();
      });
    }
  }

  /**
   * `compute()` (a value read from `tables`) once per state of those tables: inside a request
   * (`serve`) a value made earlier is reused until a write of this connection to one of
   * the tables (any write that `run` cannot name the table of, any undone write, and `exec`
   * drop every memo) or a commit of another connection (`PRAGMA data_version`, checked as each
   * snapshot begins). Outside a request it is computed afresh. For small, hot values every
   * request needs: the caller's account, the clock, the publishers.
   */
  memo<T, A = undefined>(key: string, tables: readonly string[], compute: (arg: A) => T, arg?: A): T {
    if (!this.reading && !this.group) return compute(arg as A);
    const kept = this.memos.get(key);
    if (kept) return kept.value as T;
    const value = compute(arg as A);
    if (this.memos.size >= MAX_MEMOS) this.memos.clear();
    this.memos.set(key, { value, tables });
    return value;
  }

  /** Drop the memos read from `table` (every memo when it is not known). */
  private forget(table: string | undefined): void {
    if (table === undefined) return this.memos.clear();
    for (const [key, m] of this.memos) if (m.tables.includes(table)) this.memos.delete(key);
  }

  /**
   * Another connection (a second server on this file, a `--db` command) committed since the
   * memos were made: they may be stale. Read inside a transaction, so it is that snapshot's.
   */
  private checkDataVersion(): void {
    const version = this.stmt('PRAGMA data_version').get()!.data_version as number;
    if (version !== this.dataVersion) {
      this.memos.clear();
      this.readEpoch++;
      if (this.dataVersion !== -1) this.onOtherCommit?.();
      this.dataVersion = version;
    }
  }

  /**
   * Count commits of other connections from now on: drop the memos and take today's data
   * version as the start (the first snapshot would otherwise take what it finds as the start).
   * Outside any transaction only.
   */
  protected resetDataVersion(): void {
    if (this.depth === 0 && !this.reading && !this.group) {
      this.memos.clear();
      this.dataVersion = this.stmt('PRAGMA data_version').get()!.data_version as number;
    }
  }

  private endRead(): void {
    this.reading = false;
    this.stmt('COMMIT').run();
  }

  /**
   * A connection that keeps writing (a serving sandbox, not a one-shot command) moves WAL
   * checkpoints to a worker thread (checkpointer.ts), loaded only then.
   */
  private startCheckpointer(): void {
    if (this.path === ':memory:') return;
    this.checkpointerStarted = import('./checkpointer.js')
      .then(({ Checkpointer }) => {
        if (this.db.isOpen && !this.checkpointer) this.checkpointer = new Checkpointer(this.db, this.path);
      })
      .catch(() => {
        /* automatic checkpoints stay on */
      });
  }

  /** Run SQL that is not a query (a PRAGMA), outside any read snapshot. */
  exec(sql: string): void {
    this.settleForWrite();
    this.memos.clear();
    this.db.exec(sql);
  }

  /**
   * Closes the connection now: the turn's group committed and its answers sent first. The
   * promise resolves when the background checkpointer's thread (if one started) has closed its
   * own connection too: after it, nothing of this connection writes.
   */
  close(): Promise<void> {
    this.commitGroup();
    this.sendAnswers();
    this.onOtherCommit = undefined;
    if (this.reading && this.db.isOpen) this.endRead();
    // This connection closes first, and the checkpointer's worker closes its own only after: the
    // last connection to close removes the WAL, and two closing at once (the worker's thread and
    // this one) can each see the other still open and both leave it (ci-43c: the WAL was still
    // there when close() resolved).
    this.closeConnection();
    return this.checkpointer?.stop() ?? Promise.resolve();
  }
}

/** Commit the open groups of this process's other connections to `turn`'s file. */
function commitOtherGroups(turn: Turn): void {
  for (const other of OPEN_GROUPS) if (other !== turn && other.path === turn.path) other.commitGroup();
}
