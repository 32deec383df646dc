// Dead code stays out (issue 16, item 6): knip, with the repo's knip.jsonc, finds no unused file,
// export, type or dependency. A control runs the same knip on a small project with an unused
// export, so a knip that finds nothing at all cannot pass for a clean tree.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inScratch, ROOT, runTool } from '../helpers/tool.js';

const KNIP = join(ROOT, 'node_modules/knip/bin/knip.js');

interface KnipIssue {
  file: string;
  [kind: string]: unknown;
}

// knip reads vitest.config.ts through jiti, whose file cache (node_modules/.cache or TMPDIR) stays off.
/** knip's JSON report for the project in `cwd`: the files with findings, each with its non-empty kinds. */
function knip(cwd: string): { status: number | null; findings: string[]; stderr: string } {
  const r = runTool([process.execPath, KNIP, '--no-progress', '--reporter', 'json'], cwd, {
    env: { NODE_DISABLE_COMPILE_CACHE: '1', JITI_FS_CACHE: 'false' },
    timeout: 120_000,
  });
  const report = JSON.parse(r.stdout || '{"issues":[]}') as { issues: KnipIssue[] };
  const findings = report.issues.flatMap((issue) =>
    Object.entries(issue)
      .filter(([kind, list]) => kind !== 'file' && Array.isArray(list) && list.length > 0)
      .flatMap(([kind, list]) =>
        (list as Array<{ name: string; line?: number }>).map((x) => `${issue.file}:${x.line ?? 0} ${kind} ${x.name}`),
      ),
  );
  return { status: r.status, findings, stderr: r.stderr };
}

describe('knip', () => {
  it('finds nothing unused in the repository (knip.jsonc says why each exception is one)', () => {
    const r = knip(ROOT);
    expect(r.findings, r.stderr).toEqual([]);
    expect(r.status, r.stderr).toBe(0);
  });

  it('control: finds an export nothing imports', () => {
    const files = {
      'package.json': JSON.stringify({ name: 'knip-control', private: true, type: 'module' }),
      'knip.json': JSON.stringify({ entry: ['src/main.ts'], project: ['src/**/*.ts'] }),
      'src/main.ts': "import { used } from './lib.js';\nconsole.log(used());\n",
      'src/lib.ts':
        'export function used(): number {\n  return 1;\n}\nexport function forgotten(): number {\n  return 2;\n}\n',
    };
    const r = inScratch('knip', files, (dir) => knip(dir));
    expect(r.findings, r.stderr).toEqual(['src/lib.ts:4 exports forgotten']);
    expect(r.status).toBe(1);
  });
});
