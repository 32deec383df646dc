// What every page of the sandbox shares: its security headers (a per-answer nonce in a strict
// Content-Security-Policy, never framed, no referrer, no MIME sniffing), its layout with the TEST
// MODE banner and inline styles, an error page, sending and redirecting.
import type { ServerResponse } from 'node:http';
import { htmlEscape } from './http.js';

/** The headers every page carries: a strict CSP (only this answer's inline style and script), never framed. */
function pageHeaders(nonce: string): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy':
      `default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; img-src data:; ` +
      "form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
  };
}

export function send(
  res: ServerResponse,
  status: number,
  nonce: string,
  html: string,
  extra: Record<string, string> = {},
): void {
  if (res.headersSent) return;
  const headers = { ...pageHeaders(nonce), 'content-length': String(Buffer.byteLength(html)), ...extra };
  res.writeHead(status, headers);
  res.end(res.req?.method === 'HEAD' ? undefined : html);
}

export function redirect(res: ServerResponse, nonce: string, location: string): void {
  const html = layout(nonce, 'Redirecting', `<p><a href="${htmlEscape(location)}">Continue</a></p>`);
  send(res, 303, nonce, html, { location });
}

const CSS = `
:root { color-scheme: light; --ink: #1d232b; --muted: #5b6673; --line: #d9dee5; --accent: #1f5f8b; --paper: #fffdf8; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--ink); background: #eef1f4; }
.testmode { background: repeating-linear-gradient(135deg, #ffd84d 0 14px, #f5c400 14px 28px); color: #2b2100; text-align: center; font-weight: 700; letter-spacing: .06em; padding: .45rem 1rem; border-bottom: 2px solid #8a6d00; }
.testmode small { font-weight: 500; letter-spacing: 0; }
main { max-width: 860px; margin: 1.5rem auto 3rem; padding: 0 1rem; }
.card + .card, .card + form.card { margin-top: 1rem; }
.card { background: white; border: 1px solid var(--line); border-radius: 10px; padding: 1.25rem 1.5rem; box-shadow: 0 1px 2px rgba(0,0,0,.04); }
h1 { font-size: 1.55rem; margin: 0 0 .2rem; line-height: 1.25; }
h2 { font-size: 1.15rem; margin: 1.2rem 0 .6rem; }
.muted { color: var(--muted); }
.book-head { display: flex; gap: 1.25rem; align-items: center; }
.cover { flex: none; width: 92px; height: 132px; border-radius: 4px 8px 8px 4px; display: flex; align-items: flex-end; padding: .5rem; color: white; font: 700 .8rem/1.2 Georgia, serif; box-shadow: inset 6px 0 0 rgba(0,0,0,.18), 0 2px 6px rgba(0,0,0,.25); }
.page { background: var(--paper); border: 1px solid var(--line); border-radius: 6px; margin: 1.25rem 0; padding: 2rem 2.5rem; font: 1.05rem/1.75 Georgia, "Times New Roman", serif; min-height: 22rem; }
.page p { margin: 0 0 1rem; text-align: justify; hyphens: auto; }
.page .folio { text-align: center; color: var(--muted); font-size: .9rem; margin-top: 1.5rem; }
nav.pager { display: flex; align-items: center; justify-content: space-between; gap: 1rem; }
a.button, button { display: inline-block; border: 1px solid var(--accent); background: var(--accent); color: white; padding: .5rem 1rem; border-radius: 6px; text-decoration: none; font: inherit; cursor: pointer; }
a.button.secondary { background: white; color: var(--accent); }
a.button.disabled { border-color: var(--line); background: #f3f4f6; color: #9aa3ad; pointer-events: none; }
.indicator { font-weight: 600; }
.note { font-size: .9rem; color: var(--muted); margin-top: 1rem; }
table { width: 100%; border-collapse: collapse; }
th, td { text-align: left; padding: .55rem .4rem; border-bottom: 1px solid var(--line); vertical-align: top; }
td.price, th.price { text-align: right; white-space: nowrap; }
tr.total td { font-weight: 700; border-bottom: none; }
fieldset { border: 1px solid var(--line); border-radius: 8px; margin: 1rem 0; padding: .75rem 1rem 1rem; }
legend { font-weight: 600; padding: 0 .3rem; }
label { display: block; margin: .5rem 0 .2rem; font-size: .92rem; }
input, select { width: 100%; padding: .45rem .55rem; border: 1px solid #b9c1cb; border-radius: 6px; font: inherit; }
.row { display: grid; grid-template-columns: 1fr 1fr; gap: .75rem; }
.done { border-left: 5px solid #2f8f4e; }
.error h1 { color: #8b1f1f; }
@media print { .testmode, nav, .note, .no-print { display: none; } body { background: white; } .page { border: none; } }
`;

export function layout(nonce: string, title: string, body: string, script = '', css = ''): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${htmlEscape(title)} · bookdist sandbox</title>
<style nonce="${nonce}">${CSS}${css}</style></head>
<body><div class="testmode" role="note">TEST MODE <small>· bookdist sandbox: nothing here is real, nothing is charged</small></div>
<main>${body}</main>${script ? `<script nonce="${nonce}">${script}</script>` : ''}</body></html>
`;
}

export function errorPage(nonce: string, title: string, message: string): string {
  return layout(
    nonce,
    title,
    `<div class="card error"><h1>${htmlEscape(title)}</h1><p>${htmlEscape(message)}</p></div>`,
  );
}

// ---------------------------------------------------------------- reader
