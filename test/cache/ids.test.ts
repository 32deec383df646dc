// The completion cache of ids (src/cache/ids.ts): what it takes from answers (ids by shape, with
// what they stand for, never a secret), where and how it writes (0700/0600, never through a link,
// bounded), and that commands feed it, or do not with --no-cache / BOOKDIST_CACHE=off.
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compactLines, flush, IdCollector, readEntries, scopeOf } from '../../src/cache/ids.js';
import { run, stubEnv } from '../helpers/run.js';
import { json, StubRegistry } from '../helpers/stub-http.js';

const HASH = 'cee313141a0ce9a22774b32f87855d677d864cfb';
const USER = '70172cfe97283c430dcd57f8358d7a';
const BOOK = {
  id: 1,
  hash_id: HASH,
  title: "The Lighthouse Keeper's Ledger",
  author: 'Margaret Ellison',
  identifiers: { isbn13: '9781614001379', eisbn13: '9781614001386', sku: 'HLP-0001', hash_id: HASH, id: 1 },
  digital_pricing: [{ id: 2, currency: 'USD', price: '6.99', description: '180-day rental', is_limited: true }],
};

let dir: string;
beforeEach(() => void (dir = mkdtempSync(join(tmpdir(), 'bookdist-idcache-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const target = (profile = 'prod') => ({
  dir: join(dir, 'ids'),
  scope: scopeOf('https://api.example.com', 'partner1'),
  profile,
});

describe('what an answer gives', () => {
  it('books with their ISBNs, SKU and prices; users with e-mail and name; orders and purchases', () => {
    const c = new IdCollector();
    c.collect({ book: BOOK });
    c.collect({
      user: { username: USER, email: 'avery.reader@example.com', first_name: 'Avery', last_name: 'Reader' },
    });
    c.collect({
      order: {
        id: 42,
        username: USER,
        items: [
          {
            id: 77,
            purchase_date: '2026-11-20T10:00:00Z',
            book: { hash_id: HASH, title: BOOK.title },
            user: { username: USER, full_name: 'Avery Reader' },
          },
        ],
        totals: { total: 14.99 },
      },
    });
    const get = (k: Parameters<IdCollector['add']>[0]) => Object.fromEntries(c.seen.get(k) ?? []);
    expect(get('book')).toEqual({ [HASH]: "The Lighthouse Keeper's Ledger · Margaret Ellison" });
    expect(get('isbn')).toEqual({ '9781614001379': BOOK.title, '9781614001386': BOOK.title });
    expect(get('sku')).toEqual({ 'HLP-0001': BOOK.title });
    expect(get('price')).toEqual({ 2: `6.99 USD · 180-day rental · ${BOOK.title}` });
    expect(get('user')[USER]).toBe('avery.reader@example.com · Avery Reader');
    expect(get('email')).toEqual({ 'avery.reader@example.com': `Avery Reader · ${USER}` });
    expect(get('order')).toEqual({ 42: `2026-11-20 · 14.99 · ${USER}` });
    expect(get('purchase')).toEqual({ 77: `${BOOK.title} · ${USER} · 2026-11-20` });
    c.collect({
      Status: 'OK',
      Isbn: '9781614001379',
      Offers: [{ Price: '6.99', Id: 9, Condition: 'new', RentalDays: 180 }],
    });
    expect(get('price')[9]).toBe('6.99 · new · 180-day rental');
  });

  it('a write gives its organization, white label and ledger row', () => {
    const c = new IdCollector();
    c.collectWrite(
      { org: 'acme', label: 'acme-books', username: USER, hash_id: HASH, count: 5 },
      { id: '12', op: 'codes generate', at: new Date('2026-11-27T10:03:00Z') },
    );
    expect(Object.fromEntries(c.seen.get('org')!)).toEqual({ acme: '' });
    expect(Object.fromEntries(c.seen.get('label')!)).toEqual({ 'acme-books': '' });
    expect(Object.fromEntries(c.seen.get('ledger')!)).toEqual({
      12: `codes generate · 2026-11-27 10:03 · ${USER} ${HASH.slice(0, 12)} acme acme-books`,
    });
  });

  it('never a secret: passwords, codes, keys and tokens in answers are not kept', () => {
    const c = new IdCollector();
    c.collect({ user: { username: USER, email: 'new@example.com', password: 'Pw-secret-123' } });
    c.collect({
      codes: [{ code: 'ABCD-EFGH-JKLM', limit_days: 30 }],
      key: 'KEYMATERIAL',
      token: 'tok-secret',
      signature: 'sig-secret',
    });
    flush(c, target());
    const text = readdirSync(join(dir, 'ids'), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => readFileSync(join(e.parentPath, e.name), 'utf8'))
      .join('\n');
    expect(text).toContain(USER);
    for (const secret of ['Pw-secret-123', 'ABCD-EFGH-JKLM', 'KEYMATERIAL', 'tok-secret', 'sig-secret'])
      expect(text).not.toContain(secret);
  });

  it('descriptions are one line without control characters; ids that are not words are not kept', () => {
    const c = new IdCollector();
    c.collect({ hash_id: HASH, title: 'Evil\u001b[2J\ttitle\nsecond line\u009b', author: 'x' });
    c.add('user', 'has space');
    c.add('user', "quote'd");
    expect(c.seen.get('book')!.get(HASH)).toBe('Evil [2J title second line · x');
    expect(c.seen.get('user')).toBeUndefined();
  });

  it('a run keeps the newest 10,000 ids of a kind, in the order last seen, an id seen again counted as new', () => {
    const c = new IdCollector();
    c.add('isbn', 'first', 'a long first description');
    for (let i = 0; i < 45_000; i++) c.add('isbn', `n${i}`, 't');
    c.add('isbn', 'first', 'short');
    const m = c.seen.get('isbn')!;
    expect(m.size).toBe(10_000);
    const ids = [...m.keys()];
    expect(ids[0]).toBe('n35001');
    expect(ids.at(-2)).toBe('n44999');
    expect(ids.at(-1)).toBe('first');
    expect(c.size).toBe(10_000);
    // Another kind is bounded on its own.
    c.add('sku', 'S1');
    expect(c.seen.get('sku')!.size).toBe(1);
  });
});

describe('the files', () => {
  it('are 0600 in 0700 directories, one per scope, with the profile pointing at its scope', () => {
    const c = new IdCollector();
    c.collect({ book: BOOK });
    const t = target();
    flush(c, t);
    expect(statSync(join(dir, 'ids')).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'ids', t.scope)).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'ids', t.scope, 'book.tsv')).mode & 0o777).toBe(0o600);
    // The scope on the first line (all a shell reads), a digest of what was written on the second.
    expect(readFileSync(join(dir, 'ids', 'profiles', 'prod'), 'utf8')).toMatch(
      new RegExp(`^${t.scope}\n[0-9a-f]{32}\n$`),
    );
    expect(readEntries(t.dir, t.scope, 'book')).toEqual([
      { id: HASH, description: "The Lighthouse Keeper's Ledger · Margaret Ellison" },
    ]);
  });

  it('another account on the same service is another scope', () => {
    expect(scopeOf('https://api.example.com', 'partner1')).not.toBe(scopeOf('https://api.example.com', 'partner2'));
    expect(scopeOf('https://api.example.com', 'partner1')).not.toBe(scopeOf('https://staging.example.com', 'partner1'));
  });

  it('never writes through a link planted at a kind file or the profile file', () => {
    const t = target();
    mkdirSync(join(dir, 'ids', t.scope), { recursive: true, mode: 0o700 });
    mkdirSync(join(dir, 'ids', 'profiles'), { recursive: true, mode: 0o700 });
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'untouched\n');
    symlinkSync(victim, join(dir, 'ids', t.scope, 'book.tsv'));
    const c = new IdCollector();
    c.collect({ book: BOOK });
    flush(c, t);
    expect(readFileSync(victim, 'utf8')).toBe('untouched\n');
    expect(lstatSync(join(dir, 'ids', t.scope, 'book.tsv')).isSymbolicLink()).toBe(true);
  });

  it('never writes through a link planted at the profile file', () => {
    const t = target();
    mkdirSync(join(dir, 'ids', 'profiles'), { recursive: true, mode: 0o700 });
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'untouched\n');
    symlinkSync(victim, join(dir, 'ids', 'profiles', 'prod'));
    const c = new IdCollector();
    c.collect({ book: BOOK });
    flush(c, t);
    expect(readFileSync(victim, 'utf8')).toBe('untouched\n');
  });

  it('a profile pointed at another scope in between is pointed back; another description is appended', () => {
    const t = target();
    const seen = (book: object) => {
      const c = new IdCollector();
      c.collect({ book });
      return c;
    };
    const profile = join(dir, 'ids', 'profiles', 'prod');
    flush(seen(BOOK), t);
    const book = readFileSync(join(dir, 'ids', t.scope, 'book.tsv'), 'utf8');
    flush(seen(BOOK), t);
    // Another service under the same profile, then the first again.
    const other = { ...t, scope: scopeOf('https://staging.example.com', 'partner1') };
    flush(seen(BOOK), other);
    expect(readFileSync(profile, 'utf8').split('\n')[0]).toBe(other.scope);
    flush(seen(BOOK), t);
    expect(readFileSync(profile, 'utf8').split('\n')[0]).toBe(t.scope);
    flush(seen({ ...BOOK, author: 'M. Ellison' }), t);
    expect(readFileSync(join(dir, 'ids', t.scope, 'book.tsv'), 'utf8')).toBe(
      `${book}${HASH}\tThe Lighthouse Keeper's Ledger · M. Ellison\n`,
    );
  });

  it('most recent last, each id once after a compaction, at most the bound', () => {
    const lines = ['a\tfirst', 'b\tsecond', 'a\tthird', 'c\tfourth', 'garbage-without-tab', ''].join('\n');
    expect(compactLines(lines)).toBe('b\tsecond\na\tthird\nc\tfourth\n');
    expect(compactLines(lines, 2)).toBe('a\tthird\nc\tfourth\n');
  });

  it('the same ids seen again leave the files as they are; any other order or description is appended', () => {
    const t = target();
    const seen = (...books: object[]) => {
      const c = new IdCollector();
      for (const book of books) c.collect({ book });
      return c;
    };
    const other = { ...BOOK, hash_id: 'a'.repeat(40), title: 'Other', identifiers: { sku: 'OTH-1' } };
    const file = (kind: string) => readFileSync(join(dir, 'ids', t.scope, `${kind}.tsv`), 'utf8');
    flush(seen(BOOK), t);
    const first = { book: file('book'), isbn: file('isbn'), sku: file('sku'), price: file('price') };
    // A repeated `book get`: every kind's file already ends with what it saw.
    flush(seen(BOOK), t);
    expect({ book: file('book'), isbn: file('isbn'), sku: file('sku'), price: file('price') }).toEqual(first);
    // Another book after it: appended; the first again after that is the most recent again.
    flush(seen(other), t);
    flush(seen(BOOK), t);
    expect(file('book')).toBe(`${first.book}${'a'.repeat(40)}\tOther · Margaret Ellison\n${first.book}`);
    expect(readEntries(t.dir, t.scope, 'book').map((e) => e.id)).toEqual([HASH, 'a'.repeat(40)]);
    // The same id with another description is appended (the newest description wins).
    flush(seen({ ...BOOK, author: 'M. Ellison' }), t);
    expect(readEntries(t.dir, t.scope, 'book')[0]).toEqual({
      id: HASH,
      description: "The Lighthouse Keeper's Ledger · M. Ellison",
    });
  });

  it('a file past its size is compacted to the newest ids', () => {
    const t = target();
    const c = new IdCollector();
    // 12,000 distinct users with long descriptions: over 2 MiB, so the flush compacts to 10,000.
    for (let i = 0; i < 12_000; i++) c.add('email', `user${i}@example.com`, 'x'.repeat(99));
    // The collector itself keeps only the newest 10,000 of a kind; write twice to pass the size.
    flush(c, t);
    const d = new IdCollector();
    for (let i = 12_000; i < 24_000; i++) d.add('email', `user${i}@example.com`, 'y'.repeat(99));
    flush(d, t);
    const entries = readEntries(t.dir, t.scope, 'email');
    expect(entries).toHaveLength(10_000);
    expect(entries[0].id).toBe('user23999@example.com');
  });
});

describe('commands feed it', () => {
  const stubs = () =>
    new StubRegistry().on(
      'GET',
      '/v1/book/isbn/9781614001379/',
      json(200, { code: 200, success: true, test_mode: false, book: BOOK }),
      Infinity,
    );
  const env = (extra: Record<string, string> = {}) => stubEnv({ XDG_CACHE_HOME: join(dir, 'cache'), ...extra });
  const scope = scopeOf('http://api.bookdist.test', 'stubpartner');
  const bookFile = () => join(dir, 'cache', 'bookdist', 'ids', scope, 'book.tsv');

  it('a lookup puts the book in the cache of its service and account', async () => {
    const http = stubs();
    const r = await run(['book', 'get', '--isbn', '9781614001379', '--json'], { env: env(), http });
    expect(r.code).toBe(0);
    expect(readFileSync(bookFile(), 'utf8')).toContain(`${HASH}\tThe Lighthouse Keeper's Ledger · Margaret Ellison\n`);
    // Settings from the environment are no profile: the sandbox's completions are not pointed here.
    expect(() => statSync(join(dir, 'cache', 'bookdist', 'ids', 'profiles', 'sandbox'))).toThrow(/ENOENT/);
  });

  it("without XDG_CACHE_HOME it is under the environment's HOME, ~/.cache/bookdist/ids", async () => {
    // HOME is what os.homedir() returns when it is set: read from the environment the run was given
    // (node:os is not loaded for it, issue 31), so a run with another HOME keeps its cache there.
    const r = await run(['book', 'get', '--isbn', '9781614001379', '--json'], {
      env: stubEnv({ HOME: join(dir, 'home') }),
      http: stubs(),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(dir, 'home', '.cache', 'bookdist', 'ids', scope, 'book.tsv'), 'utf8')).toContain(HASH);
  });

  it('--no-cache and BOOKDIST_CACHE=off keep it out', async () => {
    expect(
      (await run(['--no-cache', 'book', 'get', '--isbn', '9781614001379'], { env: env(), http: stubs() })).code,
    ).toBe(0);
    expect(
      (await run(['book', 'get', '--isbn', '9781614001379'], { env: env({ BOOKDIST_CACHE: 'off' }), http: stubs() }))
        .code,
    ).toBe(0);
    expect(() => statSync(bookFile())).toThrow(/ENOENT/);
  });

  it('a cache directory that cannot be written does not fail the command', async () => {
    writeFileSync(join(dir, 'cache'), 'a file where the directory should be');
    const r = await run(['book', 'get', '--isbn', '9781614001379', '--json'], { env: env(), http: stubs() });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).hash_id ?? JSON.parse(r.stdout).book?.hash_id).toBe(HASH);
  });
});
