// The code cache's guard (src/cache/compile-cache.ts): where the cache goes, that it is used only
// when every directory is a real one of this user's (0700, never a link) and every entry in it is
// a regular file, and that anything else leaves the cache off (the run goes on without it) instead
// of throwing. The checks of each entry (a truncated, corrupt or stale one is not given to V8) are
// in test/cache/code-cache.test.ts, and end to end in test/foundation/compile-cache.e2e.test.ts.
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compileCacheKey, compileCacheRoot, MAX_ENTRIES, openCodeCache } from '../../src/cache/compile-cache.js';

let dir: string;
beforeEach(() => void (dir = mkdtempSync(join(tmpdir(), 'bookdist-compile-cache-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const KEY = compileCacheKey('1.2.3');
const mode = (p: string) => statSync(p).mode & 0o777;

describe('where the cache goes', () => {
  it('$XDG_CACHE_HOME/bookdist/compile-cache, else ~/.cache/bookdist/compile-cache; only absolute paths', () => {
    expect(compileCacheRoot({ XDG_CACHE_HOME: '/x/cache', HOME: '/home/u' })).toBe('/x/cache/bookdist/compile-cache');
    expect(compileCacheRoot({ HOME: '/home/u' })).toBe('/home/u/.cache/bookdist/compile-cache');
    expect(compileCacheRoot({ XDG_CACHE_HOME: 'relative', HOME: '/home/u' })).toBe(
      '/home/u/.cache/bookdist/compile-cache',
    );
    expect(compileCacheRoot({ HOME: 'relative' })).toBeUndefined();
    expect(compileCacheRoot({})).toBeUndefined();
  });

  it("the key names bookdist's version, the Node version, architecture and V8: another of any is another directory", () => {
    const v = { ...process.versions, node: '24.21.0', v8: '13.6.233.17-node.53' };
    expect(compileCacheKey('0.1.0', v, 'x64')).toBe('0.1.0-node24.21.0-x64-v8-13.6.233.17-node.53');
    expect(compileCacheKey('0.1.1', v, 'x64')).not.toBe(compileCacheKey('0.1.0', v, 'x64'));
    expect(compileCacheKey('0.1.0', { ...v, node: '24.22.0' }, 'x64')).not.toBe(compileCacheKey('0.1.0', v, 'x64'));
    expect(compileCacheKey('0.1.0', v, 'arm64')).not.toBe(compileCacheKey('0.1.0', v, 'x64'));
    expect(compileCacheKey('0.1.0', { ...v, v8: '13.6.233.18-node.54' }, 'x64')).not.toBe(
      compileCacheKey('0.1.0', v, 'x64'),
    );
    expect(compileCacheKey('0.1.0/../x', v, 'x64')).not.toContain('/');
  });
});

describe('a cache that may be used', () => {
  it('a first run makes the directories (0700, the cache home too) and gives the key directory', () => {
    const home = join(dir, 'no-such', 'cache');
    expect(openCodeCache({ XDG_CACHE_HOME: home }, '1.2.3')).toEqual({
      used: true,
      dir: join(home, 'bookdist', 'compile-cache', KEY),
    });
    for (const d of [
      home,
      join(home, 'bookdist'),
      join(home, 'bookdist', 'compile-cache'),
      join(home, 'bookdist', 'compile-cache', KEY),
    ])
      expect(mode(d), d).toBe(0o700);
  });

  it('directories others may read or write are made 0700 again', () => {
    const root = join(dir, 'bookdist', 'compile-cache', KEY);
    mkdirSync(root, { recursive: true });
    for (const d of [join(dir, 'bookdist'), join(dir, 'bookdist', 'compile-cache'), root]) chmodSync(d, 0o777);
    expect(openCodeCache({ XDG_CACHE_HOME: dir }, '1.2.3').used).toBe(true);
    for (const d of [join(dir, 'bookdist'), join(dir, 'bookdist', 'compile-cache'), root])
      expect(mode(d), d).toBe(0o700);
  });

  it('a new version removes the caches of other versions and the unchecked one earlier versions kept', () => {
    const root = join(dir, 'bookdist', 'compile-cache');
    mkdirSync(join(root, compileCacheKey('1.2.2'), 'v24.0.0-x64-0-0'), { recursive: true });
    writeFileSync(join(root, compileCacheKey('1.2.2'), 'v24.0.0-x64-0-0', 'a925e9e0'), 'old');
    mkdirSync(join(dir, 'bookdist', 'node-compile-cache', 'v24.0.0-x64-0-0'), { recursive: true });
    mkdirSync(join(dir, 'bookdist', 'ids'));
    expect(openCodeCache({ XDG_CACHE_HOME: dir }, '1.2.3').used).toBe(true);
    expect(readdirSync(root)).toEqual([KEY]);
    expect(readdirSync(join(dir, 'bookdist')).sort()).toEqual(['compile-cache', 'ids']);
  });

  it('its entries (regular files, a half-written one too) are left as they are', () => {
    const keyDir = join(dir, 'bookdist', 'compile-cache', KEY);
    mkdirSync(keyDir, { recursive: true });
    writeFileSync(join(keyDir, 'i8p5c1-main.js'), 'cache');
    writeFileSync(join(keyDir, 'i8p5c1-main.js.123-abc.tmp'), 'half-written');
    expect(openCodeCache({ XDG_CACHE_HOME: dir }, '1.2.3').used).toBe(true);
    expect(readdirSync(keyDir).sort()).toEqual(['i8p5c1-main.js', 'i8p5c1-main.js.123-abc.tmp']);
  });

  it(`past ${MAX_ENTRIES} entries (Node flags that vary from run to run) all are removed, and the cache is used`, () => {
    const keyDir = join(dir, 'bookdist', 'compile-cache', KEY);
    mkdirSync(keyDir, { recursive: true });
    for (let i = 0; i < MAX_ENTRIES; i++) writeFileSync(join(keyDir, `t${i}-main.js`), 'x');
    expect(openCodeCache({ XDG_CACHE_HOME: dir }, '1.2.3').used).toBe(true);
    expect(readdirSync(keyDir).length).toBe(MAX_ENTRIES);
    writeFileSync(join(keyDir, 'one-more-main.js'), 'x');
    expect(openCodeCache({ XDG_CACHE_HOME: dir }, '1.2.3')).toEqual({ used: true, dir: keyDir });
    expect(readdirSync(keyDir)).toEqual([]);
  });
});

describe('no cache, and the run goes on', () => {
  it("turned off: BOOKDIST_COMPILE_CACHE=off, NODE_DISABLE_COMPILE_CACHE; NODE_COMPILE_CACHE is Node's own", () => {
    for (const env of [
      { BOOKDIST_COMPILE_CACHE: 'off' },
      { BOOKDIST_COMPILE_CACHE: '0' },
      { NODE_DISABLE_COMPILE_CACHE: '1' },
      { NODE_COMPILE_CACHE: join(dir, 'n') },
    ]) {
      const state = openCodeCache({ XDG_CACHE_HOME: dir, ...env }, '1.2.3');
      expect(state.used, JSON.stringify(env)).toBe(false);
    }
    expect(readdirSync(dir)).toEqual([]);
    // control: the same without them
    expect(openCodeCache({ XDG_CACHE_HOME: dir, BOOKDIST_COMPILE_CACHE: 'on' }, '1.2.3').used).toBe(true);
  });

  it('no home directory and no XDG_CACHE_HOME', () => {
    expect(openCodeCache({ HOME: '' }, '1.2.3')).toEqual({
      used: false,
      reason: expect.stringMatching(/neither XDG_CACHE_HOME nor HOME/),
    });
  });

  for (const [what, at] of [
    ['bookdist/', ['bookdist']],
    ['bookdist/compile-cache/', ['bookdist', 'compile-cache']],
    ['the key directory', ['bookdist', 'compile-cache', KEY]],
  ] as const) {
    it(`a link planted at ${what}: not followed, nothing written where it points`, () => {
      const elsewhere = join(dir, 'elsewhere');
      mkdirSync(elsewhere);
      const path = join(dir, ...at);
      mkdirSync(join(path, '..'), { recursive: true });
      symlinkSync(elsewhere, path);
      expect(openCodeCache({ XDG_CACHE_HOME: dir }, '1.2.3')).toEqual({
        used: false,
        reason: `${path} is a symbolic link`,
      });
      expect(readdirSync(elsewhere)).toEqual([]);
      expect(lstatSync(path).isSymbolicLink()).toBe(true);
    });
  }

  it('a file where a directory goes', () => {
    mkdirSync(join(dir, 'bookdist'));
    writeFileSync(join(dir, 'bookdist', 'compile-cache'), 'not a directory');
    expect(openCodeCache({ XDG_CACHE_HOME: dir }, '1.2.3')).toEqual({
      used: false,
      reason: `${join(dir, 'bookdist', 'compile-cache')} is not a directory`,
    });
  });

  it('a cache home that cannot be made (under a file): no throw', () => {
    writeFileSync(join(dir, 'file'), '');
    expect(openCodeCache({ XDG_CACHE_HOME: join(dir, 'file', 'cache') }, '1.2.3')).toEqual({
      used: false,
      reason: expect.stringMatching(/^ENOTDIR/),
    });
  });

  it('a link, a FIFO or a directory among the entries: no cache this run, the stray entry removed, the next run uses it', () => {
    const keyDir = join(dir, 'bookdist', 'compile-cache', KEY);
    mkdirSync(keyDir, { recursive: true });
    writeFileSync(join(keyDir, 'good'), 'cache');
    writeFileSync(join(dir, 'target'), "someone else's file");
    symlinkSync(join(dir, 'target'), join(keyDir, 'i8p5c1-main.js'));
    const fifo = spawnSync('mkfifo', [join(keyDir, 'i8p5c1-chunks_run-BBv1G_-5.js')]);
    expect(fifo.status).toBe(0);
    mkdirSync(join(keyDir, 'v24.21.0-x64-964aae3f-0'));
    const state = openCodeCache({ XDG_CACHE_HOME: dir }, '1.2.3');
    expect(state).toEqual({ used: false, reason: expect.stringMatching(/ is a (symbolic link|FIFO|directory)$/) });
    expect(readdirSync(keyDir)).toEqual(['good']);
    expect(existsSync(join(dir, 'target'))).toBe(true);
    expect(openCodeCache({ XDG_CACHE_HOME: dir }, '1.2.3').used).toBe(true);
  });
});
