// `bookdist api` (the raw call) believes only a verified answer too (issue 28): the checks of the
// typed calls where they apply to a call that reads no member of the answer (the status, a JSON
// object, the envelope's success flags), a redirect never followed (except checkout's), a write
// (an endpoint of the table that writes, or any POST elsewhere) whose answer is not verified
// "outcome unknown" (and so in the ledger),
// while what the service said is still printed as it is. Against the hostile server on loopback.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answer, hostileEnv, hostileForFile } from '../helpers/hostile-server.js';
import { run } from '../helpers/run.js';

const server = hostileForFile();
const target = hostileForFile();
const HASH = 'fb02181f26270f72e261de20f8aadb9096f40802';
const USER = '0d72df20f23558620646fb3ea030f5';

let dir: string;
let env: Record<string, string | undefined>;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'bookdist-api-raw-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fresh = () => {
  env = hostileEnv(server.url, { XDG_STATE_HOME: mkdtempSync(join(dir, 'state-')) });
};
const api = (args: string[]) => run(['api', ...args], { env });
const ledger = async () =>
  JSON.parse((await run(['ledger', 'list', '--json'], { env })).stdout) as Array<{ status: string; op: string }>;

describe('bookdist api, a read of the table (GET /v1/codes/summary/)', () => {
  beforeAll(fresh);
  it('an HTML 200 (a captive portal): exit 1, not what the interface promises, nothing on stdout', async () => {
    server.on('GET', '/v1/codes/summary/', answer.html());
    const r = await api(['GET', '/v1/codes/summary/']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/the service's answer was not what the interface promises \(HTTP 200, text\/html/);
    expect(r.stderr).not.toMatch(/outcome is unknown/);
    expect(r.stdout).toBe('');
  });

  it('success:false or error:true: exit 1, and the JSON printed as the service sent it', async () => {
    for (const body of [
      { code: 200, success: false, message: 'no' },
      { code: 200, error: true, message: 'no' },
    ]) {
      server.reset();
      server.on('GET', '/v1/codes/summary/', answer.json(200, body));
      const r = await api(['GET', '/v1/codes/summary/', '-o', 'json']);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/not what the interface promises .*it says \\"(success\\": false|error\\": true)/s);
      expect(JSON.parse(r.stdout)).toEqual(body);
    }
  });

  it('members the typed call reads are not required: the raw call reads none, it prints them', async () => {
    const body = { code: 200, success: true, codes_redeemed: 1 };
    server.on('GET', '/v1/codes/summary/', answer.json(200, body));
    const r = await api(['GET', '/v1/codes/summary/', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(body);
  });

  it('a 301 to https: not followed, names the fix; a 302 elsewhere reaches nothing', async () => {
    const https = server.url.replace('http:', 'https:');
    server.on('GET', '/v1/codes/summary/', answer.redirect(`${https}/v1/codes/summary/`, 301));
    const r = await api(['GET', '/v1/codes/summary/']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`redirects to ${https}/v1/codes/summary/`);
    expect(r.stderr).toContain(`use ${https}`);
    server.reset();
    server.on('GET', '/v1/codes/summary/', answer.redirect(`${target.url}/elsewhere/`, 302));
    const elsewhere = await api(['GET', '/v1/codes/summary/']);
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toContain(`redirects to ${target.url}/elsewhere/`);
    expect(target.hits()).toBe(0);
  });

  it('the answer the interface promises (extra members too): exit 0, printed as it is', async () => {
    const body = {
      code: 200,
      success: true,
      test_mode: true,
      codes_generated: 3,
      codes_redeemed: 1,
      redemption_percentage: 33.3,
      region: 'eu',
    };
    server.on('GET', '/v1/codes/summary/', answer.json(200, body));
    const r = await api(['GET', '/v1/codes/summary/', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(body);
  });
});

describe('bookdist api, a write (POST /v1/access/revoke/)', () => {
  beforeAll(fresh);
  it.each([
    ['truncated JSON', answer.text(200, '{"code": 200, "success": tr', 'application/json')],
    ['success:false', answer.json(200, { code: 200, success: false })],
    ['a 301', answer.redirect('https://example.invalid/v1/access/revoke/', 301)],
  ])('%s: outcome unknown, recorded so in the ledger', async (_case, a) => {
    server.on('POST', '/v1/access/revoke/', a);
    const before = (await ledger()).length;
    const r = await api(['POST', '/v1/access/revoke/', '-f', `hash_id=${HASH}`, '-f', `username=${USER}`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/outcome is unknown/);
    expect(r.stderr).toMatch(/in the ledger: `bookdist ledger reconcile`/);
    const rows = await ledger();
    expect(rows.length).toBe(before + 1);
    expect(rows.at(-1)!.status).toBe('unknown');
    expect(server.hits('/v1/access/revoke/')).toBe(1);
  });

  it('the documented answer: done, exit 0, the ledger says done', async () => {
    server.on('POST', '/v1/access/revoke/', answer.ok({ message: 'Access revoked.' }));
    const r = await api([
      'POST',
      '/v1/access/revoke/',
      '-f',
      `hash_id=${HASH}`,
      '-f',
      `username=${USER}`,
      '-o',
      'json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).message).toBe('Access revoked.');
    expect((await ledger()).at(-1)!.status).toBe('done');
  });
});

describe('bookdist api, a path the table does not list', () => {
  beforeAll(fresh);
  it('GET: an HTML 200 is exit 1; JSON without envelope flags is printed, exit 0; error:true is exit 1 with the JSON printed', async () => {
    server.on('GET', '/v1/custom/', answer.html());
    const page = await api(['GET', '/v1/custom/']);
    expect(page.code).toBe(1);
    expect(page.stderr).toMatch(/not what the interface promises .*the body is not JSON/s);
    server.reset();
    server.on('GET', '/v1/custom/', answer.json(200, { anything: [1, 2] }));
    const plain = await api(['GET', '/v1/custom/', '-o', 'json']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(JSON.parse(plain.stdout)).toEqual({ anything: [1, 2] });
    server.reset();
    server.on('GET', '/v1/custom/', answer.json(200, { error: true, message: 'nope' }));
    const flagged = await api(['GET', '/v1/custom/', '-o', 'json']);
    expect(flagged.code).toBe(1);
    expect(flagged.stderr).toContain('it says \\"error\\": true');
    expect(JSON.parse(flagged.stdout)).toEqual({ error: true, message: 'nope' });
  });

  it('POST with an empty 200: outcome unknown (nothing says it changes nothing)', async () => {
    server.on('POST', '/v1/custom/', answer.empty());
    const r = await api(['POST', '/v1/custom/', '-f', 'a=b']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /outcome is unknown: the service's answer was not what the interface promises \(HTTP 200.*the body is empty/s,
    );
  });
});
