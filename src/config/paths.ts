// Where bookdist keeps its files. Cheap: no conf import, and node:os only when neither a variable
// names the directory nor HOME is set (../util/home.ts).
import { join } from 'node:path';
import { homeDir } from '../util/home.js';

export function configDir(env: Record<string, string | undefined>): string {
  if (env.BOOKDIST_CONFIG_DIR) return env.BOOKDIST_CONFIG_DIR;
  const base = env.XDG_CONFIG_HOME || join(homeDir(env), '.config');
  return join(base, 'bookdist');
}

export function dataDir(env: Record<string, string | undefined>): string {
  if (env.BOOKDIST_DATA_DIR) return env.BOOKDIST_DATA_DIR;
  const base = env.XDG_DATA_HOME || join(homeDir(env), '.local', 'share');
  return join(base, 'bookdist');
}

/**
 * Where bookdist keeps state worth keeping but not configuration (the ledger of writes, rescued
 * results): BOOKDIST_STATE_DIR, else XDG_STATE_HOME/bookdist, else ~/.local/state/bookdist.
 */
export function stateDir(env: Record<string, string | undefined>): string {
  if (env.BOOKDIST_STATE_DIR) return env.BOOKDIST_STATE_DIR;
  const base = env.XDG_STATE_HOME || join(homeDir(env), '.local', 'state');
  return join(base, 'bookdist');
}
