// Mutation testing (issue 32): `npm run mutate` (scripts/mutate.mjs) makes small changes (mutants) to
// the modules where a silent bug costs users most and reports the share the unit tests catch (the
// mutation score). Not part of `npm test` or .ci/run. How to run and read it: README, "Pointers".
//
// The modules are mutated in groups, one Stryker run per group (BOOKDIST_MUTATE_GROUP names it), each
// with the unit test files that test that group: a mutant in the retry policy is judged by the
// client's tests, not by the whole suite, so a run takes minutes, not hours, on 2 shared cores.
// Within a run only the tests that reach a mutant run for it (coverage per test).
// - Only the unit project (vitest.config.ts under BOOKDIST_MUTATE=1): the e2e tests run dist/, which
//   holds no mutant, and start processes.
// - Incremental: reports/incremental/<group>.json keeps each mutant's result with the code and
//   tests it was measured against; a rerun tests again only mutants whose code or covering tests
//   changed. Git-ignored (with the rest of reports/): it describes one machine's last run, it would
//   conflict at every merge of parallel work, and a stale copy would report results that no test
//   run here produced. The first run on a clone is a full run.
// - One mutant at a time (concurrency 1), niced.
// - Survivors that cannot change behaviour (equivalent mutants), and the few accepted with a reason,
//   are listed in test/mutation/accepted.md and disabled on their own line with a
//   `// Stryker disable next-line <mutator>: <reason>` comment: no mutator or file is ignored whole.

import { readFileSync } from 'node:fs';

/**
 * Part of a file, as Stryker's `file:from-to` range: from the line that starts with `from` to the
 * first line after it that starts with `to`, both included. Found by the code's own text, so the
 * range follows the code when lines above it move; a renamed function stops the run here.
 */
function span(file, from, to) {
  const lines = readFileSync(new URL(file, import.meta.url), 'utf8').split('\n');
  const a = lines.findIndex((l) => l.startsWith(from));
  const b = a < 0 ? -1 : lines.findIndex((l, i) => i > a && l.startsWith(to));
  if (b < 0) throw new Error(`stryker.config.mjs: no lines of ${file} from "${from}" to "${to}": update the group`);
  return `${file}:${a + 1}-${b + 1}`;
}

const LOAD = 'src/sandbox/catalogue/load.ts';

/** Each group: the files it mutates, and the unit test files that judge them. */
export const GROUPS = {
  text: {
    mutate: ['src/output/text.ts', 'src/output/format.ts', 'src/util/cell-text.ts'],
    tests: [
      'test/output/text.test.ts',
      'test/output/width-fallback.test.ts',
      // grouped(): counts by thousands without ICU, against toLocaleString.
      'test/output/grouped.test.ts',
      'test/output/layout.test.ts',
      'test/output/cells.test.ts',
      'test/output/field-paths.test.ts',
      'test/output/values.test.ts',
      'test/output/missing-option.test.ts',
      'test/output/wide-text.test.ts',
      'test/output/service-escapes.test.ts',
      'test/foundation/output.test.ts',
    ],
  },
  'fs-safe': {
    mutate: ['src/util/fs-safe.ts'],
    tests: ['test/foundation/fs-safe.test.ts', 'test/foundation/config.test.ts', 'test/bulk/engine.test.ts'],
  },
  catalogue: {
    // The catalogue's record checks: ISBNs and check digits, and the loader's checks of each record
    // (ISBN, prices and their terms, title, pages, SKU, publisher, the account's control), not how
    // it writes what passed (updates, indexes, reconciling prices: catalogue-indexes.test.ts and
    // catalogue-url.test.ts, outside this group because each of their loads takes seconds).
    mutate: [
      'src/sandbox/isbn.ts',
      'src/sandbox/catalogue/checks.ts',
      'src/sandbox/catalogue/publishers.ts',
      span(LOAD, 'const FIELD_NAMES', '];'),
      span(LOAD, '  private apply(', '  /**'),
      span(LOAD, '  private check(', '  }'),
    ],
    tests: ['test/sandbox/isbn.test.ts', 'test/sandbox/catalogue-checks.test.ts', 'test/sandbox/catalogue.test.ts'],
  },
  sandbox: {
    // The service's rules (orders, refunds, access, codes...) and its signatures.
    mutate: ['src/sandbox/domain/**/*.ts', 'src/sandbox/auth.ts'],
    // In this order (test/mutation/sequencer.ts): the rules and signatures asked in-process first, in
    // milliseconds; the files that serve a sandbox over HTTP (a seeded database and a server in each
    // file's beforeAll, seconds a file) run for a mutant only when no fast test killed it.
    tests: [
      'test/sandbox/auth.test.ts',
      'test/sandbox/verify-cache.test.ts',
      'test/sandbox/rules.test.ts',
      'test/sandbox/handlers.test.ts',
      'test/sandbox/refunds-access.test.ts',
      'test/sandbox/pages.test.ts',
      // The order's answer built from the rows as inserted, read back only after another connection's commit.
      'test/sandbox/order-cost.test.ts',
      // An order in JPY listed with its totals in yen (orders.ts currencyOf); a sandbox served in-process.
      'test/sandbox/currency-search.test.ts',
      // Not robustness.test.ts: it tests what this group does not mutate (the payload checks of
      // validate.ts, the faults, the HTTP layer), at 21 s a run, through every signature check and
      // handler; a mutant here that survived the files above paid for it whole. Not
      // conformance.test.ts: the same rules over HTTP, which rules.test.ts now asks in-process, and
      // its processing test waits on the worker's real 300 ms: at load 20 it failed in the dry run,
      // which stops the whole group (twice on 27 Nov).
    ],
  },
  // src/api/ (signing, the retry policy, errors, network routing, the check of answers): 2,300
  // mutants, over three hours in one run on 2 shared cores, so four groups that each end (Stryker
  // writes the incremental file only at the end of a run), each with the tests that read it.
  'api-client': {
    // The request's life: the retry policy, errors, what a failed send means for a write.
    mutate: [
      'src/api/client.ts',
      'src/api/options.ts',
      'src/api/prepare.ts',
      'src/api/exchange.ts',
      'src/api/retry.ts',
      'src/api/answer.ts',
      'src/api/errors.ts',
      'src/api/send-failure.ts',
      'src/api/write-hook.ts',
      'src/api/handler.ts',
    ],
    tests: [
      'test/foundation/retry-policy.test.ts',
      'test/foundation/client.test.ts',
      'test/foundation/client-pipeline.test.ts',
      'test/foundation/answer-shapes.test.ts',
      'test/foundation/exchange.test.ts',
      'test/foundation/header-values.test.ts',
      'test/network/network.test.ts',
      'test/bulk/retry.test.ts',
      // The write hook's callers: each write command's intent and outcome, and the intents told ahead.
      'test/ledger/record.test.ts',
      'test/ledger/ahead.test.ts',
      'test/ledger/write-hook.test.ts',
    ],
  },
  'api-verify': {
    // Believe only a verified answer: the shape checks of each endpoint's answer.
    mutate: ['src/api/verify.ts', 'src/api/asked.ts'],
    // The commands' tests through the stub: redirects, web pages, a write's unknown outcome, the raw call.
    tests: [
      'test/foundation/verify.test.ts',
      'test/commands/answer-asked.test.ts',
      'test/foundation/client.test.ts',
      'test/commands/verified-answers.test.ts',
      'test/commands/api-verified.test.ts',
      'test/commands/process-says-once.test.ts',
    ],
  },
  'api-wire': {
    // Signing and the wire form of requests (and the curl line that shows one).
    mutate: ['src/api/wire.ts', 'src/api/curl.ts'],
    tests: ['test/foundation/wire.test.ts', 'test/foundation/client.test.ts', 'test/foundation/header-values.test.ts'],
  },
  'api-network': {
    // Network routing: proxies, NO_PROXY, TLS, the transport's limits.
    mutate: ['src/api/network.ts', 'src/api/transport.ts'],
    // transport.test.ts: the transport against servers and a CONNECT proxy in the test process (sockets, TLS, tunnels).
    tests: [
      'test/network/routes.test.ts',
      'test/network/transport.test.ts',
      'test/network/network.test.ts',
      'test/foundation/client.test.ts',
    ],
  },
  'bulk-job': {
    // Journal, commit, planner, summary.
    mutate: ['src/bulk/job/**/*.ts'],
    // In this order (test/mutation/sequencer.ts): the journal, planner, committer, durable files and summary asked
    // in-process first, in milliseconds; then whole jobs run through main() against stubs (the
    // engine's first test alone takes seconds), which a mutant reaches only if no fast test killed it.
    tests: [
      'test/bulk/job-journal.test.ts',
      'test/bulk/job-planner.test.ts',
      'test/bulk/job-commit.test.ts',
      'test/bulk/job-durable.test.ts',
      'test/bulk/job-summary.test.ts',
      'test/bulk/job-items.test.ts',
      'test/bulk/job-lock.test.ts',
      'test/bulk/job-tools.test.ts',
      'test/bulk/job-worker.test.ts',
      'test/bulk/job-run.test.ts',
      'test/bulk/job-output-file.test.ts',
      'test/bulk/job-rescue.test.ts',
      'test/bulk/job-stdout-sink.test.ts',
      'test/bulk/job-types.test.ts',
      'test/bulk/job-encode.test.ts',
      'test/bulk/job-output-checks.test.ts',
      'test/bulk/summaries.test.ts',
      'test/bulk/verified-codes.test.ts',
      'test/bulk/engine.test.ts',
      'test/bulk/retry.test.ts',
      'test/bulk/pool.test.ts',
      'test/bulk/progress.test.ts',
      'test/bulk/progress-lines.test.ts',
      'test/bulk/csv.test.ts',
      'test/bulk/paging-memory.test.ts',
    ],
  },
};

const name = process.env.BOOKDIST_MUTATE_GROUP ?? 'text';
const group = GROUPS[name];
if (!group) throw new Error(`BOOKDIST_MUTATE_GROUP=${name}: no such group (${Object.keys(GROUPS).join(', ')})`);

export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.config.ts', related: false },
  // No type checker: @stryker-mutator/typescript-checker was measured at 10-15 s a mutant here (load
  // 19 on 2 cores), 20 times the tests' own time, and 2 minutes to start; a mutant that does not
  // type-check runs as the JavaScript esbuild makes of it, and the tests judge it like any other.
  coverageAnalysis: 'perTest',
  // Static mutants (in code that runs while a module loads: module-level constants and tables, the
  // arrow functions of an object literal) count like any other (no `ignoreStatic`): each one is
  // killed by a test that reads the constant by its behaviour, or disabled on its own line with its
  // reason and listed in test/mutation/accepted.md. Each costs a run of all the group's tests
  // (Stryker runs them last). test/mutation/static-setup.ts activates every mutant before the tree's
  // modules load and has them evaluated again: without it a static mutant is never active here.
  concurrency: 1,
  mutate: group.mutate,
  testFiles: group.tests,
  incremental: true,
  incrementalFile: `reports/incremental/${name}.json`,
  reporters: ['clear-text', 'progress-append-only', 'html', 'json'],
  htmlReporter: { fileName: `reports/mutation/${name}.html` },
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  thresholds: { high: 85, low: 70, break: null },
  // A busy machine (load 10 or more on 2 cores) makes normal tests slow: a mutant times out only well past that.
  timeoutMS: 20_000,
  dryRunTimeoutMinutes: 20,
  // What the unit tests do not read: builds, reports, test output.
  ignorePatterns: ['dist', 'dist.*', 'reports', 'test-results.json', 'test-artifacts', '*.log', '.bookdist-tmp'],
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
