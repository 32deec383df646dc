// The sandbox's pages in a real browser: Debian's Chromium, headless, driven by playwright-core
// (no downloaded browser; `.ci/run` installs the `chromium` package when missing). A reader is
// paged forward three times and one page printed (then `sandbox usage` and the refund refusal
// that follows are checked), a cart is bought, and the error pages are opened. Every request the
// pages make stays on the sandbox, and no Content-Security-Policy violation is reported.
//
// Screenshots of the reader and the cart are kept for a reviewer in test-artifacts/browser/
// (git-ignored; each run overwrites them).
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clients, type Clients } from './_support.js';
import { run } from '../helpers/run.js';
import { startTestSandbox, WELL_KNOWN, type TestSandbox } from '../helpers/sandbox.js';

const CHROMIUM = process.env.BOOKDIST_CHROMIUM ?? '/usr/bin/chromium';
export const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/browser/', import.meta.url));
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let sb: TestSandbox;
let c: Clients;
let profile: string;
let chromiumTmp: string;
let browser: BrowserContext;
const problems: string[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `No Chromium at ${CHROMIUM}: apt-get install -y chromium (.ci/run does), or set BOOKDIST_CHROMIUM.`,
    );
  sb = await startTestSandbox();
  c = clients(sb);
  profile = mkdtempSync(join(tmpdir(), 'bookdist-chromium-'));
  // Chromium's own temporary files (.org.chromium.Chromium.*) go into a folder of their own, which
  // afterAll removes: one its helper processes left as they were shut down once failed a CI run
  // (test/helpers/temp-guard.ts finds whatever is left in the suite's temporary directory). Its
  // name is short: Chromium puts a Unix socket in it, whose path must fit in 108 bytes.
  chromiumTmp = mkdtempSync(join(tmpdir(), 'cr-'));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    env: { ...process.env, TMPDIR: chromiumTmp },
    headless: true,
    chromiumSandbox: false,
    args: FLAGS,
    viewport: { width: 1280, height: 900 },
    timeout: 60_000,
  });
  mkdirSync(ARTIFACTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  // Removed until gone: a helper process still shutting down can add a file while rmSync walks.
  for (const dir of [profile, chromiumTmp])
    for (let i = 0; dir && i < 20 && existsSync(dir); i++) rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  await c?.closeAll();
  await sb?.close();
});

/** A page that records every request leaving the sandbox and every CSP violation as a problem. */
async function open(): Promise<Page> {
  const page = await browser.newPage();
  page.on('request', (r) => {
    if (!r.url().startsWith(sb.url + '/') && !r.url().startsWith('data:'))
      problems.push(`request outside the sandbox: ${r.url()}`);
  });
  page.on('console', (m) => {
    if (/Content.Security.Policy|Refused to/i.test(m.text())) problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  return page;
}

async function newUser(tag: string): Promise<string> {
  const r = await c.partner.call('user.create', {
    payload: { email: `${tag}.${Date.now()}@example.com`, first_name: tag },
  });
  return r.body.username;
}

describe('the sandbox pages in Chromium', () => {
  it('reader: page forward three times, print one page; usage is recorded and the refund is refused', async () => {
    const readme = WELL_KNOWN.readme;
    const user = await newUser('browser');
    const order = await c.partner.call('order.external', {
      payload: {
        username: user,
        digital_pricing: [readme.pricing[0].id],
        billing_address: { full_name: 'A B', postal_code: '1', country: 'US' },
        order_type: 'TestPlan',
        org: 'x',
        send_email: false,
      },
    });
    expect(order.status).toBe(200);
    const viewer = await c.partner.call('book.viewer', { payload: { username: user, hash_id: readme.hash_id } });
    const page = await open();
    const first = await page.goto(viewer.body.viewer_url);
    expect(first?.status()).toBe(200);
    await expect(page.locator('.testmode').innerText()).resolves.toContain('TEST MODE');
    await expect(page.locator('#title').innerText()).resolves.toBe(readme.title);
    await expect(page.locator('#author').innerText()).resolves.toBe(readme.author);
    expect(await page.locator('.cover').isVisible()).toBe(true);
    for (let i = 0; i < 3; i++) {
      await Promise.all([page.waitForURL(new RegExp(`\\?page=${i + 2}$`)), page.locator('a[rel=next]').click()]);
    }
    await expect(page.locator('#indicator').innerText()).resolves.toBe(`Page 4 of ${readme.num_pages}`);
    // The page really is styled: the banner's stripes and the page's serif text come from the inline style sheet.
    expect(await page.locator('.page').evaluate((el) => (globalThis as any).getComputedStyle(el).fontFamily)).toMatch(
      /Georgia|serif/,
    );
    await page.screenshot({ path: join(ARTIFACTS, 'reader.png'), fullPage: true });
    await Promise.all([page.waitForURL(/\/print\/\?page=4$/), page.locator('#print').click()]);
    await expect(page.locator('#printed-note').innerText()).resolves.toContain('counted as printed');

    const usage = await sb.control.usage({ username: user, hashId: readme.hash_id });
    expect(usage).toMatchObject({ pages_viewed: 4, pages_printed: 1 });
    const refund = await c.partner.call('order.refund', { payload: { order_id: order.body.order.id } });
    expect(refund.status).toBe(403);
    expect(refund.body.message).toMatch(/pages were printed/);
    await page.close();
    expect(problems).toEqual([]);
  }, 120_000);

  it('cart: shows the items and total; Complete test purchase creates one order, visible in user orders', async () => {
    const readme = WELL_KNOWN.readme;
    const winter = WELL_KNOWN.limitedPricing;
    const page = await open();
    const res = await page.goto(`${sb.url}/checkout?ids=${readme.pricing[0].id},${winter.pricing[0].id}`);
    expect(res?.status()).toBe(200);
    expect(page.url()).toMatch(/\/cart\/\?t=[0-9a-f]+$/);
    const total = (
      (Math.round(Number(readme.pricing[0].price) * 100) + Math.round(Number(winter.pricing[0].price) * 100)) /
      100
    ).toFixed(2);
    await expect(page.locator('#total').innerText()).resolves.toBe(`USD ${total}`);
    expect(await page.locator('tr[data-price-id]').count()).toBe(2);
    // The same cart open in a second tab: its form is submitted after the first one's.
    const second = await open();
    await second.goto(page.url());
    const email = `cart.${Date.now()}@example.com`;
    await page.locator('#email').fill(email);
    await page.locator('#first_name').fill('Robin');
    await page.screenshot({ path: join(ARTIFACTS, 'cart.png'), fullPage: true });
    await Promise.all([page.waitForSelector('#done'), page.locator('#complete').click()]);
    const username = await page.locator('#username').innerText();
    const orderId = await page.locator('#order-id').innerText();
    await page.screenshot({ path: join(ARTIFACTS, 'cart-complete.png'), fullPage: true });
    const orders = await c.partner.call('user.orders', { params: { username } });
    expect(orders.body.count).toBe(1);
    expect(String(orders.body.results[0].id)).toBe(orderId);
    expect(orders.body.results[0].totals.total).toBe(total);
    // A repeated submit does not create a second order: it shows the first.
    await second.locator('#email').fill(`other.${email}`);
    await Promise.all([second.waitForSelector('#done'), second.locator('#complete').click()]);
    await expect(second.locator('#order-id').innerText()).resolves.toBe(orderId);
    expect((await c.partner.call('user.orders', { params: { username } })).body.count).toBe(1);
    await second.close();
    await page.close();
    expect(problems).toEqual([]);
  }, 120_000);

  it('a cart of two currencies says it cannot be bought before its button (and has none); yen without decimals', async () => {
    // A yen edition, loaded as a partner would.
    const dir = mkdtempSync(join(tmpdir(), 'bookdist-yen-'));
    try {
      const file = join(dir, 'yen.csv');
      writeFileSync(file, 'isbn13,title,author,price,currency\n9780000000118,Yen Edition,Aiko Sato,1200,JPY\n');
      const load = await run(
        ['sandbox', 'catalogue', 'load', file, '--db', sb.dbPath, '--publisher', 'Harbor Lane Press', '--json'],
        { env: sb.env },
      );
      expect(load.code, load.stderr).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const yen = (await c.partner.call('book.isbn', { params: { isbn: '9780000000118' } })).body.book.digital_pricing[0];
    expect(yen).toMatchObject({ currency: 'JPY', price: '1200' });
    const readme = WELL_KNOWN.readme;
    const page = await open();
    expect((await page.goto(`${sb.url}/checkout?ids=${readme.pricing[0].id},${yen.id}`))?.status()).toBe(200);
    const totals = await page.locator('tfoot tr.total').allInnerTexts();
    expect(totals.join('\n')).toMatch(/JPY 1200(?!\.)/);
    expect(totals.join('\n')).toContain(`USD ${readme.pricing[0].price}`);
    await expect(page.locator('#mixed-currencies').innerText()).resolves.toContain(
      'All items of an order must be in one currency.',
    );
    expect(await page.locator('#complete').count()).toBe(0);
    await page.screenshot({ path: join(ARTIFACTS, 'cart-mixed.png'), fullPage: true });
    // A cart of the yen alone can be bought, and its total has no decimals.
    expect((await page.goto(`${sb.url}/checkout?ids=${yen.id}`))?.status()).toBe(200);
    await expect(page.locator('#total').innerText()).resolves.toBe('JPY 1200');
    expect(await page.locator('#complete').count()).toBe(1);
    await page.close();
    expect(problems).toEqual([]);
  }, 120_000);

  it('a reader page past the last page is not found, with a link to the last page', async () => {
    const readme = WELL_KNOWN.readme;
    const user = await newUser('pastlast');
    await c.partner.call('order.free', { payload: { username: user, hash_id: readme.hash_id } });
    const viewer = await c.partner.call('book.viewer', { payload: { username: user, hash_id: readme.hash_id } });
    const page = await open();
    const past = await page.goto(`${viewer.body.viewer_url}?page=9999`);
    expect(past?.status()).toBe(404);
    await expect(page.locator('h1').innerText()).resolves.toBe('No such page');
    await Promise.all([
      page.waitForURL(new RegExp(`\\?page=${readme.num_pages}$`)),
      page.locator('#last-page').click(),
    ]);
    await expect(page.locator('#indicator').innerText()).resolves.toBe(
      `Page ${readme.num_pages} of ${readme.num_pages}`,
    );
    await page.close();
    expect(problems).toEqual([]);
  }, 120_000);

  it('unknown reader links and carts, and expired access, are styled pages with their status', async () => {
    const page = await open();
    const unknown = await page.goto(`${sb.url}/reader/${'0'.repeat(32)}/`);
    expect(unknown?.status()).toBe(404);
    await expect(page.locator('h1').innerText()).resolves.toBe('This reader link is not valid');
    await expect(page.locator('.testmode').isVisible()).resolves.toBe(true);
    const cart = await page.goto(`${sb.url}/cart/?t=0000`);
    expect(cart?.status()).toBe(404);
    await expect(page.locator('h1').innerText()).resolves.toBe('Cart not found');

    const user = await newUser('expiring');
    const until = new Date(Date.parse(await sb.control.now()) + 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');
    await c.partner.call('order.free', {
      payload: { username: user, hash_id: WELL_KNOWN.otherPublisher.hash_id, expiration_date: until },
    });
    const viewer = await c.partner.call('book.viewer', {
      payload: { username: user, hash_id: WELL_KNOWN.otherPublisher.hash_id },
    });
    expect((await page.goto(viewer.body.viewer_url))?.status()).toBe(200);
    await sb.control.advanceClock('2d');
    const expired = await page.goto(viewer.body.viewer_url);
    expect(expired?.status()).toBe(410);
    await expect(page.locator('h1').innerText()).resolves.toBe('Access has expired');
    await page.close();
    expect(problems).toEqual([]);
  }, 120_000);
});
