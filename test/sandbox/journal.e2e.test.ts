// The request journal (issue 30, items 1-2) end to end: a partner-style run against a real
// sandbox, then `bookdist sandbox requests verify` passing and failing with a readable diff;
// `requests tail` seeing a request; one journal for two server processes on one database; and
// no secret of any request in any column of the journal's rows.
import { spawn, type ChildProcess } from 'node:child_process';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli } from '../helpers/cli.js';
import { startTestSandbox, WELL_KNOWN, type TestSandbox } from '../helpers/sandbox.js';
import { BILLING, clients, newUser, type Clients } from './_support.js';

let sb: TestSandbox;
let c: Clients;
let env: Record<string, string>;

beforeAll(async () => {
  sb = await startTestSandbox({ processDelayMs: 100 });
  c = clients(sb);
  env = { ...sb.env, BOOKDIST_SANDBOX_SECRET: sb.controlSecret };
});
afterAll(async () => {
  await c?.closeAll();
  await sb?.close();
});

const cli = (...args: string[]) => runCli(args, { env });
const readme = WELL_KNOWN.readme;

/**
 * Every row of the journal, every column, straight from the database file. Rows of requests that
 * wrote nothing reach the file within 50 ms, at once when a journal route is asked: ask one first.
 */
async function journalRows(dbPath: string, server: TestSandbox = sb): Promise<Array<Record<string, unknown>>> {
  expect((await server.control.call('GET', '/_sandbox/requests?limit=1')).status).toBe(200);
  const db = new DatabaseSync(dbPath, { readOnly: true });
  try {
    return db.prepare('SELECT * FROM journal ORDER BY id').all() as Array<Record<string, unknown>>;
  } finally {
    db.close();
  }
}

/** A child process's stdout and stderr so far, and a wait for text to appear in one of them. */
function watch(child: ChildProcess) {
  const out = { stdout: '', stderr: '' };
  const waiters: Array<() => void> = [];
  const poke = () => waiters.splice(0).forEach((w) => w());
  child.stdout!.setEncoding('utf8').on('data', (d) => ((out.stdout += d), poke()));
  child.stderr!.setEncoding('utf8').on('data', (d) => ((out.stderr += d), poke()));
  const until = async (where: 'stdout' | 'stderr', test: (s: string) => boolean) => {
    while (!test(out[where])) {
      if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${out.stderr}`);
      await new Promise<void>((r) => waiters.push(r));
    }
  };
  return { out, until };
}

function spawnCli(args: string[]): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: process.env.TMPDIR, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

const stopped = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

describe('sandbox requests verify after a partner-style run', () => {
  it('passes when the journal matches, fails with a readable diff when it does not', async () => {
    expect((await cli('sandbox', 'requests', 'clear', '--url', sb.url)).code).toBe(0);
    // The partner's integration: a user, an order the way its code sends one, and one it got wrong.
    const username = await newUser(c.partner, 'journal');
    const order = await c.partner.call('order.external', {
      payload: {
        username,
        digital_pricing: [readme.pricing[0].id],
        billing_address: BILLING,
        order_type: 'TestPlan',
        org: 'acme',
        send_email: true,
      },
    });
    expect(order.status).toBe(200);
    const wrong = await c.partner.call('order.external', {
      payload: {
        username,
        digital_pricing: [readme.pricing[0].id],
        billing_address: BILLING,
        order_type: 'POSPlan',
        org: 'acme',
      },
    });
    expect(wrong.status).toBe(400);

    const pass = await cli(
      'sandbox',
      'requests',
      'verify',
      '--url',
      sb.url,
      '--method',
      'POST',
      '--path',
      '/v1/order/external/',
      '--body',
      'order_type=TestPlan',
      '--count',
      '1',
    );
    expect(pass.stderr).toBe('');
    expect(pass.code).toBe(0);
    expect(pass.stdout).toMatch(
      /^ok: 1 request matched POST \/v1\/order\/external\/ with body.order_type = "TestPlan"/,
    );
    // --db reads the same journal from the file.
    const viaDb = await cli(
      'sandbox',
      'requests',
      'verify',
      '--db',
      sb.dbPath,
      '--method',
      'POST',
      '--path',
      '/v1/order/*',
      '--at-least',
      '2',
    );
    expect(viaDb.code).toBe(0);

    const fail = await cli(
      'sandbox',
      'requests',
      'verify',
      '--url',
      sb.url,
      '--method',
      'POST',
      '--path',
      '/v1/order/external/',
      '--body',
      'order_type=TestPlan',
      '--count',
      '2',
    );
    expect(fail.code).toBe(1);
    const lines = fail.stderr.split('\n');
    expect(lines[0]).toBe('requests verify failed: expected exactly 2 requests matching');
    expect(lines[1]).toBe('    POST /v1/order/external/ with body.order_type = "TestPlan"');
    expect(lines[2]).toBe('but 1 matched:');
    expect(lines[3]).toMatch(
      /^ {2}\+ #\d+ [\d:.]+ POST \/v1\/order\/external\/ 200 [\d.]+ms CryptoAuth [0-9a-f]{30} {2}order_type="TestPlan"$/,
    );
    expect(lines[4]).toBe('Near misses (same path or method, one field different):');
    expect(lines[5]).toMatch(
      /^ {2}- #\d+ .* POST \/v1\/order\/external\/ 400 .*: body\.order_type "POSPlan", not "TestPlan"$/,
    );

    const none = await cli(
      'sandbox',
      'requests',
      'verify',
      '--url',
      sb.url,
      '--method',
      'POST',
      '--path',
      '/v1/order/refund/',
      '--none',
    );
    expect(none.code).toBe(0);

    // What the order changed and the e-mail it caused, in the journal.
    const listed = JSON.parse(
      (
        await cli(
          'sandbox',
          'requests',
          'list',
          '--url',
          sb.url,
          '--path',
          '/v1/order/external/',
          '--status',
          '200',
          '--json',
        )
      ).stdout,
    );
    expect(listed.requests).toHaveLength(1);
    const shown = JSON.parse(
      (await cli('sandbox', 'requests', 'show', String(listed.requests[0].id), '--url', sb.url, '--json')).stdout,
    );
    const e = shown.request;
    expect(e).toMatchObject({
      method: 'POST',
      path: '/v1/order/external/',
      auth: 'CryptoAuth',
      account: sb.creds.partner.username,
      status: 200,
      endpoint: 'order.external',
    });
    expect(e.request).toMatchObject({ username, order_type: 'TestPlan', org: 'acme' });
    expect(e.response.order.id).toBe(order.body.order.id);
    expect(e.changes).toEqual({
      orders: [order.body.order.id],
      purchases: order.body.order.items.map((i: { id: number }) => i.id),
    });
    const mails = await sb.control.outbox();
    expect(e.emails).toEqual([mails[mails.length - 1].id]);
  });
});

describe('sandbox requests tail', () => {
  it('prints a request the sandbox serves while it follows', async () => {
    const tail = spawnCli(['sandbox', 'requests', 'tail', '--url', sb.url, '--path', '/v1/book/*']);
    try {
      const w = watch(tail);
      await w.until('stderr', (s) => s.includes('Ctrl-C stops'));
      const r = await c.partner.call('book.get', { params: { hash_id: readme.hash_id } });
      expect(r.status).toBe(200);
      await w.until('stdout', (s) => s.includes(`GET /v1/book/${readme.hash_id}/ 200`));
      expect(w.out.stdout).toMatch(
        new RegExp(
          `^#\\d+ [\\d:.]+ GET /v1/book/${readme.hash_id}/ 200 [\\d.]+ms CryptoAuth ${sb.creds.partner.username}\\n$`,
        ),
      );
    } finally {
      await stopped(tail);
    }
  });
});

describe('sandbox requests tail --json', () => {
  it('prints each request as one JSON object on a line of its own, as it comes', async () => {
    const tail = spawnCli(['sandbox', 'requests', 'tail', '--url', sb.url, '--path', '/v1/book/*', '--json']);
    try {
      const w = watch(tail);
      await w.until('stderr', (s) => s.includes('Ctrl-C stops'));
      expect((await c.partner.call('book.get', { params: { hash_id: readme.hash_id } })).status).toBe(200);
      await w.until('stdout', (s) => s.endsWith('\n'));
      const lines = w.out.stdout.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      const e = JSON.parse(lines[0]);
      expect(e).toMatchObject({
        method: 'GET',
        path: `/v1/book/${readme.hash_id}/`,
        status: 200,
        auth: 'CryptoAuth',
        account: sb.creds.partner.username,
      });
      expect(e.response.book.hash_id).toBe(readme.hash_id);
      expect(typeof e.id).toBe('number');
      // A second request is a second line: each one is written as it comes, not at the end.
      expect((await c.partner.call('book.get', { params: { hash_id: readme.hash_id } })).status).toBe(200);
      await w.until('stdout', (s) => s.split('\n').length === 3);
      expect(JSON.parse(w.out.stdout.trimEnd().split('\n')[1]).id).toBeGreaterThan(e.id);
    } finally {
      await stopped(tail);
    }
  });

  it('refuses the formats a stream cannot be printed in, naming the ones it can', async () => {
    const r = await cli('sandbox', 'requests', 'tail', '--url', sb.url, '-o', 'csv');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('one JSON object per line with --json or -o ndjson');
  });
});

describe('one journal for every process serving a database', () => {
  it('a second `sandbox serve` on the same file writes to the same journal; each sees both', async () => {
    const second = spawnCli(['sandbox', 'serve', '--port', '0', '--db', sb.dbPath]);
    try {
      const w = watch(second);
      await w.until('stdout', (s) => /^http:\/\/\S+\n/.test(s));
      const url2 = w.out.stdout.trim();
      const tag = `two-servers-${Date.now()}`;
      for (const base of [sb.url, url2]) {
        const res = await fetch(`${base}/v1/book/index/?offset=0&limit=1&tag=${tag}`, {
          headers: {
            'api-user': sb.creds.partner.username,
            user: sb.creds.partner.username,
            'api-key': sb.creds.partner.sharedKey,
            authorization: 'SharedKeyAuth',
            version: 'v1',
          },
        });
        expect(res.status).toBe(200);
        await res.arrayBuffer();
      }
      for (const base of [sb.url, url2]) {
        // The other process's lookup row waits up to 50 ms for its timer (longer on a loaded machine,
        // where that process may not run for a while): asked again until both are there, for 5 s at most.
        let ours: { query: string; at: string; id: number; headers: { host: string } }[] = [];
        for (const end = Date.now() + 5_000; ours.length < 2 && Date.now() < end; ) {
          const listed = JSON.parse(
            (await cli('sandbox', 'requests', 'list', '--url', base, '--path', '/v1/book/index/', '--json')).stdout,
          );
          ours = listed.requests.filter((e: { query: string }) => e.query.includes(tag));
        }
        expect(ours.map((e: { headers: { host: string } }) => e.headers.host)).toEqual([
          new URL(sb.url).host,
          new URL(url2).host,
        ]);
        // Listed by the time each came (the hosts' order above); ids are the order rows reached the file,
        // which across two processes need not be the same: a lookup's row waits up to 50 ms to be written.
        expect(Date.parse(ours[0].at)).toBeLessThanOrEqual(Date.parse(ours[1].at));
        expect(ours[0].id).not.toBe(ours[1].id);
      }
    } finally {
      await stopped(second);
    }
  });
});

describe('no secret in the journal', () => {
  it('signatures, shared keys, the operator token, passwords, the control secret and reader tokens are redacted in every column', async () => {
    const password = `Pw-${Date.now()}-secret`;
    const user = await c.partner.call('user.create', {
      payload: { email: `journal.secret.${Date.now()}@example.com`, passwd: password, passwd_confirm: password },
    });
    expect(user.status).toBe(200);
    const username = user.body.username;
    const generated = await c.shared.call('user.create', {
      payload: { email: `journal.gen.${Date.now()}@example.com` },
    });
    expect(generated.body.passwd).toBeTruthy();
    // The operator token, as a shared key and as a Bearer token.
    const allow = await c.operator.call('access.allow', {
      payload: { hash_id: readme.hash_id, username, price: '1.00' },
    });
    expect(allow.status).toBe(200);
    const bearer = await fetch(`${sb.url}/v1/access/revoke/`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${sb.creds.operatorToken}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ request: JSON.stringify({ hash_id: readme.hash_id, username }) }).toString(),
    });
    expect(bearer.status).toBe(200);
    // A reader URL carries a session token; a password inside a body that is not JSON.
    await c.partner.call('order.external', {
      payload: {
        username,
        digital_pricing: [readme.pricing[0].id],
        billing_address: BILLING,
        order_type: 'TestPlan',
        org: 'acme',
      },
    });
    const viewer = await c.partner.call('book.viewer', { payload: { username, hash_id: readme.hash_id } });
    const readerToken = /\/reader\/([0-9a-f]{32})\//.exec(viewer.body.viewer_url)![1];
    const broken = await fetch(`${sb.url}/v1/user/`, {
      method: 'POST',
      headers: {
        'api-user': sb.creds.partner.username,
        user: sb.creds.partner.username,
        'api-key': sb.creds.partner.sharedKey,
        authorization: 'SharedKeyAuth',
      },
      body: new URLSearchParams({ request: `{"email": "x@example.com", "passwd": "${password}-raw", ` }).toString(),
    });
    expect(broken.status).toBe(400);
    const reader = await fetch(`${sb.url}/reader/${readerToken}/`);
    await reader.arrayBuffer();
    // The control routes: the secret header, and the credentials answer (shared keys, the token).
    await sb.control.call('GET', '/_sandbox/credentials');

    const secrets = {
      partnerSharedKey: sb.creds.partner.sharedKey,
      limitedSharedKey: sb.creds.limited.sharedKey,
      operatorToken: sb.creds.operatorToken,
      controlSecret: sb.controlSecret,
      password,
      generatedPassword: generated.body.passwd as string,
      readerToken,
    };
    const rows = await journalRows(sb.dbPath);
    const text = JSON.stringify(rows);
    for (const [name, value] of Object.entries(secrets))
      expect(text.includes(value), `${name} is in the journal`).toBe(false);
    expect(text).not.toMatch(/PRIVATE KEY/);
    // Every signature the partner sent (each a 344-character base64 text) is gone too.
    expect(text).not.toMatch(/[A-Za-z0-9+/]{300,}={0,2}/);
    // ...and the rows are there, with the redaction marker where the secrets were.
    const signed = rows.find((r) => r.auth === 'CryptoAuth' && String(r.headers).includes('signature'))!;
    expect(JSON.parse(String(signed.headers)).signature).toBe('[redacted]');
    const created = rows.find((r) => r.endpoint === 'user.create' && String(r.request).includes('journal.secret'))!;
    expect(JSON.parse(String(created.request))).toMatchObject({ passwd: '[redacted]', passwd_confirm: '[redacted]' });
    expect(rows.some((r) => r.auth === 'token' && r.account === 'operator')).toBe(true);
    expect(rows.some((r) => String(r.path) === '/reader/[redacted]/')).toBe(true);
  });

  it('codes are kept in full (they are sandbox codes) unless the server redacts them', async () => {
    const gen = await c.partner.call('codes.generate', { payload: { hash_id: readme.hash_id, org: 'acme', count: 2 } });
    expect(gen.status).toBe(200);
    const codes: string[] = gen.body.codes.map((x: { code: string }) => x.code);
    const text = JSON.stringify(await journalRows(sb.dbPath));
    for (const code of codes) expect(text).toContain(code);
    const listed = JSON.parse(
      (await cli('sandbox', 'requests', 'list', '--db', sb.dbPath, '--path', '/v1/codes/generate/', '--json')).stdout,
    );
    expect(listed.requests.at(-1).changes).toEqual({ codes: 2 });

    const redacting = await startTestSandbox({ processDelayMs: 100, journal: { redactCodes: true } });
    try {
      const rc = clients(redacting);
      try {
        const g = await rc.partner.call('codes.generate', {
          payload: { hash_id: readme.hash_id, org: 'acme', count: 2 },
        });
        const redactedText = JSON.stringify(await journalRows(redacting.dbPath, redacting));
        for (const x of g.body.codes) expect(redactedText).not.toContain(x.code);
        expect(redactedText).toContain('[redacted]');
      } finally {
        await rc.closeAll();
      }
    } finally {
      await redacting.close();
    }
  });
});
