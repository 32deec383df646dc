// The file-system seam's safe opens: nothing is written through a planted link, new files are
// created exclusively and private, whole-file writes go through an unguessable temporary name.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
  lstatSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createNewSync,
  kindOf,
  makeDirSync,
  nodeFs,
  privateDirSync,
  readTextSync,
  takeOverEmpty,
  tempNameFor,
  writeFileAtomicSync,
  type SafeHandle,
} from '../../src/util/fs-safe.js';

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
    expect(a.startsWith(join(dir, '.j.'))).toBe(true);
    // The part the name adds (the directory's own path may hold a pid: the temp guard's suite folder
    // does, and under Stryker's one-process pool it is this process's).
    expect(a.slice(join(dir, '.j.').length)).not.toContain(String(process.pid));
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

  it('a read handle reads and cannot write; a readwrite handle can; refusals name the path', async () => {
    writeFileSync(join(dir, 'r'), 'text é');
    const read = await nodeFs.openExisting(join(dir, 'r'), 'read');
    await expect(read.write(Buffer.from('x'), 0, 1, null)).rejects.toMatchObject({ code: 'EBADF' });
    await read.close();
    const rw = await nodeFs.openExisting(join(dir, 'r'), 'readwrite');
    await rw.write(Buffer.from('T'), 0, 1, null);
    await rw.close();
    expect(readFileSync(join(dir, 'r'), 'utf8')).toBe('Text é');
    expect(await nodeFs.readText(join(dir, 'r'))).toBe('Text é');
    expect(readTextSync(join(dir, 'r'))).toBe('Text é');
    expect(readTextSync(join(dir, 'missing'))).toBeUndefined();
    mkdirSync(join(dir, 'd'));
    await expect(nodeFs.readText(join(dir, 'd'))).rejects.toMatchObject({
      code: 'ENOTREG',
      message: `ENOTREG: not a regular file, open '${join(dir, 'd')}'`,
    });
    expect(() => readTextSync(join(dir, 'd'))).toThrow(`ENOTREG: not a regular file, open '${join(dir, 'd')}'`);
  });

  it('lstat: undefined when nothing is there, any other failure thrown', async () => {
    writeFileSync(join(dir, 'f'), 'x');
    expect(await nodeFs.lstat(join(dir, 'nothing'))).toBeUndefined();
    expect((await nodeFs.lstat(join(dir, 'f')))?.size).toBe(1);
    await expect(nodeFs.lstat(join(dir, 'f', 'below-a-file'))).rejects.toMatchObject({ code: 'ENOTDIR' });
  });

  it('writeFileAtomic: bytes as given, the mode asked for; a failed write or rename leaves no temporary file and the old file as it was', async () => {
    await nodeFs.writeFileAtomic(join(dir, 'b'), new Uint8Array([0xff, 0x00, 0x41]), 0o640);
    expect([...readFileSync(join(dir, 'b'))]).toEqual([0xff, 0x00, 0x41]);
    expect(statSync(join(dir, 'b')).mode & 0o777).toBe(0o640);
    writeFileAtomicSync(join(dir, 's'), 'sync é', 0o644);
    expect(readFileSync(join(dir, 's'), 'utf8')).toBe('sync é');
    expect(statSync(join(dir, 's')).mode & 0o777).toBe(0o644);

    // The disk fails in the middle of the write: the temporary file goes, the old file stays.
    writeFileSync(join(dir, 'old'), 'old');
    const failing = {
      ...nodeFs,
      async createNew(p: string, o?: { mode?: number; append?: boolean }): Promise<SafeHandle> {
        const fh = await nodeFs.createNew(p, o);
        return Object.assign(Object.create(fh), {
          write: async () => {
            throw Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' });
          },
          close: () => fh.close(),
        });
      },
    };
    await expect(failing.writeFileAtomic(join(dir, 'old'), 'new')).rejects.toMatchObject({ code: 'EIO' });
    expect(readFileSync(join(dir, 'old'), 'utf8')).toBe('old');
    // Short writes (a signal, a nearly full disk) are continued from where they stopped.
    const dribbling = {
      ...nodeFs,
      async createNew(p: string, o?: { mode?: number; append?: boolean }): Promise<SafeHandle> {
        const fh = await nodeFs.createNew(p, o);
        return Object.assign(Object.create(fh), {
          write: (b: Uint8Array, off: number, len: number, pos: null) => fh.write(b, off, Math.min(len, 2), pos),
          sync: () => fh.sync(),
          close: () => fh.close(),
        });
      },
    };
    await dribbling.writeFileAtomic(join(dir, 'old'), 'written two bytes at a time');
    expect(readFileSync(join(dir, 'old'), 'utf8')).toBe('written two bytes at a time');
    writeFileSync(join(dir, 'old'), 'old');
    // A directory where the file should go: the rename fails, and the temporary file goes too.
    mkdirSync(join(dir, 'taken'));
    writeFileSync(join(dir, 'taken', 'x'), '');
    await expect(nodeFs.writeFileAtomic(join(dir, 'taken'), 'x')).rejects.toMatchObject({
      code: expect.stringMatching(/EISDIR|ENOTEMPTY|EEXIST/),
    });
    expect(() => writeFileAtomicSync(join(dir, 'taken'), 'x')).toThrow(/EISDIR|ENOTEMPTY|EEXIST/);
    expect(readdirSync(dir).sort()).toEqual(['b', 'old', 's', 'taken']);
    // remove: what is not there is not an error.
    await nodeFs.remove(join(dir, 'never-was'));
    await nodeFs.remove(join(dir, 's'));
    expect(readdirSync(dir).sort()).toEqual(['b', 'old', 'taken']);
  });

  it('privateDirSync: creates 0700, tightens a directory of ours, refuses a link or a file in its place', () => {
    privateDirSync(join(dir, 'p', 'q'));
    expect(statSync(join(dir, 'p', 'q')).mode & 0o777).toBe(0o700);
    mkdirSync(join(dir, 'open'), { mode: 0o755 });
    chmodSync(join(dir, 'open'), 0o755);
    privateDirSync(join(dir, 'open'));
    expect(statSync(join(dir, 'open')).mode & 0o777).toBe(0o700);
    // A directory already private is left as it is: its setgid bit (passed down by a setgid parent) stays.
    mkdirSync(join(dir, 'shared'), { mode: 0o700 });
    chmodSync(join(dir, 'shared'), 0o2700);
    privateDirSync(join(dir, 'shared'));
    expect(statSync(join(dir, 'shared')).mode & 0o7777).toBe(0o2700);
    mkdirSync(join(dir, 'theirs'), { mode: 0o755 });
    chmodSync(join(dir, 'theirs'), 0o755);
    chownSync(join(dir, 'theirs'), 4321, 4321);
    privateDirSync(join(dir, 'theirs'));
    expect(statSync(join(dir, 'theirs')).mode & 0o777).toBe(0o755);
    symlinkSync(join(dir, 'open'), join(dir, 'link'));
    expect(() => privateDirSync(join(dir, 'link'))).toThrow(
      expect.objectContaining({
        code: 'ELOOP',
        message: `ELOOP: a symbolic link, not a directory: '${join(dir, 'link')}'`,
      }),
    );
    writeFileSync(join(dir, 'file'), '');
    expect(() => privateDirSync(join(dir, 'file'))).toThrow(
      expect.objectContaining({ code: 'EEXIST', message: `EEXIST: file already exists, mkdir '${join(dir, 'file')}'` }),
    );
    // Every level it makes is private, not only the last.
    expect(statSync(join(dir, 'p')).mode & 0o777).toBe(0o700);
    // A parent that exists but cannot hold the child (procfs): the child's own error, at once.
    expect(() => makeDirSync('/proc/bookdist-no-such/dir')).toThrow(expect.objectContaining({ code: 'ENOENT' }));
  });

  it('kindOf names what a path is; takeOverEmpty refuses a FIFO and a file of another user', async () => {
    writeFileSync(join(dir, 'f'), 'x');
    mkdirSync(join(dir, 'd'));
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    expect(await kindOf(nodeFs, join(dir, 'f'))).toMatchObject({ kind: 'file', stats: { size: 1 } });
    expect(await kindOf(nodeFs, join(dir, 'd'))).toMatchObject({ kind: 'dir' });
    expect((await kindOf(nodeFs, join(dir, 'd'))).stats?.isDirectory()).toBe(true);
    expect(await kindOf(nodeFs, join(dir, 'fifo'))).toMatchObject({ kind: 'other' });
    expect((await kindOf(nodeFs, join(dir, 'fifo'))).stats?.isFIFO()).toBe(true);
    expect(await takeOverEmpty(nodeFs, join(dir, 'fifo'))).toEqual({ refused: 'it is not a regular file' });
    writeFileSync(join(dir, 'theirs'), '');
    chownSync(join(dir, 'theirs'), 4321, 4321);
    expect(await takeOverEmpty(nodeFs, join(dir, 'theirs'))).toEqual({ refused: 'it belongs to another user' });
    await expect(takeOverEmpty(nodeFs, join(dir, 'nothing'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
  it('readText and readTextSync close the file they read (a descriptor left open per read ends a long job with EMFILE)', async () => {
    writeFileSync(join(dir, 'r'), 'text');
    // Through the seam: every handle readText opens is closed before it returns.
    const opened: string[] = [];
    const closed: string[] = [];
    const recording = {
      ...nodeFs,
      async openExisting(p: string, how: 'append' | 'readwrite' | 'read'): Promise<SafeHandle> {
        const fh = await nodeFs.openExisting(p, how);
        opened.push(p);
        return Object.assign(Object.create(fh), {
          readFile: (o: { encoding: 'utf8' }) => fh.readFile(o),
          close: async () => {
            closed.push(p);
            await fh.close();
          },
        });
      },
    };
    expect(await recording.readText(join(dir, 'r'))).toBe('text');
    expect(closed).toEqual(opened);
    expect(opened).toEqual([join(dir, 'r')]);
    // The synchronous form (config, locks): no descriptor of this process still names the file.
    expect(readTextSync(join(dir, 'r'))).toBe('text');
    const open = readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`) === realpathSync(join(dir, 'r'));
      } catch {
        return false; // the descriptor of the listing itself, closed by now
      }
    });
    expect(open).toEqual([]);
  });

  it("writeFileAtomic reports the write's own error even when the temporary file is already gone; the sync form removes its temporary file after a failed write", async () => {
    writeFileSync(join(dir, 'old'), 'old');
    const vanishing = {
      ...nodeFs,
      async createNew(p: string, o?: { mode?: number; append?: boolean }): Promise<SafeHandle> {
        const fh = await nodeFs.createNew(p, o);
        return Object.assign(Object.create(fh), {
          // Someone (a tmp cleaner, the user) removed the temporary file, then the disk failed.
          write: async () => {
            rmSync(p);
            throw Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' });
          },
          close: () => fh.close(),
        });
      },
    };
    await expect(vanishing.writeFileAtomic(join(dir, 'old'), 'new')).rejects.toMatchObject({ code: 'EIO' });
    expect(readdirSync(dir)).toEqual(['old']);
    // The synchronous form: a write that fails (here data that is not text or bytes; a full disk
    // takes the same path, test/foundation/full-disk.test.ts) leaves the old file and no temporary one.
    expect(() => writeFileAtomicSync(join(dir, 'old'), 42 as unknown as string)).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_ARG_TYPE' }),
    );
    expect(readdirSync(dir)).toEqual(['old']);
    expect(readFileSync(join(dir, 'old'), 'utf8')).toBe('old');
  });

  it('rename moves a file into place and replaces a link there instead of writing through it', async () => {
    writeFileSync(join(dir, 'victim'), 'keep');
    symlinkSync(join(dir, 'victim'), join(dir, 'to'));
    writeFileSync(join(dir, 'from'), 'moved');
    await nodeFs.rename(join(dir, 'from'), join(dir, 'to'));
    expect(existsSync(join(dir, 'from'))).toBe(false);
    expect(lstatSync(join(dir, 'to')).isFile()).toBe(true);
    expect(readFileSync(join(dir, 'to'), 'utf8')).toBe('moved');
    expect(readFileSync(join(dir, 'victim'), 'utf8')).toBe('keep');
  });
});
