// The OpenAPI 3.1 document (src/spec/openapi.ts): valid by a well-kept validator, served by the
// sandbox at GET /openapi.json without credentials, printed by `bookdist sandbox openapi`, and
// describing exactly the routes the router serves.
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/spec/openapi.js';
import { listRoutes } from '../../src/sandbox/router.js';
import { runCli } from '../helpers/cli.js';
import { openApiAjv } from '../helpers/openapi.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let doc: any;

beforeAll(async () => {
  sb = await startTestSandbox();
  const res = await fetch(sb.url + '/openapi.json');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  doc = await res.json();
});
afterAll(() => sb?.close());

const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options', 'trace'];
const norm = (p: string) => (p === '/' ? '/' : p.replace(/\/$/, ''));

describe('the OpenAPI document', () => {
  it('is served at GET /openapi.json with no credentials, as generated, naming the server it came from', () => {
    expect(doc).toEqual(openApiDocument(sb.url));
    expect(doc.servers).toEqual([{ url: sb.url }]);
    expect(doc.openapi).toBe('3.1.0');
  });

  it('is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator)', async () => {
    const v = new Validator();
    const r = await v.validate(structuredClone(doc));
    expect(r.errors, JSON.stringify(r.errors, null, 1)?.slice(0, 2000)).toBeUndefined();
    expect(r.valid).toBe(true);
    expect(v.version).toBe('3.1');
    // The validator does reject a broken document (so the check above can fail).
    const broken = structuredClone(doc);
    broken.paths['/v1/book/search/'].post.responses = 'none';
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it('holds schemas that compile as JSON Schema 2020-12, and every $ref resolves', () => {
    const { schema } = openApiAjv(doc);
    for (const name of Object.keys(doc.components.schemas)) {
      expect(() => schema(`#/components/schemas/${name}`), name).not.toThrow();
    }
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]*"/g) ?? [];
    expect(refs.length).toBeGreaterThan(50);
    for (const r of new Set(refs)) {
      const name = /#\/components\/schemas\/(.+)"$/.exec(r)?.[1];
      expect(name && doc.components.schemas[name], r).toBeTruthy();
    }
  });

  it('describes every request field of the endpoint table with its type and whether it is required', () => {
    const schemas = doc.components.schemas;
    expect(schemas['order.external.request'].required).toEqual(['username', 'digital_pricing', 'billing_address', 'order_type', 'org']);
    expect(schemas['order.external.request'].additionalProperties).toBe(false);
    expect(schemas['codes.generate.request'].properties.count).toMatchObject({ type: 'integer', minimum: 1, maximum: 1000 });
    expect(schemas['order.external.request'].properties.order_number.anyOf[0]).toMatchObject({ type: 'string', maxLength: 20 });
    const search = doc.paths['/v1/book/search/'].post.requestBody.content['application/x-www-form-urlencoded'].schema;
    expect(search.anyOf[0].properties.request).toMatchObject({ type: 'string', contentMediaType: 'application/json' });
    expect(search.anyOf[1].properties.limit).toMatchObject({ type: 'integer', maximum: 500 });
    // A write takes its payload only in `request`, which the signature covers: no plain-field form.
    for (const path of ['/v1/codes/generate/', '/v1/order/free/', '/v1/order/refund/', '/v1/book/{hash_id}/process/', '/v1/user/invite/']) {
      const form = doc.paths[path].post.requestBody.content['application/x-www-form-urlencoded'].schema;
      expect(form.anyOf.map((s: any) => s.required), path).toEqual([['request']]);
    }
    // Endpoints that also take GET read a form as that GET's query.
    expect(doc.paths['/v1/access/allow/'].post.requestBody.content['application/x-www-form-urlencoded'].schema.anyOf).toHaveLength(2);
    // GET forms of the listings and the store take their fields in the query.
    const index = doc.paths['/v1/book/index/'].get.parameters.map((p: any) => [p.name, p.in, p.required]);
    expect(index).toEqual(expect.arrayContaining([['limit', 'query', false], ['offset', 'query', false]]));
    const offers = doc.paths['/api/offers.json'].get.parameters.map((p: any) => [p.name, p.in, p.required]);
    expect(offers).toEqual([['isbn', 'query', true]]);
    const purchase = doc.paths['/v1/user/{username}/purchase/{purchase_id}/'].get.parameters.filter((p: any) => p.in === 'path');
    expect(purchase.map((p: any) => [p.name, p.schema.type])).toEqual([['username', 'string'], ['purchase_id', 'integer']]);
  });

  it('documents the error body, XML errors on the access API, and both authentication schemes', () => {
    const s = doc.components.securitySchemes;
    expect(s.CryptoAuth).toMatchObject({ type: 'apiKey', in: 'header', name: 'signature' });
    expect(s.CryptoAuth.description).toMatch(/RSASSA-PKCS1-v1_5 with SHA-256/);
    expect(s.SharedKeyAuth).toMatchObject({ type: 'apiKey', in: 'header', name: 'api-key' });
    expect(doc.paths['/v1/book/search/'].post.security).toEqual([{ CryptoAuth: [], ApiUser: [] }, { SharedKeyAuth: [], ApiUser: [] }]);
    expect(doc.paths['/'].get.security).toEqual([]);
    expect(doc.paths['/v1/access/allow/'].post.security).toContainEqual({ OperatorToken: [] });
    expect(doc.paths['/v1/access/allow/'].post.responses['4XX'].content['application/xml']).toBeDefined();
    expect(doc.paths['/v1/book/search/'].post.responses['4XX'].content['application/xml']).toBeUndefined();
    expect(doc.components.schemas.Error.required).toEqual(['code', 'error', 'test_mode', 'message']);
  });

  it('lists every route the router serves, with its methods, and nothing else', () => {
    const fromRouter = new Set(listRoutes().flatMap((r) => r.methods.map((m) => `${m} ${norm(r.path)}`)));
    const fromDoc = new Set<string>();
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const m of METHODS) if (item[m]) fromDoc.add(`${m.toUpperCase()} ${norm(path)}`);
    }
    expect([...fromDoc].sort()).toEqual([...fromRouter].sort());
    expect(fromRouter.size).toBeGreaterThan(30);
  });

  it('matches what the running sandbox answers: documented operations are served, other methods get 405', async () => {
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      const concrete = path.replace(/\{(\w+)\}/g, (_, n) => (n === 'purchase_id' ? '1' : 'x'));
      for (const m of ['GET', 'POST', 'PUT', 'DELETE', 'PATCH']) {
        const res = await fetch(sb.url + concrete, { method: m, redirect: 'manual' });
        const text = await res.text();
        if (item[m.toLowerCase()]) {
          expect(res.status, `${m} ${path}`).not.toBe(405);
          expect(text, `${m} ${path}`).not.toMatch(/No such endpoint/);
        } else {
          expect(res.status, `${m} ${path} is not documented, so it must not be served`).toBe(405);
        }
        expect(res.status).toBeLessThan(500);
      }
    }
    const unknown = await fetch(sb.url + '/v1/not-an-endpoint/');
    expect(unknown.status).toBe(404);
    expect(Object.keys(doc.paths)).not.toContain('/v1/not-an-endpoint/');
  });

  it('is printed by `bookdist sandbox openapi`, the same document with the server given', async () => {
    const r = await runCli(['sandbox', 'openapi', '--server', sb.url], { env: { BOOKDIST_DATA_DIR: '/nonexistent/never-used' } });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(doc);
    const bad = await runCli(['sandbox', 'openapi', '--server', 'not a url']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--server/);
  });
});
