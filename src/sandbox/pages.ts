// The two HTML pages of the sandbox: the reader a viewer URL opens (page views and prints count
// for the refund rules) and the cart that /checkout redirects to.
import type { ServerResponse } from 'node:http';
import { readerEvent } from './control.js';
import type { RequestInfo, SandboxCore } from './core.js';
import { itemLiveFor } from './domain.js';
import { htmlEscape, sendText } from './http.js';

/** Does this path belong to the pages (rather than to the service or control routes)? */
export function isPagePath(pathname: string): boolean {
  return pathname.startsWith('/reader/') || pathname === '/cart' || pathname === '/cart/';
}

export function servePage(core: SandboxCore, res: ServerResponse, r: RequestInfo): void {
  if (r.method !== 'GET') return sendText(res, 405, 'text/plain; charset=utf-8', 'Method not allowed\n', { allow: 'GET' });
  if (r.url.pathname.startsWith('/reader/')) return reader(core, res, r);
  return cart(core, res, r);
}

function reader(core: SandboxCore, res: ServerResponse, r: RequestInfo): void {
  const { store } = core;
  const m = /^\/reader\/([0-9a-f]{32})\/(print\/?)?$/.exec(r.url.pathname);
  const session = m ? store.get('SELECT s.*, b.title, b.num_pages, b.hash_id FROM reader_sessions s JOIN books b ON b.id = s.book_id WHERE token = ?', m[1]) : undefined;
  if (!session) return sendText(res, 404, 'text/html; charset=utf-8', '<!doctype html><title>Not found</title><p>This reader link is not valid.</p>\n');
  if (!itemLiveFor(store, session.user_id, session.book_id, store.now())) {
    return sendText(res, 403, 'text/html; charset=utf-8', '<!doctype html><title>Access ended</title><p>Access to this book has ended.</p>\n');
  }
  const pageParam = Number(r.url.searchParams.get('page') ?? '1');
  const page = Number.isInteger(pageParam) && pageParam >= 1 && pageParam <= session.num_pages ? pageParam : 1;
  const print = !!m![2];
  readerEvent(store, session.user_id, session.book_id, page, print);
  const base = `${r.origin}/reader/${m![1]}/`;
  const html = `<!doctype html><meta charset="utf-8"><title>${htmlEscape(session.title)} · page ${page}</title>
<h1>${htmlEscape(session.title)}</h1>
<p>Page ${page} of ${session.num_pages}${print ? ' (sent to the printer)' : ''}</p>
<nav>${page > 1 ? `<a href="${base}?page=${page - 1}">previous</a> ` : ''}${page < session.num_pages ? `<a href="${base}?page=${page + 1}">next</a> ` : ''}<a href="${base}print/?page=${page}">print this page</a></nav>
`;
  sendText(res, 200, 'text/html; charset=utf-8', html);
}

function cart(core: SandboxCore, res: ServerResponse, r: RequestInfo): void {
  const { store } = core;
  const c = store.get('SELECT * FROM carts WHERE token = ?', r.url.searchParams.get('t') ?? '');
  if (!c) return sendText(res, 404, 'text/html; charset=utf-8', '<!doctype html><title>Cart not found</title><p>This cart does not exist.</p>\n');
  const ids = JSON.parse(c.pricing_ids) as number[];
  const rows = ids.map((id) => store.get('SELECT p.*, b.title FROM pricing p JOIN books b ON b.id = p.book_id WHERE p.id = ?', id)!);
  const html = `<!doctype html><meta charset="utf-8"><title>Your cart</title><h1>Your cart</h1><ul>
${rows.map((row) => `<li data-price-id="${row.id}">${htmlEscape(row.title)} — ${htmlEscape(row.description)}: ${row.currency} ${row.price}</li>`).join('\n')}
</ul>\n`;
  sendText(res, 200, 'text/html; charset=utf-8', html);
}
