// Habits (issue 27, item 6): the tree stays formatted. Biome's formatter (biome.json: the
// sources, tests, benches and scripts; 2 spaces, 120 columns, single quotes) reports every file
// it would change; `npm run format` writes them. A control formats a small unformatted file the
// same way, so a Biome that checks nothing cannot pass for a formatted tree.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inScratch, ROOT, runTool } from '../helpers/tool.js';

const BIOME = join(ROOT, 'node_modules/.bin/biome');

function biomeFormat(cwd: string, ...args: string[]): { status: number | null; out: string } {
  const r = runTool([BIOME, 'format', '--colors=off', '--max-diagnostics=20', ...args], cwd, { timeout: 120_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

describe('format', () => {
  it('every file Biome formats is formatted as biome.json says (run `npm run format` to fix)', () => {
    const r = biomeFormat(ROOT);
    expect(r.out.match(/^\S+ format ━+$/gm) ?? [], r.out).toEqual([]);
    expect(r.status, r.out).toBe(0);
  });

  it('control: an unformatted file is reported, with the change it needs', () => {
    const files = { 'biome.json': '{ "formatter": { "lineWidth": 120 } }\n', 'x.ts': 'const  a = {b:1}\n' };
    const r = inScratch('format', files, (dir) => biomeFormat(dir, 'x.ts'));
    expect(r.status).not.toBe(0);
    expect(r.out).toContain('x.ts format');
  });
});
