// The eager compile of bookdist's chunks (src/cache/eager-compile.ts): V8 compiles every function
// of a chunk while it loads (--no-lazy), and is lazy again once the last overlapping load is done,
// also when a load fails; nothing is installed when the user set a lazy flag of their own. The
// whole effect (a warm run's cache entries hold the functions) is checked end to end in
// test/foundation/compile-cache.e2e.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import { EAGER_IMPORT, installEagerCompile } from '../../src/cache/eager-compile.js';

type Importer = <T>(load: () => Promise<T>) => Promise<T>;
const installed = () => (globalThis as Record<symbol, unknown>)[EAGER_IMPORT] as Importer | undefined;
afterEach(() => void delete (globalThis as Record<symbol, unknown>)[EAGER_IMPORT]);

describe('eager compile while a chunk loads', () => {
  it('--no-lazy from the first load to the end of the last overlapping one, then --lazy; the loads resolve as they would', async () => {
    const flags: string[] = [];
    expect(installEagerCompile([], (f) => flags.push(f))).toBe(true);
    expect(flags).toEqual(['--lazy']);
    const eager = installed()!;
    let release!: () => void;
    const slow = eager(() => new Promise<string>((r) => (release = () => r('slow'))));
    const fast = eager(async () => 'fast');
    expect(await fast).toBe('fast');
    expect(flags).toEqual(['--lazy', '--no-lazy']);
    release();
    expect(await slow).toBe('slow');
    expect(flags).toEqual(['--lazy', '--no-lazy', '--lazy']);
    expect(await eager(async () => 1)).toBe(1);
    expect(flags.slice(3)).toEqual(['--no-lazy', '--lazy']);
  });

  it("a Node module a chunk's top level takes while it loads is compiled lazily (with Node's own cache); process.getBuiltinModule as it was after", async () => {
    const flags: string[] = [];
    const original = process.getBuiltinModule;
    installEagerCompile([], (f) => flags.push(f));
    const got = await installed()!(async () => {
      flags.push('load');
      const os = process.getBuiltinModule('node:os');
      process.getBuiltinModule('node:os');
      return os;
    });
    expect(got).toBe(original.call(process, 'node:os'));
    expect(flags).toEqual(['--lazy', '--no-lazy', 'load', '--lazy', '--no-lazy', '--lazy']);
    expect(process.getBuiltinModule).toBe(original);
  });

  it('a load that fails leaves V8 lazy again and rejects as it would', async () => {
    const flags: string[] = [];
    installEagerCompile([], (f) => flags.push(f));
    await expect(installed()!(() => Promise.reject(new Error('no such chunk')))).rejects.toThrow('no such chunk');
    expect(flags).toEqual(['--lazy', '--no-lazy', '--lazy']);
  });

  it("not with a lazy flag of the user's, nor when V8's flags cannot change: nothing installed, no flag set", () => {
    const flags: string[] = [];
    expect(installEagerCompile(['--no-lazy'], (f) => flags.push(f))).toBe(false);
    expect(installEagerCompile(['--enable-source-maps', '--max-lazy'], (f) => flags.push(f))).toBe(false);
    expect(flags).toEqual([]);
    expect(
      installEagerCompile([], () => {
        throw new Error('flags frozen');
      }),
    ).toBe(false);
    expect(installed()).toBeUndefined();
  });
});
