// The sandbox's HTML pages: the reader a viewer URL opens (page views and prints count for the
// refund rules, as `sandbox usage` records them) and the test checkout of the cart that /checkout
// redirects to ("Complete test purchase" creates the order as `order create` would).
//
// Pages a partner can show: a TEST MODE banner, styled, nothing from the internet (styles and the
// one script inline, allowed by a per-answer nonce in a strict Content-Security-Policy), never
// framed, no referrer, no MIME sniffing. Every link is relative or built from the address the
// sandbox is bound to (RequestInfo.origin), never from the Host header.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import type { Caller } from '../auth.js';
import { readerEvent } from '../control.js';
import type { RequestInfo, SandboxCore } from './core.js';
import { handlerCtx, itemLiveFor } from '../domain/index.js';
import { orderExternal } from '../domain/orders.js';
import { createUser } from '../domain/users.js';
import { hostName } from './hosts.js';
import { errorPage, layout, redirect, send } from './page-layout.js';
import { htmlEscape, readBody } from './http.js';
import { HttpError } from '../errors.js';
import type { Store } from '../db/store.js';
import { partnerAccount } from '../repo/accounts.js';
import { cartByToken, cartLine, readerSession, type CartLineRow, type CartRow } from '../repo/carts.js';
import { itemsOfUserBookNewestFirst, orderByNumber, orderIdByNumber } from '../repo/orders.js';
import { usageCounts } from '../repo/usage.js';
import { recentUsersOf, userContact, usernameByEmail } from '../repo/users.js';
import { cents, isoDate, money } from '../util.js';

export async function servePage(
  core: SandboxCore,
  req: IncomingMessage,
  res: ServerResponse,
  r: RequestInfo,
): Promise<void> {
  const nonce = randomBytes(16).toString('base64');
  const isCart = !r.url.pathname.startsWith('/reader/');
  try {
    if (r.method === 'POST' && isCart) return await checkout(core, req, res, r, nonce);
    req.resume();
    if (r.method !== 'GET' && r.method !== 'HEAD') {
      return send(
        res,
        405,
        nonce,
        errorPage(
          nonce,
          'Method not allowed',
          'This page answers GET' + (isCart ? " and the checkout form's POST" : '') + '.',
        ),
        { allow: isCart ? 'GET, POST' : 'GET' },
      );
    }
    if (isCart) return cart(core, res, r, nonce);
    return reader(core, res, r, nonce);
  } catch (err) {
    const e = err instanceof HttpError ? err : undefined;
    if (!e) throw err;
    send(res, e.status, nonce, errorPage(nonce, e.status === 400 ? 'That did not work' : 'Not allowed', e.message));
  }
}

// ---------------------------------------------------------------- answers

function reader(core: SandboxCore, res: ServerResponse, r: RequestInfo, nonce: string): void {
  const { store } = core;
  const m = /^\/reader\/([0-9a-f]{32})\/(print\/?)?$/.exec(r.url.pathname);
  const session = m ? readerSession(store, m[1]) : undefined;
  if (!session) {
    return send(
      res,
      404,
      nonce,
      errorPage(
        nonce,
        'This reader link is not valid',
        'No book opens at this address. Ask for a new reader link (bookdist book viewer).',
      ),
    );
  }
  const now = store.now();
  if (!itemLiveFor(store, session.user_id, session.book_id, now)) {
    const ended = accessEnded(store, session.user_id, session.book_id, now);
    return send(res, ended.status, nonce, errorPage(nonce, ended.title, ended.message));
  }
  const raw = r.url.searchParams.get('page') ?? '1';
  const page = /^\d{1,9}$/.test(raw) ? Number(raw) : NaN;
  const print = !!m![2];
  // A page the book does not have is not found (nothing is counted), not page 1 with a 200.
  if (!(page >= 1 && page <= session.num_pages)) {
    const last = `${print ? '../' : './'}?page=${session.num_pages}`;
    const text = `This book has pages 1 to ${session.num_pages}; page ${raw.slice(0, 20)} is not one of them.`;
    return send(
      res,
      404,
      nonce,
      layout(
        nonce,
        'No such page',
        `<div class="card error"><h1>No such page</h1><p>${htmlEscape(text)}</p><p><a class="button" id="last-page" href="${last}">Go to the last page</a></p></div>`,
      ),
    );
  }
  if (r.method === 'GET') readerEvent(store, session.user_id, session.book_id, page, print);
  const usage = usageCounts(store, session.user_id, session.book_id);
  const viewed = usage?.pages_viewed ?? 0;
  const printed = usage?.pages_printed ?? 0;
  const total = session.num_pages;
  // Links are relative to this page's own address: the Host header never makes them.
  const base = print ? '../' : './';
  const link = (p: number, label: string, rel: string) =>
    p >= 1 && p <= total
      ? `<a class="button secondary" rel="${rel}" href="${base}?page=${p}">${label}</a>`
      : `<a class="button secondary disabled" aria-disabled="true">${label}</a>`;
  const share = Math.round((viewed / total) * 1000) / 10;
  const body = `
<div class="card">
  <div class="book-head">
    <div class="cover" aria-hidden="true">${htmlEscape(initials(session.title))}</div>
    <div><h1 id="title">${htmlEscape(session.title)}</h1>
    ${session.subtitle ? `<div class="muted">${htmlEscape(session.subtitle)}</div>` : ''}
    <div>by <span id="author">${htmlEscape(session.author || 'Unknown author')}</span></div></div>
  </div>
  <article class="page" aria-label="Page ${page}">
    ${pageText(session.hash_id, page)
      .map((p) => `<p>${p}</p>`)
      .join('\n    ')}
    <div class="folio">${page}</div>
  </article>
  <nav class="pager" aria-label="Pages">
    ${link(page - 1, '← Previous', 'prev')}
    <span class="indicator" id="indicator">Page ${page} of ${total}</span>
    ${link(page + 1, 'Next →', 'next')}
  </nav>
  <p class="no-print"><a class="button" id="print" href="${print ? './' : 'print/'}?page=${page}">Print this page</a>
  ${print ? '<span class="muted" id="printed-note"> This page was sent to the printer and counted as printed.</span>' : ''}</p>
  <p class="note" id="usage">Recorded for the refund rules: ${viewed} of ${total} pages viewed (${share}%), ${printed} printed.
  More than 10% viewed, or any page printed, makes the purchase non-refundable.</p>
</div>`;
  const script = print ? 'addEventListener("load", () => setTimeout(() => window.print(), 0));' : '';
  send(
    res,
    200,
    nonce,
    layout(
      nonce,
      `${session.title} · page ${page}`,
      body,
      script,
      `.cover { background: ${coverColour(session.hash_id)}; }`,
    ),
  );
}

/** Why a reader session no longer opens: expired (410), revoked or refunded (403). */
function accessEnded(
  store: Store,
  userId: number,
  bookId: number,
  now: number,
): { status: number; title: string; message: string } {
  const items = itemsOfUserBookNewestFirst(store, userId, bookId);
  const last = items[0];
  if (last?.is_refunded)
    return {
      status: 403,
      title: 'This purchase was refunded',
      message: 'The book was refunded, so this reader link no longer opens it.',
    };
  if (last?.revoked_at != null)
    return {
      status: 403,
      title: 'Access was revoked',
      message: `Access to this book was revoked on ${isoDate(last.revoked_at)}.`,
    };
  if (last?.expiration_date != null && last.expiration_date <= now) {
    return {
      status: 410,
      title: 'Access has expired',
      message: `Access to this book ended on ${isoDate(last.expiration_date)}. A new purchase or grant opens it again.`,
    };
  }
  return { status: 403, title: 'Access has ended', message: 'This reader link no longer opens the book.' };
}

function initials(title: string): string {
  return (
    title
      .split(/\s+/)
      .filter((w) => /^[\p{L}\p{N}]/u.test(w))
      .slice(0, 3)
      .map((w) => [...w][0].toUpperCase())
      .join('') || '·'
  );
}

function coverColour(hashId: string): string {
  const hue = parseInt(hashId.slice(0, 4), 16) % 360;
  return `linear-gradient(160deg, hsl(${hue} 45% 38%), hsl(${(hue + 40) % 360} 50% 24%))`;
}

const WORDS = (
  'harbour tide lantern keeper ledger morning salt cedar orchard winter atlas quiet letter meridian island ' +
  'map apprentice stone garden river coast weather north light road village window evening story water ' +
  'bridge field season promise journey silence market boat rope gull shore path valley hill kitchen table'
).split(' ');

/** Generated but stable text for a page of a book (the same page reads the same every time). */
function pageText(hashId: string, page: number): string[] {
  let seed = createHash('sha1').update(`${hashId}:${page}`).digest().readUInt32BE(0);
  const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  const paragraphs: string[] = [];
  for (let p = 0; p < 4; p++) {
    const sentences: string[] = [];
    for (let s = 0, n = 3 + Math.floor(rand() * 3); s < n; s++) {
      const words = Array.from({ length: 8 + Math.floor(rand() * 10) }, () => WORDS[Math.floor(rand() * WORDS.length)]);
      words[0] = words[0][0].toUpperCase() + words[0].slice(1);
      sentences.push(words.join(' ') + (rand() < 0.15 ? '?' : '.'));
    }
    paragraphs.push(sentences.join(' '));
  }
  return paragraphs;
}

// ---------------------------------------------------------------- cart and test checkout

function cartOf(store: Store, r: RequestInfo): CartRow {
  const token = r.url.searchParams.get('t') ?? '';
  const c = /^[0-9a-f]{1,64}$/.test(token) ? cartByToken(store, token) : undefined;
  if (!c)
    throw new HttpError(404, 'This cart does not exist. Open a new one with bookdist offers checkout --id <price id>.');
  return c;
}

/** The order number of a cart's test purchase: one per cart, so a repeated submit finds the first order. */
const orderNumberOf = (token: string) => `CART-${token.slice(0, 15)}`;

function partnerCaller(store: Store): Caller {
  const account = partnerAccount(store)!;
  return {
    kind: 'partner',
    account,
    scopes: new Set(JSON.parse(account.scopes) as string[]),
    logName: account.username,
  };
}

function lines(store: Store, c: CartRow): CartLineRow[] {
  const ids = JSON.parse(c.pricing_ids) as number[];
  return ids.map((id) => cartLine(store, id)).filter((x): x is CartLineRow => !!x);
}

function cart(core: SandboxCore, res: ServerResponse, r: RequestInfo, nonce: string): void {
  const { store } = core;
  let c: CartRow;
  try {
    c = cartOf(store, r);
  } catch (e) {
    if (e instanceof HttpError) return send(res, 404, nonce, errorPage(nonce, 'Cart not found', e.message));
    throw e;
  }
  const items = lines(store, c);
  const account = partnerCaller(store).account;
  const order = orderByNumber(store, account.id, orderNumberOf(c.token));
  const totals = new Map<string, number>();
  for (const i of items) totals.set(i.currency, (totals.get(i.currency) ?? 0) + cents(i.price));
  const rows = items
    .map(
      (
        i,
      ) => `<tr data-price-id="${i.id}"><td><strong>${htmlEscape(i.title)}</strong><div class="muted">${htmlEscape(i.author)}</div></td>
      <td>${htmlEscape(i.description)}</td><td class="price">${htmlEscape(i.currency)} ${htmlEscape(i.price)}</td></tr>`,
    )
    .join('\n');
  const totalRows = [...totals]
    .map(
      ([cur, sum]) =>
        `<tr class="total"><td colspan="2">Total${totals.size > 1 ? ` (${htmlEscape(cur)})` : ''}</td><td class="price" id="total">${htmlEscape(cur)} ${money(sum, cur)}</td></tr>`,
    )
    .join('\n');
  // decisions.md, Orders: one currency per order, so a cart of two cannot be bought; said before the button.
  const mixed = totals.size > 1;
  let after: string;
  if (order) {
    const user = userContact(store, order.user_id)!;
    after = `<div class="card done" id="done"><h2>Test purchase complete</h2>
<p>Order <strong id="order-id">${order.id}</strong> was created for <strong>${htmlEscape(user.email)}</strong> (user <code id="username">${user.username}</code>), as <code>bookdist order create</code> would create it.</p>
<p class="muted">See it with <code>bookdist user orders ${user.username}</code>; the reader opens with <code>bookdist book viewer</code>. Submitting again does not create a second order.</p></div>`;
  } else {
    const users = recentUsersOf(store, account.id);
    const options = users
      .map(
        (u) =>
          `<option value="${u.username}">${htmlEscape(`${u.first_name} ${u.last_name}`.trim() || u.email)} · ${htmlEscape(u.email)}</option>`,
      )
      .join('');
    after = mixed
      ? `<div class="card error" id="mixed-currencies"><h2>This cart cannot be bought as one order</h2><p>All items of an order must be in one currency. This cart has prices in ${[...totals.keys()].map(htmlEscape).join(' and ')}: check out each currency apart (<code>bookdist offers checkout --id …</code> with the price ids of one currency).</p></div>`
      : items.length
        ? `<form method="post" action="?t=${c.token}" class="card" id="checkout">
<h2>Complete a test purchase</h2>
<fieldset><legend>Buyer (a sandbox user)</legend>
<label for="username">Existing user</label>
<select id="username" name="username"><option value="">— create a new user below —</option>${options}</select>
<div class="row"><div><label for="email">New user's e-mail</label><input id="email" name="email" type="email" autocomplete="off" placeholder="reader@example.com"></div>
<div><label for="first_name">First name</label><input id="first_name" name="first_name" autocomplete="off"></div></div>
</fieldset>
<fieldset><legend>Billing address</legend>
<div class="row"><div><label for="billing_name">Full name</label><input id="billing_name" name="billing_name" value="Test Buyer" required></div>
<div><label for="postal_code">Postal code</label><input id="postal_code" name="postal_code" value="04101" required></div></div>
<label for="country">Country</label><input id="country" name="country" value="US" required maxlength="2">
</fieldset>
<button type="submit" id="complete">Complete test purchase</button>
<p class="note">Creates the order as <code>bookdist order create --order-type TestPlan</code> would, for the seeded partner account. Nothing is charged.</p>
</form>`
        : '';
  }
  const body = `<div class="card"><h1>Your cart</h1>
<table><thead><tr><th>Book</th><th>Edition</th><th class="price">Price</th></tr></thead>
<tbody>${rows || '<tr><td colspan="3" class="muted">The offers of this cart are no longer available.</td></tr>'}</tbody>
<tfoot>${totalRows}</tfoot></table></div>
${after}`;
  send(res, 200, nonce, layout(nonce, 'Your cart', body));
}

/** The checkout form's POST: make the user (when new) and the order, then show the cart with it (303). */
async function checkout(
  core: SandboxCore,
  req: IncomingMessage,
  res: ServerResponse,
  r: RequestInfo,
  nonce: string,
): Promise<void> {
  const { store } = core;
  // A form from another site must not buy things: its Origin (when sent) names this sandbox.
  const origin = r.headers['origin'];
  if (origin !== undefined && origin !== 'null') {
    let ok: boolean;
    try {
      ok = core.allowedHosts.has(hostName(new URL(origin).host));
    } catch {
      ok = false;
    }
    if (!ok) {
      req.resume();
      throw new HttpError(403, "The test checkout takes its form only from the sandbox's own pages.");
    }
  }
  const site = r.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    req.resume();
    throw new HttpError(403, "The test checkout takes its form only from the sandbox's own pages.");
  }
  const form = new URLSearchParams((await readBody(req)).toString('utf8'));
  const c = cartOf(store, r);
  const caller = partnerCaller(store);
  const now = store.now();
  const ctx = (payload: Record<string, unknown>) =>
    handlerCtx(store, { caller, payload, origin: r.origin, queued: () => setImmediate(core.tick) }, now);
  const ids = lines(store, c).map((l) => l.id);
  if (!ids.length) throw new HttpError(400, 'This cart has nothing left to buy.');
  // A repeated submit (back and submit again, a double click) finds the cart's order.
  const existing = orderIdByNumber(store, caller.account.id, orderNumberOf(c.token)) !== undefined;
  if (!existing) {
    let username = (form.get('username') ?? '').trim().toLowerCase();
    if (!username) {
      const email = (form.get('email') ?? '').trim();
      if (!email) throw new HttpError(400, 'Choose a sandbox user, or give an e-mail address to create one.');
      const found = usernameByEmail(store, email);
      username =
        found ??
        createUser(
          ctx({ email, first_name: (form.get('first_name') ?? '').trim().slice(0, 100), last_name: '' }),
          false,
        ).body.username;
    } else if (!/^[0-9a-f]{30}$/.test(username)) throw new HttpError(400, 'Choose a sandbox user from the list.');
    const billing = {
      full_name: (form.get('billing_name') ?? '').trim().slice(0, 200),
      postal_code: (form.get('postal_code') ?? '').trim().slice(0, 20),
      country: (form.get('country') ?? '').trim().slice(0, 2).toUpperCase(),
    };
    orderExternal(
      ctx({
        username,
        digital_pricing: ids,
        billing_address: billing,
        order_type: 'TestPlan',
        org: 'sandbox-checkout',
        order_number: orderNumberOf(c.token),
        send_email: true,
      }),
    );
  }
  redirect(res, nonce, `?t=${c.token}`);
}
