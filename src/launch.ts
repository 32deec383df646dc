// The launcher's one module (built as dist/version.js): what bin/bookdist needs before it loads
// anything else — the version (all that `bookdist --version` loads) and its writer to stdout
// (./cli/direct-out.ts), the oldest Node bookdist runs on (checked first), and the compile cache
// (turned on before dist/main.js is imported, with bookdist's chunks compiled whole into it:
// src/cache/eager-compile.ts).
import { BUILD, VERSION } from './version.js';

export { NODE_MIN, VERSION } from './version.js';
/** What the compile cache is kept for: this version of bookdist, this build of it (src/version.ts). */
export const CACHE_VERSION = `${VERSION}+${BUILD}`;
export { startCompileCache } from './cache/compile-cache.js';
export { installEagerCompile } from './cache/eager-compile.js';
export { stdoutIsPlain, writeStdout } from './cli/direct-out.js';
