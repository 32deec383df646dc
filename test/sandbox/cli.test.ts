// `bookdist sandbox ...` end to end: the real bin/bookdist (built by `npm test`) against a
// sandbox database shared with an in-process sandbox, `sandbox serve` as a child process, and
// the embedded default profile.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, WELL_KNOWN, type TestSandbox } from '../helpers/sandbox.js';
import { buy, clients, newUser, type Clients } from './_support.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin/bookdist');
let sb: TestSandbox;
let c: Clients;
let tmp: string;

beforeAll(async () => {
  sb = await startTestSandbox();
  c = clients(sb);
  tmp = mkdtempSync(join(tmpdir(), 'bookdist-cli-'));
});
afterAll(async () => {
  await c?.closeAll();
  await sb?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

function bookdist(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [bin, ...args], {
    encoding: 'utf8',
    env: {
      ...process.env,
      NO_COLOR: '1',
      BOOKDIST_CONFIG_DIR: join(tmp, 'config'),
      BOOKDIST_DATA_DIR: join(tmp, 'data'),
      ...env,
    },
    timeout: 30_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Like bookdist(), without blocking the event loop (the in-process sandbox must answer). */
function bookdistAsync(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const ch = spawn(process.execPath, [bin, ...args], {
      env: {
        ...process.env,
        NO_COLOR: '1',
        BOOKDIST_CONFIG_DIR: join(tmp, 'config'),
        BOOKDIST_DATA_DIR: join(tmp, 'data'),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    ch.stdout!.on('data', (d) => (stdout += d));
    ch.stderr!.on('data', (d) => (stderr += d));
    ch.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('bookdist sandbox controls on a shared database', () => {
  it('credentials --json names the seeded accounts and a 0600 key file', () => {
    const r = bookdist(['sandbox', 'credentials', '--db', sb.dbPath, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(Object.keys(j).sort()).toEqual(['control_secret', 'limited', 'operator_token', 'partner', 'tls_ca_file']);
    expect(j.control_secret).toBe(sb.controlSecret);
    expect(Object.keys(j.partner).sort()).toEqual(['key_file', 'public_key', 'shared_key', 'username']);
    expect(j.partner.username).toBe(sb.creds.partner.username);
    expect(j.partner.key_file).toBe(sb.creds.partner.keyFile);
    expect(j.operator_token).toBe(sb.creds.operatorToken);
    expect(readFileSync(j.partner.key_file, 'utf8')).toBe(sb.creds.partner.keyPem);
    expect(statSync(j.partner.key_file).mode & 0o777).toBe(0o600);
  });

  it('clock advance/show move the clock of the running sandbox', async () => {
    const before = Date.parse(await sb.control.now());
    const r = bookdist(['sandbox', 'clock', 'advance', '2d', '--db', sb.dbPath, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const after = Date.parse(await sb.control.now());
    expect(after - before).toBeGreaterThanOrEqual(2 * 86_400_000);
    const show = JSON.parse(bookdist(['sandbox', 'clock', 'show', '--db', sb.dbPath, '--json']).stdout);
    expect(show.offset_ms).toBe(2 * 86_400_000);
    // Over HTTP the control secret comes from the database named with --db, or from the environment.
    const viaUrl = JSON.parse(
      (await bookdistAsync(['sandbox', 'clock', 'show', '--url', sb.url, '--db', sb.dbPath, '--json'])).stdout,
    );
    expect(viaUrl.offset_ms).toBe(2 * 86_400_000);
    const viaEnv = await bookdistAsync(['sandbox', 'clock', 'show', '--url', sb.url, '--json'], {
      BOOKDIST_SANDBOX_SECRET: sb.controlSecret,
    });
    expect(viaEnv.code, viaEnv.stderr).toBe(0);
    expect(JSON.parse(viaEnv.stdout).offset_ms).toBe(2 * 86_400_000);
    const noSecret = await bookdistAsync(['sandbox', 'clock', 'show', '--url', sb.url]);
    expect(noSecret.code).toBe(4);
    expect(noSecret.stderr).toContain('BOOKDIST_SANDBOX_SECRET');
    const wrong = await bookdistAsync(['sandbox', 'clock', 'advance', '1d', '--url', sb.url], {
      BOOKDIST_SANDBOX_SECRET: 'not-the-secret',
    });
    expect(wrong.code).toBe(4);
    expect(wrong.stderr).toContain('Wrong control secret');
    expect(wrong.stderr).not.toContain(sb.controlSecret);
    expect(bookdist(['sandbox', 'clock', 'advance', 'soon', '--db', sb.dbPath]).code).toBe(2);
  });

  it('usage counts for refunds; redeem counts in the summary; outbox lists e-mails', async () => {
    const user = await newUser(c.partner, 'cli');
    const order = await buy(c.partner, user, [WELL_KNOWN.readme.pricing[0].id]);
    const u = bookdist([
      'sandbox',
      'usage',
      '--username',
      user,
      '--hash-id',
      WELL_KNOWN.readme.hash_id,
      '--viewed',
      '40',
      '--printed',
      '0',
      '--db',
      sb.dbPath,
      '--json',
    ]);
    expect(u.code, u.stderr).toBe(0);
    expect(JSON.parse(u.stdout).pages_viewed).toBe(40);
    const refund = await c.partner.call('order.refund', { payload: { order_id: order.id } });
    expect(refund.status).toBe(403);

    const codes = (
      await c.partner.call('codes.generate', {
        payload: { hash_id: WELL_KNOWN.codeDistribution.hash_id, org: 'o', count: 2 },
      })
    ).body.codes;
    const red = bookdist(['sandbox', 'redeem', codes[0].code, '--username', user, '--db', sb.dbPath, '--json']);
    expect(red.code, red.stderr).toBe(0);
    expect(bookdist(['sandbox', 'redeem', codes[0].code, '--username', user, '--db', sb.dbPath]).code).toBe(5);
    expect(bookdist(['sandbox', 'redeem', 'AAAA-AAAA-AAAA', '--username', user, '--db', sb.dbPath]).code).toBe(3);
    expect((await c.partner.call('codes.summary')).body.codes_redeemed).toBe(1);

    const email = `cli.invite.${Date.now()}@example.com`;
    await c.partner.call('user.invite', { payload: { email } });
    const out = bookdist(['sandbox', 'outbox', '--to', email, '--db', sb.dbPath, '--json']);
    expect(out.code, out.stderr).toBe(0);
    const mails = JSON.parse(out.stdout).emails;
    expect(mails).toHaveLength(1);
    expect(mails[0].kind).toBe('user.invite');
  });

  it('reset recreates the database with new secrets', () => {
    const db = join(tmp, 'reset.db');
    const a = JSON.parse(bookdist(['sandbox', 'credentials', '--db', db, '--json']).stdout);
    expect(bookdist(['sandbox', 'reset', '--db', db, '--yes']).code).toBe(0);
    const b = JSON.parse(bookdist(['sandbox', 'credentials', '--db', db, '--json']).stdout);
    expect(b.partner.username).toBe(a.partner.username);
    expect(b.operator_token).not.toBe(a.operator_token);
    expect(b.partner.public_key).not.toBe(a.partner.public_key);
    // The control secret outlives a reset: a running `sandbox serve` on the file keeps its callers.
    expect(b.control_secret).toBe(a.control_secret);
  });
});

describe('bookdist sandbox serve', () => {
  it('serves, logs one line per request, and stops cleanly on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      [bin, 'sandbox', 'serve', '--port', '0', '--db', join(tmp, 'serve.db'), '--process-delay', '100ms'],
      {
        env: { ...process.env, NO_COLOR: '1', BOOKDIST_CONFIG_DIR: join(tmp, 'config') },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const url = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
    });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await fetch(url + '/index/');
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).test_mode).toBe(true);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stderr).toMatch(/^GET \/index\/ 200 \d+ms -$/m);
  });
});

describe('embedded default', () => {
  it('book get --isbn <a seeded ISBN> works with no profile configured', () => {
    const home = mkdtempSync(join(tmp, 'home-'));
    const env = {
      BOOKDIST_CONFIG_DIR: join(home, 'config'),
      BOOKDIST_DATA_DIR: join(home, 'data'),
      BOOKDIST_PROFILE: '',
      BOOKDIST_BASE_URL: '',
    };
    const r = bookdist(['book', 'get', '--isbn', WELL_KNOWN.readme.isbn13, '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(JSON.stringify(out)).toContain(WELL_KNOWN.readme.hash_id);
    expect(r.stderr).toContain('TEST MODE (sandbox)');
    expect(statSync(join(home, 'data')).mode & 0o777).toBe(0o700);
    // Parallel CLI processes on a fresh data directory seed it once and all succeed.
    const home2 = mkdtempSync(join(tmp, 'home-'));
    const env2 = { BOOKDIST_CONFIG_DIR: join(home2, 'config'), BOOKDIST_DATA_DIR: join(home2, 'data') };
    return Promise.all(
      Array.from(
        { length: 4 },
        () =>
          new Promise<number | null>((resolve) => {
            const ch = spawn(process.execPath, [bin, 'book', 'get', '--isbn', WELL_KNOWN.readme.isbn13, '--json'], {
              env: { ...process.env, NO_COLOR: '1', ...env2 },
              stdio: 'ignore',
            });
            ch.once('exit', resolve);
          }),
      ),
    ).then((codes) => expect(codes).toEqual([0, 0, 0, 0]));
  });
});

describe('sandbox serve on a busy port', () => {
  let taken: Server;
  let port: number;
  beforeAll(async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    port = (taken.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => taken.close(() => resolve())));

  it('on a port in use: exit 2 with a hint naming --port 0', async () => {
    // A server: a process of its own, so that a failure to refuse cannot hang the test run.
    const r = bookdist(['sandbox', 'serve', '--port', String(port), '--db', ':memory:']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`Port ${port} is in use on 127.0.0.1`);
    expect(r.stderr).toContain('--port 0 for a free one');
    expect(r.stderr).not.toMatch(/unexpected error|at .*\.js:\d+/);
  });
});
