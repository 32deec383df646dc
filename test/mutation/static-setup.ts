// Under `npm run mutate` only (vitest.config.ts, BOOKDIST_MUTATE=1), after Stryker's own setup file.
//
// The unit project shares one module registry between test files and runs (isolate: false): a
// module of the tree is evaluated once. A static mutant (in code that runs while a module loads: a
// module-level constant or table) must be active while its module is evaluated, and Stryker 9.6
// activates it only in a beforeAll, after the modules loaded, whenever `testFiles` is configured
// (its planner gives a static mutant the group's test filter, hence "runtime" activation). Such a
// mutant would "survive" whatever the tests check: `open = () => undefined` in fs-safe did.
//
// So every mutant run activates its mutant here, before any test file imports the tree, and empties
// the registry, so that the modules are evaluated again with the mutant active (and without the
// previous run's). A mutant inside a function behaves the same either way.
import { inject, vi } from 'vitest';

const get = inject as unknown as (key: string) => unknown;
if (get('mode') === 'mutant') {
  const ns = (globalThis as Record<string, { activeMutant?: string } | undefined>)[String(get('globalNamespace'))];
  if (ns) ns.activeMutant = String(get('activeMutant'));
}
// In the dry run too, where Stryker measures which tests reach each mutant: without it a module is
// evaluated once, often inside the first test that loads it lazily (a command's `await import`),
// and its module-level code counts as reached by that one test only. A static mutant was then
// judged by that test alone, and survived whatever the module's own tests assert (verify.ts's
// SCALAR_REFS and advice texts did). Evaluated again for each file, a module that a test file
// imports is evaluated outside any test: Stryker sees its module-level code as static and runs
// every test of the group for a mutant there.
vi.resetModules();
