// The file-system seam's safe opens: nothing is written through a planted link, new files are
// created exclusively and private, whole-file writes go through an unguessable temporary name.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, lstatSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNewSync, kindOf, nodeFs, readTextSync, takeOverEmpty, tempNameFor, writeFileAtomicSync } from '../../src/util/fs-safe.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bookdist-fs-safe-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('fs-safe', () => {
  it('createNew refuses a planted link, dangling or not, and writes nothing through it', async () => {
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'keep');
    symlinkSync(victim, join(dir, 'a'));
    symlinkSync(join(dir, 'nowhere'), join(dir, 'b'));
    await expect(nodeFs.createNew(join(dir, 'a'))).rejects.toMatchObject({ code: 'EEXIST' });
    await expect(nodeFs.createNew(join(dir, 'b'))).rejects.toMatchObject({ code: 'EEXIST' });
    expect(() => createNewSync(join(dir, 'b'))).toThrow(/EEXIST/);
    expect(readFileSync(victim, 'utf8')).toBe('keep');
    expect(readdirSync(dir).sort()).toEqual(['a', 'b', 'victim']);
  });

  it('a new file is 0600', async () => {
    const fh = await nodeFs.createNew(join(dir, 'n'));
    await fh.close();
    expect(statSync(join(dir, 'n')).mode & 0o777).toBe(0o600);
  });

  it('openExisting and readText never follow a link, and refuse a FIFO without hanging', async () => {
    writeFileSync(join(dir, 'victim'), 'secret');
    symlinkSync(join(dir, 'victim'), join(dir, 'l'));
    await expect(nodeFs.openExisting(join(dir, 'l'), 'append')).rejects.toMatchObject({ code: 'ELOOP' });
    await expect(nodeFs.readText(join(dir, 'l'))).rejects.toMatchObject({ code: 'ELOOP' });
    expect(() => readTextSync(join(dir, 'l'))).toThrow(/ELOOP/);
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    await expect(nodeFs.openExisting(join(dir, 'fifo'), 'readwrite')).rejects.toMatchObject({ code: 'ENOTREG' });
    expect(await nodeFs.readText(join(dir, 'missing'))).toBeUndefined();
  });

  it('writeFileAtomic replaces a planted link instead of writing through it, via an unguessable temp name', async () => {
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'keep');
    symlinkSync(victim, join(dir, 'j'));
    await nodeFs.writeFileAtomic(join(dir, 'j'), 'journal\n');
    expect(readFileSync(victim, 'utf8')).toBe('keep');
    expect(lstatSync(join(dir, 'j')).isFile()).toBe(true);
    expect(readFileSync(join(dir, 'j'), 'utf8')).toBe('journal\n');
    expect(statSync(join(dir, 'j')).mode & 0o777).toBe(0o600);
    writeFileAtomicSync(join(dir, 'k'), 'x');
    expect(readdirSync(dir).sort()).toEqual(['j', 'k', 'victim']);
    const a = tempNameFor(join(dir, 'j'));
    expect(a).not.toBe(tempNameFor(join(dir, 'j')));
    expect(a).not.toContain(String(process.pid));
    expect(a.startsWith(join(dir, '.j.'))).toBe(true);
  });

  it('takeOverEmpty: only an empty regular file of ours with one link, then 0600', async () => {
    writeFileSync(join(dir, 'e'), '', { mode: 0o644 });
    const r = await takeOverEmpty(nodeFs, join(dir, 'e'));
    expect('handle' in r).toBe(true);
    if ('handle' in r) await r.handle.close();
    expect(statSync(join(dir, 'e')).mode & 0o777).toBe(0o600);
    writeFileSync(join(dir, 'f'), 'x');
    expect(await takeOverEmpty(nodeFs, join(dir, 'f'))).toEqual({ refused: 'it is not empty' });
    symlinkSync(join(dir, 'e'), join(dir, 'l'));
    expect(await takeOverEmpty(nodeFs, join(dir, 'l'))).toEqual({ refused: 'it is a symbolic link' });
    expect((await kindOf(nodeFs, join(dir, 'l'))).kind).toBe('link');
    expect((await kindOf(nodeFs, join(dir, 'zz'))).kind).toBe('missing');
  });
});
