// --dry-run checks a payload against the service's OpenAPI document before printing the request
// (src/spec/check.ts): the form encoding's `request` is JSON text that generic OpenAPI tools do
// not decode, so bookdist gives partners that check itself.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkPayload, endpointFor } from '../../src/spec/check.js';
import { runCli } from '../helpers/cli.js';

const HASH = 'cee313141a0ce9a22774b32f87855d677d864cfb';
const dir = mkdtempSync(join(tmpdir(), 'bookdist-dry-check-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('checkPayload', () => {
  it('finds the endpoint by method, path and host, a literal segment winning over a parameter', () => {
    expect(endpointFor('POST', '/v1/codes/generate/', 'api')?.name).toBe('codes.generate');
    expect(endpointFor('POST', '/v1/codes/generate', 'api')?.name).toBe('codes.generate');
    expect(endpointFor('GET', '/v1/book/isbn/9781614001379/', 'api')?.name).toBe('book.isbn');
    expect(endpointFor('GET', '/v1/book/sku/HLP-0001/', 'api')?.name).toBe('book.sku');
    expect(endpointFor('GET', `/v1/book/${HASH}/`, 'api')?.name).toBe('book.get');
    expect(endpointFor('POST', `/v1/book/${HASH}/process/`, 'api')?.name).toBe('book.process');
    expect(endpointFor('GET', '/v1/user/email/a%40example.com/', 'api')?.name).toBe('user.email');
    expect(endpointFor('POST', '/v1/not-an-endpoint/', 'api')).toBeUndefined();
  });

  it('passes a payload the document accepts, and names every field that breaks it', () => {
    const ok = checkPayload({
      method: 'POST',
      path: '/v1/codes/generate/',
      host: 'api',
      requestText: JSON.stringify({ hash_id: HASH, org: 'acme', count: 3 }),
    });
    expect(ok).toEqual({
      endpoint: 'codes.generate',
      schema: '#/components/schemas/codes.generate.request',
      problems: [],
    });
    const bad = checkPayload({
      method: 'POST',
      path: '/v1/codes/generate/',
      host: 'api',
      requestText: JSON.stringify({ hash_id: 'xyz', count: 5000, colour: 'red' }),
    });
    expect(bad?.problems).toEqual(
      expect.arrayContaining([
        'the payload: missing field "org"',
        'the payload: unknown field "colour"',
        'count: must be <= 1000',
      ]),
    );
    expect(bad?.problems.some((p) => p.startsWith('hash_id: must match pattern'))).toBe(true);
    // The Python client's separators and a null for an absent field are fine.
    const python = checkPayload({
      method: 'POST',
      path: '/v1/book/search/',
      host: 'api',
      requestText: '{"title": "Harbour", "isbn": null, "limit": 5}',
    });
    expect(python?.problems).toEqual([]);
    expect(
      checkPayload({ method: 'POST', path: '/v1/book/search/', host: 'api', requestText: '{"title": ' })?.problems,
    ).toEqual(['the request text is not JSON']);
    // Nothing to check: a GET, or a path the document does not describe.
    expect(checkPayload({ method: 'GET', path: '/v1/codes/summary/', host: 'api' })).toBeUndefined();
    expect(checkPayload({ method: 'POST', path: '/v1/nowhere/', host: 'api', requestText: '{}' })).toBeUndefined();
  });
});

describe('bookdist --dry-run', () => {
  const env = {
    BOOKDIST_CONFIG_DIR: join(dir, 'config'),
    BOOKDIST_DATA_DIR: join(dir, 'data'),
    BOOKDIST_BASE_URL: 'http://127.0.0.1:9',
    BOOKDIST_USERNAME: '0d72df20f23558620646fb3ea030f5',
    BOOKDIST_SHARED_KEY: 'not-a-real-key',
  };

  it('refuses a payload that breaks the document, exit 2, naming the schema and the fields, and sends nothing', async () => {
    const r = await runCli(
      [
        '--dry-run',
        'api',
        'POST',
        '/v1/codes/generate/',
        '-F',
        'count=5000',
        '-f',
        `hash_id=${HASH}`,
        '-f',
        'org=acme',
      ],
      { env },
    );
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('#/components/schemas/codes.generate.request');
    expect(r.stderr).toContain('count: must be <= 1000');
    expect(r.stderr).toContain('nothing was sent');
  });

  it('prints the request of a payload that matches the document, as before', async () => {
    const r = await runCli(
      ['--dry-run', 'api', 'POST', '/v1/codes/generate/', '-F', 'count=5', '-f', `hash_id=${HASH}`, '-f', 'org=acme'],
      { env },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^curl -X POST 'http:\/\/127\.0\.0\.1:9\/v1\/codes\/generate\/' .*--data-urlencode 'request=\{"hash_id": "cee3[0-9a-f]+", "org": "acme", "count": 5\}'\n$/,
    );
  });
});
