// Snapshots of a sandbox database (issue 30, item 4), made and loaded with SQLite's own online
// backup (node:sqlite `backup()`): a save copies a consistent state while the sandbox serves;
// a load copies a snapshot back in one write transaction of the live file, so every client of
// a running sandbox sees the old state or the new one, never a mix. Snapshots live beside the
// database, in `<db>.snapshots/<name>.db`, and belong to it (they hold its keys and secrets).
import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { makeDir } from '../db/make-dir.js';
import { basename, join } from 'node:path';
import { backup, DatabaseSync } from 'node:sqlite';
import type { Store } from '../db/store.js';
import { inlineBase } from '../db/overlay.js';
import { bad, HttpError, notFound } from '../errors.js';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** Pages copied per backup step: the whole file in one step, so a save never restarts. */
const ALL_PAGES = 1 << 30;
/** How long a load into a busy live file keeps trying: the store's own busy timeout (db/connection.ts). */
const BUSY_MS = 10_000;

export function snapshotDir(dbPath: string): string {
  return `${dbPath}.snapshots`;
}

export function snapshotPath(dbPath: string, name: string): string {
  if (!NAME.test(name))
    throw bad(
      `"${name.slice(0, 80)}" is not a snapshot name: letters, digits, ., _ and -, at most 64, starting with a letter or digit.`,
    );
  return join(snapshotDir(dbPath), `${name}.db`);
}

function needFile(store: Store): void {
  if (store.path === ':memory:') throw bad('Snapshots need a sandbox database file, not :memory:.');
}

/** Save the current state as `name` (replacing a snapshot of that name). */
export async function saveSnapshot(
  store: Store,
  name: string,
): Promise<{ name: string; bytes: number; pages: number }> {
  needFile(store);
  const path = snapshotPath(store.path, name);
  makeDir(snapshotDir(store.path));
  // A snapshot holds the database's keys and secrets: made private (0600) from the start, as a new
  // file of an unguessable name (O_EXCL: never through a link), renamed into place (a rename
  // replaces a link there, it does not write through it).
  const tmp = `${path}.${process.pid}-${randomBytes(8).toString('hex')}.tmp`;
  writeFileSync(tmp, '', { mode: 0o600, flag: 'wx' });
  try {
    const pages = await backup(store.db, tmp, { rate: ALL_PAGES });
    // A workspace's catalogue is partly in its base (db/overlay.ts): the snapshot holds all of it.
    if (store.shared) inlineBase(tmp, store.path);
    // A snapshot is one plain file (no WAL beside it).
    const db = new DatabaseSync(tmp);
    try {
      db.exec('PRAGMA journal_mode = DELETE');
    } finally {
      db.close();
    }
    renameSync(tmp, path);
    return { name, bytes: statSync(path).size, pages };
  } finally {
    rmSync(tmp, { force: true });
  }
}

/**
 * Load snapshot `name` into the database: one write transaction of the live file. `alone` (a
 * command on the file, never a server: its own connection would be left on the replaced file)
 * first tries the fast way, `replaceAlone`.
 */
export async function loadSnapshot(
  store: Store,
  name: string,
  { alone = false, busyMs = BUSY_MS } = {},
): Promise<{ name: string; pages: number }> {
  needFile(store);
  const path = snapshotPath(store.path, name);
  if (!existsSync(path)) throw notFound(`No snapshot "${name}" of this database (sandbox snapshot list shows them).`);
  if (alone) {
    const pages = replaceAlone(store, path);
    if (pages !== undefined) return { name, pages };
  }
  const source = new DatabaseSync(path, { readOnly: true });
  try {
    // The destination is the live file, written through a connection of the backup's own: the
    // copy is one transaction there, which every other connection sees whole or not at all.
    const pages = await backupWhenFree(source, store.path, busyMs);
    return { name, pages };
  } finally {
    source.close();
  }
}

/**
 * The online backup into a live file, tried again while another connection writes to it. The
 * backup's own connection has no busy handler: a write of the serving sandbox (a request, the
 * processing worker, the journal, the checkpointer) that holds the file's write lock fails the
 * step at once, and node:sqlite reports that as ERR_SQLITE_ERROR with errcode 0 ("not an error")
 * or SQLITE_BUSY/LOCKED. A failed step changed nothing (the copy is one transaction), so it is
 * tried again for as long as the store itself waits for a lock (its busy timeout), then answered
 * as busy (503: retry), never as an internal error.
 */
async function backupWhenFree(source: DatabaseSync, dest: string, busyMs: number): Promise<number> {
  const until = Date.now() + busyMs;
  for (let wait = 2; ; wait = Math.min(wait * 2, 50)) {
    try {
      return await backup(source, dest, { rate: ALL_PAGES });
    } catch (err) {
      if (!isBusy(err)) throw err;
      if (Date.now() >= until)
        throw new HttpError(
          503,
          'The sandbox database stayed busy for the whole load; nothing was changed. Retry.',
          {},
          { 'retry-after': '1' },
        );
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/** A backup step refused because another connection holds the lock (see backupWhenFree). */
function isBusy(err: unknown): boolean {
  const e = err as { code?: unknown; errcode?: number } | null;
  return e?.code === 'ERR_SQLITE_ERROR' && [0, 5, 6].includes((e.errcode ?? -1) & 0xff);
}

/**
 * When no other connection has the database open (no sandbox serves it, no command reads it):
 * replace the file by a copy of the snapshot (a plain file, consistent, no WAL beside it), renamed
 * into place while this connection holds the file's exclusive lock. The pages are written once,
 * by the kernel's copy, where a backup into the live file writes each one to the WAL and then
 * again into the file. Undefined (nothing done) when another connection is open: leaving WAL
 * mode needs every other connection gone, and the online backup then does the load. This
 * connection is left on the replaced file: the caller only closes it.
 */
function replaceAlone(store: Store, snapshot: string): number | undefined {
  let mode: string;
  try {
    mode = (store.db.prepare('PRAGMA journal_mode = DELETE').get() as { journal_mode: string }).journal_mode;
  } catch (err) {
    // SQLITE_BUSY / SQLITE_LOCKED: another connection holds the file.
    if ([5, 6].includes(((err as { errcode?: number }).errcode ?? 0) & 0xff)) return undefined;
    throw err;
  }
  if (mode !== 'delete') return undefined;
  const tmp = `${store.path}.${process.pid}.load.tmp`;
  store.db.exec('BEGIN EXCLUSIVE');
  try {
    copyFileSync(snapshot, tmp);
    chmodSync(tmp, 0o600); // the database holds keys and secrets
    renameSync(tmp, store.path);
  } finally {
    rmSync(tmp, { force: true });
    store.db.exec('ROLLBACK');
  }
  return statSync(store.path).size / (store.get<{ page_size: number }>('PRAGMA page_size')?.page_size ?? 4096);
}

export function listSnapshots(dbPath: string): Array<{ name: string; bytes: number; saved_at: string }> {
  const dir = snapshotDir(dbPath);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.db') && NAME.test(basename(f, '.db')))
    .map((f) => {
      const st = statSync(join(dir, f));
      return { name: basename(f, '.db'), bytes: st.size, saved_at: st.mtime.toISOString() };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

export function removeSnapshot(dbPath: string, name: string): { name: string; removed: boolean } {
  const path = snapshotPath(dbPath, name);
  if (!existsSync(path)) throw notFound(`No snapshot "${name}" of this database (sandbox snapshot list shows them).`);
  rmSync(path, { force: true });
  return { name, removed: true };
}

export interface TableDiff {
  table: string;
  added: number;
  removed: number;
  changed: number;
  /** Up to IDS_SHOWN row ids (rowid) of each. */
  added_ids: number[];
  removed_ids: number[];
  changed_ids: number[];
}

const IDS_SHOWN = 20;

/** Table by table, the rows B has that A has not, the rows A has that B has not, and the rows both have that differ (by rowid). */
export function diffSnapshots(
  dbPath: string,
  a: string,
  b: string | undefined,
): { a: string; b: string; tables: TableDiff[] } {
  const open = (name: string | undefined) => {
    if (name === undefined) return new DatabaseSync(dbPath, { readOnly: true });
    const p = snapshotPath(dbPath, name);
    if (!existsSync(p)) throw notFound(`No snapshot "${name}" of this database (sandbox snapshot list shows them).`);
    return new DatabaseSync(p, { readOnly: true });
  };
  const da = open(a);
  const db = open(b);
  try {
    const tables = (d: DatabaseSync) =>
      new Set(
        (
          d
            .prepare(
              "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT GLOB '*_fts' AND name NOT GLOB '*_fts_*'",
            )
            .all() as Array<{ name: string }>
        ).map((r) => r.name),
      );
    const names = [...new Set([...tables(da), ...tables(db)])].sort();
    const out: TableDiff[] = [];
    for (const t of names) {
      const rows = (d: DatabaseSync) => {
        const m = new Map<number, string>();
        try {
          for (const r of d.prepare(`SELECT rowid AS __rowid, * FROM "${t}"`).all() as Array<Record<string, unknown>>) {
            const { __rowid, ...rest } = r;
            m.set(
              Number(__rowid),
              JSON.stringify(rest, (_k, v) =>
                typeof v === 'bigint' ? String(v) : v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v,
              ),
            );
          }
        } catch {
          /* the table is not in this one */
        }
        return m;
      };
      const ra = rows(da);
      const rb = rows(db);
      const added: number[] = [];
      const removed: number[] = [];
      const changed: number[] = [];
      for (const [id, v] of rb) {
        const old = ra.get(id);
        if (old === undefined) added.push(id);
        else if (old !== v) changed.push(id);
      }
      for (const id of ra.keys()) if (!rb.has(id)) removed.push(id);
      if (added.length || removed.length || changed.length) {
        out.push({
          table: t,
          added: added.length,
          removed: removed.length,
          changed: changed.length,
          added_ids: added.slice(0, IDS_SHOWN),
          removed_ids: removed.slice(0, IDS_SHOWN),
          changed_ids: changed.slice(0, IDS_SHOWN),
        });
      }
    }
    return { a, b: b ?? '(the database now)', tables: out };
  } finally {
    da.close();
    db.close();
  }
}
