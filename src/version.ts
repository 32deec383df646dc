// The CLI's version and the oldest Node it runs on, stamped in at build time from package.json
// (`version` and `engines.node`, the one place the minimum is written). In the launcher's own
// entry point (dist/version.js, from src/launch.ts), so that `bookdist --version` loads nothing
// else, and the launcher (bin/bookdist) checks the running Node against NODE_MIN before it loads
// anything else.
declare const __BOOKDIST_VERSION__: string | undefined;
declare const __BOOKDIST_NODE_MIN__: string | undefined;
declare const __BOOKDIST_BUILD__: string | undefined;
export const VERSION = typeof __BOOKDIST_VERSION__ !== 'undefined' ? __BOOKDIST_VERSION__ : '0.0.0-dev';
/** The oldest Node bookdist runs on, as `major.minor.patch` (from `engines.node: ">=22.22"`). */
export const NODE_MIN = typeof __BOOKDIST_NODE_MIN__ !== 'undefined' ? __BOOKDIST_NODE_MIN__ : '22.22.0';
/**
 * Which build of dist/ this is (a digest of its chunks' names, which hold their contents' hashes,
 * and of main.js), stamped into dist/version.js only: the compile cache's key, so that a rebuild
 * starts a new cache directory and the old one is removed, instead of one directory keeping the
 * entries of every build of a version (each run lists them: 4,000 entries cost a request 14M
 * instructions, issue 31).
 */
export const BUILD = typeof __BOOKDIST_BUILD__ !== 'undefined' ? __BOOKDIST_BUILD__ : 'dev';
