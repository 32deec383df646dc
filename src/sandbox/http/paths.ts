// Which surface a request's path belongs to, told without loading it: the control routes and the
// pages are loaded by the first request to them (server.ts), so a command served by the embedded
// sandbox (a lookup) never compiles them (issue 31).

/** Does this path belong to the control surface (control-routes.ts)? */
export function isControlPath(pathname: string): boolean {
  return pathname === '/_sandbox' || pathname.startsWith('/_sandbox/');
}

/** Does this path belong to the pages (pages.ts), rather than to the service or control routes? */
export function isPagePath(pathname: string): boolean {
  return pathname.startsWith('/reader/') || pathname === '/cart' || pathname === '/cart/';
}
