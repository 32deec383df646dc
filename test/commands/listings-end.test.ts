// Listings end (issue 28, item 7): `--all` against a service that ignores `offset` (the interface
// says the GET form of /v1/book/index/ "takes none") or repeats rows stops with an error naming
// the page and never prints a row twice; the book index is paged with the POST form.
import { describe, expect, it } from 'vitest';
import { answer, hostileEnv, hostileForFile } from '../helpers/hostile-server.js';
import { run } from '../helpers/run.js';

const server = hostileForFile();

const hash = (n: number) => n.toString(16).padStart(40, '0');
const book = (n: number) => ({ id: n, hash_id: hash(n), title: `Book ${n}`, author: 'A. Author' });
const page = (from: number, size: number, count: number) =>
  answer.ok({
    count,
    limit: size,
    offset: from,
    results: Array.from({ length: Math.max(0, Math.min(size, count - from)) }, (_, i) => book(from + i + 1)),
  });
const cli = (args: string[]) => run(args, { env: hostileEnv(server.url) });

describe('book list --all', () => {
  it('a service that ignores offset (the first page again, count 10^12): exit 1 naming page 2, each row once', async () => {
    server.on('POST', '/v1/book/index/', page(0, 3, 1e12));
    const r = await cli(['book', 'list', '--all', '--limit', '3', '-o', 'ndjson']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Listing books: page 2 \(offset 3\) brought 3 rows, all listed already/);
    const ids = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).id);
    expect(ids).toEqual([1, 2, 3]);
    expect(server.hits('/v1/book/index/')).toBe(2);
  });

  it('the first page twelve times with a count of 120 (JSON): stops at page 2, the JSON array stays valid', async () => {
    server.on('POST', '/v1/book/index/', page(0, 10, 120));
    const r = await cli(['book', 'list', '--all', '--limit', '10', '--json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('page 2 (offset 10)');
    expect(JSON.parse(r.stdout).results.map((b: { id: number }) => b.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('pages that overlap: a row already listed is not listed again, the new ones are', async () => {
    server.on('POST', '/v1/book/index/', (req) => {
      const offset = Number(req.payload?.offset ?? 0);
      // Each page starts one row early: its first row repeats the last of the page before.
      return page(Math.max(0, offset - 1), 3, 7);
    });
    const r = await cli(['book', 'list', '--all', '--limit', '3', '-o', 'ndjson']);
    expect(r.code, r.stderr).toBe(0);
    const ids = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).id);
    expect(ids).toEqual([...new Set(ids)]);
    expect(ids).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('pages with the POST form, limit and offset in the request (never GET with a query)', async () => {
    server.on('POST', '/v1/book/index/', (req) => page(Number(req.payload?.offset ?? 0), 2, 5));
    const r = await cli(['book', 'list', '--all', '--limit', '2', '-o', 'ndjson']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(5);
    expect(server.requests.map((q) => [q.method, q.path, q.payload])).toEqual([
      ['POST', '/v1/book/index/', { offset: 0, limit: 2 }],
      ['POST', '/v1/book/index/', { offset: 2, limit: 2 }],
      ['POST', '/v1/book/index/', { offset: 4, limit: 2 }],
    ]);
  });
});

describe('book search --all and import search --all', () => {
  it('book search against a service that repeats its page: exit 1 naming the page', async () => {
    server.on('POST', '/v1/book/search/', page(0, 2, 50));
    const r = await cli(['book', 'search', '--title', 'x', '--all', '--limit', '2', '-o', 'ndjson']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/page 2 \(offset 2\)/);
    expect(r.stdout.trim().split('\n')).toHaveLength(2);
  });

  it('import search (titles with no id): a repeated page stops too', async () => {
    const title = (n: number) => ({
      title: `T${n}`,
      author: 'A',
      publisher: 'P',
      edition_number: 1,
      identifiers: { book_id: null, isbn13: `97800000000${n}` },
      status: { deleted: false, file_received: false, imported: false },
    });
    server.on(
      'POST',
      '/v1/import/search/',
      answer.ok({ count: 40, limit: 2, offset: 0, results: [title(1), title(2)] }),
    );
    const r = await cli(['import', 'search', '--title', 'x', '--all', '--limit', '2', '-o', 'ndjson']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Listing imported titles: page 2 \(offset 2\)/);
    expect(r.stdout.trim().split('\n')).toHaveLength(2);
  });
});
