// A bulk load's index work on books, deferred to its end: the text index written in a few
// statements instead of a trigger run per book, and the secondary indexes made again in one
// sorted pass once a load adds many books. Used by ../catalogue/load.ts inside its transaction.
import type { Store } from '../db/store.js';

/** A bulk load's text-index work, done in a few statements instead of one trigger run per book. */
export interface DeferredTextIndex {
  /** A book that was there before the load is about to get this new title or author: its old ones. */
  changing(id: number, oldTitle: string, oldAuthor: string): void;
  /** Index what the load added and changed, and put the triggers back. */
  finish(): void;
}

/** Books whose old index entries are replaced in one statement. */
const CHANGED_BATCH = 5000;
/** Renames held until the load ends (when it is known whether a rebuild is cheaper); past this many, they are written as the load goes. */
const HOLD = 50_000;

/**
 * Index the books a bulk load adds or renames in a few statements instead of one trigger run
 * per book: FTS5 writes a trigger's row at the end of each statement, which made the text index
 * most of a load's SQLite time; one INSERT ... SELECT writes them all at once.
 * Inside the load's transaction the insert and update triggers are dropped; `finish` indexes the
 * books added (ids past the last one before the load) and makes the triggers again, and a
 * rollback brings them back by itself. A book that was there before gets its new title or author
 * through `changing` (its old entry must be deleted with the old text, which the caller read).
 * Renames are held until `finish`: once a load has renamed a third of the books that were there,
 * it rebuilds the whole index from the books instead, as a rename (delete the old entry, index
 * the new text) costs FTS5 about two and a half times what indexing a book afresh does (a
 * re-sent feed of 90,000 renamed books spent 1.1 s of 8 s on renames; a rebuild takes 0.4 s).
 * `limits` are for tests.
 */
export function deferTextIndex(store: Store, limits: { batch?: number; hold?: number } = {}): DeferredTextIndex {
  const batch = limits.batch ?? CHANGED_BATCH;
  const hold = limits.hold ?? HOLD;
  const trigger = (name: string) =>
    store.get<{ sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?", name)?.sql;
  const triggers = [trigger('books_fts_insert'), trigger('books_fts_update')];
  const after = store.get<{ m: number }>('SELECT coalesce(max(id), 0) AS m FROM books')!.m;
  const rebuildAt = Math.max(batch, Math.ceil(store.get<{ n: number }>('SELECT count(*) AS n FROM books')!.n / 3));
  const on = triggers.every(Boolean);
  if (on) store.exec('DROP TRIGGER books_fts_insert; DROP TRIGGER books_fts_update');
  let changed: Array<[number, string, string]> = [];
  let renamed = 0;
  /** Replace the held renames' entries (their books have their new text by now). */
  const reindex = () => {
    for (let i = 0; i < changed.length; i += batch) {
      const json = JSON.stringify(changed.slice(i, i + batch));
      store.run(
        "INSERT INTO books_fts(books_fts, rowid, title, author) SELECT 'delete', value ->> 0, value ->> 1, value ->> 2 FROM json_each(?)",
        json,
      );
      store.run(
        'INSERT INTO books_fts(rowid, title, author) SELECT id, title, author FROM books WHERE id IN (SELECT value ->> 0 FROM json_each(?))',
        json,
      );
    }
    changed = [];
  };
  return {
    changing(id, oldTitle, oldAuthor) {
      if (!on || id > after || ++renamed > rebuildAt) return;
      if (renamed === rebuildAt) {
        // The whole index is rebuilt at the end: what is held is not needed.
        changed = [];
        return;
      }
      if (changed.length >= hold) reindex();
      changed.push([id, oldTitle, oldAuthor]);
    },
    finish() {
      if (!on) return;
      if (renamed >= rebuildAt) store.run("INSERT INTO books_fts(books_fts) VALUES ('rebuild')");
      else {
        reindex();
        store.run(
          'INSERT INTO books_fts(rowid, title, author) SELECT id, title, author FROM books WHERE id > ?',
          after,
        );
      }
      for (const sql of triggers) store.exec(sql!);
    },
  };
}

/** A bulk load's secondary indexes of `books`, made again in one sorted pass once it has added many books. */
export interface DeferredBookIndexes {
  /** A book was added: past a threshold, the indexes are dropped until `finish`. */
  added(): void;
  /** Make the dropped indexes again (before COMMIT). */
  finish(): void;
}

/** Books a load adds before its indexes are dropped: at least this many, and more than the table had. */
const DEFER_INDEXES_AFTER = 10_000;
/** The index the loader reads at every record (a book found again by its own ISBN): never dropped. */
const LOADER_READS = 'books_by_eisbn13';

/**
 * Inserting many books updates each secondary index of `books` at a random place, page by page;
 * building an index afresh sorts the keys once, which is far cheaper. Once a load has added more
 * books than the table had (and at least DEFER_INDEXES_AFTER), the secondary indexes are dropped
 * inside its transaction and made again by `finish`, from their own definitions in the schema
 * (sqlite_master keeps the CREATE INDEX statement of db/schema.ts's INDEXES). DDL is
 * transactional: readers of the WAL keep their snapshot, and a rollback brings the indexes back.
 * The UNIQUE constraints' indexes stay (they check every insert), and so does the one the loader
 * looks books up by.
 */
export function deferBookIndexes(store: Store): DeferredBookIndexes {
  const before = store.get<{ n: number }>('SELECT count(*) AS n FROM books')!.n;
  const threshold = Math.max(DEFER_INDEXES_AFTER, before + 1);
  let added = 0;
  let dropped: string[] = [];
  return {
    added() {
      if (++added !== threshold) return;
      const indexes = store.all<{ name: string; sql: string }>(
        "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'books' AND sql IS NOT NULL AND name <> ?",
        LOADER_READS,
      );
      for (const { name } of indexes) store.exec(`DROP INDEX ${name}`);
      dropped = indexes.map((i) => i.sql);
    },
    finish() {
      for (const sql of dropped) store.exec(sql);
      dropped = [];
    },
  };
}
