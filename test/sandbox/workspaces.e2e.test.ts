// Workspaces (issue 30, item 5, first step) of a running sandbox, through the CLI (--url): each
// one a copy (of the seed or a snapshot) served on a port of its own with credentials of its own;
// what one job does there is seen nowhere else, and nobody else's key is accepted there. rm stops
// its server and deletes its files; closing the sandbox closes them; a new start serves them again.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { loadRsaPrivateKey } from '../../src/api/wire.js';
import { startSandbox } from '../../src/sandbox/http/server.js';
import { runCli } from '../helpers/cli.js';
import { startTestSandbox, WELL_KNOWN, type TestSandbox } from '../helpers/sandbox.js';
import { buy, clients, probe, type Clients, type Probe } from './_support.js';

let sb: TestSandbox;
let main: Clients;
let env: Record<string, string>;
const opened: ApiClient[] = [];

beforeAll(async () => {
  sb = await startTestSandbox({ processDelayMs: 50 });
  main = clients(sb);
  env = { ...sb.env, BOOKDIST_SANDBOX_SECRET: sb.controlSecret };
});
afterAll(async () => {
  await Promise.all(opened.map((c) => c.close()));
  await main?.closeAll();
  await sb?.close();
});

const cli = (...args: string[]) => runCli(['sandbox', 'workspace', ...args, '--url', sb.url], { env });

interface Workspace {
  name: string;
  url: string;
  from: string | null;
  credentials: {
    partner: { username: string; key_file: string; shared_key: string };
    limited: { username: string; key_file: string; shared_key: string };
    operator_token: string;
    control_secret: string;
  };
}

async function create(name: string, from?: string): Promise<Workspace> {
  const r = await cli('create', name, ...(from ? ['--from', from] : []), '--json');
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).workspace;
}

/** A signed client at `url` with a partner key (PEM) and username. */
function client(url: string, username: string, keyPem: string, retries = 0): Probe {
  const c = new ApiClient({
    baseUrl: url,
    timeout: 10_000,
    retries,
    credentials: { kind: 'crypto', username, key: loadRsaPrivateKey(keyPem) },
  });
  opened.push(c);
  return probe(c);
}
const partnerOf = (w: Workspace, retries = 0) =>
  client(w.url, w.credentials.partner.username, readFileSync(w.credentials.partner.key_file, 'utf8'), retries);
const user = WELL_KNOWN.user.username;
const orderIds = async (c: Probe) => {
  const r = await c.call('user.orders', { params: { username: user } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return (r.body.results as Array<{ id: number }>).map((o) => o.id);
};

describe('sandbox workspace on a running sandbox', () => {
  it('two workspaces from the seed: their own orders, their own keys, their own base URLs; rm stops one and deletes it', async () => {
    const [a, b] = [await create('job-a'), await create('job-b')];
    expect(a.from).toBeNull();
    expect(a.url).not.toBe(sb.url);
    expect(b.url).not.toBe(a.url);
    // Stored beside the database, private to its owner.
    const dir = `${sb.dbPath}.workspaces`;
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'job-a.db')).mode & 0o777).toBe(0o600);
    // Credentials of their own.
    const creds = [a, b].map((w) => w.credentials);
    expect(new Set([sb.creds.partner.sharedKey, ...creds.map((c) => c.partner.shared_key)]).size).toBe(3);
    expect(new Set([sb.creds.operatorToken, ...creds.map((c) => c.operator_token)]).size).toBe(3);
    expect(new Set([sb.controlSecret, ...creds.map((c) => c.control_secret)]).size).toBe(3);

    // An order made in A is seen in A only.
    const pa = partnerOf(a);
    const pb = partnerOf(b);
    const order = await buy(pa, user, [WELL_KNOWN.readme.pricing[0].id]);
    expect(await orderIds(pa)).toContain(order.id);
    expect(await orderIds(pb)).toEqual([]);
    expect(await orderIds(main.partner)).toEqual([]);

    // The main sandbox's keys (signed, shared key, operator token) and B's key are refused in A.
    const mainKeyInA = client(a.url, sb.creds.partner.username, sb.creds.partner.keyPem);
    expect((await mainKeyInA.call('user.orders', { params: { username: user } })).status).toBe(401);
    const sharedInA = new ApiClient({
      baseUrl: a.url,
      timeout: 10_000,
      retries: 0,
      credentials: { kind: 'shared', username: sb.creds.partner.username, sharedKey: sb.creds.partner.sharedKey },
    });
    opened.push(sharedInA);
    expect((await probe(sharedInA).call('user.orders', { params: { username: user } })).status).toBe(401);
    const bKeyInA = client(a.url, b.credentials.partner.username, readFileSync(b.credentials.partner.key_file, 'utf8'));
    expect((await bKeyInA.call('user.orders', { params: { username: user } })).status).toBe(401);
    // ...and the main sandbox's control secret at A's control routes.
    const ctl = await fetch(`${a.url}/_sandbox/clock`, { headers: { 'x-sandbox-secret': sb.controlSecret } });
    expect(ctl.status).toBe(401);
    expect(
      (await fetch(`${a.url}/_sandbox/clock`, { headers: { 'x-sandbox-secret': a.credentials.control_secret } }))
        .status,
    ).toBe(200);

    // Unauthenticated routes reach the workspace at its own URL.
    const index = await fetch(`${a.url}/`);
    expect(index.status).toBe(200);
    expect(((await index.json()) as any).api.current_version).toBe('v1');

    const listed = await cli('list', '--json');
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).workspaces.map((w: Workspace) => [w.name, w.url])).toEqual([
      ['job-a', a.url],
      ['job-b', b.url],
    ]);

    // The secrets create printed are in no journal row of the main sandbox.
    const journal = await runCli(['sandbox', 'requests', 'list', '--db', sb.dbPath, '--json'], { env });
    expect(journal.code, journal.stderr).toBe(0);
    expect(journal.stdout).toContain('/_sandbox/workspaces');
    // Each workspace keeps its own request journal: A's order is in A's, not in the main one.
    expect(journal.stdout).not.toContain('/v1/order/external');
    const aJournal = await runCli(['sandbox', 'requests', 'list', '--url', a.url, '--json'], {
      env: { ...env, BOOKDIST_SANDBOX_SECRET: a.credentials.control_secret },
    });
    expect(aJournal.code, aJournal.stderr).toBe(0);
    expect(aJournal.stdout).toContain('/v1/order/external');
    for (const secret of [
      ...creds.map((c) => c.partner.shared_key),
      ...creds.map((c) => c.control_secret),
      ...creds.map((c) => c.operator_token),
    ]) {
      expect(journal.stdout).not.toContain(secret);
    }

    // rm: needs --yes in a script; then B's server stops and its files are gone.
    const unconfirmed = await cli('rm', 'job-b');
    expect(unconfirmed.code).toBe(2);
    expect(existsSync(join(dir, 'job-b.db'))).toBe(true);
    const rm = await cli('rm', 'job-b', '--yes');
    expect(rm.code, rm.stderr).toBe(0);
    expect(existsSync(join(dir, 'job-b.db'))).toBe(false);
    expect(existsSync(b.credentials.partner.key_file)).toBe(false);
    await expect(fetch(`${b.url}/`)).rejects.toThrow();
    expect(JSON.parse((await cli('list', '--json')).stdout).workspaces.map((w: Workspace) => w.name)).toEqual([
      'job-a',
    ]);
    // A is untouched.
    expect(await orderIds(pa)).toContain(order.id);
  });

  it('a workspace copied from a snapshot holds its state, under new credentials', async () => {
    const before = await buy(main.partner, user, [WELL_KNOWN.readme.pricing[0].id]);
    const saved = await runCli(['sandbox', 'snapshot', 'save', 'with-order', '--url', sb.url], { env });
    expect(saved.code, saved.stderr).toBe(0);
    const c = await create('from-snap', 'with-order');
    expect(c.from).toBe('with-order');
    const pc = partnerOf(c);
    expect(await orderIds(pc)).toContain(before.id);
    // The snapshot holds the main sandbox's keys: the copy does not accept them.
    const mainKeyInC = client(c.url, sb.creds.partner.username, sb.creds.partner.keyPem);
    expect((await mainKeyInC.call('user.orders', { params: { username: user } })).status).toBe(401);
    const made = await buy(pc, user, [WELL_KNOWN.readme.pricing[0].id]);
    expect(await orderIds(main.partner)).not.toContain(made.id);
  });

  it('refuses a bad name (exit 2), a name in use (exit 5), an unknown snapshot or workspace (exit 3), and a command without --url (exit 2)', async () => {
    expect((await cli('create', 'Not_A_Name')).code).toBe(2);
    await create('in-use');
    const again = await cli('create', 'in-use');
    expect(again.code).toBe(5);
    expect(again.stderr).toContain('already exists');
    expect((await cli('create', 'job-x', '--from', 'no-such-snapshot')).code).toBe(3);
    expect(existsSync(join(`${sb.dbPath}.workspaces`, 'job-x.db'))).toBe(false);
    expect((await cli('rm', 'no-such', '--yes')).code).toBe(3);
    const noUrl = await runCli(['sandbox', 'workspace', 'list'], { env });
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toContain('--url');
  });
});

describe('workspaces from a snapshot share its catalogue', () => {
  /** Rows of `table` in a workspace's own file (without its base). */
  const ownRows = (name: string, table: string) => {
    const d = new DatabaseSync(join(`${sb.dbPath}.workspaces`, `${name}.db`), { readOnly: true });
    try {
      return (d.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    } finally {
      d.close();
    }
  };
  const status = async (c: Probe, hash: string) =>
    (await c.call('book.get', { params: { hash_id: hash } })).body.book.status as Record<string, unknown>;

  it('reads and searches the shared books, keeps a book it changes to itself, and rm drops the unused base', async () => {
    const saved = await runCli(['sandbox', 'snapshot', 'save', 'catalogue', '--url', sb.url], { env });
    expect(saved.code, saved.stderr).toBe(0);
    const [a, b] = [await create('share-a', 'catalogue'), await create('share-b', 'catalogue')];
    const dir = `${sb.dbPath}.workspaces`;
    // The catalogue is not copied: each file holds the last book only (new books get ids after
    // the base's); the base is the snapshot's file itself, linked.
    expect(ownRows('share-a', 'books')).toBe(1);
    expect(ownRows('share-b', 'pricing')).toBe(1);
    const bases = readdirSync(join(dir, '.bases')).filter((f) => /^catalogue-\d+\.db$/.test(f));
    expect(bases).toHaveLength(1);
    const base = join(dir, '.bases', bases[0]);
    expect(statSync(base).ino).toBe(statSync(`${sb.dbPath}.snapshots/catalogue.db`).ino);

    const [pa, pb] = [partnerOf(a), partnerOf(b)];
    // Every book reads as in the snapshot, through lookups and the text index.
    const got = await pa.call('book.isbn', { params: { isbn: WELL_KNOWN.readme.isbn13 } });
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    const found = await pa.call('book.search', { payload: { title: 'Lighthouse Keeper' } });
    expect(found.status, JSON.stringify(found.body)).toBe(200);
    expect(found.body.results.map((r: { hash_id: string }) => r.hash_id)).toEqual([WELL_KNOWN.readme.hash_id]);

    // A book processed in A is processed in A only (its row copied into A's file).
    const hash = WELL_KNOWN.unprocessed.hash_id;
    const q = await pa.call('book.process', { params: { hash_id: hash }, payload: {} });
    expect(q.body.message).toBe('Book queued for processing.');
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && !(await status(pa, hash)).is_processed) await new Promise((r) => setTimeout(r, 50));
    expect(await status(pa, hash)).toMatchObject({ is_processed: true, is_queued: false });
    for (const other of [pb, main.partner])
      expect(await status(other, hash)).toMatchObject({ is_processed: false, is_queued: false });
    expect(ownRows('share-b', 'books')).toBe(1);
    // Searched in A, the changed book is found once.
    const title = WELL_KNOWN.unprocessed.title;
    const again = await pa.call('book.search', { payload: { title } });
    expect(again.body.results.map((r: { hash_id: string }) => r.hash_id)).toEqual([hash]);

    expect((await cli('rm', 'share-a', '--yes')).code).toBe(0);
    expect(existsSync(base)).toBe(true);
    expect((await cli('rm', 'share-b', '--yes')).code).toBe(0);
    expect(existsSync(base)).toBe(false);
  });
});

describe('a snapshot saved in a workspace', () => {
  it('holds the whole state, the shared catalogue included: loaded back, opened on its own, or used --from', async () => {
    const saved = await runCli(['sandbox', 'snapshot', 'save', 'ws-base', '--url', sb.url], { env });
    expect(saved.code, saved.stderr).toBe(0);
    const w = await create('snap-ws', 'ws-base');
    const pw = partnerOf(w);
    const wsEnv = { ...env, BOOKDIST_SANDBOX_SECRET: w.credentials.control_secret };
    const snap = (verb: string, name: string) =>
      runCli(['sandbox', 'snapshot', verb, name, '--url', w.url], { env: wsEnv });
    // A catalogue row of the workspace's own (a book processed there), and an order.
    const hash = WELL_KNOWN.unprocessed.hash_id;
    await pw.call('book.process', { params: { hash_id: hash }, payload: {} });
    const processed = async (c: Probe) =>
      (await c.call('book.get', { params: { hash_id: hash } })).body.book.status.is_processed as boolean;
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && !(await processed(pw))) await new Promise((r) => setTimeout(r, 50));
    const order = await buy(pw, user, [WELL_KNOWN.readme.pricing[0].id]);
    const r = await snap('save', 'mine');
    expect(r.code, r.stderr).toBe(0);

    // The file is a database of its own: every book of the base, no base named, the text index whole.
    const file = join(`${sb.dbPath}.workspaces`, 'snap-ws.db.snapshots', 'mine.db');
    const books = (path: string) => {
      const d = new DatabaseSync(path, { readOnly: true });
      try {
        return {
          n: (d.prepare('SELECT count(*) AS n FROM books').get() as { n: number }).n,
          base: d.prepare("SELECT value FROM meta WHERE key = 'workspace_base'").get(),
          found: (
            d.prepare("SELECT count(*) AS n FROM books_fts WHERE books_fts MATCH 'lighthouse'").get() as { n: number }
          ).n,
        };
      } finally {
        d.close();
      }
    };
    const all = books(`${sb.dbPath}.snapshots/ws-base.db`).n;
    expect(all).toBeGreaterThan(1);
    expect(books(file)).toEqual({ n: all, base: undefined, found: books(`${sb.dbPath}.snapshots/ws-base.db`).found });

    // Loaded back into the workspace after more orders: the order and the processed book are as saved.
    const later = await buy(pw, user, [WELL_KNOWN.readme.pricing[0].id]);
    expect((await snap('load', 'mine')).code).toBe(0);
    expect(await orderIds(pw)).toContain(order.id);
    expect(await orderIds(pw)).not.toContain(later.id);
    expect(await processed(pw)).toBe(true);
    expect((await pw.call('book.isbn', { params: { isbn: WELL_KNOWN.readme.isbn13 } })).status).toBe(200);

    // Named by its workspace, it is a source of new workspaces (--from WORKSPACE/NAME): one with the
    // whole catalogue and that state. By its name alone it is not the sandbox's: the error names
    // the fix; a workspace or a snapshot that is not there, exit 3 too.
    const bare = await cli('create', 'from-ws', '--from', 'mine');
    expect(bare.code).toBe(3);
    expect(bare.stderr).toContain('use --from snap-ws/mine');
    const noSnap = await cli('create', 'from-ws', '--from', 'snap-ws/theirs');
    expect([noSnap.code, noSnap.stderr]).toEqual([
      3,
      expect.stringContaining('Workspace "snap-ws" has no snapshot "theirs"'),
    ]);
    const noWs = await cli('create', 'from-ws', '--from', 'gone/mine');
    expect([noWs.code, noWs.stderr]).toEqual([3, expect.stringContaining('No workspace "gone"')]);
    const v = await create('from-ws', 'snap-ws/mine');
    expect(v.from).toBe('snap-ws/mine');
    const pv = partnerOf(v);
    expect(await orderIds(pv)).toContain(order.id);
    expect((await pv.call('book.isbn', { params: { isbn: WELL_KNOWN.readme.isbn13 } })).status).toBe(200);
    const found = await pv.call('book.search', { payload: { title: 'Lighthouse Keeper' } });
    expect(found.body.results.map((x: { hash_id: string }) => x.hash_id)).toEqual([WELL_KNOWN.readme.hash_id]);
    expect(await processed(pv)).toBe(true);
    // rm takes the workspace's snapshots with it; one made from them keeps working (its base is its own link).
    expect((await cli('rm', 'snap-ws', '--yes')).code).toBe(0);
    expect(existsSync(`${join(`${sb.dbPath}.workspaces`, 'snap-ws.db')}.snapshots`)).toBe(false);
    expect((await pv.call('book.isbn', { params: { isbn: WELL_KNOWN.readme.isbn13 } })).status).toBe(200);
    expect((await cli('create', 'again', '--from', 'snap-ws/mine')).code).toBe(3);
    expect((await cli('rm', 'from-ws', '--yes')).code).toBe(0);
  });
});

describe('twenty CI jobs in parallel', () => {
  it('each makes a workspace from one snapshot and works in it at the same time: each sees only its own users, orders and journal', async () => {
    const saved = await runCli(['sandbox', 'snapshot', 'save', 'ci-start', '--url', sb.url], { env });
    expect(saved.code, saved.stderr).toBe(0);
    const control = async (url: string, secret: string, method: string, path: string, body?: unknown) => {
      const r = await fetch(`${url}${path}`, {
        method,
        headers: { 'content-type': 'application/json', 'x-sandbox-secret': secret },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const json = (await r.json()) as any;
      expect(r.status, JSON.stringify(json)).toBe(200);
      return json;
    };
    const emailOf = (i: number) => `ci-job-${i}@example.com`;
    const jobs = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const made = await control(sb.url, sb.controlSecret, 'POST', '/_sandbox/workspaces', {
          name: `ci-${i}`,
          from: 'ci-start',
        });
        const w = made.workspace as Workspace;
        // Retries as a CI job's client would: twenty servers in one loaded process can stall a
        // kept-alive connection past the server's idle timeout (a reset, retried when safe).
        const p = partnerOf(w, 2);
        const created = await p.call('user.create', { payload: { email: emailOf(i) } });
        expect(created.status, JSON.stringify(created.body)).toBe(200);
        const order = await buy(p, created.body.username, [WELL_KNOWN.readme.pricing[0].id]);
        return { i, w, p, username: created.body.username as string, order };
      }),
    );
    expect(new Set(jobs.map((j) => j.w.url)).size).toBe(20);
    await Promise.all(
      jobs.map(async ({ i, w, p, username, order }) => {
        // Its own user and order, and no other job's user.
        const mine = await p.call('user.orders', { params: { username } });
        expect((mine.body.results as Array<{ id: number }>).map((o) => o.id)).toEqual([order.id]);
        for (const other of [(i + 1) % 20, (i + 7) % 20])
          expect((await p.call('user.email', { params: { email: emailOf(other) } })).status).toBe(404);
        // Its journal holds its own requests only: one user created, with its own e-mail.
        const j = await control(
          w.url,
          w.credentials.control_secret,
          'GET',
          '/_sandbox/requests?method=POST&path=/v1/user/',
        );
        expect(j.requests.map((r: { request: { email: string } }) => r.request.email)).toEqual([emailOf(i)]);
      }),
    );
    // And the main sandbox saw none of it. Asked with retries, as the jobs ask: main's kept-alive
    // connection sat idle while twenty servers in this process were busy, and a reused connection
    // the server has just closed answers with a reset (ci-43b), which a GET retries.
    const mainRetrying = clients(sb, { retries: 2 });
    try {
      for (const i of [0, 19])
        expect((await mainRetrying.partner.call('user.email', { params: { email: emailOf(i) } })).status).toBe(404);
    } finally {
      await mainRetrying.closeAll();
    }
    await Promise.all(
      jobs.map(({ i }) => control(sb.url, sb.controlSecret, 'POST', '/_sandbox/workspaces/rm', { name: `ci-${i}` })),
    );
  });
});

describe('workspaces across a restart', () => {
  it('closing the sandbox closes its workspaces; starting it again serves them again, on new ports', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bookdist-workspaces-'));
    try {
      const dbPath = join(dir, 'sandbox.db');
      const first = await startSandbox({ host: '127.0.0.1', port: 0, dbPath, processDelayMs: 50 });
      const ws = async (server: typeof first, method: 'GET' | 'POST', path: string, body?: unknown) => {
        const res = await fetch(server.url + path, {
          method,
          headers: {
            'x-sandbox-secret': server.controlSecret,
            ...(body ? { 'content-type': 'application/json' } : {}),
          },
          body: body ? JSON.stringify(body) : undefined,
        });
        expect(res.status).toBe(200);
        return (await res.json()) as any;
      };
      let w: Workspace;
      try {
        w = (await ws(first, 'POST', '/_sandbox/workspaces', { name: 'kept' })).workspace;
        const order = await buy(partnerOf(w), user, [WELL_KNOWN.readme.pricing[0].id]);
        await first.close();
        await expect(fetch(`${w.url}/`)).rejects.toThrow();

        const again = await startSandbox({ host: '127.0.0.1', port: 0, dbPath, processDelayMs: 50 });
        try {
          const listed = (await ws(again, 'GET', '/_sandbox/workspaces')).workspaces as Workspace[];
          expect(listed.map((x) => x.name)).toEqual(['kept']);
          const url = listed[0].url;
          expect(url).not.toBe(w.url);
          expect((await fetch(`${url}/`)).status).toBe(200);
          expect(await orderIds(partnerOf({ ...w, url }))).toContain(order.id);
        } finally {
          await again.close();
        }
      } finally {
        await first.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
