// book get, pricing, search, list, viewer and process in-process through the stub registry: the
// request each sends, its output as a table and as JSON, and its main error with its exit code.
import { describe, expect, it } from 'vitest';
import { json, ok, refusal, sentOnce, stdoutJson, stubCli, StubRegistry } from './_stubs.js';

const cli = stubCli();

const HASH = 'ab12cd34ef56ab12cd34ef56ab12cd34ef56ab12';
const HASH2 = '0f0e0d0c0b0a09080706050403020100ffeeddcc';
const ISBN = '9781614001379';
const USER = '0d72df20f23558620646fb3ea030f5';
const PRICING = [
  {
    id: 31,
    currency: 'USD',
    price: '14.99',
    description: 'Digital edition (lifetime access)',
    description_limit: 'Unlimited access',
    is_limited: false,
    limit_days: 0,
    other_pricing: null,
    deactivation_date: null,
  },
  {
    id: 32,
    currency: 'USD',
    price: '6.99',
    description: '180-day rental',
    description_limit: 'Access for 180 days',
    is_limited: true,
    limit_days: 180,
    other_pricing: 'LIMITED',
    deactivation_date: null,
  },
];
const BOOK = {
  id: 7,
  hash_id: HASH,
  title: 'Stubbed Tides',
  author: 'Ada Stub',
  language: 'en',
  num_pages: 212,
  publish_year: 2024,
  identifiers: { isbn13: ISBN, sku: 'STB-0007', hash_id: HASH, id: 7 },
  digital_pricing: PRICING,
  publisher: { title: 'Stub Press', is_active: true },
  status: { is_active: true, is_published: true, is_processed: true, is_queued: false },
};
const BOOK2 = {
  id: 8,
  hash_id: HASH2,
  title: 'Second Stub',
  author: 'Bo Stub',
  identifiers: { isbn13: '9781614002741', sku: 'STB-0008' },
  digital_pricing: [],
};

describe('book get', () => {
  it('by ISBN with hyphens: GET /v1/book/isbn/<isbn>/; a card with identifiers and pricing, and the answer as JSON', async () => {
    const http = new StubRegistry().on('GET', `/v1/book/isbn/${ISBN}/`, ok({ book: BOOK }), 2);
    const card = await cli(http, ['book', 'get', '--isbn', '978-1-61400-137-9', '-o', 'table']);
    expect(card.code, card.stderr).toBe(0);
    expect(card.stdout).toMatch(/^Title +Stubbed Tides$/m);
    expect(card.stdout).toMatch(/^Author +Ada Stub$/m);
    expect(card.stdout).toMatch(/^Publisher +Stub Press$/m);
    expect(card.stdout).toMatch(new RegExp(`^ +Hash ID +${HASH}$`, 'm'));
    expect(card.stdout).toMatch(/^ +SKU +STB-0007$/m);
    expect(card.stdout).toMatch(/^ +31 +14\.99 USD +Digital edition \(lifetime access\) +unlimited/m);
    expect(card.stdout).toMatch(/^ +32 +6\.99 USD +180-day rental +180 days +LIMITED/m);
    const j = stdoutJson(await cli(http, ['book', 'get', '--isbn', ISBN, '--json']));
    expect(j.book).toEqual(BOOK);
  });

  it('by hash id and by SKU: the endpoint of each', async () => {
    const http = new StubRegistry()
      .on('GET', `/v1/book/${HASH}/`, ok({ book: BOOK }))
      .on('GET', '/v1/book/sku/STB-0007/', ok({ book: BOOK }));
    expect((await cli(http, ['book', 'get', HASH, '--json'])).code).toBe(0);
    const r = await cli(http, ['book', 'get', '--sku', 'STB-0007', '--json']);
    expect(stdoutJson(r).book.hash_id).toBe(HASH);
  });

  it('an unknown book: exit 3 with the service message, nothing on stdout', async () => {
    const http = new StubRegistry().on('GET', `/v1/book/isbn/${ISBN}/`, refusal(404, 'Book not found'));
    const r = await cli(http, ['book', 'get', '--isbn', ISBN]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/Book not found/);
    expect(r.stdout).toBe('');
  });

  it('a book without the used fields is not believed: exit 1, no card', async () => {
    const http = new StubRegistry().on('GET', `/v1/book/isbn/${ISBN}/`, ok({ book: { title: 'No hash id' } }));
    const r = await cli(http, ['book', 'get', '--isbn', ISBN]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/not what the interface promises/);
    expect(r.stdout).toBe('');
  });
});

describe('book pricing', () => {
  const PRICES = { hash_id: HASH, isbn: ISBN, title: 'Stubbed Tides', digital_pricing: PRICING };

  it('GET /v1/book/isbn/<isbn>/pricing/ (ISBN with hyphens, sent without them); entries as a table and as JSON', async () => {
    const http = new StubRegistry().on('GET', `/v1/book/isbn/${ISBN}/pricing/`, ok(PRICES), 2);
    const t = await cli(http, ['book', 'pricing', '--isbn', '978-1-61400-137-9', '-o', 'table']);
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout).toMatch(/^Title +Stubbed Tides$/m);
    expect(t.stdout).toMatch(new RegExp(`^Hash ID +${HASH}$`, 'm'));
    expect(t.stdout).toMatch(/ID +PRICE +DESCRIPTION +ACCESS +TYPE/);
    expect(t.stdout).toMatch(/^ +32 +6\.99 USD +180-day rental +180 days +LIMITED/m);
    const j = stdoutJson(await cli(http, ['book', 'pricing', '--isbn', ISBN, '--json']));
    expect(j.digital_pricing.map((p: { id: number }) => p.id)).toEqual([31, 32]);
  });

  it('an unknown ISBN: exit 3', async () => {
    const http = new StubRegistry().on('GET', `/v1/book/isbn/${ISBN}/pricing/`, refusal(404, 'Book not found'));
    const r = await cli(http, ['book', 'pricing', '--isbn', ISBN]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/Book not found/);
  });
});

describe('book search', () => {
  it('POST /v1/book/search/ with the criteria as form fields; rows as a table and as JSON', async () => {
    const http = new StubRegistry().on('POST', '/v1/book/search/', ok({ count: 2, results: [BOOK, BOOK2] }), 2);
    const t = await cli(http, ['book', 'search', '--title', 'stub', '--author', 'Stub', '-o', 'table']);
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout).toMatch(/^HASH ID +TITLE +AUTHOR +ISBN-13 +SKU +PRICES$/m);
    expect(t.stdout).toMatch(
      new RegExp(`^${HASH} +Stubbed Tides +Ada Stub +${ISBN} +STB-0007 +14\\.99 6\\.99/180d$`, 'm'),
    );
    expect(t.stdout).toMatch(new RegExp(`^${HASH2} +Second Stub +Bo Stub`, 'm'));
    expect(http.requests[0]!.payload).toEqual({ title: 'stub', author: 'Stub', offset: 0 });
    const j = await cli(http, ['book', 'search', '--isbn', ISBN, '--isbn', '978-1-61400-274-1', '--json']);
    expect(stdoutJson(j).results.map((b: { hash_id: string }) => b.hash_id)).toEqual([HASH, HASH2]);
    expect(http.requests[1]!.payload).toMatchObject({ isbn: [ISBN, '9781614002741'] });
  });

  it('a refused scope: exit 4 with the service message', async () => {
    const http = new StubRegistry().on(
      'POST',
      '/v1/book/search/',
      refusal(403, 'Your account is not authorized for the scope book_metadata.'),
    );
    const r = await cli(http, ['book', 'search', '--title', 'x']);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/scope book_metadata/);
  });
});

describe('book list', () => {
  it('POST /v1/book/index/ with limit and offset; a table, `N of M` on stderr; JSON', async () => {
    const http = new StubRegistry().on(
      'POST',
      '/v1/book/index/',
      ok({ count: 17, limit: 2, offset: 4, results: [BOOK, BOOK2] }),
      2,
    );
    const t = await cli(http, ['book', 'list', '--limit', '2', '--offset', '4', '-o', 'table']);
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout).toMatch(new RegExp(`^${HASH} +Stubbed Tides`, 'm'));
    expect(t.stdout).toMatch(new RegExp(`^${HASH2} +Second Stub`, 'm'));
    expect(t.stderr).toMatch(/2 of 17 books \(from offset 4\); more with --offset 6, or --all\./);
    expect(http.requests[0]!.payload).toEqual({ limit: 2, offset: 4 });
    const j = stdoutJson(await cli(http, ['book', 'list', '--limit', '2', '--offset', '4', '--json']));
    expect(j).toMatchObject({ count: 17, results: [{ hash_id: HASH }, { hash_id: HASH2 }] });
  });

  it('refused credentials: exit 4', async () => {
    const http = new StubRegistry().on('POST', '/v1/book/index/', refusal(401, 'Authentication failed.'));
    expect((await cli(http, ['book', 'list'])).code).toBe(4);
  });
});

describe('book viewer', () => {
  const URL = `https://read.bookdist.test/reader/${HASH}/?t=stub`;

  it('POST /v1/book/viewer/ with username and hash_id; prints the URL as text and in JSON', async () => {
    const http = new StubRegistry().on('POST', '/v1/book/viewer/', ok({ viewer_url: URL }), 2);
    const t = await cli(http, ['book', 'viewer', '--username', USER, '--hash-id', HASH]);
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout.trim()).toBe(URL);
    expect(http.requests[0]!.payload).toEqual({ username: USER, hash_id: HASH });
    const j = stdoutJson(await cli(http, ['book', 'viewer', '--username', USER, '--hash-id', HASH, '--json']));
    expect(j.viewer_url).toBe(URL);
  });

  it('no purchase of the book: exit 3, saying what the user lacks', async () => {
    const http = new StubRegistry().on('POST', '/v1/book/viewer/', refusal(404, 'User has no purchase of this book.'));
    const r = await cli(http, ['book', 'viewer', '--username', USER, '--hash-id', HASH]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/the user has no purchase or access grant of this book/);
  });
});

describe('book process', () => {
  it('POST /v1/book/<hash>/process/ with force and urgent; one row per book as a table and in JSON', async () => {
    const http = new StubRegistry()
      .on('POST', `/v1/book/${HASH}/process/`, ok({ message: 'Book queued for processing.' }), 2)
      .on('POST', `/v1/book/${HASH2}/process/`, ok({ message: 'Book already processed.' }), 2);
    const t = await cli(http, ['book', 'process', HASH, HASH2, '--urgent', '-o', 'table']);
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout).toMatch(/^HASH ID +STATE +MESSAGE$/m);
    expect(t.stdout).toMatch(new RegExp(`^${HASH} +queued +Book queued for processing\\.$`, 'm'));
    expect(t.stdout).toMatch(new RegExp(`^${HASH2} +already_processed +Book already processed\.$`, 'm'));
    expect(t.stderr).toMatch(/book process: 2 books: 1 queued, 1 already processed/);
    expect(sentOnce(http, 'POST', `/v1/book/${HASH}/process/`).payload).toMatchObject({ urgent: true });
    const j = stdoutJson(await cli(http, ['book', 'process', HASH, HASH2, '--json']));
    expect(j.summary).toMatchObject({ total: 2, queued: 1, already_processed: 1 });
  });

  it('one unknown book: exit 3 as the service said', async () => {
    const http = new StubRegistry().on('POST', `/v1/book/${HASH}/process/`, refusal(404, 'Book not found'));
    const r = await cli(http, ['book', 'process', HASH]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/Book not found/);
  });

  it('--wait --timeout 1h bounds the whole wait, not each request: a Retry-After of 40 s does not fit a request (30 s) and is not waited for', async () => {
    const http = new StubRegistry().on(
      'POST',
      `/v1/book/${HASH}/process/`,
      json(429, { code: 429, error: true, message: 'slow down' }, { 'retry-after': '40' }),
    );
    const r = await cli(http, ['book', 'process', HASH, '--wait', '--timeout', '1h', '--json']);
    expect(r.code).toBe(7);
    const [row] = stdoutJson(r).books;
    expect(row).toMatchObject({ hash_id: HASH, state: 'failed' });
    expect(row.message).toMatch(
      /waiting 40s before retry 1 does not fit in what is left of --timeout 1h \((?:29|30)(?:\.\d+)?s\)/,
    );
  });

  it('a 200 without the envelope: failed with "the outcome is unknown" (exit 1), never queued; the ledger says unknown', async () => {
    const http = new StubRegistry().on('POST', `/v1/book/${HASH}/process/`, json(200, { queued: 'yes' }));
    const r = await cli(http, ['book', 'process', HASH, '--json']);
    expect(r.code).toBe(1);
    const [row] = stdoutJson(r).books;
    expect(row).toMatchObject({ hash_id: HASH, state: 'failed' });
    expect(row.message).toMatch(/the outcome is unknown: the service's answer was not what the interface promises/);
    const ledger = stdoutJson(await cli(new StubRegistry(), ['ledger', 'list', '--json']));
    expect(ledger.at(-1)).toMatchObject({ op: 'book process', status: 'unknown' });
  });
});
