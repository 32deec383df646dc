// Loads of many books (past the text index's batches, past 10,000 books), in process on an
// in-memory database: the text index and the secondary indexes of books agree with the rows after
// each, and a row sent unchanged writes nothing. Apart from catalogue.test.ts because each load
// takes seconds: \`npm run mutate\`'s catalogue group (the record checks) runs without them.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanupKeyFiles } from '../../src/sandbox/control.js';
import { readCsv } from '../../src/sandbox/catalogue/csv.js';
import { loadCatalogue } from '../../src/sandbox/catalogue/load.js';
import { StrictRefusal, type LoadOptions } from '../../src/sandbox/catalogue/summary.js';
import { ensureSeeded } from '../../src/sandbox/seed.js';
import { Store } from '../../src/sandbox/db/store.js';
import { deferTextIndex } from '../../src/sandbox/repo/book-indexes.js';

let store: Store;
beforeEach(() => {
  store = new Store(':memory:');
  ensureSeeded(store);
});
afterEach(() => {
  cleanupKeyFiles(store);
  store.close();
});

/** The bytes in small chunks, as catalogue.test.ts reads them. */
async function* chunks(text: string, size = 37): AsyncGenerator<Buffer> {
  const buf = Buffer.from(text, 'utf8');
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}
const csv = (text: string, opts?: LoadOptions) => loadCatalogue(store, 'csv', () => readCsv(chunks(text)), opts);
const book = (eisbn: string) => store.get('SELECT * FROM books WHERE eisbn13 = ?', eisbn);

/** A valid ISBN-13 from its first twelve digits. */
function isbn13(first12: string): string {
  const sum = [...first12].reduce((n, d, k) => n + Number(d) * (k % 2 ? 3 : 1), 0);
  return first12 + ((10 - (sum % 10)) % 10);
}

describe('CSV loads of many books', () => {
  it('a re-sent file renames books in the text index, book by book (past one batch) or by a rebuild (a third renamed), and a row sent unchanged writes nothing', async () => {
    const isbn = (i: number) => {
      const first12 = '9791888' + String(i).padStart(5, '0');
      const sum = [...first12].reduce((n, d, k) => n + Number(d) * (k % 2 ? 3 : 1), 0);
      return first12 + ((10 - (sum % 10)) % 10);
    };
    const rows = (n: number, title: (i: number) => string) =>
      'isbn13,title,author,publisher,price\n' +
      Array.from({ length: n }, (_, i) => `${isbn(i)},${title(i)},Ann Quill,Renamed Press,5.00`).join('\n') +
      '\n';
    const n = 15_003;
    expect(await csv(rows(n, (i) => `Harbour Lantern ${i}`))).toMatchObject({ added: n, refused: 0 });
    const match = (q: string) => store.all('SELECT rowid FROM books_fts WHERE books_fts MATCH ?', `"${q}"`).length;
    expect(match('Harbour Lantern')).toBe(n);
    // 5,003 renamed, less than a third of the books: held to the end of the load, then old entries
    // deleted and new ones written in batches of 5,000.
    const some = 5003;
    const s1 = await csv(rows(some, (i) => `Meridian Tide ${i}`));
    expect(s1).toMatchObject({ added: 0, updated: some, refused: 0 });
    // The index agrees with the books (FTS5 checks every entry against the content table).
    store.run("INSERT INTO books_fts(books_fts) VALUES ('integrity-check')");
    expect(match('Meridian Tide')).toBe(some);
    expect(match('Harbour Lantern')).toBe(n - some);
    // Every book renamed: the index is rebuilt from the books at the end of the load.
    const s2 = await csv(rows(n, (i) => `Quiet Letters ${i}`));
    expect(s2).toMatchObject({ added: 0, updated: n, refused: 0 });
    store.run("INSERT INTO books_fts(books_fts) VALUES ('integrity-check')");
    expect(match('Quiet Letters')).toBe(n);
    expect(match('Meridian Tide') + match('Harbour Lantern')).toBe(0);
    // The triggers are back: a rename outside a load is indexed too.
    store.run("UPDATE books SET title = 'Quiet Orchard' WHERE eisbn13 = ?", isbn(3));
    expect(match('Quiet Orchard')).toBe(1);

    // Sent again unchanged: counted as updated, no row written.
    const changes = store.get('SELECT total_changes() AS n')!.n;
    expect(await csv(rows(3, (i) => (i === 3 ? 'Quiet Orchard' : `Quiet Letters ${i}`)))).toMatchObject({ updated: 3 });
    expect(store.get('SELECT total_changes() AS n')!.n).toBe(changes);
  });

  it('the text index of a load: renames held to its end and written in batches, written as it goes past what it holds, or rebuilt from a third', async () => {
    const rows =
      'isbn13,title,author,publisher,price\n' +
      Array.from(
        { length: 40 },
        (_, i) => `${isbn13('979188900' + String(i).padStart(3, '0'))},Harbour Lantern ${i},Ann Quill,Small Press,5.00`,
      ).join('\n') +
      '\n';
    expect(await csv(rows)).toMatchObject({ added: 40, refused: 0 });
    const match = (q: string) => store.all('SELECT rowid FROM books_fts WHERE books_fts MATCH ?', `"${q}"`).length;
    const ids = store.all(
      "SELECT id, title, author FROM books WHERE title LIKE 'Harbour Lantern %' ORDER BY id",
    ) as Array<{ id: number; title: string; author: string }>;
    /** Rename the first `n` of the books through a deferred index with these limits, as a load does. */
    const rename = (n: number, to: string, limits: { batch: number; hold: number }) =>
      store.tx(() => {
        const index = deferTextIndex(store, limits);
        for (const b of ids.slice(0, n)) {
          const old = store.get('SELECT title, author FROM books WHERE id = ?', b.id)!;
          index.changing(b.id, old.title as string, old.author as string);
          store.run('UPDATE books SET title = ? WHERE id = ?', `${to} ${b.id}`, b.id);
        }
        index.finish();
      });
    const agree = () => store.run("INSERT INTO books_fts(books_fts) VALUES ('integrity-check')");
    // 62 books (40 and the seed's 22): a rebuild from 21 renames.
    rename(7, 'Meridian Tide', { batch: 3, hold: 100 }); // held, written at the end in three batches
    agree();
    expect([match('Meridian Tide'), match('Harbour Lantern')]).toEqual([7, 33]);
    rename(12, 'Quiet Letters', { batch: 3, hold: 5 }); // past what it holds: written as it goes, then the rest
    agree();
    expect([match('Quiet Letters'), match('Meridian Tide'), match('Harbour Lantern')]).toEqual([12, 0, 28]);
    rename(30, 'Salt Ledger', { batch: 3, hold: 100 }); // a third and more: rebuilt
    agree();
    expect([match('Salt Ledger'), match('Quiet Letters'), match('Harbour Lantern')]).toEqual([30, 0, 10]);
    // The triggers are back after each: a rename outside a load is indexed.
    store.run("UPDATE books SET title = 'Cedar Orchard' WHERE id = ?", ids[39].id);
    expect([match('Cedar Orchard'), match('Harbour Lantern')]).toEqual([1, 9]);
  });

  it('a load of more than 10,000 books leaves every index of books as it was and agreeing with the rows; a refused one too', async () => {
    const isbn = (i: number) => {
      const first12 = '9781777' + String(i).padStart(5, '0');
      const sum = [...first12].reduce((n, d, k) => n + Number(d) * (k % 2 ? 3 : 1), 0);
      return first12 + ((10 - (sum % 10)) % 10);
    };
    const indexes = () =>
      store.all("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'books' ORDER BY name");
    const before = indexes();
    expect(before.length).toBeGreaterThan(5);
    const rows = (n: number, last = '') =>
      'isbn13,title,author,publisher,price\n' +
      Array.from({ length: n }, (_, i) => `${isbn(i)},Ledger ${i},Ann Quill,Index Press,5.00`).join('\n') +
      '\n' +
      last;
    const n = 10_050;
    // Refused as a whole (--strict): the indexes dropped during the load come back with the rollback.
    await expect(csv(rows(n, '9780000000000,Bad,Ann Quill,Index Press,5.00\n'), { strict: true })).rejects.toThrow(
      StrictRefusal,
    );
    expect(indexes()).toEqual(before);
    expect(await csv(rows(n))).toMatchObject({ added: n, refused: 0 });
    expect(indexes()).toEqual(before);
    // Every index holds every row (integrity_check compares each index with the table).
    expect(store.all('PRAGMA integrity_check')).toEqual([{ integrity_check: 'ok' }]);
    expect(
      store.get(
        'SELECT count(*) AS n FROM books INDEXED BY books_by_isbn10 WHERE isbn10 = ?',
        book(isbn(42))!.isbn10 as string,
      )!.n,
    ).toBe(1);
  });
});
