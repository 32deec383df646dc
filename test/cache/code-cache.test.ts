// The code cache's entries (src/cache/code-cache.ts): V8 is given an entry's data only when the
// entry is whole and its checksum matches (V8 checks no payload in a release build: a flipped byte
// could crash Node), and entries are written to a new file (0600) renamed into place, never through
// a link. The loader itself (chunks compiled through the cache, entries written at exit, every
// stale or damaged cache giving the same output) is run end to end in
// test/foundation/compile-cache.e2e.test.ts.
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSum, pack, unpack, writeEntry } from '../../src/cache/code-cache.js';
import { commandOf } from '../../src/launch.js';

let dir: string;
beforeEach(() => void (dir = mkdtempSync(join(tmpdir(), 'bookdist-code-cache-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const sum = makeSum();
const DATA = Uint8Array.from({ length: 300 }, (_, i) => (i * 7) & 0xff);
const entry = () => pack({ data: DATA, commands: ['book get', 'profile list'] }, sum);

describe('the checksum', () => {
  it('changes with any one bit flipped, and with a zero byte added (the length counts)', () => {
    const data = Uint8Array.from({ length: 1003 }, (_, i) => (i * 31 + 7) & 0xff);
    const base = sum(data);
    const seen = new Set([base]);
    for (let bit = 0; bit < data.length * 8; bit++) {
      data[bit >> 3] ^= 1 << (bit & 7);
      seen.add(sum(data));
      data[bit >> 3] ^= 1 << (bit & 7);
    }
    expect(seen.size).toBe(data.length * 8 + 1);
    expect(sum(data)).toBe(base);
    expect(sum(Uint8Array.of(1, 2, 3))).not.toBe(sum(Uint8Array.of(1, 2, 3, 0)));
    // The top bit of two words flipped at once, in one lane (words 0 and 4) or in two (words 0 and
    // 1): a multiply alone carries no bit downwards, and in one lane they cancelled out.
    for (const [x, y] of [
      [7, 39],
      [7, 15],
    ]) {
      data[x] ^= 0x80;
      data[y] ^= 0x80;
      expect(sum(data), `${x} ${y}`).not.toBe(base);
      data[x] ^= 0x80;
      data[y] ^= 0x80;
    }
    // The module computes what its text says (a reference value, worked out apart from it: the
    // text's four lanes and fold in BigInt arithmetic).
    expect(sum(Uint8Array.of(1, 2, 3))).toBe(15419057817189050830n);
  });

  it('over more than its memory held (it grows), and after a larger input a smaller one as before', () => {
    const small = Uint8Array.of(9, 8, 7);
    const before = sum(small);
    const big = new Uint8Array(300_000).fill(0x5a);
    const once = sum(big);
    big[299_999] ^= 1;
    expect(sum(big)).not.toBe(once);
    expect(sum(small)).toBe(before);
  });
});

describe('an entry', () => {
  it('gives back its data and the commands that made it', () => {
    const got = unpack(entry(), sum);
    expect(typeof got).toBe('object');
    const { data, commands } = got as Exclude<typeof got, string>;
    expect(Buffer.from(data).equals(Buffer.from(DATA))).toBe(true);
    expect(commands).toEqual(['book get', 'profile list']);
    expect((unpack(pack({ data: DATA, commands: [''] }, sum), sum) as { commands: string[] }).commands).toEqual(['']);
  });

  it('one byte changed anywhere after the header, in the commands or the data: corrupt, no data given', () => {
    const whole = entry();
    for (let at = 20; at < whole.length; at += 13) {
      const b = Buffer.from(whole);
      b[at] ^= 0x01;
      expect(unpack(b, sum), `byte ${at}`).toBe('corrupt (its checksum does not match)');
    }
  });

  it('cut short or longer, another magic, an empty file: no data given', () => {
    const whole = entry();
    expect(unpack(whole.subarray(0, whole.length - 1), sum)).toBe('truncated');
    expect(unpack(whole.subarray(0, 20), sum)).toBe('truncated');
    expect(unpack(Buffer.concat([whole, Buffer.from([0])]), sum)).toBe('truncated');
    expect(unpack(Buffer.alloc(0), sum)).toBe('not an entry of this cache');
    const other = Buffer.from(whole);
    other.write('XXXX', 0);
    expect(unpack(other, sum)).toBe('not an entry of this cache');
    // A length of the commands beyond the body: never read past it.
    const long = Buffer.from(whole);
    long.writeUInt32LE(whole.length, 8);
    expect(unpack(long, sum)).toBe('corrupt (its checksum does not match)');
  });
});

describe('writing an entry', () => {
  it('a regular file, 0600, with no temporary file left', () => {
    const path = join(dir, 'x-main.js');
    writeEntry(path, entry());
    expect(readFileSync(path).equals(entry())).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['x-main.js']);
  });

  it('a link planted at its path is replaced, never written through', () => {
    const target = join(dir, 'target');
    writeFileSync(target, 'not yours');
    const path = join(dir, 'x-main.js');
    symlinkSync(target, path);
    writeEntry(path, entry());
    expect(readFileSync(target, 'utf8')).toBe('not yours');
    expect(lstatSync(path).isFile()).toBe(true);
  });

  it('a write that cannot be made (a directory at its path) throws, and leaves no temporary file', () => {
    const path = join(dir, 'x-main.js');
    mkdirSync(path);
    expect(() => writeEntry(path, entry())).toThrow();
    expect(readdirSync(dir)).toEqual(['x-main.js']);
  });
});

it("a run's command for the cache: its first words, up to an option or an argument", () => {
  expect(commandOf(['book', 'get', '--isbn', '9781614001379'])).toBe('book get');
  expect(commandOf(['book', '--help'])).toBe('book');
  expect(commandOf(['sandbox', 'catalogue', 'load', 'x.xml'])).toBe('sandbox catalogue load');
  expect(commandOf(['api', 'GET', '/v1/codes/summary/'])).toBe('api');
  expect(commandOf(['--profile', 'q', 'book', 'get'])).toBe('');
});
