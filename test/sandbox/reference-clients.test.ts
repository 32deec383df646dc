// Every request form of the two public reference clients of this API, byte for byte as they
// send it (wire.md): the Python client (VirdocsSoftware/redshelf-api-client, client.py) and the
// Ruby client (bkr/redshelf-api-client-ruby, lib/redshelf_api_client/requests.rb + builder.rb).
// Each form must be accepted with the meaning its client intends: by the sandbox, and by a
// workspace of it made from a snapshot (issue 30: the reference clients work in a workspace as
// they do in the sandbox, its catalogue shared with the snapshot).
import { createSign } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { startTestSandbox, startTestWorkspace, WELL_KNOWN, type TestSandbox } from '../helpers/sandbox.js';
import { BILLING, buy, clients, newUser, uniqueEmail, type Clients } from './_support.js';

let sb: TestSandbox;
let c: Clients;

function sign(message: string): string {
  return createSign('RSA-SHA256').update(message, 'utf8').sign(sb.creds.partner.keyPem, 'base64');
}

interface Answer {
  status: number;
  json: any;
}

async function send(
  method: 'GET' | 'POST',
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Answer> {
  const res = await request(sb.url + path, { method, headers, body });
  const text = await res.body.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = { text };
  }
  return { status: res.statusCode, json };
}

// ------------------------------------------------------------------ Python client

/** simplejson.dumps: `", "` and `": "` separators, non-ASCII as \uXXXX (ensure_ascii). */
function pyDumps(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string')
    return JSON.stringify(v).replace(
      /[\u0080-\uffff]/g,
      (ch) => '\\u' + ch.charCodeAt(0).toString(16).padStart(4, '0'),
    );
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return '[' + v.map(pyDumps).join(', ') + ']';
  return (
    '{' +
    Object.entries(v as object)
      .map(([k, x]) => `${pyDumps(k)}: ${pyDumps(x)}`)
      .join(', ') +
    '}'
  );
}

/** urllib's urlencode (quote_plus), as requests encodes `data={'request': ...}`. */
const quotePlus = (s: string) =>
  encodeURIComponent(s)
    .replace(/[!'()*]/g, (ch) => '%' + ch.charCodeAt(0).toString(16).toUpperCase())
    .replace(/%20/g, '+');

/**
 * One call of the Python client: `_get_signed_headers` (signature over simplejson.dumps(payload),
 * or over the username when there is none), `requests.post(data={'request': ...})`.
 * `legacy`: the 0.x client's `auth_method: CRYPTO` header instead of `authorization: CryptoAuth`.
 */
function py(
  method: 'GET' | 'POST',
  path: string,
  payload?: Record<string, unknown>,
  opts: { query?: string; legacy?: boolean } = {},
) {
  const username = sb.creds.partner.username;
  const text = payload === undefined ? undefined : pyDumps(payload);
  const headers: Record<string, string> = {
    signature: sign(text ?? username),
    api_user: username,
    user: username,
    version: 'v1',
    ...(opts.legacy ? { auth_method: 'CRYPTO' } : { authorization: 'CryptoAuth' }),
  };
  if (text === undefined) return send(method, path + (opts.query ? `?${opts.query}` : ''), headers);
  headers['content-type'] = 'application/x-www-form-urlencoded';
  return send(method, path, headers, `request=${quotePlus(text)}`);
}

// ------------------------------------------------------------------ Ruby client

/** CGI.escape. */
const cgiEscape = (s: string) =>
  encodeURIComponent(s)
    .replace(/[!'()*~]/g, (ch) => '%' + ch.charCodeAt(0).toString(16).toUpperCase())
    .replace(/%20/g, '+');

/** The Ruby builder's params_to_string: `k=v&k2=v2`, values as they are. */
const rubyParams = (p: Record<string, unknown>) =>
  Object.entries(p)
    .map(([k, v]) => `${k}=${v}`)
    .join('&');

/**
 * One call of the Ruby client. Builder#url joins the components and adds `/` plus
 * params_to_string, which joins a GET's params as `a=1&b=2` with no `?`; setup_request then
 * appends another `/`: so every path ends in `//`, and a GET with params ends in
 * `/a=1&b=2/` (the params are a last path segment). Headers USER, API_USER, SIGNATURE (over
 * the compact JSON body, or the username), Accept; no authorization; the body
 * `request=<CGI.escape(json)>` with no type (Net::HTTP then supplies the form type).
 */
function rb(method: 'GET' | 'POST', components: string, payload?: Record<string, unknown>) {
  const username = sb.creds.partner.username;
  const base = components ? `/${components}` : '';
  const headers: Record<string, string> = { Accept: 'application/json', USER: username, API_USER: username };
  if (method === 'GET') {
    const url = base + '/' + (payload && Object.keys(payload).length ? rubyParams(payload) : '') + '/';
    headers.SIGNATURE = sign(username);
    return send('GET', url, headers);
  }
  const json = JSON.stringify(payload ?? {});
  headers.SIGNATURE = sign(json);
  return send('POST', base + '//', headers, `request=${cgiEscape(json)}`);
}

// ------------------------------------------------------------------ the forms

const hash = WELL_KNOWN.readme.hash_id;
const isbn = WELL_KNOWN.readme.isbn13;
const priceId = WELL_KNOWN.readme.pricing[0].id;

describe.each(['the sandbox', 'a workspace of a snapshot'])('%s', (where) => {
  let main: TestSandbox | undefined;
  beforeAll(async () => {
    main = await startTestSandbox({ processDelayMs: 100 });
    sb = where === 'the sandbox' ? main : await startTestWorkspace(main, 'reference');
    c = clients(sb);
  });
  afterAll(async () => {
    await c?.closeAll();
    if (sb !== main) await sb?.close();
    await main?.close();
  });

  describe('Python reference client: every method', () => {
    it('index: GET / without auth headers', async () => {
      const r = await send('GET', '/', {});
      expect(r.status).toBe(200);
      expect(r.json.api.current_version).toBe('v1');
    });

    it('profile and describe: GET signed over the username (1.0.x and the 0.x auth_method header)', async () => {
      for (const legacy of [false, true]) {
        const p = await py('GET', '/profile/', undefined, { legacy });
        expect(p.status, JSON.stringify(p.json)).toBe(200);
        expect(p.json.scopes).toContain('book_metadata');
      }
      const d = await py('GET', '/v1/describe/');
      expect(d.status).toBe(200);
      expect(d.json.endpoints.length).toBeGreaterThan(10);
    });

    it('book by hash_id, isbn, sku; pricing', async () => {
      for (const path of [`/v1/book/${hash}/`, `/v1/book/isbn/${isbn}/`, `/v1/book/sku/${WELL_KNOWN.readme.sku}/`]) {
        const r = await py('GET', path);
        expect(r.status, path).toBe(200);
        expect(r.json.book.hash_id).toBe(hash);
      }
      const pr = await py('GET', `/v1/book/isbn/${isbn}/pricing/`);
      expect(pr.status).toBe(200);
      expect(JSON.stringify(pr.json)).toContain(String(priceId));
    });

    it('book_search: isbn null with a title (0.x), and every key with nulls (1.0.x)', async () => {
      const word = WELL_KNOWN.readme.title.split(' ')[1];
      const a = await py('POST', '/v1/book/search/', { isbn: null, title: word });
      expect(a.status, JSON.stringify(a.json)).toBe(200);
      expect(a.json.results.map((b: any) => b.hash_id)).toContain(hash);
      const b = await py('POST', '/v1/book/search/', { isbn: [isbn], title: null, author: null, offset: 0, limit: 0 });
      expect(b.status).toBe(200);
      expect(b.json.count).toBe(1);
      expect(b.json.results[0].hash_id).toBe(hash);
    });

    it('book_index: GET ?offset=0&limit=0 (limit 0 = the default page)', async () => {
      const r = await py('GET', '/v1/book/index/', undefined, { query: 'offset=0&limit=0' });
      expect(r.status).toBe(200);
      expect(r.json.count).toBeGreaterThan(0);
      expect(r.json.results.length).toBe(Math.min(50, r.json.count));
    });

    it('book_viewer and book_process', async () => {
      const user = await newUser(c.partner, 'pyview');
      await buy(c.partner, user, [priceId]);
      const v = await py('POST', '/v1/book/viewer/', { username: user, hash_id: hash });
      expect(v.status, JSON.stringify(v.json)).toBe(200);
      expect(v.json.viewer_url).toMatch(/^http:\/\/.+\/reader\/[0-9a-f]{32}\/$/);
      const p = await py('POST', `/v1/book/${WELL_KNOWN.readme.hash_id}/process/`, { force: false, urgent: false });
      expect(p.status).toBe(200);
      expect(p.json.message).toBe('Book already processed.');
    });

    it('invite_user with profile and label null; non-ASCII names escaped as \\uXXXX', async () => {
      const email = uniqueEmail('pyinvite');
      const r = await py('POST', '/v1/user/invite/', {
        email,
        first_name: 'José',
        last_name: 'Müller',
        profile: null,
        label: null,
      });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      const u = await py('GET', `/v1/user/${r.json.username}/`);
      expect(u.json.user.first_name).toBe('José');
      expect(u.json.user.last_name).toBe('Müller');
      const byEmail = await py('GET', `/v1/user/email/${email}/`);
      expect(byEmail.status).toBe(200);
      expect(byEmail.json.user.username).toBe(r.json.username);
    });

    it('create user (1.0.x): passwords null means a generated one', async () => {
      const r = await py('POST', '/v1/user/', {
        email: uniqueEmail('pycreate'),
        first_name: 'Py',
        last_name: 'Thon',
        passwd: null,
        passwd_confirm: null,
        label: null,
      });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      expect(r.json.passwd.length).toBeGreaterThanOrEqual(8);
    });

    it('create_order (1.0.x) with org, order_type and send_email; user_orders lists it', async () => {
      const user = await newUser(c.partner, 'pyorder');
      const r = await py('POST', '/v1/order/external/', {
        username: user,
        digital_pricing: [priceId],
        billing_address: BILLING,
        shipping_address: {},
        send_email: false,
        org: 'acme',
        label: null,
        order_type: 'TestPlan',
      });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      const orders = await py('GET', `/v1/user/${user}/orders/`);
      expect(orders.status).toBe(200);
      expect(orders.json.results.map((o: any) => o.id)).toEqual([r.json.order.id]);
    });

    it('create_order of the 0.x client (no org, no order_type): 400 naming the missing field, nothing created', async () => {
      const user = await newUser(c.partner, 'pyorder0');
      const r = await py('POST', '/v1/order/external/', {
        username: user,
        digital_pricing: [priceId],
        billing_address: BILLING,
        shipping_address: {},
        label: null,
      });
      expect(r.status).toBe(400);
      expect(r.json.message).toMatch(/"(order_type|org)" is required/);
      expect((await py('GET', `/v1/user/${user}/orders/`)).json.count).toBe(0);
    });

    it('order_free with expiration_date and label null', async () => {
      const user = await newUser(c.partner, 'pyfree');
      const r = await py('POST', '/v1/order/free/', {
        username: user,
        hash_id: hash,
        expiration_date: null,
        label: null,
      });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
    });

    it('order_refund with its default items=[]: the whole order is refunded', async () => {
      const user = await newUser(c.partner, 'pyrefund');
      const order = await buy(c.partner, user, [priceId, WELL_KNOWN.otherPublisher.pricing[0].id]);
      const r = await py('POST', '/v1/order/refund/', { order_id: order.id, items: [], type: 'refund' });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      expect(r.json.refunds).toEqual(order.items.map((i: any) => ({ purchase_id: i.id, success: true })));
    });

    it('code generation and code summary (1.0.x)', async () => {
      const before = (await py('GET', '/v1/codes/summary/')).json.codes_generated;
      const r = await py('POST', '/v1/codes/generate/', {
        hash_id: WELL_KNOWN.codeDistribution.hash_id,
        org: 'acme',
        limit_days: null,
        expiration_date: null,
        count: 2,
        samples: false,
        label: null,
      });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      expect(r.json.codes).toHaveLength(2);
      expect((await py('GET', '/v1/codes/summary/')).json.codes_generated).toBe(before + 2);
    });

    it('import search with every key, nulls included (1.0.x)', async () => {
      const r = await py('POST', '/v1/import/search/', {
        isbn: null,
        title: WELL_KNOWN.importTitle.title.split(' ')[0],
        author: null,
        offset: 0,
        limit: 0,
      });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      expect(r.json.results.map((t: any) => t.title)).toContain(WELL_KNOWN.importTitle.title);
    });

    it('methods out of scope (order, order_usage, cart, create_cart, reindex, repeat): 404, as wire.md says', async () => {
      expect((await py('GET', '/v1/order/1/')).status).toBe(404);
      expect((await py('GET', '/v1/order/1/usage/')).status).toBe(404);
      expect((await py('POST', '/v1/cart/', { username: null, digital_pricing: [priceId] })).status).toBe(404);
      expect((await py('GET', '/v1/cart/0123456789abcdef/')).status).toBe(404);
      expect((await py('POST', `/v1/book/${hash}/reindex/`, {})).status).toBe(404);
      expect((await py('POST', '/repeat/', { a: 1 })).status).toBe(404);
    });
  });

  describe("Ruby reference client: every method (paths end in //, a GET's params in a last segment)", () => {
    it('index and profile', async () => {
      const i = await rb('GET', '');
      expect(i.status, JSON.stringify(i.json)).toBe(200);
      expect(i.json.api.current_version).toBe('v1');
      const p = await rb('GET', 'profile');
      expect(p.status, JSON.stringify(p.json)).toBe(200);
      expect(p.json.scopes).toContain('book_metadata');
    });

    it('book by hash_id and by isbn', async () => {
      for (const comp of [`v1/book/${hash}`, `v1/book/isbn/${isbn}`]) {
        const r = await rb('GET', comp);
        expect(r.status, comp).toBe(200);
        expect(r.json.book.hash_id).toBe(hash);
      }
    });

    it('book_search: isbn [] and author null with a title, limit 500 offset 0 (its page loop)', async () => {
      const word = WELL_KNOWN.readme.title.split(' ')[1];
      const r = await rb('POST', 'v1/book/search', { isbn: [], title: word, author: null, limit: 500, offset: 0 });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      expect(r.json.results.map((b: any) => b.hash_id)).toContain(hash);
    });

    it('book_index: GET /v1/book/index/limit=500&offset=0/ (its params as a last path segment, no `?`)', async () => {
      const all = await rb('GET', 'v1/book/index', { limit: 500, offset: 0 });
      expect(all.status, JSON.stringify(all.json)).toBe(200);
      expect(all.json.results.length).toBe(all.json.count);
      const page = await rb('GET', 'v1/book/index', { limit: 2, offset: 1 });
      expect(page.status).toBe(200);
      expect(page.json.results.map((b: any) => b.hash_id)).toEqual(
        all.json.results.slice(1, 3).map((b: any) => b.hash_id),
      );
    });

    it('book_viewer', async () => {
      const user = await newUser(c.partner, 'rbview');
      await buy(c.partner, user, [priceId]);
      const r = await rb('POST', 'v1/book/viewer', { username: user, hash_id: hash });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      expect(r.json.viewer_url).toContain('/reader/');
    });

    it('invite_user with profile null; create_user with passwords and a profile', async () => {
      const inv = await rb('POST', 'v1/user/invite', {
        email: uniqueEmail('rbinvite'),
        first_name: 'Ru',
        last_name: 'By',
        profile: null,
        label: null,
      });
      expect(inv.status, JSON.stringify(inv.json)).toBe(200);
      const email = uniqueEmail('rbcreate');
      const cr = await rb('POST', 'v1/user', {
        email,
        first_name: 'Ru',
        last_name: 'By',
        passwd: 'sesame-42',
        passwd_confirm: 'sesame-42',
        profile: { city: 'Oslo', country: 'NO' },
        label: null,
      });
      expect(cr.status, JSON.stringify(cr.json)).toBe(200);
      expect(cr.json.passwd).toBe('sesame-42');
      const u = await rb('GET', `v1/user/${cr.json.username}`);
      expect(u.status).toBe(200);
      expect(u.json.user.profile.city).toBe('Oslo');
      const byEmail = await rb('GET', `v1/user/email/${email}`);
      expect(byEmail.json.user.username).toBe(cr.json.username);
    });

    it('create_order: send_email "false", empty print and combo pricing; user_orders lists it', async () => {
      const user = await newUser(c.partner, 'rborder');
      const mailsBefore = (await sb.control.outbox()).length;
      const r = await rb('POST', 'v1/order/external', {
        username: user,
        digital_pricing: [priceId],
        print_pricing: [],
        combo_pricing: [],
        billing_address: BILLING,
        shipping_address: {},
        send_email: 'false',
        order_type: 'TestPlan',
        org: 'acme',
        label: null,
      });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      expect(r.json.order.items).toHaveLength(1);
      expect((await sb.control.outbox()).length).toBe(mailsBefore);
      const orders = await rb('GET', `v1/user/${user}/orders`);
      expect(orders.json.results.map((o: any) => o.id)).toEqual([r.json.order.id]);
    });

    it('create_order without order_type and org (the client sends ""): 400 naming the field', async () => {
      const user = await newUser(c.partner, 'rborder0');
      const r = await rb('POST', 'v1/order/external', {
        username: user,
        digital_pricing: [priceId],
        print_pricing: [],
        combo_pricing: [],
        billing_address: BILLING,
        shipping_address: {},
        send_email: 'true',
        order_type: '',
        org: '',
        label: null,
      });
      expect(r.status).toBe(400);
      expect(r.json.message).toMatch(/"(order_type|org)" is required/);
    });

    it('create_order with print options: 400, the sandbox sells none (not silently dropped)', async () => {
      const user = await newUser(c.partner, 'rbprint');
      const r = await rb('POST', 'v1/order/external', {
        username: user,
        digital_pricing: [priceId],
        print_pricing: [7],
        combo_pricing: [],
        billing_address: BILLING,
        shipping_address: {},
        send_email: 'false',
        order_type: 'TestPlan',
        org: 'acme',
        label: null,
      });
      expect(r.status).toBe(400);
      expect(r.json.message).toContain('print_pricing');
      expect((await rb('GET', `v1/user/${user}/orders`)).json.count).toBe(0);
    });

    it('order_refund: its default items [] is the whole order; a list narrows it', async () => {
      const user = await newUser(c.partner, 'rbrefund');
      const whole = await buy(c.partner, user, [priceId, WELL_KNOWN.otherPublisher.pricing[0].id]);
      const r = await rb('POST', 'v1/order/refund', { order_id: whole.id, items: [], type: 'refund' });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      expect(r.json.refunds.map((x: any) => x.success)).toEqual([true, true]);
      const part = await buy(c.partner, user, [
        WELL_KNOWN.limitedPricing.pricing[0].id,
        WELL_KNOWN.otherPublisher.pricing[0].id,
      ]);
      const p = await rb('POST', 'v1/order/refund', { order_id: part.id, items: [part.items[1].id], type: 'refund' });
      expect(p.status).toBe(200);
      expect(p.json.refunds).toEqual([{ purchase_id: part.items[1].id, success: true }]);
    });

    it('order_free with a "YYYY-MM-DD HH:MM:SS" expiration date', async () => {
      const user = await newUser(c.partner, 'rbfree');
      const r = await rb('POST', 'v1/order/free', {
        username: user,
        hash_id: hash,
        expiration_date: '2031-01-02 03:04:05',
        label: null,
      });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      const orders = await rb('GET', `v1/user/${user}/orders`);
      expect(orders.json.results[0].items[0].expiration_date).toMatch(/^2031-01-02T03:04:05/);
    });

    it('allow_access with a "12.01" price and revoke_access, signed with CryptoAuth', async () => {
      const user = await newUser(c.partner, 'rbaccess');
      const a = await rb('POST', 'v1/access/allow', { hash_id: hash, username: user, price: '12.01' });
      expect(a.status, JSON.stringify(a.json)).toBe(200);
      const again = await rb('POST', 'v1/access/allow', { hash_id: hash, username: user, price: '12.01' });
      expect(again.status).toBe(400);
      const r = await rb('POST', 'v1/access/revoke', { hash_id: hash, username: user });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
    });

    it('code_generation with samples "false" and nulls; code_summary', async () => {
      const before = (await rb('GET', 'v1/codes/summary')).json.codes_generated;
      const r = await rb('POST', 'v1/codes/generate', {
        hash_id: WELL_KNOWN.codeDistribution.hash_id,
        count: 3,
        org: 'acme',
        limit_days: null,
        expiration_date: null,
        samples: 'false',
        label: null,
      });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      expect(r.json.codes).toHaveLength(3);
      expect((await rb('GET', 'v1/codes/summary')).json.codes_generated).toBe(before + 3);
    });

    it('methods out of scope (order_usage, catalogue, catalogue_delta): 404', async () => {
      expect((await rb('GET', 'v1/order/1/usage')).status).toBe(404);
      expect((await rb('POST', 'v1/catalogue', { date: '2024-01-01' })).status).toBe(404);
      expect((await rb('POST', 'v1/catalogue/delta', { start_datetime: '2024-01-01 00:00' })).status).toBe(404);
    });
  });

  describe('what the clients pass through from their callers', () => {
    it('a title starting with a NUL character: 400 naming the field, never every book', async () => {
      for (const title of ['\u0000', '\u0000Ledger', 'Ledger\u0000']) {
        const r = await py('POST', '/v1/book/search/', { isbn: null, title });
        expect(r.status, JSON.stringify(title)).toBe(400);
        expect(r.json.message).toContain('"title"');
      }
      const imp = await py('POST', '/v1/import/search/', { title: '\u0000' });
      expect(imp.status).toBe(400);
      const inv = await py('POST', '/v1/user/invite/', { email: uniqueEmail('nul'), first_name: '\u0000Eve' });
      expect(inv.status).toBe(400);
      expect(inv.json.message).toContain('"first_name"');
    });

    it('a doubled slash inside the path is still not an endpoint', async () => {
      expect((await py('GET', `/v1//book/${hash}/`)).status).toBe(404);
    });
  });
});
