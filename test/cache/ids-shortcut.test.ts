// The completion cache's shortcut (src/cache/ids.ts, issue 31): a run that sees what its profile's
// last run saw reads the profile's file and nothing else. node:fs is mocked (every open counted,
// each done by the real one), so this file runs with a module graph of its own (vitest.config.ts).
import { createHash } from 'node:crypto';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { flush, IdCollector, scopeOf } from '../../src/cache/ids.js';

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  return { ...fs, openSync: vi.fn(fs.openSync) };
});

const HASH = 'cee313141a0ce9a22774b32f87855d677d864cfb';
const BOOK = {
  hash_id: HASH,
  title: "The Lighthouse Keeper's Ledger",
  author: 'Margaret Ellison',
  identifiers: { isbn13: '9781614001379', sku: 'HLP-0001' },
  digital_pricing: [{ id: 2, currency: 'USD', price: '6.99', description: '180-day rental' }],
};

let dir: string;
beforeEach(() => void (dir = mkdtempSync(join(tmpdir(), 'bookdist-idshortcut-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const seen = (book: object) => {
  const c = new IdCollector();
  c.collect({ book });
  return c;
};

it("a repeated run opens only its profile's file; a run that saw anything else writes", () => {
  const t = { dir: join(dir, 'ids'), scope: scopeOf('https://api.example.com', 'partner1'), profile: 'prod' };
  const opened = vi.mocked(openSync);
  const profile = join(dir, 'ids', 'profiles', 'prod');
  flush(seen(BOOK), t);
  opened.mockClear();
  flush(seen(BOOK), t);
  expect(opened.mock.calls.map((c) => c[0])).toEqual([profile]);
  opened.mockClear();
  flush(seen({ ...BOOK, author: 'M. Ellison' }), t);
  expect(opened.mock.calls.map((c) => c[0])).toContain(join(dir, 'ids', t.scope, 'book.tsv'));
  expect(readFileSync(join(dir, 'ids', t.scope, 'book.tsv'), 'utf8')).toContain('M. Ellison');
});

it('the scope and the digest are the SHA-256 values earlier versions wrote, so their files still match', () => {
  // Fixed values: a profile's file written by a bookdist before crypto.hash keeps its shortcut.
  expect(scopeOf('https://api.example.com', 'partner1')).toBe(
    createHash('sha256').update('https://api.example.com\npartner1').digest('hex').slice(0, 16),
  );
  const t = { dir: join(dir, 'ids'), scope: scopeOf('https://api.example.com', 'partner1'), profile: 'prod' };
  flush(seen(BOOK), t);
  const [scope, digest] = readFileSync(join(dir, 'ids', 'profiles', 'prod'), 'utf8').split('\n');
  const h = createHash('sha256');
  for (const kind of ['book', 'isbn', 'sku', 'price'])
    h.update(`${kind}\n${readFileSync(join(dir, 'ids', t.scope, `${kind}.tsv`), 'utf8')}`);
  expect([scope, digest]).toEqual([t.scope, h.digest('hex').slice(0, 32)]);
});
