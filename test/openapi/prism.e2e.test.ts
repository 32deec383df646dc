// Prism's validating proxy (`prism proxy <sandbox>/openapi.json <sandbox> --errors`) in front of
// the sandbox, with the document exactly as served: the CLI's traffic through it (every command
// group, both partner auth modes, the access API with the operator token, a small bulk job of each
// kind) breaks no request or response rule of the document; what the server accepts beyond the
// CLI's own requests (the ?request= GET forms, paths without the final slash, Idempotency-Key, the
// access API's XML errors) passes too; a payload that breaks its schema, sent as JSON, is refused
// by Prism before it reaches the service; and Prism re-serialises JSON bodies, which breaks a
// signature over a JSON text that is not JSON.stringify's (the document warns of it).
import { createSign } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiAjv } from '../helpers/openapi.js';
import { run } from '../helpers/run.js';
import { SEED_USERS, startTestSandbox, WELL_KNOWN, type TestSandbox } from '../helpers/sandbox.js';
import { startPrismProxy, tempDir, type PrismProxy } from './tools.js';

let sb: TestSandbox;
let prism: PrismProxy;
const dir = tempDir('bookdist-prism-');
const figures = { commands: { crypto: 0, shared: 0 }, requests: 0, violations: 0 };

beforeAll(async () => {
  sb = await startTestSandbox({ processDelayMs: 0 });
  prism = await startPrismProxy(`${sb.url}/openapi.json`, sb.url);
}, 120_000);

afterAll(async () => {
  await prism?.close();
  await sb?.close();
  dir.cleanup();
  // The closing figures of issue 18: commands, requests through Prism, violations.
  console.log(`prism: ${JSON.stringify(figures)}`);
});

const readme = WELL_KNOWN.readme;
const other = WELL_KNOWN.otherPublisher;
const u2 = SEED_USERS[1].username;

/** The seeded partner as SharedKeyAuth headers, for requests the CLI does not make itself. */
function sharedHeaders(): Record<string, string> {
  const u = sb.creds.partner.username;
  return {
    authorization: 'SharedKeyAuth',
    'api-key': sb.creds.partner.sharedKey,
    'api-user': u,
    user: u,
    version: 'v1',
  };
}

type Mode = 'crypto' | 'shared';

function envFor(mode: Mode): Record<string, string> {
  const env: Record<string, string> = {
    ...sb.env,
    BOOKDIST_BASE_URL: prism.url,
    BOOKDIST_STORE_URL: prism.url,
    BOOKDIST_CONFIG_DIR: join(dir.path, `config-${mode}`),
    BOOKDIST_DATA_DIR: join(dir.path, `data-${mode}`),
  };
  if (mode === 'shared') {
    delete env.BOOKDIST_KEY_FILE;
    env.BOOKDIST_SHARED_KEY = sb.creds.partner.sharedKey;
  }
  return env;
}

/** Run the CLI's whole tour of the service through Prism in one auth mode; every command must succeed. */
async function tour(mode: Mode): Promise<number> {
  const env = envFor(mode);
  const failures: string[] = [];
  let commands = 0;
  const cli = async (args: string[], input?: string) => {
    commands++;
    const r = await run(args, { env, input });
    if (r.code !== 0) failures.push(`bookdist ${args.join(' ')} -> exit ${r.code}: ${r.stderr.slice(0, 600)}`);
    return r;
  };
  const json = async (args: string[]) => {
    const r = await cli([...args, '--json']);
    try {
      return JSON.parse(r.stdout);
    } catch {
      return {};
    }
  };
  const f = (name: string, text: string) => dir.file(`${mode}-${name}`, text);
  const tag = `${mode}${Date.now() % 1e6}`;

  // The service, and the raw requests of `bookdist api`.
  await cli(['status']);
  await cli(['whoami']);
  await cli(['describe']);
  await cli(['api', 'GET', '/v1/codes/summary/']);
  await cli(['api', 'POST', '/v1/book/search/', '-f', 'title=Lighthouse']);
  // Books.
  await cli(['book', 'get', readme.hash_id]);
  await cli(['book', 'get', '--isbn', readme.isbn13]);
  await cli(['book', 'get', '--sku', readme.sku]);
  await cli(['book', 'pricing', '--isbn', readme.isbn13]);
  await cli(['book', 'search', '--title', 'Lighthouse']);
  await cli(['book', 'search', '--isbn', readme.isbn13, '--isbn', other.isbn13, '--hash-id', other.hash_id]);
  await cli(['book', 'search', '--title', 'the', '--all', '--limit', '10', '-o', 'ndjson']);
  await cli(['book', 'list']);
  await cli(['book', 'list', '--all', '--limit', '10', '-o', 'csv']);
  await cli(['book', 'process', WELL_KNOWN.unprocessed.hash_id]);
  // Users.
  const created = await json([
    'user',
    'create',
    '--email',
    `create-${tag}@example.com`,
    '--first-name',
    'Ada',
    '--last-name',
    'Byron',
  ]);
  const user: string = created.username;
  await cli(['user', 'invite', '--email', `invite-${tag}@example.com`, '--first-name', 'Grace']);
  await cli(['user', 'get', user]);
  await cli(['user', 'get', '--email', `create-${tag}@example.com`]);
  // Orders, the purchase and the reader.
  const free = await json([
    'order',
    'free',
    '--username',
    user,
    '--hash-id',
    readme.hash_id,
    '--expires',
    '2031-01-31',
  ]);
  const external = await json([
    'order',
    'create',
    '--username',
    user,
    '--pricing-id',
    String(other.pricing[0].id),
    '--order-type',
    'TestPlan',
    '--org',
    'harborlane',
    '--billing-name',
    'Ada Byron',
    '--billing-postal-code',
    'EC1A 1BB',
    '--billing-country',
    'GB',
    '--order-number',
    `T-${tag}`,
  ]);
  await cli(['user', 'orders', user]);
  await cli(['user', 'purchase', user, String(free.order?.items?.[0]?.id), '--refund-data']);
  await cli(['user', 'purchase', user, String(external.order?.items?.[0]?.id)]);
  await cli(['book', 'viewer', '--username', user, '--hash-id', readme.hash_id]);
  await cli(['order', 'refund', '--order-id', String(external.order?.id), '--yes']);
  // Codes and imports.
  await cli(['codes', 'generate', '--hash-id', readme.hash_id, '--org', 'acme', '--count', '3', '--limit-days', '30']);
  await cli(['codes', 'summary']);
  await cli(['import', 'search', '--title', 'the']);
  await cli(['import', 'search', '--all', '--limit', '5', '-o', 'ndjson']);
  // The access API, with the operator token.
  await cli([
    'access',
    'allow',
    '--hash-id',
    other.hash_id,
    '--username',
    user,
    '--price',
    '12.01',
    '--expires',
    '2031-01-31',
    '--send-email',
  ]);
  await cli(['access', 'revoke', '--hash-id', other.hash_id, '--username', user, '--yes']);
  // The store.
  await cli(['offers', 'get', '--isbn', readme.isbn13]);
  // Prism's proxy follows a redirect itself and then checks the cart page it landed on, which no
  // document of /checkout describes (stoplightio/prism#1977, open: no option to turn it off). So
  // `offers checkout` goes to the store directly, and its 302 is checked against the document below.
  const checkout = await run(['offers', 'checkout', '--id', String(readme.pricing[0].id), '--rejoiner-id', 'rj-1'], {
    env: { ...env, BOOKDIST_STORE_URL: sb.url },
  });
  commands++;
  if (checkout.code !== 0) failures.push(`offers checkout -> exit ${checkout.code}: ${checkout.stderr}`);
  // A small bulk job of each kind.
  await cli(['book', 'get', '--isbn-file', f('isbns.txt', `${readme.isbn13}\n${other.isbn13}\n`)]);
  await cli(['book', 'get', '--hash-id-file', f('hashes.txt', `${readme.hash_id}\n${other.hash_id}\n`)]);
  await cli(['book', 'process', '--from-file', f('process.txt', `${readme.hash_id}\n${other.hash_id}\n`)]);
  await cli([
    'user',
    'create',
    '--from-csv',
    f('roster.csv', `email,first_name\nr1-${tag}@example.com,Ann\nr2-${tag}@example.com,Bo\n`),
  ]);
  const bill = 'Ada Byron,EC1A 1BB,GB';
  await cli([
    'order',
    'create',
    '--from-csv',
    f(
      'orders.csv',
      `order_number,username,pricing_id,order_type,org,billing_full_name,billing_postal_code,billing_country\nC1-${tag},${user},${readme.pricing[0].id},TestPlan,harborlane,${bill}\nC1-${tag},${user},${other.pricing[0].id},TestPlan,harborlane,${bill}\n`,
    ),
  ]);
  const billing = { full_name: 'Ada Byron', postal_code: 'EC1A 1BB', country: 'GB' };
  await cli([
    'order',
    'create',
    '--from-ndjson',
    f(
      'orders.ndjson',
      JSON.stringify({
        order_number: `J1-${tag}`,
        username: user,
        digital_pricing: [readme.pricing[0].id],
        order_type: 'ExternalPlan',
        org: 'harborlane',
        billing_address: billing,
      }) + '\n',
    ),
  ]);
  await cli([
    'order',
    'free',
    '--from-csv',
    f(
      'free.csv',
      `username,hash_id,expiration_date\n${user},${WELL_KNOWN.limitedPricing.hash_id},2031-01-31\n${u2},${WELL_KNOWN.limitedPricing.hash_id},\n`,
    ),
  ]);
  await cli([
    'codes',
    'generate',
    '--hash-id',
    readme.hash_id,
    '--org',
    'acme',
    '--count',
    '25',
    '--batch-size',
    '10',
    '--out',
    join(dir.path, `${mode}-codes.csv`),
  ]);
  const grants = f(
    'grants.csv',
    `hash_id,username,price\n${WELL_KNOWN.deactivatedPrice.hash_id},${user},9.99\n${WELL_KNOWN.deactivatedPrice.hash_id},${u2},0\n`,
  );
  await cli(['access', 'allow', '--from-csv', grants]);
  await cli(['access', 'revoke', '--from-csv', grants, '--yes']);

  expect(user, 'user create printed the new username').toMatch(/^[0-9a-f]{30}$/);
  expect(failures).toEqual([]);
  return commands;
}

describe('the CLI through Prism validating proxy, with the document as served', () => {
  it('CryptoAuth: every command group, the access API with its token, a bulk job of each kind: 0 violations', async () => {
    figures.commands.crypto = await tour('crypto');
    await prism.settle();
    expect(prism.violations()).toEqual([]);
  }, 600_000);

  it('SharedKeyAuth: the same tour: 0 violations', async () => {
    figures.commands.shared = await tour('shared');
    await prism.settle();
    expect(prism.violations()).toEqual([]);
    figures.requests = prism.requests() - 2; // less the two settle() requests
    figures.violations = prism.violations().length;
    expect(figures.requests).toBeGreaterThan(figures.commands.crypto + figures.commands.shared);
  }, 600_000);
});

describe('the checkout redirect, which Prism cannot proxy', () => {
  it("answers the document's 302: the envelope and location in the body, the location header", async () => {
    const res = await fetch(`${sb.url}/checkout?ids=${readme.pricing[0].id}&rejoiner_ids=rj-1`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    const doc = (await (await fetch(sb.url + '/openapi.json')).json()) as any;
    const validate = openApiAjv(doc).response('/checkout', 'GET', 302);
    const body = (await res.json()) as any;
    expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
    expect(res.headers.get('location')).toBe(body.location);
    expect(doc.paths['/checkout'].get.responses['302'].headers.location.required).toBe(true);
  });
});

describe('what the server accepts beyond the CLI own requests, through Prism', () => {
  it('the ?request= GET forms, paths without the final slash, the Idempotency-Key and the access API XML errors: 0 violations', async () => {
    await prism.settle();
    const before = prism.violations().length;
    const token = { authorization: 'SharedKeyAuth', 'api-key': sb.creds.operatorToken };
    const q = (payload: object) => `?request=${encodeURIComponent(JSON.stringify(payload))}`;
    const user = SEED_USERS[0].username;
    const book = WELL_KNOWN.deactivatedPrice.hash_id;
    const get = (path: string, headers: Record<string, string>) =>
      fetch(prism.url + path, { headers: { accept: 'application/json', ...headers } });

    expect((await get('/v1/access/allow/' + q({ hash_id: book, username: user, price: '1.00' }), token)).status).toBe(
      200,
    );
    expect((await get('/v1/book/viewer/' + q({ hash_id: book, username: user }), sharedHeaders())).status).toBe(200);
    expect((await get('/v1/access/revoke/' + q({ hash_id: book, username: user }), token)).status).toBe(200);
    expect((await get('/v1/book/index/' + q({ limit: 2 }), sharedHeaders())).status).toBe(200);
    expect((await get('/v1/codes/summary', sharedHeaders())).status).toBe(200);
    expect((await get(`/v1/book/isbn/${readme.isbn13}`, sharedHeaders())).status).toBe(200);

    const generate = () =>
      fetch(prism.url + '/v1/codes/generate/', {
        method: 'POST',
        headers: {
          ...sharedHeaders(),
          'content-type': 'application/x-www-form-urlencoded',
          'idempotency-key': 'prism-key-1',
        },
        body: 'request=' + encodeURIComponent(JSON.stringify({ hash_id: readme.hash_id, org: 'acme', count: 2 })),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
    const a = await generate();
    const b = await generate();
    expect(a.status).toBe(200);
    expect(b.body.codes).toEqual(a.body.codes);

    const xml = await fetch(prism.url + '/v1/access/revoke/', {
      method: 'POST',
      headers: { ...token, accept: 'application/xml', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'request=' + encodeURIComponent(JSON.stringify({ hash_id: '0'.repeat(40), username: user })),
    });
    expect(xml.status).toBe(404);
    expect(await xml.text()).toMatch(/<error>The following errors were detected:<\/error>/);
    await prism.settle();
    expect(prism.violations().slice(before)).toEqual([]);
  });
});

describe('a JSON body must travel byte for byte, as the document says', () => {
  it("through Prism's proxy, which re-serialises JSON, a CryptoAuth JSON body passes only when its text is what JSON.stringify gives", async () => {
    const u = sb.creds.partner.username;
    const send = (base: string, member: string) =>
      fetch(base + '/v1/book/search/', {
        method: 'POST',
        headers: {
          authorization: 'CryptoAuth',
          signature: createSign('RSA-SHA256').update(member, 'utf8').sign(sb.creds.partner.keyPem, 'base64'),
          'api-user': u,
          user: u,
          version: 'v1',
          'content-type': 'application/json',
        },
        body: `{"request": ${member}}`,
      }).then((r) => r.status);
    const spaced = '{ "title" :  "Lighthouse",\n "limit": 2 }';
    const compact = JSON.stringify({ title: 'Lighthouse', limit: 2 });
    expect(await send(sb.url, spaced)).toBe(200);
    expect(await send(prism.url, spaced)).toBe(401);
    expect(await send(prism.url, compact)).toBe(200);
  });
});

describe('request payloads are checked where tools can check them', () => {
  const badCodes = { hash_id: readme.hash_id, org: 'acme', count: 5000, colour: 'red' };
  const post = (base: string, contentType: string, body: string) =>
    fetch(base + '/v1/codes/generate/', {
      method: 'POST',
      headers: { ...sharedHeaders(), 'content-type': contentType },
      body,
    });

  it('a payload that breaks its schema, sent as JSON, is refused by Prism (422) naming the fields, before the service sees it', async () => {
    await prism.settle();
    const before = prism.violations().length;
    const summary = async () =>
      ((await (await fetch(sb.url + '/v1/codes/summary/', { headers: sharedHeaders() })).json()) as any)
        .codes_generated;
    const generated = await summary();
    const r = await post(prism.url, 'application/json', JSON.stringify({ request: badCodes }));
    expect(r.status).toBe(422);
    const problem = (await r.json()) as any;
    const where = problem.validation.map((v: any) => v.location.join('.'));
    expect(where).toEqual(expect.arrayContaining(['body.request.count', 'body.request']));
    expect(JSON.stringify(problem.validation)).toMatch(/colour/);
    expect(await summary()).toBe(generated);
    await prism.settle();
    expect(prism.violations().length).toBe(before + 1);
    // The same payload in the form encoding: no generic tool decodes the field, so the service refuses it.
    const form = await post(
      prism.url,
      'application/x-www-form-urlencoded',
      'request=' + encodeURIComponent(JSON.stringify(badCodes)),
    );
    expect(form.status).toBe(400);
    expect(((await form.json()) as any).message).toMatch(/count|colour/);
    // A valid JSON body passes.
    const ok = await post(
      prism.url,
      'application/json',
      JSON.stringify({ request: { hash_id: readme.hash_id, org: 'acme', count: 1 } }),
    );
    expect(ok.status).toBe(200);
  });

  it('with the jsonSchemaDialect the document used to state, Prism let that payload through (the control)', async () => {
    const doc = JSON.parse(await (await fetch(sb.url + '/openapi.json')).text());
    doc.jsonSchemaDialect = 'https://spec.openapis.org/oas/3.1/dialect/base';
    const file = join(dir.path, 'with-dialect.json');
    writeFileSync(file, JSON.stringify(doc));
    expect(JSON.parse(readFileSync(file, 'utf8')).jsonSchemaDialect).toBeDefined();
    const old = await startPrismProxy(file, sb.url);
    try {
      const r = await post(old.url, 'application/json', JSON.stringify({ request: badCodes }));
      expect(r.status).toBe(400); // the service's refusal: Prism checked nothing
      await old.settle();
      expect(old.violations()).toEqual([]);
    } finally {
      await old.close();
    }
  }, 120_000);
});
