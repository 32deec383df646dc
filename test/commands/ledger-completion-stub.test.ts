// ledger reconcile and completion refresh in-process through the stub registry: the reads each
// sends, what it prints (a table and JSON where it prints data), and its main error with its exit
// code. A write whose answer is lost is made here too, through the same stubs.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { netError } from '../helpers/stub-http.js';
import { ok, refusal, sentOnce, stdoutJson, stubCli, StubRegistry } from './_stubs.js';

const cli = stubCli();

const USER = '1e83ef31034669731757fc4fb141a6';

/** A user create whose connection drops after sending: the ledger holds it as unknown. */
async function lostUserCreate(email: string): Promise<number> {
  const lost = new StubRegistry().on('POST', '/v1/user/', netError('ECONNRESET'));
  const r = await cli(lost, ['user', 'create', '--email', email]);
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(/the outcome is unknown/);
  return Number(/It is write (\d+) in the ledger/.exec(r.stderr)?.[1]);
}

describe('ledger reconcile', () => {
  it('settles a lost user create by looking the e-mail up: a table, then JSON; a settled write is not checked again', async () => {
    const id = await lostUserCreate('lost@example.com');
    const lookup = `/v1/user/email/${encodeURIComponent('lost@example.com')}/`;
    const http = new StubRegistry().on('GET', lookup, ok({ user: { username: USER, email: 'lost@example.com' } }));
    const t = await cli(http, ['ledger', 'reconcile', '-o', 'table']);
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout).toMatch(/^ID +OP +RESULT +HOW$/m);
    expect(t.stdout).toMatch(
      new RegExp(`^${id} +user create +confirmed +a user with this e-mail exists \\(${USER}\\)$`, 'm'),
    );
    expect(t.stderr).toMatch(/1 of 1 settled\./);
    expect(sentOnce(http, 'GET', lookup).headers['api-user']).toBe('stubpartner');
    const again = await cli(new StubRegistry(), ['ledger', 'reconcile', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(stdoutJson(again)).toEqual([]);
  });

  it('a user create that did not land (the e-mail look-up answers 404) is "not applied"', async () => {
    const id = await lostUserCreate('never@example.com');
    const lookup = `/v1/user/email/${encodeURIComponent('never@example.com')}/`;
    const http = new StubRegistry().on('GET', lookup, refusal(404, 'User not found.'));
    const r = await cli(http, ['ledger', 'reconcile', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(stdoutJson(r)).toMatchObject([{ id, op: 'user create' }]);
    expect(JSON.stringify(stdoutJson(r))).toMatch(/not applied/);
  });

  it('a read that fails leaves the write unknown: exit 6', async () => {
    const id = await lostUserCreate('busy@example.com');
    const lookup = `/v1/user/email/${encodeURIComponent('busy@example.com')}/`;
    const http = new StubRegistry().on('GET', lookup, refusal(503, 'Down for maintenance'), 2);
    const r = await cli(http, ['ledger', 'reconcile', '--retries', '1', '--json']);
    expect(r.code, r.stderr).toBe(6);
    expect(stdoutJson(r)).toMatchObject([{ id, op: 'user create' }]);
    expect(JSON.stringify(stdoutJson(r))).toMatch(/unknown/);
  });
});

describe('completion refresh', () => {
  const book = (n: number) => ({
    hash_id: n.toString(16).padStart(40, '0'),
    title: `Stub book ${n}`,
    author: 'Ada Stub',
    identifiers: { isbn13: `979${String(n).padStart(10, '0')}`, sku: `STB-${n}` },
  });

  it('pages through POST /v1/book/index/ 500 at a time and puts every book in the cache of ids', async () => {
    const all = Array.from({ length: 502 }, (_, i) => book(i + 1));
    const http = new StubRegistry()
      .on('POST', '/v1/book/index/', ok({ count: 502, results: all.slice(0, 500) }))
      .on('POST', '/v1/book/index/', ok({ count: 502, results: all.slice(500) }));
    const r = await cli(http, ['completion', 'refresh']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^502 books of profile "[^"]+" now complete at TAB/m);
    expect(http.requests.map((q) => q.payload)).toEqual([
      { offset: 0, limit: 500 },
      { offset: 500, limit: 500 },
    ]);
    const ids = join(cli.dir(), 'cache', 'bookdist', 'ids');
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)],
      );
    const cached = files(ids)
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
    expect(cached).toContain(all[0]!.hash_id);
    expect(cached).toContain(all[501]!.hash_id);
    expect(cached).toContain('Stub book 502');
  });

  it('refused credentials: exit 4, nothing said complete', async () => {
    const http = new StubRegistry().on('POST', '/v1/book/index/', refusal(401, 'Authentication failed.'));
    const r = await cli(http, ['completion', 'refresh']);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/Authentication failed/);
    expect(r.stderr).not.toMatch(/now complete at TAB/);
  });
});
