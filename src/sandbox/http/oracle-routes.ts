// The control routes of the sandbox as a test oracle (issue 30), behind the control routes' guard
// (control-routes.ts): the request journal (journal/routes.ts), fixtures, the book controls and
// snapshots. Undefined when `route` is none of them.
import type { SandboxCore } from './core.js';
import { bad, HttpError } from '../errors.js';
import { journalRoute } from '../journal/routes.js';

export async function oracleRoute(
  core: SandboxCore,
  route: string,
  body: Record<string, unknown>,
  query: URLSearchParams,
): Promise<Record<string, unknown> | undefined> {
  const { store } = core;
  const str = (v: unknown, name: string) => {
    if (typeof v !== 'string' || !v) throw bad(`Field "${name}" is required.`);
    return v;
  };
  if (route.startsWith('GET /_sandbox/requests') || route === 'POST /_sandbox/requests/clear') {
    core.journal?.flush(); // what this server answered so far is in the journal it reads
    return journalRoute(store, route, query);
  }
  switch (route) {
    case 'POST /_sandbox/fixtures': {
      const { applyFixture, FixtureError } = await import('../fixtures/apply.js');
      try {
        const out = await applyFixture(store, body.fixture, {
          baseDir: typeof body.base_dir === 'string' ? body.base_dir : undefined,
          origin: core.baseUrl,
          workerDelayMs: 0,
        });
        setImmediate(core.tick);
        return { ...out };
      } catch (e) {
        if (e instanceof FixtureError) throw new HttpError(e.status, e.message);
        throw e;
      }
    }
    case 'POST /_sandbox/books/hold':
    case 'POST /_sandbox/books/release':
    case 'POST /_sandbox/books/fail': {
      const c = await import('../fixtures/book-controls.js');
      const hash = str(body.hash_id, 'hash_id');
      const out = route.endsWith('hold')
        ? c.holdBook(store, hash, body.reason)
        : route.endsWith('release')
          ? c.releaseBook(store, hash)
          : c.failNextProcessing(store, hash, body.reason);
      setImmediate(core.tick);
      return out;
    }
    case 'GET /_sandbox/snapshots':
      return { snapshots: (await import('../snapshots/snapshots.js')).listSnapshots(store.path) };
    case 'GET /_sandbox/snapshots/diff':
      return {
        ...(await import('../snapshots/snapshots.js')).diffSnapshots(
          store.path,
          query.get('a') ?? '',
          query.get('b') ?? undefined,
        ),
      };
    case 'POST /_sandbox/snapshots/save':
      core.journal?.flush();
      return (await import('../snapshots/snapshots.js')).saveSnapshot(store, str(body.name, 'name'));
    case 'POST /_sandbox/snapshots/load':
      return (await import('../snapshots/snapshots.js')).loadSnapshot(store, str(body.name, 'name'));
    case 'POST /_sandbox/snapshots/rm':
      return (await import('../snapshots/snapshots.js')).removeSnapshot(store.path, str(body.name, 'name'));
    case 'GET /_sandbox/workspaces':
      return { workspaces: workspaces(core).list() };
    case 'POST /_sandbox/workspaces': {
      if (body.from !== undefined && (typeof body.from !== 'string' || !body.from))
        throw bad('Field "from" must be a snapshot name.');
      return { workspace: await workspaces(core).create(str(body.name, 'name'), body.from) };
    }
    case 'POST /_sandbox/workspaces/rm':
      return workspaces(core).remove(str(body.name, 'name'));
  }
  return undefined;
}

/** The workspaces this sandbox serves; a workspace's own server (or a :memory: sandbox) serves none. */
function workspaces(core: SandboxCore): NonNullable<SandboxCore['workspaces']> {
  if (!core.workspaces) {
    throw new HttpError(
      400,
      core.store.path === ':memory:'
        ? 'Workspaces need a sandbox database file, not :memory:.'
        : 'This server does not serve workspaces (a workspace is not made inside another): ask the main sandbox.',
    );
  }
  return core.workspaces;
}
