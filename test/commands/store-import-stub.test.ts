// offers get, offers checkout (the store's public endpoints) and import search in-process through
// the stub registry: the request each sends, its output as a table and as JSON, and its main error
// with its exit code.
import { describe, expect, it } from 'vitest';
import { ok, refusal, sentOnce, stdoutJson, stubCli, StubRegistry } from './_stubs.js';

const cli = stubCli();

const ISBN = '9781614001379';
const OFFERS = {
  Status: 'OK',
  Isbn: ISBN,
  Offers: [
    { Id: 1, Price: '14.99', Condition: 'digital', RentalDays: 0 },
    { Id: 2, Price: '6.99', Condition: 'digital', RentalDays: 180 },
  ],
};

describe('offers get', () => {
  it('GET /api/offers.json?isbn= without credentials; offers as a table and as JSON', async () => {
    const http = new StubRegistry().on('GET', `/api/offers.json?isbn=${ISBN}`, ok(OFFERS), 2);
    const t = await cli(http, ['offers', 'get', '--isbn', '978-1-61400-137-9', '-o', 'table']);
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout).toMatch(/^PRICE ID +PRICE +CONDITION +RENTAL$/m);
    expect(t.stdout).toMatch(/^1 +14\.99 +digital +no \(lifetime\)$/m);
    expect(t.stdout).toMatch(/^2 +6\.99 +digital +180 days$/m);
    const j = stdoutJson(await cli(http, ['offers', 'get', '--isbn', ISBN, '--json']));
    expect(j.Offers.map((o: { Id: number }) => o.Id)).toEqual([1, 2]);
    for (const req of http.requests) {
      expect(req.headers['api-key']).toBeUndefined();
      expect(req.headers['api-user']).toBeUndefined();
    }
  });

  it('a book that does not exist (the store says so with a 400): exit 3; an unpublished one: exit 1 with its message', async () => {
    const http = new StubRegistry()
      .on('GET', `/api/offers.json?isbn=${ISBN}`, refusal(400, 'The requested book does not exist'))
      .on('GET', `/api/offers.json?isbn=${ISBN}`, refusal(400, 'This book is not available for sale.'));
    const missing = await cli(http, ['offers', 'get', '--isbn', ISBN]);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/The requested book does not exist/);
    const unpublished = await cli(http, ['offers', 'get', '--isbn', ISBN]);
    expect(unpublished.code).toBe(1);
    expect(unpublished.stderr).toMatch(/not available for sale/);
  });
});

describe('offers checkout', () => {
  it('GET /checkout?ids=…&rejoiner_ids=…: prints the cart URL of the redirect (not followed), as text and JSON', async () => {
    const http = new StubRegistry().on(
      'GET',
      /^\/checkout\?/,
      { status: 302, headers: { location: '/cart/?t=stubcart' }, text: '' },
      2,
    );
    const t = await cli(http, ['offers', 'checkout', '--id', '1', '--id', '3', '--rejoiner-id', 'rj-42']);
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout.trim()).toBe('http://api.bookdist.test/cart/?t=stubcart');
    const first = http.requests[0]!;
    expect(first.query.get('ids')).toBe('1,3');
    expect(first.query.get('rejoiner_ids')).toBe('rj-42');
    const j = await cli(http, ['offers', 'checkout', '--id', '2', '--json']);
    expect(stdoutJson(j)).toEqual({
      url: 'http://api.bookdist.test/cart/?t=stubcart',
      status: 302,
      ids: [2],
      rejoiner_ids: [],
    });
    expect(http.requests[1]!.query.get('ids')).toBe('2');
    expect(http.requests).toHaveLength(2);
  });

  it("a refusal: exit 1 with the store's message; a redirect without a Location: exit 1, no URL", async () => {
    const http = new StubRegistry()
      .on('GET', /^\/checkout\?/, refusal(400, 'Unknown price id 99.'))
      .on('GET', /^\/checkout\?/, { status: 302, headers: {}, text: '' });
    const refused = await cli(http, ['offers', 'checkout', '--id', '99']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/Unknown price id 99\./);
    const bare = await cli(http, ['offers', 'checkout', '--id', '1']);
    expect(bare.code).toBe(1);
    expect(bare.stderr).toMatch(/302 without a Location header/);
    expect(bare.stdout).toBe('');
  });

  it('a cart served at once (200, no redirect): the checkout URL itself is the cart', async () => {
    const http = new StubRegistry().on('GET', /^\/checkout\?/, {
      status: 200,
      headers: { 'content-type': 'text/html' },
      text: '<html>cart</html>',
    });
    const r = await cli(http, ['offers', 'checkout', '--id', '1']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('http://api.bookdist.test/checkout?ids=1');
  });
});

describe('import search', () => {
  const TITLE = {
    title: 'Coastal Ecology',
    author: 'Henrik Aalto',
    publisher: 'Northwind Academic',
    edition_number: 3,
    identifiers: { book_id: 5002, isbn13: '9781681003467', eisbn13: '9781692003821' },
    status: { deleted: false, file_received: true, imported: false },
  };

  it('POST /v1/import/search/ with the criteria; titles as a table, `N of M` on stderr, and JSON', async () => {
    const http = new StubRegistry().on(
      'POST',
      '/v1/import/search/',
      ok({ count: 3, limit: 1, offset: 0, results: [TITLE] }),
      2,
    );
    const t = await cli(http, ['import', 'search', '--title', 'ecology', '--limit', '1', '-o', 'table']);
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout).toMatch(/^TITLE +AUTHOR +PUBLISHER +ED\. +ISBN-13 +EISBN-13 +BOOK ID +STATUS$/m);
    expect(t.stdout).toMatch(
      /^Coastal Ecology +Henrik Aalto +Northwind Academic +3 +9781681003467 +9781692003821 +5002 +file received$/m,
    );
    expect(t.stderr).toMatch(/1 of 3 imported titles \(from offset 0\); more with --offset 1, or --all\./);
    expect(http.requests[0]!.payload).toEqual({ title: 'ecology', limit: 1, offset: 0 });
    const j = stdoutJson(await cli(http, ['import', 'search', '--isbn', '9781681003467', '--limit', '1', '--json']));
    expect(j.results[0].identifiers.book_id).toBe(5002);
    expect(http.requests[1]!.payload).toMatchObject({ isbn: ['9781681003467'] });
  });

  it('a scope refusal: exit 4', async () => {
    const http = new StubRegistry().on(
      'POST',
      '/v1/import/search/',
      refusal(403, 'Your account is not authorized for the scope import.'),
    );
    const r = await cli(http, ['import', 'search']);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/scope import/);
    expect(sentOnce(http, 'POST', '/v1/import/search/').payload).toEqual({ offset: 0 });
  });
});
