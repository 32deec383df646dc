// Where a sandbox's workspaces live (`<db>.workspaces/<name>.db`, see workspaces.ts) and where
// `workspace create --from` finds its snapshot: one of the sandbox database, or one saved in a
// workspace.
import { existsSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { bad, notFound } from '../errors.js';

/** A workspace's name. */
export const NAME = /^[a-z0-9-]{1,40}$/;

export function workspaceDir(dbPath: string): string {
  return `${dbPath}.workspaces`;
}

export function workspacePath(dbPath: string, name: string): string {
  if (!NAME.test(name))
    throw bad(`"${name.slice(0, 80)}" is not a workspace name: lower-case letters, digits and -, at most 40.`);
  return join(workspaceDir(dbPath), `${name}.db`);
}

/** The files of a workspace: its database, SQLite's files beside it, its accounts' key files. */
export function filesOf(path: string): string[] {
  const base = path.replace(/\.db$/, '');
  return [path, `${path}-wal`, `${path}-shm`, `${path}-journal`, `${base}-partner-key.pem`, `${base}-limited-key.pem`];
}

/**
 * The file of snapshot `from`: `NAME`, a snapshot of the sandbox database (`sandbox snapshot
 * save NAME`), or `WORKSPACE/NAME`, one saved in a workspace (`sandbox snapshot save NAME` at the
 * workspace's URL, with its control secret: it lives beside the workspace's file). Not found: an
 * error that names what there is, a workspace's snapshot of that name included.
 */
export async function snapshotFile(dbPath: string, from: string): Promise<string> {
  const { snapshotPath } = await import('../snapshots/snapshots.js');
  const slash = from.indexOf('/');
  if (slash >= 0) {
    const [workspace, name] = [from.slice(0, slash), from.slice(slash + 1)];
    const path = workspacePath(dbPath, workspace);
    const source = snapshotPath(path, name);
    if (existsSync(source)) return source;
    throw notFound(
      existsSync(path)
        ? `Workspace "${workspace}" has no snapshot "${name.slice(0, 80)}" (sandbox snapshot list --url <its URL> shows them).`
        : `No workspace "${workspace}" (sandbox workspace list shows them): --from WORKSPACE/NAME names a snapshot saved in a workspace.`,
    );
  }
  const source = snapshotPath(dbPath, from);
  if (existsSync(source)) return source;
  const dir = workspaceDir(dbPath);
  const holders = existsSync(dir)
    ? readdirSync(dir)
        .map((f) => basename(f, '.db'))
        .filter((w) => NAME.test(w) && existsSync(snapshotPath(join(dir, `${w}.db`), from)))
        .sort()
    : [];
  throw notFound(
    holders.length
      ? `No snapshot "${from}" of the sandbox database; ${holders.length > 1 ? 'workspaces' : 'workspace'} ${holders.join(', ')} saved one: use --from ${holders[0]}/${from}.`
      : `No snapshot "${from}" of this database (sandbox snapshot list shows them; one saved in a workspace is --from WORKSPACE/NAME).`,
  );
}
