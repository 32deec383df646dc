// The control surface of `bookdist sandbox serve` (a real child process) against a hostile
// caller: a foreign Host (DNS rebinding), a cross-origin POST, no control secret, and a
// non-loopback bind. Each refused request must change nothing and leak no secret.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createSign } from 'node:crypto';
import { request } from 'node:http';
import { connect } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEED_USERS, WELL_KNOWN } from '../helpers/sandbox.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin/bookdist');
let tmp: string;

function env(extra: Record<string, string> = {}) {
  return {
    ...process.env,
    NO_COLOR: '1',
    BOOKDIST_CONFIG_DIR: join(tmp, 'config'),
    BOOKDIST_DATA_DIR: join(tmp, 'data'),
    ...extra,
  };
}

interface Served {
  child: ChildProcess;
  url: string;
  port: number;
  stderr: () => string;
  stop(): Promise<number | null>;
}

/** Start `bookdist sandbox serve ...args` and wait for the URL it prints. */
async function serve(args: string[]): Promise<Served> {
  const child = spawn(process.execPath, [bin, 'sandbox', 'serve', '--port', '0', '--process-delay', '100ms', ...args], {
    env: env(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    url,
    port: Number(new URL(url).port),
    stderr: () => stderr,
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** A raw request to 127.0.0.1:port with exactly these headers (Host included). */
function send(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; text: string; json: any }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, setHost: false }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d) => (text += d));
      res.on('end', () => {
        let json: any;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode!, text, json });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

function credentialsOf(db: string) {
  const r = spawnSync(process.execPath, [bin, 'sandbox', 'credentials', '--db', db, '--json'], {
    env: env(),
    encoding: 'utf8',
  });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'bookdist-security-'));
});
afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('sandbox serve on loopback: the control routes', () => {
  let s: Served;
  let db: string;
  let secret: string;
  let creds: any;
  let host: string;
  const clock = async () =>
    (await send(s.port, 'GET', '/_sandbox/clock', { host, 'x-sandbox-secret': secret })).json.offset_ms;
  /** No answer may carry a private key, and a refusal carries no secret at all. */
  const leaksNothing = (text: string) => {
    expect(text).not.toContain('PRIVATE KEY');
    expect(text).not.toContain(secret);
    expect(text).not.toContain(creds.partner.shared_key);
    expect(text).not.toContain(creds.operator_token);
  };

  beforeAll(async () => {
    db = join(tmp, 'loopback.db');
    s = await serve(['--db', db]);
    host = `127.0.0.1:${s.port}`;
    creds = credentialsOf(db);
    secret = creds.control_secret;
    expect(secret).toMatch(/^[\w-]{24,}$/);
  });
  afterAll(async () => {
    expect(await s?.stop()).toBe(0);
  });

  it('with the secret, Host and a JSON body: credentials without any private key, and the clock moves', async () => {
    const r = await send(s.port, 'GET', '/_sandbox/credentials', { host, 'x-sandbox-secret': secret });
    expect(r.status).toBe(200);
    expect(r.text).not.toContain('PRIVATE KEY');
    expect(r.json.partner.private_key).toBeUndefined();
    expect(r.json.partner.key_file).toBe(creds.partner.key_file);
    expect(readFileSync(r.json.partner.key_file, 'utf8')).toContain('PRIVATE KEY');
    expect(r.text).not.toContain(secret);
    const before = await clock();
    const moved = await send(
      s.port,
      'POST',
      '/_sandbox/clock/advance',
      { host, 'x-sandbox-secret': secret, 'content-type': 'application/json' },
      '{"by":"1h"}',
    );
    expect(moved.status).toBe(200);
    expect((await clock()) - before).toBe(3_600_000);
    // localhost is loopback too: it cannot be rebound to a foreign address.
    expect(
      (await send(s.port, 'GET', '/_sandbox/clock', { host: `localhost:${s.port}`, 'x-sandbox-secret': secret }))
        .status,
    ).toBe(200);
  });

  it('no control secret (or a wrong one): 401 naming where the secret comes from, nothing changes', async () => {
    const before = await clock();
    const none = await send(s.port, 'GET', '/_sandbox/credentials', { host });
    expect(none.status).toBe(401);
    expect(none.json.message).toContain('X-Sandbox-Secret');
    expect(none.json.message).toContain('bookdist sandbox credentials');
    leaksNothing(none.text);
    const post = await send(
      s.port,
      'POST',
      '/_sandbox/clock/advance',
      { host, 'content-type': 'application/json' },
      '{"by":"1d"}',
    );
    expect(post.status).toBe(401);
    const wrong = await send(
      s.port,
      'POST',
      '/_sandbox/clock/advance',
      {
        host,
        'x-sandbox-secret': secret.slice(0, -1) + (secret.endsWith('A') ? 'B' : 'A'),
        'content-type': 'application/json',
      },
      '{"by":"1d"}',
    );
    expect(wrong.status).toBe(401);
    leaksNothing(wrong.text);
    for (const path of ['/_sandbox/outbox', '/_sandbox/clock', '/_sandbox']) {
      expect((await send(s.port, 'GET', path, { host })).status).toBe(401);
    }
    expect(await clock()).toBe(before);
  });

  it('a foreign Host (DNS rebinding): 403 even with the secret, nothing changes', async () => {
    const before = await clock();
    for (const h of [
      `evil.example:${s.port}`,
      'evil.example',
      `127.0.0.1.evil.example:${s.port}`,
      `localhost.evil.example`,
    ]) {
      const r = await send(s.port, 'GET', '/_sandbox/credentials', { host: h, 'x-sandbox-secret': secret });
      expect(r.status, h).toBe(403);
      expect(r.json.message).toContain('--allow-host');
      leaksNothing(r.text);
    }
    const post = await send(
      s.port,
      'POST',
      '/_sandbox/clock/advance',
      { host: `rebind.evil.example:${s.port}`, 'x-sandbox-secret': secret, 'content-type': 'application/json' },
      '{"by":"1d"}',
    );
    expect(post.status).toBe(403);
    // Host headers that only start like an allowed name: after the bracketed IPv6 address only a
    // port may follow, and a trailing dot or an extra port is another name.
    for (const h of [
      `[::1]evil.example:${s.port}`,
      '[::1]evil.example',
      `[::1]:${s.port}:80`,
      `[::1]x:${s.port}`,
      `localhost.:${s.port}`,
      `127.0.0.1.:${s.port}`,
      `127.0.0.1:${s.port}:80`,
    ]) {
      const r = await send(s.port, 'GET', '/_sandbox/clock', { host: h, 'x-sandbox-secret': secret });
      expect(r.status, h).toBe(403);
    }
    // Spellings of the bound address itself are fine.
    for (const h of [`LOCALHOST:${s.port}`, `[::1]:${s.port}`, '127.0.0.1']) {
      expect((await send(s.port, 'GET', '/_sandbox/clock', { host: h, 'x-sandbox-secret': secret })).status, h).toBe(
        200,
      );
    }
    // No Host at all: node:http already refuses an HTTP/1.1 request without one (400).
    const noHost = await send(s.port, 'GET', '/_sandbox/clock', { 'x-sandbox-secret': secret });
    expect(noHost.status).toBe(400);
    // HTTP/1.0 may omit Host, and node:http lets it through: the control routes refuse it.
    const raw10 = await new Promise<string>((resolve, reject) => {
      let text = '';
      const sock = connect(s.port, '127.0.0.1', () =>
        sock.end(`GET /_sandbox/clock HTTP/1.0\r\nX-Sandbox-Secret: ${secret}\r\n\r\n`),
      );
      sock.setEncoding('utf8').on('data', (d) => (text += d));
      sock.on('end', () => resolve(text)).on('error', reject);
    });
    expect(raw10).toMatch(/^HTTP\/1\.1 403 /);
    leaksNothing(raw10);
    expect(await clock()).toBe(before);
    // The service routes answer what the specification accepts, whatever the Host.
    const index = await send(s.port, 'GET', '/', { host: 'evil.example' });
    expect(index.status).toBe(200);
    // ...and the host the index names is the bound address, not the forged Host.
    expect(index.json.api.host).toBe('127.0.0.1');
    expect(index.text).not.toContain('evil.example');
  });

  it('a cross-origin POST: a foreign Origin, a same-site page, or a body that is not JSON is refused; nothing changes', async () => {
    const before = await clock();
    const json = { host, 'x-sandbox-secret': secret, 'content-type': 'application/json' };
    const foreign = await send(
      s.port,
      'POST',
      '/_sandbox/clock/advance',
      { ...json, origin: 'http://evil.example' },
      '{"by":"1d"}',
    );
    expect(foreign.status).toBe(403);
    expect(foreign.json.message).toContain('cross-origin');
    const otherPort = await send(
      s.port,
      'POST',
      '/_sandbox/clock/advance',
      { ...json, origin: `http://127.0.0.1:${s.port + 1}` },
      '{"by":"1d"}',
    );
    expect(otherPort.status).toBe(403);
    const nullOrigin = await send(
      s.port,
      'POST',
      '/_sandbox/clock/advance',
      { ...json, origin: 'null' },
      '{"by":"1d"}',
    );
    expect(nullOrigin.status).toBe(403);
    const sameSite = await send(
      s.port,
      'POST',
      '/_sandbox/clock/advance',
      { ...json, 'sec-fetch-site': 'same-site' },
      '{"by":"1d"}',
    );
    expect(sameSite.status).toBe(403);
    // What a page can send without a preflight: text/plain or a form, never application/json.
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const r = await send(
        s.port,
        'POST',
        '/_sandbox/clock/advance',
        { host, 'x-sandbox-secret': secret, 'content-type': type },
        '{"by":"1d"}',
      );
      expect(r.status, type).toBe(415);
      expect(r.json.message).toContain('application/json');
    }
    const untyped = await send(
      s.port,
      'POST',
      '/_sandbox/clock/advance',
      { host, 'x-sandbox-secret': secret },
      '{"by":"1d"}',
    );
    expect(untyped.status).toBe(415);
    expect(await clock()).toBe(before);
    // The sandbox's own origin is fine.
    const own = await send(
      s.port,
      'POST',
      '/_sandbox/clock/advance',
      { ...json, origin: `http://${host}` },
      '{"by":"1s"}',
    );
    expect(own.status).toBe(200);
  });

  it('the request log holds paths and statuses, never the secret', () => {
    expect(s.stderr()).toMatch(/^POST \/_sandbox\/clock\/advance 403 \d+ms -$/m);
    expect(s.stderr()).not.toContain(secret);
  });
});

describe('sandbox serve on a non-loopback address', () => {
  it('refuses to bind without --expose: exit 2 naming the option, nothing listens', () => {
    const r = spawnSync(
      process.execPath,
      [bin, 'sandbox', 'serve', '--host', '0.0.0.0', '--port', '0', '--db', join(tmp, 'wide.db')],
      { env: env(), encoding: 'utf8', timeout: 20_000 },
    );
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('--expose');
    expect(r.stderr).toContain('0.0.0.0');
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('with --expose: warns what it exposes; control routes still need an allowed Host and the secret', async () => {
    const db = join(tmp, 'wide.db');
    const s = await serve([
      '--host',
      '0.0.0.0',
      '--expose',
      '--allow-host',
      'sandbox.test',
      '--public-url',
      'http://sandbox.test:8710',
      '--db',
      db,
    ]);
    try {
      expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const warning = s.stderr();
      expect(warning).toMatch(/warning: --expose: the sandbox listens on 0\.0\.0\.0:\d+/);
      for (const word of ['service API', 'reader', 'control routes', 'plain HTTP']) expect(warning).toContain(word);
      const secret = credentialsOf(db).control_secret;
      expect(warning).not.toContain(secret);
      const ok = await send(s.port, 'GET', '/_sandbox/clock', {
        host: `127.0.0.1:${s.port}`,
        'x-sandbox-secret': secret,
      });
      expect(ok.status).toBe(200);
      const named = await send(s.port, 'GET', '/_sandbox/clock', {
        host: `sandbox.test:${s.port}`,
        'x-sandbox-secret': secret,
      });
      expect(named.status).toBe(200);
      const foreign = await send(s.port, 'GET', '/_sandbox/clock', {
        host: `evil.example:${s.port}`,
        'x-sandbox-secret': secret,
      });
      expect(foreign.status).toBe(403);
      const noSecret = await send(s.port, 'GET', '/_sandbox/credentials', { host: `127.0.0.1:${s.port}` });
      expect(noSecret.status).toBe(401);
      // The index names the configured public URL's host, whatever Host the request carries.
      for (const h of [`evil.example:${s.port}`, `127.0.0.1:${s.port}`]) {
        expect((await send(s.port, 'GET', '/index/', { host: h })).json.api.host, h).toBe('sandbox.test');
      }
    } finally {
      expect(await s.stop()).toBe(0);
    }
  });
});

describe('sandbox serve: the service routes keep their signature checks', () => {
  let s: Served;
  let creds: any;
  let headers: Record<string, string>;

  beforeAll(async () => {
    const db = join(tmp, 'service.db');
    s = await serve(['--db', db]);
    creds = credentialsOf(db);
    const username = creds.partner.username;
    // What every signed GET of this account carries: a signature of the username alone.
    const signature = createSign('RSA-SHA256')
      .update(username, 'utf8')
      .sign(readFileSync(creds.partner.key_file, 'utf8'), 'base64');
    headers = {
      host: `127.0.0.1:${s.port}`,
      signature,
      'api-user': username,
      user: username,
      authorization: 'CryptoAuth',
    };
  });
  afterAll(async () => {
    expect(await s?.stop()).toBe(0);
  });

  it('a write whose fields come as a plain form, outside the signed `request`: 400, nothing created', async () => {
    const form = { ...headers, 'content-type': 'application/x-www-form-urlencoded' };
    const summary = async () => (await send(s.port, 'GET', '/v1/codes/summary/', headers)).json.codes_generated;
    const before = await summary();
    const codes = await send(
      s.port,
      'POST',
      '/v1/codes/generate/',
      form,
      `hash_id=${WELL_KNOWN.codeDistribution.hash_id}&org=x&count=2`,
    );
    expect(codes.status, codes.text).toBe(400);
    expect(codes.json.message).toContain('request');
    expect(await summary()).toBe(before);
    const email = 'unsigned-form@example.com';
    const user = await send(s.port, 'POST', '/v1/user/', form, `email=${encodeURIComponent(email)}`);
    expect(user.status, user.text).toBe(400);
    expect((await send(s.port, 'GET', `/v1/user/email/${encodeURIComponent(email)}/`, headers)).status).toBe(404);
    for (const [path, body] of [
      ['/v1/order/refund/', 'order_id=1'],
      ['/v1/order/free/', `username=${SEED_USERS[0].username}&hash_id=${WELL_KNOWN.readme.hash_id}`],
      ['/v1/user/invite/', 'email=unsigned-invite%40example.com'],
      [`/v1/book/${WELL_KNOWN.readme.hash_id}/process/`, 'force=true'],
    ]) {
      const r = await send(s.port, 'POST', path, form, body);
      expect(r.status, `${path} ${r.text}`).toBe(400);
    }
    // Reads keep taking a form, as a GET takes a query under the same signature (interface.md 4.2).
    const index = await send(s.port, 'POST', '/v1/book/index/', form, 'limit=2&offset=1');
    expect(index.status, index.text).toBe(200);
    expect(index.json.results).toHaveLength(2);
    // The signed `request` form of the same write is fine.
    const text = JSON.stringify({ hash_id: WELL_KNOWN.codeDistribution.hash_id, org: 'x', count: 1 });
    const signature = createSign('RSA-SHA256')
      .update(text, 'utf8')
      .sign(readFileSync(creds.partner.key_file, 'utf8'), 'base64');
    const signed = await send(
      s.port,
      'POST',
      '/v1/codes/generate/',
      { ...form, signature },
      `request=${encodeURIComponent(text)}`,
    );
    expect(signed.status, signed.text).toBe(200);
    expect(await summary()).toBe(before + 1);
  });
});
