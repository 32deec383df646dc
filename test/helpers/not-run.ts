// A reporter that ends the run's summary with every test that did not run and why (the note it
// gave ctx.skip), so that nothing passes silently: an optional test whose tool or setting is
// missing says what would make it run. A skip without a note is listed as such (a defect).
import type { Reporter, TestModule, Vitest } from 'vitest/node';

export default class NotRunReporter implements Reporter {
  /** -t PATTERN: the tests it leaves out are not listed (only those that skipped themselves, with their note). */
  private filtered = false;
  onInit(vitest: Vitest): void {
    this.filtered = Boolean(vitest.config.testNamePattern);
  }
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const lines: string[] = [];
    for (const m of modules) {
      for (const t of m.children.allTests('skipped')) {
        const r = t.result();
        const note = r.state === 'skipped' ? r.note : undefined;
        if (!note && this.filtered) continue;
        const why = note ?? 'skipped without a reason (give ctx.skip a note)';
        lines.push(`  ${m.relativeModuleId} > ${t.fullName}: ${why}`);
      }
    }
    process.stdout.write(
      lines.length ? `\n Not run (${lines.length}):\n${lines.join('\n')}\n` : '\n Not run: none (every test ran).\n',
    );
  }
}
