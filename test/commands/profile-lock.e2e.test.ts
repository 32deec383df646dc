// Stored settings are never lost (issue 28): profile add, remove and use read, change and write
// the store under a lock, so changes made at the same moment by separate processes all stay.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';

let dir: string;
let env: Record<string, string>;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bookdist-profile-lock-'));
  env = { BOOKDIST_CONFIG_DIR: join(dir, 'config'), BOOKDIST_DATA_DIR: join(dir, 'data') };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const add = (name: string) =>
  runCli(
    ['profile', 'add', '--name', name, '--base-url', `https://${name}.bookdist.test`, '--token-stdin', '--no-verify'],
    { env, input: `token-${name}\n` },
  );
const stored = () => Object.keys(JSON.parse(readFileSync(join(dir, 'config/config.json'), 'utf8')).profiles).sort();

describe('profile store under concurrent changes', () => {
  it('10 concurrent profile add (separate processes) keep all 10; then 5 removes and a use at once keep the rest', async () => {
    const names = Array.from({ length: 10 }, (_, i) => `p${i}`);
    const added = await Promise.all(names.map(add));
    for (const r of added) expect(r.code, r.stderr).toBe(0);
    expect(stored()).toEqual(names);
    const changes = await Promise.all([
      ...names.slice(0, 5).map((n) => runCli(['profile', 'remove', n, '--yes'], { env })),
      runCli(['profile', 'use', 'p7'], { env }),
    ]);
    for (const r of changes) expect(r.code, r.stderr).toBe(0);
    expect(stored()).toEqual(names.slice(5));
    expect(JSON.parse(readFileSync(join(dir, 'config/config.json'), 'utf8')).current).toBe('p7');
    expect(existsSync(join(dir, 'config/config.json.lock'))).toBe(false);
  });

  it('two concurrent adds of one name: one is saved, the other is a conflict (exit 5), never a silent overwrite', async () => {
    const [a, b] = await Promise.all([add('same'), add('same')]);
    expect([a.code, b.code].sort()).toEqual([0, 5]);
    expect(stored()).toEqual(['same']);
  });
});
