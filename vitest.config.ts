import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { Plugin } from 'vite';
import { configDefaults, defineConfig } from 'vitest/config';
import { keptWorkerPool } from './test/mutation/kept-worker.js';
import { GroupOrder } from './test/mutation/sequencer.js';

/** The shell completion templates are imported as text, as esbuild's text loader does in the build. */
const shellTemplates: Plugin = {
  name: 'bookdist-shell-templates',
  enforce: 'pre',
  load(id) {
    const file = id.split('?')[0];
    if (/\.(bash|zsh|fish)$/.test(file)) return `export default ${JSON.stringify(readFileSync(file, 'utf8'))};`;
    return undefined;
  },
};

/**
 * Under `npm run mutate` (BOOKDIST_MUTATE=1) only. Stryker's vitest runner (9.6) picks the tests of a
 * mutant by a name pattern that joins describe and test names with a space, while vitest 5 matches
 * names joined with " > ": no test would run for any mutant and every mutant would survive. The
 * pattern a project is given is made to match either.
 */
const strykerTestNames: Plugin = {
  name: 'bookdist-stryker-test-names',
  configureVitest({ project, vitest }) {
    // One worker thread for all the runs of a Stryker process (test/mutation/kept-worker.ts), not one per mutant.
    if (project.config.isolate === false && !process.env.BOOKDIST_MUTATE_NEW_WORKERS) {
      const pool = keptWorkerPool(vitest);
      project.config.pool = pool.name;
      project.config.poolRunner = pool;
    }
    let pattern: RegExp | undefined;
    Object.defineProperty(project.config, 'testNamePattern', {
      get: () => pattern,
      set: (v: RegExp | undefined) => {
        pattern = v instanceof RegExp ? new RegExp(v.source.replaceAll(' ', '(?: > | )'), v.flags) : v;
      },
      configurable: true,
      enumerable: true,
    });
  },
};
const MUTATE = process.env.BOOKDIST_MUTATE === '1';

/**
 * Tests that need processes: the launcher, signals and kills, shells, a pseudo-terminal, a browser,
 * real servers in other processes, README examples typed into bash. Everything else runs
 * in-process (test/helpers/run.ts with HTTP stubs or a sandbox in this process) in the `unit`
 * project: `npm run test:unit` for everyday work, `npm test` for both.
 * A new test file that starts processes is named *.e2e.test.ts (or *.pty/.browser.test.ts).
 */
const E2E = [
  'test/**/*.e2e.test.ts',
  'test/**/*.pty.test.ts',
  'test/**/*.browser.test.ts',
  'test/commands/help-layout.test.ts',
  'test/completion/generated.test.ts',
  'test/completion/help-tree.test.ts',
  'test/completion/shells.test.ts',
  'test/docs/examples.test.ts',
  'test/foundation/e2e.test.ts',
  'test/foundation/full-disk.test.ts',
  'test/foundation/launcher.test.ts',
  'test/foundation/startup.test.ts',
  'test/openapi/dry-run-check.test.ts',
  'test/openapi/openapi.test.ts',
  'test/output/lazy.test.ts',
  'test/sandbox/cli.test.ts',
  'test/sandbox/durability.test.ts',
  'test/sandbox/reference-clients.test.ts',
];

/**
 * In-process files that mock one of Node's modules (`vi.mock('node:fs')`): the unit project shares
 * its module graph between files (isolate: false), so a module another file loaded first keeps the
 * real one and the mock would reach it or not depending on the order the files ran in. These run
 * in a project of their own that gives each file a fresh graph.
 */
const OWN_MODULES = ['test/ledger/durable.test.ts', 'test/cache/ids-shortcut.test.ts'];

export default defineConfig({
  // One Vite server for both projects (a project that declares plugins of its own gets its own).
  plugins: [shellTemplates, ...(MUTATE ? [strykerTestNames] : [])],
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // vitest's default is one worker fewer than the cores: one file at a time on a 2-core machine.
    maxWorkers: availableParallelism(),
    // Each run gets a temporary directory and HOME of its own, and fails if it leaves anything there.
    globalSetup: ['test/helpers/temp-guard.ts'],
    // BOOKDIST_TEST_CPU=<file>: one line per test file with its CPU time (test/helpers/cpu-probe.ts).
    // Under `npm run mutate`, static mutants need their modules evaluated again (test/mutation/static-setup.ts).
    setupFiles: ['test/helpers/cpu-probe.ts', ...(MUTATE ? ['test/mutation/static-setup.ts'] : [])],
    // The summary ends with every test that did not run and why (test/helpers/not-run.ts).
    reporters: ['default', 'json', './test/helpers/not-run.ts'],
    // Under `npm run mutate`, a group's fast test files first (test/mutation/sequencer.ts).
    ...(MUTATE ? { sequence: { sequencer: GroupOrder } } : {}),
    outputFile: { json: 'test-results.json' },
    projects: [
      {
        test: {
          name: 'unit',
          // In-process tests share a worker (no process and module graph per file).
          isolate: false,
          include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
          // Under `npm run mutate` (BOOKDIST_MUTATE=1) also without the one unit file that starts the
          // built CLI (dist/ holds no mutant, and Stryker's copy of the tree has no dist/).
          exclude: [
            ...configDefaults.exclude,
            ...E2E,
            ...OWN_MODULES,
            ...(MUTATE ? ['test/output/query-bounds.test.ts'] : []),
          ],
        },
      },
      { test: { name: 'unit-own-modules', isolate: true, include: OWN_MODULES } },
      // The end-to-end files too: what they start (processes, servers, sandboxes) they stop themselves.
      // Not under `npm run mutate` (BOOKDIST_MUTATE=1): they run dist/, which holds no mutant.
      ...(MUTATE ? [] : [{ test: { name: 'e2e', include: E2E, isolate: false } }]),
    ],
  },
});
