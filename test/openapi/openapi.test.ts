// The OpenAPI 3.1 document (src/spec/openapi.ts): valid by a well-kept validator, served by the
// sandbox at GET /openapi.json without credentials, printed by `bookdist sandbox openapi`, and
// describing exactly the routes the router serves.
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/spec/openapi.js';
import { listRoutes } from '../../src/sandbox/http/router.js';
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

/**
 * fetch, sent again once if a kept-alive connection was closed under it (ECONNRESET): the server
 * drops idle connections after 5 s, which a loaded machine can leave between two requests. This
 * test is about routing, not the transport.
 */
async function fetchOnce(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (e: any) {
    if (e?.cause?.code !== 'ECONNRESET') throw e;
    return fetch(url, init);
  }
}

describe('the OpenAPI document', () => {
  it('is served at GET /openapi.json with no credentials, as generated, naming the server it came from', () => {
    expect(doc).toEqual(openApiDocument(sb.url));
    expect(doc.servers[0]).toMatchObject({ url: sb.url });
    // And a deployment's base URL, for the partner to fill in.
    expect(doc.servers[1]).toMatchObject({
      url: 'https://{host}',
      variables: { host: { default: expect.any(String) } },
    });
    expect(doc.openapi).toBe('3.1.0');
    // Stoplight's tools copy a stated jsonSchemaDialect into every schema as $schema, which their
    // validator does not know: Prism then validated no body at all.
    expect(doc).not.toHaveProperty('jsonSchemaDialect');
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
    expect(schemas['order.external.request'].required).toEqual([
      'username',
      'digital_pricing',
      'billing_address',
      'order_type',
      'org',
    ]);
    expect(schemas['order.external.request'].additionalProperties).toBe(false);
    expect(schemas['codes.generate.request'].properties.count).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 1000,
    });
    expect(schemas['order.external.request'].properties.order_number.anyOf[0]).toMatchObject({
      type: 'string',
      maxLength: 20,
    });
    const search = doc.paths['/v1/book/search/'].post.requestBody.content['application/x-www-form-urlencoded'].schema;
    expect(search.anyOf[0].properties.request).toMatchObject({ type: 'string', contentMediaType: 'application/json' });
    expect(search.anyOf[1].properties.limit).toMatchObject({ type: 'integer', maximum: 500 });
    // A write takes its payload only in `request`, which the signature covers: no plain-field form.
    for (const path of [
      '/v1/codes/generate/',
      '/v1/order/free/',
      '/v1/order/refund/',
      '/v1/book/{hash_id}/process/',
      '/v1/user/invite/',
    ]) {
      const form = doc.paths[path].post.requestBody.content['application/x-www-form-urlencoded'].schema;
      expect(form.anyOf, path).toBeUndefined();
      expect(form.required, path).toEqual(['request']);
    }
    // Endpoints that also take GET read a form as that GET's query.
    expect(
      doc.paths['/v1/access/allow/'].post.requestBody.content['application/x-www-form-urlencoded'].schema.anyOf,
    ).toHaveLength(2);
    // GET forms of the listings and the store take their fields in the query.
    const index = doc.paths['/v1/book/index/'].get.parameters.map((p: any) => [p.name, p.in, p.required]);
    expect(index).toEqual(
      expect.arrayContaining([
        ['limit', 'query', false],
        ['offset', 'query', false],
      ]),
    );
    const offers = doc.paths['/api/offers.json'].get.parameters.map((p: any) => [p.name, p.in, p.required]);
    expect(offers).toEqual([['isbn', 'query', true]]);
    const purchase = doc.paths['/v1/user/{username}/purchase/{purchase_id}/'].get.parameters.filter(
      (p: any) => p.in === 'path',
    );
    expect(purchase.map((p: any) => [p.name, p.schema.type])).toEqual([
      ['username', 'string'],
      ['purchase_id', 'integer'],
    ]);
  });

  it('documents the error body, XML errors on the access API, and both authentication schemes', () => {
    const s = doc.components.securitySchemes;
    expect(s.CryptoAuth).toMatchObject({ type: 'apiKey', in: 'header', name: 'signature' });
    expect(s.CryptoAuth.description).toMatch(/RSASSA-PKCS1-v1_5 with SHA-256/);
    expect(s.SharedKeyAuth).toMatchObject({ type: 'apiKey', in: 'header', name: 'api-key' });
    expect(doc.paths['/v1/book/search/'].post.security).toEqual([
      { CryptoAuth: [], ApiUser: [] },
      { SharedKeyAuth: [], ApiUser: [] },
    ]);
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
        const res = await fetchOnce(sb.url + concrete, { method: m, redirect: 'manual' });
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
    const r = await runCli(['sandbox', 'openapi', '--server', sb.url], {
      env: { BOOKDIST_DATA_DIR: '/nonexistent/never-used' },
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(doc);
    const bad = await runCli(['sandbox', 'openapi', '--server', 'not a url']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--server/);
  });
});

const operations = (d: any) =>
  Object.entries<any>(d.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((m) => ({ path, method: m, op: item[m] })),
  );

describe('the OpenAPI document, for partners and their tools', () => {
  it('gives every operation a summary and a description, and cites no file a partner does not have', () => {
    for (const { path, method, op } of operations(doc)) {
      expect(op.summary, `${method} ${path}`).toMatch(/\w/);
      expect(op.description?.length, `${method} ${path}`).toBeGreaterThan(40);
    }
    expect(JSON.stringify(doc).match(/.{60}(wire\.md|interface\.md|decisions\.md|src\/(api|spec)\/).{20}/g)).toBeNull();
    expect(doc.info.description).toMatch(/a literal segment wins over a parameter/i);
    expect(doc.info.description).toMatch(/Form payloads are validated by the service, not by generic\s+tools/);
    expect(doc.paths['/checkout'].get.description).toMatch(/must not follow it blindly/);
  });

  it('names one schema per operation for the decoded payload, from both encodings, and no schema nobody uses', () => {
    const body = doc.paths['/v1/codes/generate/'].post.requestBody.content;
    const ref = '#/components/schemas/codes.generate.request';
    expect(body['application/x-www-form-urlencoded'].schema.properties.request).toMatchObject({
      type: 'string',
      contentMediaType: 'application/json',
      contentSchema: { $ref: ref },
    });
    expect(body['application/json'].schema.properties.request).toEqual({ $ref: ref });
    const text = JSON.stringify(doc);
    for (const name of Object.keys(doc.components.schemas)) {
      expect(text.includes(`"#/components/schemas/${name}"`), `${name} is referenced`).toBe(true);
    }
  });

  it('documents the Idempotency-Key header where the service honours it', () => {
    for (const path of ['/v1/codes/generate/', '/v1/order/free/']) {
      const h = doc.paths[path].post.parameters.find((p: any) => p.in === 'header' && p.name === 'Idempotency-Key');
      expect(h, path).toMatchObject({
        required: false,
        schema: { type: 'string', maxLength: 255 },
        'x-sandbox-only': true,
      });
      expect(h.description).toMatch(/that answer again/);
      expect(h.description).toMatch(/remembers keys for the life of its database/);
    }
    expect(doc.paths['/v1/order/external/'].post.parameters ?? []).toEqual([]);
  });

  it('marks what only the sandbox does with x-sandbox-only and says so in a sentence', () => {
    const marked: string[] = [];
    const visit = (v: any, where: string) => {
      if (!v || typeof v !== 'object') return;
      if (v['x-sandbox-only'] === true) {
        marked.push(where);
        expect(v.description ?? v.schema?.description, where).toMatch(/Sandbox only \(`x-sandbox-only`\)/);
      }
      for (const [k, x] of Object.entries(v)) visit(x, `${where}/${k}`);
    };
    visit(doc.paths, '#/paths');
    // Paths without the final slash, the JSON bodies, the Idempotency-Key, the ?request= GET forms.
    expect(doc.paths['/v1/book/search'].post['x-sandbox-only']).toBe(true);
    expect(doc.paths['/v1/book/search'].post.operationId).toBe('book.search.noslash.post');
    expect(doc.paths['/v1/book/search/'].post['x-sandbox-only']).toBeUndefined();
    expect(marked).toContain('#/paths//v1/book/search/post');
    expect(marked.some((w) => w.endsWith('/content/application/json'))).toBe(true);
    expect(marked.some((w) => /parameters\/\d+$/.test(w))).toBe(true);
    const viewer = doc.paths['/v1/book/viewer/'].get.parameters;
    expect(viewer.find((p: any) => p.name === 'request')['x-sandbox-only']).toBe(true);
    // The GET forms take ?request=<JSON> instead of the fields, so no field is a required parameter.
    expect(viewer.filter((p: any) => p.required)).toEqual([]);
    expect(doc.paths['/v1/access/allow/'].get.parameters.filter((p: any) => p.required)).toEqual([]);
  });

  it('says exactly what each scheme signs and sends, that replays are possible, and that JSON bodies travel byte for byte', () => {
    const d = doc.info.description;
    expect(d).toMatch(/RSASSA-PKCS1-v1_5 with SHA-256/);
    expect(d).toMatch(/exact text of the `request` field's value/);
    expect(d).toMatch(/for a request without a body \(every GET\): the caller's username/);
    for (const h of ['authorization', 'signature', 'api-user', 'user', 'version', 'api-key'])
      expect(d).toContain(`\`${h}\``);
    expect(d).toMatch(/\*\*Replay\.\*\*/);
    expect(d).toMatch(/\*\*Bodies travel byte for byte\.\*\*/);
    expect(doc.components.securitySchemes.CryptoAuth.description).toMatch(/replayed/);
  });
});
