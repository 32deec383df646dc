// --query's JMESPath library stays off the start-up path: loaded only by a run that has --query;
// the display-width library (string-width, 30-40 ms) only when a table or card holds text that is
// not printable ASCII.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const hook = pathToFileURL(fileURLToPath(new URL('../foundation/fixtures/trace-loads.mjs', import.meta.url))).href;
const dir = mkdtempSync(join(tmpdir(), 'bookdist-lazy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function loads(args: string[]) {
  const trace = join(dir, `trace-${Math.random().toString(36).slice(2)}.txt`);
  const r = await runCli(args, {
    env: { NODE_OPTIONS: `--import=${hook}`, BOOKDIST_TRACE_LOADS: trace, BOOKDIST_CONFIG_DIR: join(dir, 'cfg') },
  });
  const files = existsSync(trace)
    ? readFileSync(trace, 'utf8')
        .trim()
        .split('\n')
        .filter((u) => u.startsWith('file:'))
        .map((u) => fileURLToPath(u))
    : [];
  const sources = files.flatMap((f) =>
    f.includes('/dist/') && existsSync(f + '.map') ? [f, ...JSON.parse(readFileSync(f + '.map', 'utf8')).sources] : [f],
  );
  return {
    r,
    jmespath: sources.some((s) => s.includes('@jmespath-community')),
    width: sources.some((s) => /node_modules\/string-width\//.test(s)),
  };
}

it('profile list loads no JMESPath; with --query it does, and the query runs', async () => {
  const [plain, queried] = await Promise.all([
    loads(['profile', 'list']),
    loads(['profile', 'list', '--query', '[].name']),
  ]);
  expect(plain.r.code).toBe(0);
  expect(plain.jmespath).toBe(false);
  expect(queried.r.code, queried.r.stderr).toBe(0);
  expect(JSON.parse(queried.r.stdout)).toContain('sandbox');
  expect(queried.jmespath).toBe(true);
});

it('an ASCII table loads no display-width library; a table with wide text does, and fits', async () => {
  const [ascii, wide] = await Promise.all([
    loads(['profile', 'list', '-o', 'table']),
    loads(['profile', 'list', '-o', 'table', '--query', '[].{name: name, title: `"吾輩は猫である"`}']),
  ]);
  expect(ascii.r.code, ascii.r.stderr).toBe(0);
  expect(ascii.width).toBe(false);
  expect(wide.r.code, wide.r.stderr).toBe(0);
  expect(wide.r.stdout).toContain('吾輩は猫である');
  expect(wide.width).toBe(true);
});
