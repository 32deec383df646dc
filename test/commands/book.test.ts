// e2e: `bookdist book get|pricing|search|list|viewer` against a sandbox over HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEED_BOOKS, startTestSandbox, WELL_KNOWN, type TestSandbox } from '../helpers/sandbox.js';
import { cliFor, json, type Cli } from './_support.js';

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

let sb: TestSandbox;
let cli: Cli;
const readme = WELL_KNOWN.readme;
/** Books of the partner's publishers (Harbor Lane Press, Northwind Academic). */
const partnerBooks = SEED_BOOKS.filter((b) => b.publisher_id === 1 || b.publisher_id === 2);

beforeAll(async () => {
  sb = await startTestSandbox();
  cli = cliFor(sb, { COLUMNS: '220' });
});
afterAll(async () => {
  await sb?.close();
});

describe('book get', () => {
  it('shows a card by ISBN with hyphens: identifiers, flags and a pricing sub-table', async () => {
    const isbn = `${readme.isbn13.slice(0, 3)}-${readme.isbn13.slice(3, 4)}-${readme.isbn13.slice(4, 9)}-${readme.isbn13.slice(9, 12)}-${readme.isbn13.slice(12)}`;
    const r = await cli(['book', 'get', '--isbn', isbn, '-o', 'table']);
    expect(r.stderr).toContain('TEST MODE');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`Title\\s+${esc(readme.title)}`));
    expect(r.stdout).toMatch(new RegExp(`Author\\s+${readme.author}`));
    expect(r.stdout).toMatch(new RegExp(`Hash ID\\s+${readme.hash_id}`));
    expect(r.stdout).toMatch(new RegExp(`ISBN-10\\s+${readme.isbn10}`));
    expect(r.stdout).toMatch(new RegExp(`SKU\\s+${readme.sku}`));
    expect(r.stdout).toMatch(/Flags\s+active, published, public, processed/);
    expect(r.stdout).toContain('Digital pricing');
    for (const p of readme.pricing) {
      expect(r.stdout).toMatch(new RegExp(`\\n\\s+${p.id}\\s+${esc(p.price)} USD\\s+${esc(p.description)}`));
    }
    expect(r.stdout).toMatch(/180 days\s+LIMITED\s+expires \d{4}-\d{2}-\d{2}/);
  });

  it('gives the whole response with --json, by hash id, ISBN-10 with spaces, and SKU', async () => {
    const spaced = readme.isbn10.split('').join(' ');
    const [byHash, byIsbn10, bySku] = await Promise.all([
      cli(['book', 'get', readme.hash_id, '--json']),
      cli(['book', 'get', '--isbn', spaced, '--json']),
      cli(['book', 'get', '--sku', readme.sku, '--json']),
    ]);
    for (const r of [byHash, byIsbn10, bySku]) {
      expect(r.code).toBe(0);
      const body = json(r);
      expect(body.code).toBe(200);
      expect(body.test_mode).toBe(true);
      expect(body.book.hash_id).toBe(readme.hash_id);
      expect(body.book.identifiers.isbn13).toBe(readme.isbn13);
      expect(body.book.digital_pricing.map((p: any) => p.id)).toEqual(readme.pricing.map((p) => p.id));
    }
  });

  it('exits 3 for an unknown book, and --no-check sends a wrong check digit as it is', async () => {
    const wrongDigit = readme.isbn13.slice(0, 12) + ((Number(readme.isbn13[12]) + 1) % 10);
    const [unknown, unchecked] = await Promise.all([
      cli(['book', 'get', '--isbn', '9780306406157']),
      cli(['book', 'get', '--isbn', wrongDigit, '--no-check']),
    ]);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toMatch(/HTTP 404, GET \/v1\/book\/isbn\/9780306406157\//);
    expect(unknown.stdout).toBe('');
    expect(unchecked.code).toBe(3);
    expect(unchecked.stderr).toContain(`/v1/book/isbn/${wrongDigit}/`);
  });

  it('needs exactly one of <hash_id>, --isbn and --sku', async () => {
    const [none, two] = await Promise.all([
      cli(['book', 'get']),
      cli(['book', 'get', readme.hash_id, '--sku', readme.sku]),
    ]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/Give one of <hash_id>, --isbn, --sku/);
    expect(two.code).toBe(2);
    expect(two.stderr).toMatch(/Give only one of .* \(got <hash_id> and --sku\)/);
  });

  it('prints the request and sends nothing with --dry-run', async () => {
    const r = await cli(['book', 'get', '--isbn', readme.isbn13, '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`curl -X GET '${sb.url}/v1/book/isbn/${readme.isbn13}/'`);
    expect(r.stdout).not.toContain(readme.title);
  });
});

describe('book pricing', () => {
  it('lists the pricing entries as a table and as JSON', async () => {
    const [table, out] = await Promise.all([
      cli(['book', 'pricing', '--isbn', readme.isbn13, '-o', 'table']),
      cli(['book', 'pricing', '--isbn', readme.isbn13, '--json']),
    ]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(new RegExp(`Title\\s+${readme.title}`));
    expect(table.stdout).toMatch(/ID\s+PRICE\s+DESCRIPTION\s+ACCESS/);
    expect(table.stdout).toMatch(/\n\s+1\s+14\.99 USD\s+Digital edition \(lifetime access\)\s+unlimited/);
    expect(out.code).toBe(0);
    expect(json(out).digital_pricing.map((p: any) => p.price)).toEqual(readme.pricing.map((p) => p.price));
  });

  it('exits 3 for an unknown ISBN', async () => {
    const r = await cli(['book', 'pricing', '--isbn', '9780306406157']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('HTTP 404');
  });
});

describe('book search', () => {
  it('finds books by title (table) and by several ISBNs (JSON)', async () => {
    const other = WELL_KNOWN.limitedPricing;
    const [table, out] = await Promise.all([
      cli(['book', 'search', '--title', 'winter atlas', '-o', 'table']),
      cli(['book', 'search', '--isbn', readme.isbn13, '--isbn', other.isbn13, '--json']),
    ]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^HASH ID +TITLE/);
    expect(table.stdout).toContain(other.hash_id);
    expect(table.stdout).toContain('3.99/30d 5.99/90d');
    expect(out.code).toBe(0);
    const body = json(out);
    expect(body.count).toBe(2);
    expect(body.results.map((b: any) => b.hash_id).sort()).toEqual([readme.hash_id, other.hash_id].sort());
  });

  it('says so when nothing matches, and needs a criterion', async () => {
    const [none, noCriteria] = await Promise.all([
      cli(['book', 'search', '--title', 'no such title anywhere', '-o', 'table']),
      cli(['book', 'search']),
    ]);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('No books match.');
    expect(noCriteria.code).toBe(2);
    expect(noCriteria.stderr).toContain('--isbn, --title, --author or --hash-id');
  });
});

describe('book list', () => {
  it('shows one page and says `N of M` on stderr', async () => {
    const [table, out] = await Promise.all([
      cli(['book', 'list', '--limit', '5', '-o', 'table']),
      cli(['book', 'list', '--limit', '5', '--offset', '5', '--json']),
    ]);
    expect(table.code).toBe(0);
    expect(table.stderr).toContain(
      `5 of ${partnerBooks.length} books (from offset 0); more with --offset 5, or --all.`,
    );
    for (const b of partnerBooks.slice(0, 5)) expect(table.stdout).toContain(b.hash_id);
    expect(table.stdout).not.toContain(partnerBooks[5].hash_id);
    const body = json(out);
    expect(body.count).toBe(partnerBooks.length);
    expect(body.results.map((b: any) => b.hash_id)).toEqual(partnerBooks.slice(5, 10).map((b) => b.hash_id));
  });

  it('--all pages through the service: JSON array, NDJSON lines and per-page tables', async () => {
    const [arr, nd, table] = await Promise.all([
      cli(['book', 'list', '--all', '--limit', '4', '--json']),
      cli(['book', 'list', '--all', '--limit', '3', '--offset', '2', '-o', 'ndjson']),
      cli(['book', 'list', '--all', '--limit', '6', '-o', 'table']),
    ]);
    expect(arr.code).toBe(0);
    // --all --json: one response of the page's shape, with the rows of every page in `results`.
    expect(json(arr).results.map((b: any) => b.hash_id)).toEqual(partnerBooks.map((b) => b.hash_id));
    expect(arr.stderr).not.toMatch(/ of \d+ books/);
    const lines = nd.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((b: any) => b.hash_id)).toEqual(partnerBooks.slice(2).map((b) => b.hash_id));
    expect(table.code).toBe(0);
    for (const b of partnerBooks) expect(table.stdout).toContain(b.hash_id);
    expect(table.stdout.match(/HASH ID/g)!.length).toBe(Math.ceil(partnerBooks.length / 6));
    expect(table.stderr).toContain(`${partnerBooks.length} books.`);
  });

  it("--all without --limit asks for pages of 500, the service's maximum, with the POST form (interface 4.2: the GET form takes no limit)", async () => {
    const r = await cli(['book', 'list', '--all', '--debug', '-o', 'ndjson']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(partnerBooks.length);
    expect(r.stderr).not.toMatch(/→ GET \S+\/v1\/book\/index\//);
    expect(r.stderr).toMatch(/→ POST \S+\/v1\/book\/index\/\n/);
    const asked = [...r.stderr.matchAll(/ {2}request=(\{.*\})/g)].map((m) => JSON.parse(m[1]));
    expect(asked).toEqual([{ offset: 0, limit: 500 }]);
  });

  it('--all stops at the end even when asked for more than there is', async () => {
    const r = await cli(['book', 'list', '--all', '--offset', String(partnerBooks.length - 1), '--json']);
    expect(r.code).toBe(0);
    expect(json(r).results.map((b: any) => b.hash_id)).toEqual([partnerBooks[partnerBooks.length - 1].hash_id]);
  });
});

describe('book viewer', () => {
  it('prints the reader URL for a user with access, as text and JSON', async () => {
    const user = WELL_KNOWN.user2.username;
    const book = WELL_KNOWN.otherPublisher.hash_id;
    const free = await cli(['order', 'free', '--username', user, '--hash-id', book, '--json']);
    expect(free.code).toBe(0);
    const [text, out] = await Promise.all([
      cli(['book', 'viewer', '--username', user, '--hash-id', book, '-o', 'tsv', '--query', 'viewer_url']),
      cli(['book', 'viewer', '--username', user, '--hash-id', book, '--json', '--open']),
    ]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`^${sb.url}/\\S+\\n$`));
    expect(out.code).toBe(0);
    expect(json(out).viewer_url).toMatch(new RegExp(`^${sb.url}/`));
    // --open off a terminal only prints the URL, and never fails.
    expect(out.stderr).not.toContain('could not start');
    const page = await fetch(text.stdout.trim());
    expect(page.status).toBe(200);
  });

  it('exits 3 when the user has no purchase of the book', async () => {
    const r = await cli([
      'book',
      'viewer',
      '--username',
      WELL_KNOWN.user.username,
      '--hash-id',
      WELL_KNOWN.limitedPricing.hash_id,
    ]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/Purchase for user not found/);
    expect(r.stdout).toBe('');
  });
});
