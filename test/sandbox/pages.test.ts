// The sandbox's pages over HTTP (in process): the reader and the test checkout, their headers
// (strict CSP, never framed, no referrer, no sniffing), links that a hostile Host header cannot
// aim elsewhere, and styled error pages with the right status codes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clients, raw, type Clients } from './_support.js';
import { startTestSandbox, WELL_KNOWN, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let c: Clients;
beforeAll(async () => {
  sb = await startTestSandbox();
  c = clients(sb);
});
afterAll(async () => {
  await c?.closeAll();
  await sb?.close();
});

const readme = WELL_KNOWN.readme;

async function newUser(tag: string): Promise<string> {
  const r = await c.partner.call('user.create', {
    payload: { email: `${tag}.${Date.now()}@example.com`, first_name: tag },
  });
  return r.body.username;
}
async function buy(user: string, pricingId: number) {
  const r = await c.partner.call('order.external', {
    payload: {
      username: user,
      digital_pricing: [pricingId],
      billing_address: { full_name: 'A B', postal_code: '1', country: 'US' },
      order_type: 'TestPlan',
      org: 'x',
      send_email: false,
    },
  });
  expect(r.status).toBe(200);
  return r.body.order;
}
async function viewerUrl(user: string, hashId = readme.hash_id): Promise<string> {
  const r = await c.partner.call('book.viewer', { payload: { username: user, hash_id: hashId } });
  expect(r.status).toBe(200);
  return r.body.viewer_url;
}

function expectPageHeaders(h: Record<string, string>) {
  expect(h['content-type']).toBe('text/html; charset=utf-8');
  expect(h['content-security-policy']).toMatch(
    /^default-src 'none'; style-src 'nonce-[A-Za-z0-9+/=]+'; script-src 'nonce-[A-Za-z0-9+/=]+'; img-src data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'$/,
  );
  expect(h['x-content-type-options']).toBe('nosniff');
  expect(h['x-frame-options']).toBe('DENY');
  expect(h['referrer-policy']).toBe('no-referrer');
}

/** Nothing the page loads or links to lies outside the sandbox. */
function expectNoExternal(html: string) {
  const refs = [...html.matchAll(/\b(?:src|href|action)="([^"]*)"/g)].map((m) => m[1]);
  for (const ref of refs) expect(ref, ref).not.toMatch(/^(?:[a-z]+:)?\/\//i);
  expect(html).not.toMatch(/@import|url\(/);
}

describe('the reader', () => {
  it('looks like a reader: TEST MODE, title, author, cover, text, previous/next, indicator, print; views and prints recorded', async () => {
    const user = await newUser('reader');
    await buy(user, readme.pricing[0].id);
    const url = await viewerUrl(user);
    expect(url.startsWith(sb.url + '/reader/')).toBe(true);
    const p1 = await raw(url);
    expect(p1.status).toBe(200);
    expectPageHeaders(p1.headers);
    expectNoExternal(p1.text);
    for (const bit of [
      'TEST MODE',
      'class="cover"',
      readme.author,
      `Page 1 of ${readme.num_pages}`,
      'Print this page',
      'href="./?page=2"',
      '<p>',
    ])
      expect(p1.text).toContain(bit);
    expect(p1.text).toContain(readme.title.replace(/'/g, '&#39;'));
    expect(p1.text).toMatch(/aria-disabled="true">← Previous/);
    await raw(url + '?page=2');
    await raw(url + '?page=2'); // a page seen again counts once
    const printed = await raw(url + 'print/?page=2');
    expect(printed.status).toBe(200);
    expect(printed.text).toContain('counted as printed');
    expect(printed.text).toMatch(/<script nonce="[^"]+">addEventListener\("load"/);
    const usage = await sb.control.usage({ username: user, hashId: readme.hash_id });
    expect(usage).toMatchObject({ pages_viewed: 2, pages_printed: 1 });
    // A printed page: the refund is refused.
    const orders = await c.partner.call('user.orders', { params: { username: user } });
    const refund = await c.partner.call('order.refund', { payload: { order_id: orders.body.results[0].id } });
    expect(refund.status).toBe(403);
    expect(refund.body.message).toMatch(/pages were printed/);
  });

  it('links come from the bound address, never from the Host header', async () => {
    const user = await newUser('host');
    await buy(user, readme.pricing[0].id);
    const body = `request=${encodeURIComponent(JSON.stringify({ username: user, hash_id: readme.hash_id }))}`;
    const r = await raw(`${sb.url}/v1/book/viewer/`, {
      method: 'POST',
      headers: {
        host: 'evil.example',
        'content-type': 'application/x-www-form-urlencoded',
        authorization: 'SharedKeyAuth',
        'api-user': sb.creds.partner.username,
        user: sb.creds.partner.username,
        'api-key': sb.creds.partner.sharedKey,
        version: 'v1',
      },
      body,
    });
    expect(r.status).toBe(200);
    expect(r.json.viewer_url.startsWith(`${sb.url}/reader/`)).toBe(true);
    const page = await raw(r.json.viewer_url, { headers: { host: 'evil.example' } });
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('evil.example');
    expectNoExternal(page.text);
    const cart = await raw(`${sb.url}/checkout?ids=1`, { headers: { host: 'evil.example' } });
    expect(cart.headers.location).toMatch(/^\/cart\/\?t=[0-9a-f]+$/);
  });

  it('unknown links, expired and revoked access get styled pages with 404, 410 and 403', async () => {
    const unknown = await raw(`${sb.url}/reader/${'0'.repeat(32)}/`);
    expect(unknown.status).toBe(404);
    expectPageHeaders(unknown.headers);
    expect(unknown.text).toContain('TEST MODE');
    expect(unknown.text).toContain('This reader link is not valid');
    expect((await raw(`${sb.url}/reader/not-a-token/`)).status).toBe(404);

    // Expired: a free order that ends, then the clock moves past it.
    const user = await newUser('expired');
    const until = new Date(Date.parse(await sb.control.now()) + 2 * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const free = await c.partner.call('order.free', {
      payload: { username: user, hash_id: WELL_KNOWN.otherPublisher.hash_id, expiration_date: until },
    });
    expect(free.status).toBe(200);
    const url = await viewerUrl(user, WELL_KNOWN.otherPublisher.hash_id);
    expect((await raw(url)).status).toBe(200);
    await sb.control.advanceClock('3d');
    const expired = await raw(url);
    expect(expired.status).toBe(410);
    expectPageHeaders(expired.headers);
    expect(expired.text).toContain('Access has expired');

    // Revoked: an access grant, then its revocation.
    const other = await newUser('revoked');
    const grant = await c.operator.call('access.allow', {
      payload: { username: other, hash_id: readme.hash_id, price: '1.00' },
    });
    expect(grant.status).toBe(200);
    const rurl = await viewerUrl(other);
    expect((await raw(rurl)).status).toBe(200);
    expect(
      (await c.operator.call('access.revoke', { payload: { username: other, hash_id: readme.hash_id } })).status,
    ).toBe(200);
    const revoked = await raw(rurl);
    expect(revoked.status).toBe(403);
    expect(revoked.text).toContain('Access was revoked');
  });
});

describe('the test checkout', () => {
  it('shows the items, their prices and the total; completing it creates one order, as order create does', async () => {
    const readmeLifetime = readme.pricing[0];
    const winter = WELL_KNOWN.limitedPricing.pricing[0];
    const go = await raw(`${sb.url}/checkout?ids=${readmeLifetime.id},${winter.id}`);
    expect(go.status).toBe(302);
    const cartUrl = sb.url + go.headers.location;
    const page = await raw(cartUrl);
    expect(page.status).toBe(200);
    expectPageHeaders(page.headers);
    expectNoExternal(page.text);
    expect(page.text).toContain(`data-price-id="${readmeLifetime.id}"`);
    expect(page.text).toContain(`data-price-id="${winter.id}"`);
    const total = (
      (Math.round(Number(readmeLifetime.price) * 100) + Math.round(Number(winter.price) * 100)) /
      100
    ).toFixed(2);
    expect(page.text).toContain(`id="total">USD ${total}`);
    expect(page.text).toContain('Complete test purchase');

    const email = `checkout.${Date.now()}@example.com`;
    const form = new URLSearchParams({
      username: '',
      email,
      first_name: 'Casey',
      billing_name: 'Casey Buyer',
      postal_code: '04101',
      country: 'US',
    }).toString();
    const post = () =>
      raw(cartUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: sb.url },
        body: form,
      });
    const done = await post();
    expect(done.status).toBe(303);
    const after = await raw(cartUrl);
    expect(after.text).toContain('Test purchase complete');
    const username = /id="username">([0-9a-f]{30})</.exec(after.text)![1];
    const orders = await c.partner.call('user.orders', { params: { username } });
    expect(orders.body.count).toBe(1);
    expect(orders.body.results[0].items.map((i: any) => i.book.hash_id).sort()).toEqual(
      [readme.hash_id, WELL_KNOWN.limitedPricing.hash_id].sort(),
    );
    expect(orders.body.results[0].totals.total).toBe(total);
    // Submitted again: still one order.
    expect((await post()).status).toBe(303);
    expect((await c.partner.call('user.orders', { params: { username } })).body.count).toBe(1);
  });

  it('refuses a form from another site, and a missing cart is a styled 404', async () => {
    const go = await raw(`${sb.url}/checkout?ids=1`);
    const cartUrl = sb.url + go.headers.location;
    const foreign = await raw(cartUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      body: 'username=&email=x@example.com',
    });
    expect(foreign.status).toBe(403);
    expectPageHeaders(foreign.headers);
    const missing = await raw(`${sb.url}/cart/?t=abc123`);
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('Cart not found');
    expect(missing.text).toContain('TEST MODE');
    const put = await raw(cartUrl, { method: 'PUT' });
    expect(put.status).toBe(405);
  });
});
