// Regression tests for what the fuzz suite (test/openapi/fuzz.test.ts) found in the sandbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, loadRsaPrivateKey, type Credentials } from '../../src/api/wire.js';
import { startTestSandbox, WELL_KNOWN, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let creds: Credentials;
beforeAll(async () => {
  sb = await startTestSandbox();
  creds = { kind: 'crypto', username: sb.creds.partner.username, key: loadRsaPrivateKey(sb.creds.partner.keyPem) };
});
afterAll(() => sb?.close());

/** POST a form of plain fields (no `request`): CryptoAuth then signs the username (wire.md). */
async function postForm(path: string, form: string) {
  const res = await fetch(sb.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...authHeaders(creds, undefined) },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe('fuzz finding: a POST form without `request` had its fields ignored', () => {
  // Seed 151213009: `POST /v1/book/search/ author=D_&limit=[1]` answered 200 with every book.
  it('reads limit and offset from a POST form of the book index (interface.md 4.2)', async () => {
    const all = await postForm('/v1/book/index/', 'limit=500');
    expect(all.status).toBe(200);
    const page = await postForm('/v1/book/index/', 'limit=2&offset=1');
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ limit: 2, offset: 1, count: all.body.count });
    expect(page.body.results.map((b: any) => b.id)).toEqual(all.body.results.slice(1, 3).map((b: any) => b.id));
  });

  it('applies the search fields of a form, and refuses the ones that break a rule', async () => {
    const author = WELL_KNOWN.readme.author.split(' ')[0];
    const hit = await postForm('/v1/book/search/', `author=${encodeURIComponent(author)}&limit=50`);
    expect(hit.status).toBe(200);
    expect(hit.body.results.length).toBeGreaterThan(0);
    for (const b of hit.body.results) expect(b.author).toContain(author);
    const none = await postForm('/v1/book/search/', 'author=D_');
    expect(none.body.count).toBe(0);
    for (const form of ['limit=%5B1%5D', 'limit=501', 'offset=-1']) {
      const r = await postForm('/v1/book/search/', form);
      expect(r.status, form).toBe(400);
      expect(r.body).toMatchObject({ code: 400, error: true, test_mode: true });
      expect(r.body.message).toMatch(/"(limit|offset)"/);
    }
  });
});
