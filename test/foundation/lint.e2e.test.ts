// Habits (issue 27, item 6): ESLint with typescript-eslint's type-aware rules
// (eslint.config.mjs, which says why each rule it turns off or loosens is so) finds nothing in
// src/. A control lints a small file with a floating promise and an object printed as
// "[object Object]", so a linter that checks nothing cannot pass for a clean tree.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inScratch, ROOT, runTool } from '../helpers/tool.js';

const ESLINT = join(ROOT, 'node_modules/eslint/bin/eslint.js');

interface Finding {
  filePath: string;
  messages: Array<{ ruleId: string | null; line: number; message: string }>;
}

function lint(cwd: string, ...args: string[]): { status: number | null; findings: string[]; stderr: string } {
  const r = runTool([process.execPath, ESLINT, '--format', 'json', ...args], cwd, {
    env: { NODE_DISABLE_COMPILE_CACHE: '1' },
    // About 30 s quiet; ten times that at load 20 on 2 cores (ci-43a: killed at 300 s).
    timeout: 570_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  const report = JSON.parse(r.stdout || '[]') as Finding[];
  const findings = report.flatMap((f) =>
    f.messages.map((m) => `${f.filePath.slice(cwd.length + 1)}:${m.line} ${m.ruleId ?? ''} ${m.message}`),
  );
  return { status: r.status, findings, stderr: r.stderr };
}

describe('lint', () => {
  it('finds nothing in src/ (`npm run lint`)', () => {
    const r = lint(ROOT, 'src');
    expect(r.findings).toEqual([]);
    expect(r.status, r.stderr).toBe(0);
  }, 600_000); // type-aware rules build the whole program: about 30 s on a quiet machine

  it('control: a floating promise and an object printed as "[object Object]" are found', () => {
    const files = {
      'package.json': '{ "type": "module" }\n',
      'tsconfig.json': JSON.stringify({
        compilerOptions: { strict: true, module: 'nodenext', target: 'es2022' },
        include: ['src'],
      }),
      'eslint.config.mjs': `import config from ${JSON.stringify(join(ROOT, 'eslint.config.mjs'))};\nexport default config;\n`,
      'src/x.ts':
        'async function later(): Promise<number> { await Promise.resolve(); return 1; }\n' +
        'export function f(o: { a: number }): string { later(); return `${String(o)}`; }\n',
    };
    const r = inScratch('lint', files, (dir) => lint(dir, 'src'));
    const rules = r.findings.map((f) => f.split(' ')[1]);
    expect(rules, r.stderr).toContain('@typescript-eslint/no-floating-promises');
    expect(rules).toContain('@typescript-eslint/no-base-to-string');
  }, 600_000);
});
