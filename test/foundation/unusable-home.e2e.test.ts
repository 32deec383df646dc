// A HOME bookdist cannot write (issue 28, item 10): every command that needs a directory under it
// says which variable moves that directory, at once, exit 2; none hangs. Node's own recursive
// mkdir never returns when a parent exists but cannot hold the child (a HOME under /proc), so
// `book list` with HOME=/proc/nope spun for ever in the launcher's compile cache, then in the
// sandbox's data directory. The tests run as root, so a 0500 directory would not stop them: a path
// under /proc and a file in place of the directory are what cannot be written here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { makeDirSync } from '../../src/util/fs-safe.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'bookdist-home-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The command with only this HOME (no XDG or BOOKDIST_ directories), killed if it hangs. */
const withHome = (home: string, args: string[], env: Record<string, string> = {}) =>
  runCli(args, {
    env: {
      HOME: home,
      XDG_CACHE_HOME: undefined,
      XDG_CONFIG_HOME: undefined,
      XDG_DATA_HOME: undefined,
      XDG_STATE_HOME: undefined,
      BOOKDIST_CONFIG_DIR: undefined,
      BOOKDIST_DATA_DIR: undefined,
      ...env,
    },
    timeoutMs: 20_000,
  });

describe('a HOME bookdist cannot write', () => {
  it('under /proc: book list ends at once naming BOOKDIST_DATA_DIR (it hung for ever), and works once it is set', async () => {
    const r = await withHome('/proc/nope', ['book', 'list']);
    expect(r.signal).toBeNull();
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Cannot create the sandbox's data directory /proc/nope/.local/share/bookdist (ENOENT)");
    expect(r.stderr).toContain('Set BOOKDIST_DATA_DIR to a writable directory');
    expect(r.stderr).not.toMatch(/\n\s+at /);

    const ok = await withHome('/proc/nope', ['book', 'list', '--limit', '1', '-o', 'ndjson'], {
      BOOKDIST_DATA_DIR: join(dir, 'data'),
    });
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout.trim()).hash_id).toMatch(/^[0-9a-f]{40}$/);
  });

  it('sandbox serve --db under /proc or under a file: exit 2 at once naming the directory and --db (it hung for ever under /proc)', async () => {
    const proc = await withHome(dir, ['sandbox', 'serve', '--db', '/proc/nope/x.db', '--port', '0']);
    expect(proc.signal).toBeNull();
    expect([proc.code, proc.stderr]).toEqual([
      2,
      'bookdist: Cannot create the directory of the sandbox database, /proc/nope (ENOENT): give --db (or BOOKDIST_DATA_DIR) a path in a directory you can write.\n',
    ]);
    const file = join(dir, 'db-dir-is-a-file');
    writeFileSync(file, '');
    const under = await withHome(dir, ['sandbox', 'serve', '--db', join(file, 'x.db'), '--port', '0']);
    expect(under.code).toBe(2);
    expect(under.stderr).toContain(`Cannot create the directory of the sandbox database, ${file} (EEXIST)`);
  });

  it('a file in place of the directory: exit 2 naming BOOKDIST_CONFIG_DIR and BOOKDIST_DATA_DIR', async () => {
    const home = join(dir, 'home-is-a-file');
    writeFileSync(home, '');
    const r = await withHome(home, ['book', 'list']);
    expect(r.signal).toBeNull();
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `Cannot read the config file ${home}/.config/bookdist/config.json: a part of that path is a file, not a directory`,
    );
    expect(r.stderr).toMatch(/Set BOOKDIST_CONFIG_DIR .* and BOOKDIST_DATA_DIR/);

    // With the config moved, the data directory is the next to name its variable.
    const r2 = await withHome(home, ['book', 'list'], { BOOKDIST_CONFIG_DIR: join(dir, 'config') });
    expect(r2.code).toBe(2);
    expect(r2.stderr).toContain(`Cannot create the sandbox's data directory ${home}/.local/share/bookdist (ENOTDIR)`);
    expect(r2.stderr).toContain('Set BOOKDIST_DATA_DIR');
  });
});

describe('makeDirSync', () => {
  it('makes the missing directories 0700, keeps existing ones, refuses a file (EEXIST)', () => {
    const deep = join(dir, 'make', 'a', 'b');
    makeDirSync(deep);
    makeDirSync(deep);
    expect(readdirSync(join(dir, 'make'))).toEqual(['a']);
    writeFileSync(join(dir, 'make', 'f'), '');
    expect(() => makeDirSync(join(dir, 'make', 'f'))).toThrow(expect.objectContaining({ code: 'EEXIST' }));
    expect(() => makeDirSync(join(dir, 'make', 'f', 'x'))).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
  });

  // Under /proc it is the CLI tests above that check it (in this process a regression would hang
  // the test run itself: Node's loop is synchronous).
  it('under a dangling link: ENOENT', () => {
    symlinkSync(join(dir, 'nowhere'), join(dir, 'dangling'));
    expect(() => makeDirSync(join(dir, 'dangling', 'a'))).toThrow(expect.objectContaining({ code: 'ENOENT' }));
  });
});
