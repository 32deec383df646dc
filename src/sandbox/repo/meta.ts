// The SQL of the meta table beyond the store's own keys.
import type { Store } from '../db/store.js';

/** Set a key unless another process set it first. */
export function setMetaOnce(store: Store, key: string, value: string): void {
  store.run('INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO NOTHING', key, value);
}
