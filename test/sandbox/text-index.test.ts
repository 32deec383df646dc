// The trigram text indexes behind title/author search stay in one segment while a sandbox
// serves: rows added in bulk by another connection (a user's own SQLite session, the bench's
// grown catalogue) leave them in several, and every search would then probe each segment for
// each trigram. The serving sandbox notices the other connection's commit, merges, and answers
// exactly what it answered before.
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM helper shared with the bench
import { growSandboxDb } from '../../bench/grow-db.mjs';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { clients, type Clients } from './_support.js';

let sb: TestSandbox;
let c: Clients;

beforeAll(async () => {
  sb = await startTestSandbox({ processDelayMs: 1 });
  // One retry: growing the database by 40,000 rows holds this process for seconds, long enough
  // for the server to close an idle keep-alive connection that the next search would reuse
  // (ECONNRESET, one run in a few on a loaded machine). A search is a read: retrying it is what
  // the CLI does too.
  c = clients(sb, { retries: 1 });
}, 60_000);

afterAll(async () => {
  await c?.closeAll();
  await sb?.close();
});

/** Segments of an FTS5 index, from its structure record (row 10: cookie, [FF 00 00 01], levels, segments). */
function segments(table: string): number {
  const db = new DatabaseSync(sb.dbPath, { readOnly: true });
  try {
    const block = (db.prepare(`SELECT block FROM ${table}_data WHERE id = 10`).get() as { block: Uint8Array }).block;
    const i = block[4] === 0xff && block[5] === 0 && block[6] === 0 && block[7] === 1 ? 8 : 4;
    expect(block[i] & 0x80, 'a small number of levels').toBe(0);
    expect(block[i + 1] & 0x80, 'a small number of segments').toBe(0);
    return block[i + 1];
  } finally {
    db.close();
  }
}

/** Every word of `title` matched by a plain LIKE over the whole table (`%`, `_`, `\\` literal), in id order. */
function plainWords(title: string): number[] {
  const words = title.trim().split(/\s+/);
  const esc = (w: string) => '%' + w.replace(/[\\%_]/g, (m) => '\\' + m) + '%';
  const db = new DatabaseSync(sb.dbPath, { readOnly: true });
  try {
    const sql = `SELECT id FROM books WHERE ${words.map(() => "title LIKE ? ESCAPE '\\'").join(' AND ')} ORDER BY id`;
    return (db.prepare(sql).all(...words.map(esc)) as Array<{ id: number }>).map((r) => r.id);
  } finally {
    db.close();
  }
}

/** What a plain LIKE over the whole table finds (ASCII case folding), in id order. */
function plainLike(table: 'books' | 'imports', column: string, word: string): number[] {
  const db = new DatabaseSync(sb.dbPath, { readOnly: true });
  try {
    return (
      db.prepare(`SELECT id FROM ${table} WHERE ${column} LIKE ? ORDER BY id`).all(`%${word}%`) as Array<{ id: number }>
    ).map((r) => r.id);
  } finally {
    db.close();
  }
}

async function searchIds(
  endpoint: 'book.search' | 'import.search',
  payload: Record<string, unknown>,
): Promise<{ ids: Array<number | string>; count: number }> {
  const r = await c.partner.call(endpoint, { payload: { limit: 100, ...payload } });
  expect(r.status).toBe(200);
  return { ids: r.body.results.map((b: any) => b.id ?? b.identifiers.isbn13), count: r.body.count };
}

describe('text indexes of a serving sandbox', () => {
  it("take any word as text: the text index's query syntax in a word is matched literally, as LIKE would", async () => {
    const hostile = [
      '"Lighthouse"',
      'Light"house',
      "keeper's",
      'title:Lighthouse',
      'author:Ellison',
      'NEAR(Lighthouse',
      'Light*',
      '^Light',
      'ouse',
      'IGHTH',
      'edge',
      'ghthou',
      'Harb our',
      'AND',
      'OR NOT',
      'Ledger -Keeper',
      '(Lighthouse)',
      '{title}',
      'Ledg_r',
      'Led%er',
      'led\\ger',
      'LIGHTHOUSE ledger',
      'é"é',
    ];
    for (const title of hostile) {
      const r = await c.partner.call('book.search', { payload: { title, limit: 100 } });
      expect(r.status, title).toBe(200);
      expect(
        r.body.results.map((b: any) => b.id),
        title,
      ).toEqual(plainWords(title));
    }
    expect(plainWords('LIGHTHOUSE ledger')).toHaveLength(1);
  });

  it('are merged into one segment after another connection adds rows in bulk, and searches answer the same', async () => {
    expect(segments('books_fts')).toBe(1);
    // Another connection adds 20,000 books and imports in one transaction.
    growSandboxDb(sb.dbPath, { books: 20_000, users: 0, orders: 0, codes: 0, imports: 20_000, outbox: 0 });
    expect(segments('books_fts')).toBeGreaterThan(1);
    expect(segments('imports_fts')).toBeGreaterThan(1);

    // Answers while the index is still in pieces (this request's snapshot also sees the commit).
    const words = ['Lighthouse', 'Volume 1999', 'harbour'];
    const before = [];
    for (const title of words) before.push(await searchIds('book.search', { title }));
    const importsBefore = await searchIds('import.search', { title: '1234' });

    // Merged soon after (half a second after the other connection's commits stop).
    const deadline = Date.now() + 10_000;
    while ((segments('books_fts') > 1 || segments('imports_fts') > 1) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    expect(segments('books_fts')).toBe(1);
    expect(segments('imports_fts')).toBe(1);

    // The same answers, and they are what a plain LIKE over the table gives.
    for (const [i, title] of words.entries()) {
      const after = await searchIds('book.search', { title });
      expect(after, title).toEqual(before[i]);
    }
    expect(before[0].ids).toEqual(plainLike('books', 'title', 'Lighthouse'));
    const harbour = plainLike('books', 'title', 'harbour');
    expect(harbour.length).toBeGreaterThan(4_000);
    expect(before[2]).toEqual({ ids: harbour.slice(0, 100), count: harbour.length });
    expect(await searchIds('import.search', { title: '1234' })).toEqual(importsBefore);
    expect(importsBefore.count).toBe(plainLike('imports', 'title', '1234').length);
    expect(importsBefore.count).toBeGreaterThan(0);
  }, 60_000);
});
