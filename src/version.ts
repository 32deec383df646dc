// The CLI's version, stamped in at build time. Its own entry point (dist/version.js), so that
// `bookdist --version` loads nothing else.
declare const __BOOKDIST_VERSION__: string | undefined;
export const VERSION = typeof __BOOKDIST_VERSION__ !== 'undefined' ? __BOOKDIST_VERSION__ : '0.0.0-dev';
