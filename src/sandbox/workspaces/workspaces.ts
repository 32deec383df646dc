// Workspaces (issue 30, item 5): isolated databases, each served by a server of its own on its own
// port, so that parallel CI jobs on one running sandbox never see each other's orders. A workspace
// lives in `<db>.workspaces/<name>.db` (directory 0700, files 0600) and gets credentials of its
// own (seed.ts renewSecrets): a request signed with another workspace's or the main sandbox's
// keys is refused there.
//
// One made from a snapshot shares the snapshot's catalogue (books, prices, publishers, imports) read-only
// with every other workspace of that snapshot (db/overlay.ts): the snapshot file is linked once
// into `<db>.workspaces/.bases/` (a hard link: no copy, and it stays as it was when the snapshot
// is saved again or removed), and the workspace's own file gets only the rest of the snapshot's
// rows (copied once per base into a template beside it, which each new workspace copies). One
// made from the seed is a fresh seed (its catalogue is small).
import {
  chmodSync,
  copyFileSync,
  existsSync,
  linkSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { makeDir } from '../db/make-dir.js';
import { basename, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { BASE_KEY, readOnlyUri, SHARED_TABLES } from '../db/overlay.js';
import { Store } from '../db/store.js';
import { HttpError, notFound } from '../errors.js';
import type { GeneratedSecrets } from '../seed.js';
import type { SandboxCredentials } from '../control.js';
import { filesOf, NAME, snapshotFile, workspaceDir, workspacePath } from './paths.js';

/** The shared catalogues (bases) of the workspaces made from snapshots, in the workspaces' directory. */
const BASES = '.bases';

/** Where a workspace came from and when, as its own database records it. */
function origin(path: string): { created: string; from: string | null } {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const get = (k: string) =>
      (db.prepare('SELECT value FROM meta WHERE key = ?').get(k) as { value: string } | undefined)?.value;
    return { created: get('workspace_created') ?? '', from: get('workspace_from') ?? null };
  } finally {
    db.close();
  }
}

/** Make the database file of a new workspace: a copy of snapshot `from`, or a fresh seed; its own credentials either way. */
async function makeWorkspaceFile(
  dbPath: string,
  name: string,
  from: string | undefined,
  keys: () => Promise<GeneratedSecrets>,
): Promise<void> {
  const path = workspacePath(dbPath, name);
  if (existsSync(path))
    throw new HttpError(
      409,
      `Workspace "${name}" already exists (sandbox workspace list shows them; rm it first to make it again).`,
    );
  const source = from === undefined ? undefined : await snapshotFile(dbPath, from);
  const dir = workspaceDir(dbPath);
  makeDir(dir);
  chmodSync(dir, 0o700);
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, '', { mode: 0o600 });
    const { ensureSeeded, renewSecrets } = await import('../seed.js');
    // A copy of a snapshot gets new keys, made on the thread pool while its rows are copied.
    const secrets = source ? keys() : undefined;
    secrets?.catch(() => undefined); // awaited below; a copy that throws first must not leave it unhandled
    if (source) copyFileSync(workspaceTemplate(dir, source, from!), tmp);
    const store = new Store(tmp);
    try {
      // A fresh seed makes its own keys.
      if (!ensureSeeded(store)) renewSecrets(store, await secrets);
      store.setMeta('workspace_created', new Date().toISOString());
      if (from !== undefined) store.setMeta('workspace_from', from);
    } finally {
      await store.close();
    }
    // One plain file (no WAL beside it) before it takes its name.
    const db = new DatabaseSync(tmp);
    try {
      db.exec('PRAGMA journal_mode = DELETE');
    } finally {
      db.close();
    }
    chmodSync(tmp, 0o600);
    renameSync(tmp, path);
  } finally {
    for (const f of filesOf(tmp)) rmSync(f, { force: true });
  }
}

/**
 * The base of workspaces made from snapshot `from` (its file `source`): the snapshot's file linked
 * into the bases' directory (copied where a link cannot be made), once per version of the file.
 * Its path relative to the workspaces' directory.
 */
function shareBase(dir: string, source: string, from: string): string {
  const bases = join(dir, BASES);
  makeDir(bases);
  chmodSync(bases, 0o700);
  // A workspace's snapshot (`WORKSPACE/NAME`) is `WORKSPACE@NAME` here: @ is in neither kind of name.
  const name = `${from.replace('/', '@')}-${statSync(source).ino}.db`;
  const base = join(bases, name);
  if (!existsSync(base)) {
    try {
      linkSync(source, base);
    } catch {
      const tmp = `${base}.${process.pid}.tmp`;
      try {
        copyFileSync(source, tmp);
        renameSync(tmp, base);
      } finally {
        rmSync(tmp, { force: true });
      }
    }
  }
  return `${BASES}/${name}`;
}

/**
 * Fill the new file `target` with snapshot `source`'s schema and rows, but of the shared tables only
 * the last row (so that new rows get ids after the base's), and name the base (`rel`). The
 * journal of the snapshot is left out: a workspace's journal holds its own requests. Text indexes
 * are built again from the rows copied.
 */
function copySharing(source: string, target: string, rel: string): void {
  const db = new DatabaseSync(target);
  try {
    db.exec('PRAGMA page_size = 8192; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA foreign_keys = OFF');
    db.exec(`ATTACH ${readOnlyUri(source)} AS src`);
    const all = db
      .prepare("SELECT type, name, sql FROM src.sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'")
      .all() as Array<{ type: string; name: string; sql: string }>;
    const virtual = all.filter((e) => e.type === 'table' && /^CREATE VIRTUAL TABLE/i.test(e.sql)).map((e) => e.name);
    const shadow = (n: string) => virtual.some((v) => n.startsWith(`${v}_`));
    const q = (n: string) => `"${n.replace(/"/g, '""')}"`;
    db.exec('BEGIN');
    for (const t of all.filter((e) => e.type === 'table' && !virtual.includes(e.name) && !shadow(e.name))) {
      db.exec(t.sql);
      if (t.name === 'journal' || t.name === 'journal_bodies') continue;
      const last = SHARED_TABLES.includes(t.name) ? ` WHERE id = (SELECT max(id) FROM src.${q(t.name)})` : '';
      db.exec(`INSERT INTO main.${q(t.name)} SELECT * FROM src.${q(t.name)}${last}`);
    }
    for (const e of all.filter((x) => x.type === 'index' || x.type === 'view')) db.exec(e.sql);
    for (const e of all.filter((x) => virtual.includes(x.name))) {
      db.exec(e.sql);
      db.exec(`INSERT INTO ${q(e.name)}(${q(e.name)}) VALUES ('rebuild')`);
    }
    for (const e of all.filter((x) => x.type === 'trigger')) db.exec(e.sql);
    db.prepare('INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)').run(BASE_KEY, rel);
    db.exec('COMMIT');
    db.exec('DETACH src');
  } finally {
    db.close();
  }
}

/** The rows of a new workspace of a base (`copySharing`), made once per base, beside it. */
const TEMPLATE = '.template';

/**
 * The file a new workspace of snapshot `from` starts as: its base shared (`shareBase`), the rest
 * of the snapshot's rows copied (`copySharing`) once, into a template kept beside the base, which
 * each new workspace of that base copies (a few MB: the catalogue stays in the base).
 */
function workspaceTemplate(dir: string, source: string, from: string): string {
  const rel = shareBase(dir, source, from);
  const template = join(dir, `${rel}${TEMPLATE}`);
  if (!existsSync(template)) {
    const tmp = `${template}.${process.pid}.tmp`;
    try {
      writeFileSync(tmp, '', { mode: 0o600 });
      copySharing(source, tmp, rel);
      renameSync(tmp, template);
    } finally {
      rmSync(tmp, { force: true });
    }
  }
  return template;
}

/** The base a workspace file names (relative to the workspaces' directory), if any. */
function baseOf(path: string): string | undefined {
  try {
    const db = new DatabaseSync(path, { readOnly: true });
    try {
      return (db.prepare('SELECT value FROM meta WHERE key = ?').get(BASE_KEY) as { value: string } | undefined)?.value;
    } finally {
      db.close();
    }
  } catch {
    return undefined;
  }
}

/** Remove the bases no workspace names any more, and their templates (and the bases' directory once empty). */
function dropUnusedBases(dir: string): void {
  const bases = join(dir, BASES);
  if (!existsSync(bases)) return;
  const used = new Set(
    readdirSync(dir)
      .filter((f) => f.endsWith('.db') || f.endsWith('.tmp'))
      .map((f) => baseOf(join(dir, f))),
  );
  for (const f of readdirSync(bases))
    if (!used.has(`${BASES}/${f.endsWith(TEMPLATE) ? f.slice(0, -TEMPLATE.length) : f}`))
      rmSync(join(bases, f), { force: true });
  if (readdirSync(bases).length === 0) rmSync(bases, { recursive: true, force: true });
}

export interface WorkspaceInfo {
  name: string;
  url: string;
  created: string;
  from: string | null;
}

interface Served extends WorkspaceInfo {
  server: WorkspaceServer;
}

/** What the workspaces use of a server they start (http/server.ts's RunningSandbox is one; named here so that the two files do not import each other). */
export interface WorkspaceServer {
  url: string;
  credentials: SandboxCredentials;
  close(): Promise<void>;
}

/**
 * The workspaces a running sandbox serves: one server each, started by `start` (a sandbox on the
 * workspace's file, on a port of its own). Closed with the main server.
 */
export class WorkspaceHost {
  private served = new Map<string, Served>();
  /** Names being created or removed right now. */
  private busy = new Set<string>();
  private closed = false;
  /** Keys for the next workspace, made after each creation: the next CI job's need not wait for RSA. */
  private spare?: Promise<GeneratedSecrets>;

  constructor(
    private readonly dbPath: string,
    private readonly start: (path: string) => Promise<WorkspaceServer>,
    private readonly log?: (line: string) => void,
  ) {}

  /** Serve every workspace already on disk (a sandbox started again). One that fails to start is logged and left out. */
  async resume(): Promise<void> {
    const dir = workspaceDir(this.dbPath);
    if (!existsSync(dir)) return;
    for (const f of readdirSync(dir).sort()) {
      const name = basename(f, '.db');
      if (!f.endsWith('.db') || !NAME.test(name)) continue;
      try {
        await this.serve(name, join(dir, f));
      } catch (err) {
        this.log?.(`workspace ${name} not served: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }

  private async serve(name: string, path: string): Promise<Served> {
    const server = await this.start(path);
    const s: Served = { name, url: server.url, ...origin(path), server };
    if (this.closed) {
      await server.close();
      throw new HttpError(503, 'The sandbox is closing.');
    }
    this.served.set(name, s);
    return s;
  }

  private claim(name: string): void {
    if (this.closed) throw new HttpError(503, 'The sandbox is closing.');
    if (this.busy.has(name)) throw new HttpError(409, `Workspace "${name}" is being created or removed right now.`);
    this.busy.add(name);
  }

  /** Create workspace `name` (from snapshot `from`, or the seed) and serve it; its credentials with it. */
  async create(name: string, from: string | undefined): Promise<Record<string, unknown>> {
    workspacePath(this.dbPath, name);
    this.claim(name);
    try {
      await makeWorkspaceFile(this.dbPath, name, from, () => this.takeKeys());
      let s: Served;
      try {
        s = await this.serve(name, workspacePath(this.dbPath, name));
      } catch (err) {
        for (const f of filesOf(workspacePath(this.dbPath, name))) rmSync(f, { force: true });
        throw err;
      }
      const c = s.server.credentials;
      const acct = (a: typeof c.partner) => ({ username: a.username, key_file: a.key_file, shared_key: a.shared_key });
      return {
        ...this.info(s),
        credentials: {
          partner: acct(c.partner),
          limited: acct(c.limited),
          operator_token: c.operator_token,
          control_secret: c.control_secret,
        },
      };
    } finally {
      this.busy.delete(name);
    }
  }

  /** The spare keys (or new ones), and new spare keys begun once this creation is done. */
  private async takeKeys(): Promise<GeneratedSecrets> {
    const { generateSecretsAsync } = await import('../seed.js');
    const keys = this.spare ?? generateSecretsAsync();
    this.spare = undefined;
    try {
      return await keys;
    } finally {
      setImmediate(() => {
        if (this.closed || this.spare) return;
        this.spare = generateSecretsAsync();
        this.spare.catch(() => {
          this.spare = undefined;
        });
      });
    }
  }

  private info(s: Served): WorkspaceInfo {
    return { name: s.name, url: s.url, created: s.created, from: s.from };
  }

  list(): WorkspaceInfo[] {
    return [...this.served.values()].map((s) => this.info(s)).sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Stop workspace `name`'s server and delete its files. */
  async remove(name: string): Promise<{ name: string; removed: boolean }> {
    const path = workspacePath(this.dbPath, name);
    const s = this.served.get(name);
    if (!s && !existsSync(path)) throw notFound(`No workspace "${name}" (sandbox workspace list shows them).`);
    this.claim(name);
    try {
      if (s) {
        this.served.delete(name);
        await s.server.close();
      }
      for (const f of filesOf(path)) rmSync(f, { force: true });
      // Its snapshots go with it (a workspace made from one keeps the base it shares).
      rmSync((await import('../snapshots/snapshots.js')).snapshotDir(path), { recursive: true, force: true });
      const dir = workspaceDir(this.dbPath);
      dropUnusedBases(dir);
      if (existsSync(dir) && readdirSync(dir).length === 0) rmSync(dir, { recursive: true, force: true });
      return { name, removed: true };
    } finally {
      this.busy.delete(name);
    }
  }

  /** Close every workspace server; resolves when each one's store is closed. */
  async closeAll(): Promise<void> {
    this.closed = true;
    const all = [...this.served.values()];
    this.served.clear();
    await Promise.all(all.map((s) => s.server.close()));
  }
}
