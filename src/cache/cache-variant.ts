// What a run adds to its command's name for the code cache (src/cache/code-cache.ts), once it is
// known: a command runs other functions against the embedded sandbox (its server, the endpoint
// table built whole) than against a service over the network, and an entry made by one kind of
// run must gain the other's functions once, as it does for another command. The launcher
// (dist/version.js) and dist/main.js are bundles of their own: they meet through one global.
const KEY = Symbol.for('bookdist.codeCacheVariant');

/** Say what kind of run this is (src/connect.ts: `embedded`), before its functions run. */
export function setCodeCacheVariant(variant: string): void {
  (globalThis as Record<symbol, unknown>)[KEY] = variant;
}

/** `command` as the code cache keeps it: with the run's kind, when one was said. */
export function withCodeCacheVariant(command: string): string {
  const v = (globalThis as Record<symbol, unknown>)[KEY];
  return typeof v === 'string' && v ? `${command} (${v})` : command;
}
