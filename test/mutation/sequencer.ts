// Under `npm run mutate` only (vitest.config.ts, BOOKDIST_MUTATE=1): a group's test files run in
// the order stryker.config.mjs lists them, fast in-process files first.
//
// Stryker's vitest runner stops a mutant's run at its first failing test (bail 1): a mutant that a
// fast file kills never starts the slow files (a sandbox served over HTTP, seeded in each file's
// beforeAll) that also reach it. vitest's own order is the opposite: the longest file first.
// The group's list comes from scripts/mutate.mjs (BOOKDIST_MUTATE_TESTS, one file a line).
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export class GroupOrder extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const tests = (process.env.BOOKDIST_MUTATE_TESTS ?? '').split('\n').filter(Boolean);
    const rank = (f: TestSpecification) => {
      const i = tests.findIndex((t) => f.moduleId.endsWith(`/${t}`));
      return i < 0 ? tests.length : i;
    };
    const sorted = await super.sort(files);
    return sorted
      .map((f, i) => ({ f, i }))
      .sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i)
      .map(({ f }) => f);
  }
}
