// A seeded sandbox database in memory, for in-process tests of the sandbox's rules: no file, no
// server. The seed's two RSA key pairs (most of a seed's cost, 0.1-0.3 s of CPU) are made once per
// test process and shared by every store made here: `npm run mutate` seeds one for each mutant's run.
import { Store } from '../../src/sandbox/db/store.js';
import { ensureSeeded, generateSecretsAsync, type GeneratedSecrets } from '../../src/sandbox/seed.js';

const KEPT = Symbol.for('bookdist.test.seed-secrets');

/** A new database in memory, seeded (its keys those of every other store of this process). */
export async function seededMemoryStore(): Promise<Store> {
  const g = globalThis as { [KEPT]?: Promise<GeneratedSecrets> };
  const secrets = await (g[KEPT] ??= generateSecretsAsync());
  const store = new Store(':memory:');
  ensureSeeded(store, () => secrets);
  return store;
}
