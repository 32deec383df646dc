// The embedded sandbox without a socket (issue 31): the built-in profile reaches its server through
// in-memory streams (src/sandbox/http/in-process.ts), not a loopback port. Through the real main()
// in-process, each command gives the same output and exit code as the same command sent over TCP
// to a listening sandbox on the same database, and the sandbox's request journal records the same.
import { DatabaseSync } from 'node:sqlite';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/http/server.js';
import { WELL_KNOWN } from '../../src/sandbox/seed.js';
import { run } from '../helpers/run.js';

let dir: string;
let served: RunningSandbox | undefined;
const isbn = WELL_KNOWN.readme.isbn13;
const embeddedEnv = () => ({
  BOOKDIST_CONFIG_DIR: join(dir, 'config'),
  BOOKDIST_DATA_DIR: join(dir, 'data'),
  XDG_CACHE_HOME: join(dir, 'cache'),
  NO_COLOR: '1',
});
const socketEnv = () => ({
  ...embeddedEnv(),
  BOOKDIST_BASE_URL: served!.url,
  BOOKDIST_USERNAME: served!.credentials.partner.username,
  BOOKDIST_KEY_FILE: served!.credentials.partner.key_file,
});
/** A server listening on a loopback port, on the embedded sandbox's database. */
const listening = () =>
  startSandbox({ host: '127.0.0.1', port: 0, dbPath: join(dir, 'data', 'sandbox.db'), workspaces: false });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bookdist-in-process-'));
  // The first embedded run seeds the data directory's database; listening servers then share it.
  const first = await run(['book', 'get', '--isbn', isbn, '--json'], { env: embeddedEnv() });
  expect(first.code, first.stderr).toBe(0);
});
afterAll(async () => {
  await served?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The journal's rows after `id`, as a client would compare them (no times, no Host header). */
function journalAfter(id: number): Array<Record<string, unknown>> {
  const db = new DatabaseSync(join(dir, 'data', 'sandbox.db'), { readOnly: true });
  try {
    return db
      .prepare(
        'SELECT id, method, path, query, auth, account, status, endpoint, headers, request, response FROM journal WHERE id > ? ORDER BY id',
      )
      .all(id)
      .map((r) => {
        const headers = JSON.parse(String(r.headers ?? '{}')) as Record<string, string>;
        delete headers.host;
        return { ...r, id: undefined, headers };
      });
  } finally {
    db.close();
  }
}

function lastJournalId(): number {
  const db = new DatabaseSync(join(dir, 'data', 'sandbox.db'), { readOnly: true });
  try {
    return Number((db.prepare('SELECT max(id) AS n FROM journal').get() as { n: number | null }).n ?? 0);
  } finally {
    db.close();
  }
}

describe('the built-in sandbox in-process', () => {
  it.each([
    [['book', 'get', '--isbn', isbn, '--json']],
    [['book', 'get', '--isbn', isbn]],
    [['book', 'list', '--limit', '3', '-o', 'ndjson']],
    [['book', 'get', '--isbn', '9780000000002']],
    [['whoami', '--json']],
  ])('%j: the same output, exit code and journal rows as over a socket', async (args) => {
    const before = lastJournalId();
    const inProcess = await run(args, { env: embeddedEnv() });
    const middle = lastJournalId();
    served = await listening();
    const overSocket = await run(args, { env: socketEnv() });
    // Closed, the server has written its journal rows.
    await served.close();
    served = undefined;
    // The one difference the two profiles mean to make: the built-in one says it is the sandbox.
    expect(inProcess.stderr.replace('TEST MODE (sandbox)', 'TEST MODE')).toBe(overSocket.stderr);
    expect(inProcess.stdout).toBe(overSocket.stdout);
    expect(inProcess.code).toBe(overSocket.code);
    const recorded = journalAfter(before);
    const viaPipe = recorded.slice(0, recorded.length - journalAfter(middle).length);
    expect(viaPipe.length).toBeGreaterThan(0);
    expect(viaPipe).toEqual(journalAfter(middle));
  });

  it('a proxy in the environment is not used: the requests never leave the process', async () => {
    const env = {
      ...embeddedEnv(),
      HTTP_PROXY: 'http://user:pw@proxy.invalid:3128',
      ALL_PROXY: 'http://proxy.invalid:1',
    };
    const r = await run(['book', 'get', '--isbn', isbn, '--json', '--debug'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/proxy\.invalid|proxy-authorization/i);
  });

  it('listens on no port: a URL it hands out names no address, and says so', async () => {
    const user = WELL_KNOWN.user.username;
    const hash = WELL_KNOWN.readme.hash_id;
    const order = await run(['order', 'free', '--username', user, '--hash-id', hash], { env: embeddedEnv() });
    expect(order.code, order.stderr).toBe(0);
    const r = await run(['book', 'viewer', '--hash-id', hash, '--username', user], { env: embeddedEnv() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^http:\/\/sandbox\.invalid\/reader\/\w+\/\n$/);
    expect(r.stderr).toContain('runs inside this command only, on no port, so this URL does not answer');
  });

  it('keeps the WAL for the next command (no checkpoint, no fsync), and checkpoints one grown past 256 KB', async () => {
    const db = join(dir, 'data', 'sandbox.db');
    const before = lastJournalId();
    const r = await run(['book', 'get', '--isbn', isbn, '--json'], { env: embeddedEnv() });
    expect(r.code, r.stderr).toBe(0);
    // The command's journal row is in the WAL it left, and read through it.
    expect(statSync(`${db}-wal`).size).toBeGreaterThan(0);
    expect(journalAfter(before).map((row) => row.path)).toEqual([`/v1/book/isbn/${isbn}/`]);
    // A WAL past the bound (written here with a reader holding it, as the command does):
    // the next command's close checkpoints it into the database and removes it.
    const reader = new DatabaseSync(db, { readOnly: true });
    reader.prepare('SELECT 1 FROM sqlite_master').get();
    const writer = new DatabaseSync(db);
    writer.exec('PRAGMA wal_autocheckpoint = 0; CREATE TABLE IF NOT EXISTS test_padding (b BLOB)');
    writer.prepare('INSERT INTO test_padding VALUES (?)').run(new Uint8Array(400 * 1024));
    writer.close();
    reader.close();
    expect(statSync(`${db}-wal`).size).toBeGreaterThan(256 * 1024);
    const again = await run(['book', 'get', '--isbn', isbn, '--json'], { env: embeddedEnv() });
    expect(again.code, again.stderr).toBe(0);
    expect(existsSync(`${db}-wal`)).toBe(false);
    expect(journalAfter(before).length).toBe(2);
  });
});
