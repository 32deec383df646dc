// A lookup by identifier is believed only when its answer is about what was asked (src/api/asked.ts):
// a book or user of the right shape but another identity (a caching proxy, a misrouted
// deployment) is "not what the interface promises", exit 1, nothing on stdout.
import { describe, expect, it } from 'vitest';
import { askedProblem } from '../../src/api/asked.js';
import { endpoint as lookupEndpoint } from '../../src/spec/endpoints.js';
import { ok, stdoutJson, stubCli, StubRegistry } from './_stubs.js';

const cli = stubCli();
const HASH = 'ab12cd34ef56ab12cd34ef56ab12cd34ef56ab12';
const OTHER = '0f0e0d0c0b0a09080706050403020100ffeeddcc';
const USER = '0d72df20f23558620646fb3ea030f5';
const book = (hash: string, identifiers: Record<string, unknown>) => ({
  id: 7,
  hash_id: hash,
  title: 'Stubbed Tides',
  identifiers: { hash_id: hash, id: 7, ...identifiers },
  digital_pricing: [],
});

describe('book get: the answer is the book asked for', () => {
  it('by hash id: another book is refused; the same book (hash in capitals too) is shown', async () => {
    const wrong = new StubRegistry().on('GET', `/v1/book/${HASH}/`, ok({ book: book(OTHER, {}) }));
    const r = await cli(wrong, ['book', 'get', HASH, '--json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /not what the interface promises .*it is about another book, not the one whose hash_id is/s,
    );
    expect(r.stdout).toBe('');
    const right = new StubRegistry().on('GET', `/v1/book/${HASH}/`, ok({ book: book(HASH.toUpperCase(), {}) }));
    expect((await cli(right, ['book', 'get', HASH, '--json'])).code).toBe(0);
  });

  it('by ISBN: any of the five ISBN fields may hold it, as ISBN-10 or ISBN-13; none holding it is refused', async () => {
    const cases: Array<[string, Record<string, unknown>, number]> = [
      ['9781614001379', { isbn13: '9781614001379' }, 0],
      ['9781614001379', { isbn10: '1614001375' }, 0],
      ['1614001375', { isbn13: '978-1-61400-137-9' }, 0],
      ['9781614001379', { eisbn13: '9781614001379' }, 0],
      ['9781614001379', { eisbn10: '1614001375' }, 0],
      ['9781614001379', { parent_isbn: '9781614001379' }, 0],
      ['9781614001379', { isbn13: '9780306406157', eisbn13: '9781647002114', parent_isbn: null }, 1],
      ['9781614001379', {}, 1],
      ['1614001375', { isbn10: '0306406152' }, 1],
    ];
    for (const [asked, ids, code] of cases) {
      const http = new StubRegistry().on('GET', `/v1/book/isbn/${asked}/`, ok({ book: book(HASH, ids) }));
      const r = await cli(http, ['book', 'get', '--isbn', asked, '--json']);
      expect(r.code, `${asked} ${JSON.stringify(ids)}: ${r.stderr}`).toBe(code);
      if (code) expect(r.stderr).toMatch(new RegExp(`another book, not the one whose isbn is ${asked}`));
      else expect(stdoutJson(r).book.hash_id).toBe(HASH);
    }
  });

  it('by SKU: the same SKU whatever its case; another is refused', async () => {
    const same = new StubRegistry().on('GET', '/v1/book/sku/stb-0007/', ok({ book: book(HASH, { sku: 'STB-0007' }) }));
    expect((await cli(same, ['book', 'get', '--sku', 'stb-0007', '--json'])).code).toBe(0);
    const other = new StubRegistry().on('GET', '/v1/book/sku/STB-0007/', ok({ book: book(HASH, { sku: 'STB-0008' }) }));
    const r = await cli(other, ['book', 'get', '--sku', 'STB-0007']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/another book, not the one whose sku is STB-0007/);
  });
});

describe('askedProblem', () => {
  const user = (username: string, email: string) => ({ code: 200, success: true, user: { username, email } });
  it('reads the identifier from the URL after any path of the base URL, decoded', () => {
    const ep = lookupEndpoint('user.email');
    const url = 'https://h.test/partner/api/v1/user/email/Ann%2Bx%40Example.com/';
    expect(askedProblem(ep, url, user(USER, 'ann+x@example.com'))).toBeUndefined();
    expect(askedProblem(ep, url, user(USER, 'bob@example.com'))).toBe(
      'it is about another user, not the one whose email is Ann+x@Example.com',
    );
    const get = lookupEndpoint('user.get');
    expect(askedProblem(get, `https://h.test/v1/user/${USER}/`, user(USER, 'a@b.c'))).toBeUndefined();
    expect(askedProblem(get, `https://h.test/v1/user/${USER}/`, user('1'.repeat(30), 'a@b.c'))).toMatch(
      /another user, not the one whose username is/,
    );
  });

  it('says nothing of other endpoints, of a URL that is not the template, or of an undecodable one', () => {
    expect(askedProblem(lookupEndpoint('book.search'), 'https://h.test/v1/book/search/', {})).toBeUndefined();
    const ep = lookupEndpoint('book.get');
    expect(askedProblem(ep, 'https://h.test/v2/else/', { book: book(OTHER, {}) })).toBeUndefined();
    expect(askedProblem(ep, 'https://h.test/v1/book/%E0%A4%A/', { book: book(OTHER, {}) })).toBeUndefined();
    expect(askedProblem(ep, 'not a url', { book: book(OTHER, {}) })).toBeUndefined();
    expect(askedProblem(ep, `https://h.test/v1/book/${HASH}/`, 'text')).toBeUndefined();
  });

  it('an answer without the book or user, or its identifiers, is about another one (never an error of its own)', () => {
    const url = (ep: string, v: string) => `https://h.test${lookupEndpoint(ep).path.replace(/\{[a-z_]+\}/, v)}`;
    for (const [ep, v, body] of [
      ['book.get', HASH, {}],
      ['book.isbn', '9781614001379', {}],
      ['book.sku', 'STB-1', {}],
      ['book.sku', 'STB-1', { book: {} }],
      ['book.get', HASH, { book: { hash_id: 7 } }],
      ['user.get', USER, {}],
      ['user.email', 'a@b.c', {}],
    ] as const)
      expect(askedProblem(lookupEndpoint(ep), url(ep, v), body), `${ep} ${JSON.stringify(body)}`).toMatch(
        ep.startsWith('book')
          ? /^it is about another book, not the one whose/
          : /^it is about another user, not the one/,
      );
  });

  it('ISBN keys: an ISBN-10 ending in X, and values that are no ISBN compared as they are', () => {
    const ep = lookupEndpoint('book.isbn');
    const ask = (v: string, ids: Record<string, unknown>) =>
      askedProblem(ep, `https://h.test/v1/book/isbn/${v}/`, { book: book(HASH, ids) });
    expect(ask('080442957X', { isbn13: '9780804429573' })).toBeUndefined();
    expect(ask('080442957X', { isbn10: '080442957x' })).toBeUndefined();
    // Fourteen digits are no ISBN-13: not cut to one.
    expect(ask('97816140013799', { isbn13: '9781614001379' })).toMatch(/another book/);
    expect(ask('97816140013791', { isbn13: '97816140013799' })).toMatch(/another book/);
    expect(ask('x9781614001300', { isbn13: 'x9781614001379' })).toMatch(/another book/);
    expect(ask('x9781614001379', { isbn13: 'x9781614001379' })).toBeUndefined();
  });

  it('a path that does not end as the template does (no trailing slash) is not read', () => {
    const ep = lookupEndpoint('book.get');
    expect(askedProblem(ep, `https://h.test/v1/book/${OTHER}`, { book: book(HASH, {}) })).toBeUndefined();
  });
});
