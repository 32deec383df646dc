// The sandbox's storage, in parts (each file says more):
//   connection.ts  the connection and its statements (WAL, foreign keys, a busy timeout so that
//                  several processes can share the file; rows of one fixed shape)
//   turn.ts        transactions, and the turn: one read snapshot and one group commit per turn
//                  of the event loop among the requests served in it; memos; the checkpointer
//   text-index.ts  the text indexes' upkeep
//   clock.ts       the sandbox's clock
// Store puts them together with the schema and the meta table: what the rest of the sandbox uses.
import { advanceClock, clockOffset, sandboxNow } from './clock.js';
import { FTS_TABLES, INDEX_NAMES, INDEXES, SCHEMA, schemaStamp } from './schema.js';
import { createTextIndexes, keepTextIndexesMerged, textIndexesCurrent, tidyTextIndexes } from './text-index.js';
import { Turn } from './turn.js';

export { DamagedDatabase, foldText, type Row } from './connection.js';

export class Store extends Turn {
  /**
   * Create the tables, indexes and text indexes (idempotent). Call inside a transaction. A text
   * index added to a database that already has rows (made by an earlier version) is filled here.
   */
  createSchema(): void {
    this.db.exec(SCHEMA);
    this.db.exec(INDEXES);
    createTextIndexes(this);
  }

  /** True when every index and text index of this version exists (else `createSchema` adds them). */
  hasIndexes(): boolean {
    const names = [...INDEX_NAMES, ...FTS_TABLES];
    const n = this.get(
      `SELECT count(*) AS n FROM sqlite_master WHERE type IN ('index', 'table') AND name IN (${names.map(() => '?').join(',')})`,
      ...names,
    )!.n;
    return n === names.length && textIndexesCurrent(this);
  }

  /**
   * True when `ensureSeeded` found this database seeded, with this version's schema, and said so
   * in its header (`markSchemaCurrent`), and no one changed its schema since: two reads of the
   * header, no statement on sqlite_master.
   */
  schemaIsCurrent(): boolean {
    return this.stmt('PRAGMA user_version').get()!.user_version === schemaStamp(this.schemaCookie());
  }

  /**
   * Say in the header that the database is seeded and its schema this version's (schema.ts,
   * schemaStamp). Best effort: a database this process cannot write is checked again next time.
   */
  markSchemaCurrent(): void {
    try {
      // The cookie read in the transaction that writes the stamp: no schema change comes between.
      this.tx(() => this.db.exec(`PRAGMA user_version = ${schemaStamp(this.schemaCookie())}`));
    } catch {
      /* read-only or busy: checked again at the next open */
    }
  }

  /** SQLite's schema cookie: moved by every change to the schema, by any connection. */
  private schemaCookie(): number {
    return this.stmt('PRAGMA schema_version').get()!.schema_version as number;
  }

  /** One step of merging the text indexes (text-index.ts); true while there is more to merge. */
  tidyTextIndexes(pages = 128): boolean {
    return tidyTextIndexes(this, pages);
  }

  /**
   * Keep the text indexes merged while serving: a step now, and another `delayMs` after another
   * connection's commits stop (only those can add books or imports).
   */
  watchTextIndexes(delayMs = 500): void {
    this.onOtherCommit = keepTextIndexesMerged(this, delayMs);
    // From here on, a commit of another connection is one since now.
    this.resetDataVersion();
  }

  meta(key: string): string | undefined {
    return this.get('SELECT value FROM meta WHERE key = ?', key)?.value;
  }

  setMeta(key: string, value: string): void {
    this.run(
      'INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
      key,
      value,
    );
  }

  /** The sandbox's notion of now, in ms: real time plus the clock offset stored in the database. */
  now(): number {
    return sandboxNow(this);
  }

  clockOffset(): number {
    return clockOffset(this);
  }

  /** Move the clock forward by `ms`. Returns the new offset. */
  advanceClock(ms: number): number {
    return advanceClock(this, ms);
  }
}
