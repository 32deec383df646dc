// The sandbox's directories (db/ imports only db/, so the store and the rest share this one).
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * mkdir -p, one level at a time. Node's `mkdirSync(dir, { recursive: true })` never returns (and
 * ignores signals) when a parent exists but cannot hold a child, as under /proc: `sandbox serve
 * --db /proc/nope/x.db` hung there. Here the first level that cannot be made is the error.
 */
export function makeDir(dir: string, mode = 0o700): void {
  try {
    mkdirSync(dir, { mode });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' && statSync(dir).isDirectory()) return;
    if (code !== 'ENOENT' || dirname(dir) === dir) throw e;
    makeDir(dirname(dir), mode);
    mkdirSync(dir, { mode });
  }
}
