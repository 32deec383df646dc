// The lookup by ISBN is made once per state of what it shows (domain/books.ts bookIsbn, a memo of
// the store) and sent as the same text: it must still change the moment that state does, whoever
// changes it: this server (the worker processing a book), another process on the same file, the
// sandbox clock's day, a hold.
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, WELL_KNOWN, type TestSandbox } from '../helpers/sandbox.js';
import { clients, type Clients } from './_support.js';

let sb: TestSandbox;
let c: Clients;
beforeAll(async () => {
  // Processing takes an hour of the sandbox's clock: the test moves the clock and runs the worker
  // itself, so no book finishes on its own between two requests however slow the machine is.
  sb = await startTestSandbox({ processDelayMs: 3_600_000 });
  c = clients(sb);
});
afterAll(async () => {
  await c?.closeAll();
  await sb?.close();
});

const lookup = async (isbn: string) => {
  const r = await c.partner.call('book.isbn', { params: { isbn } });
  expect(r.status).toBe(200);
  return r.body.book;
};

describe('the lookup by ISBN, made once per state', () => {
  it('answers alike while nothing changes, and at once anew when another process changes the book or its price', async () => {
    const { isbn13, hash_id } = WELL_KNOWN.readme;
    const first = await lookup(isbn13);
    expect(await lookup(isbn13)).toEqual(first);
    const db = new DatabaseSync(sb.dbPath, { timeout: 10_000 });
    try {
      db.prepare('UPDATE books SET title = ? WHERE hash_id = ?').run('Changed Elsewhere', hash_id);
      expect((await lookup(isbn13)).title).toBe('Changed Elsewhere');
      const price = first.digital_pricing[0];
      db.prepare('UPDATE pricing SET price = ? WHERE id = ?').run('1.23', price.id);
      const after = await lookup(isbn13);
      expect(after.digital_pricing[0].price).toBe('1.23');
      expect(after.title).toBe('Changed Elsewhere');
      db.prepare('UPDATE books SET title = ? WHERE hash_id = ?').run(first.title, hash_id);
      db.prepare('UPDATE pricing SET price = ? WHERE id = ?').run(price.price, price.id);
    } finally {
      db.close();
    }
    expect(await lookup(isbn13)).toEqual(first);
  });

  it("a rental's expiration date follows the sandbox clock's day", async () => {
    const { isbn13 } = WELL_KNOWN.limitedPricing;
    const before = (await lookup(isbn13)).digital_pricing[0].calculated_expiration_date;
    expect(before).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    await sb.control.advanceClock('1d');
    const after = (await lookup(isbn13)).digital_pricing[0].calculated_expiration_date;
    expect(Date.parse(after) - Date.parse(before)).toBe(86_400_000);
  });

  it('a book queued and then processed by the worker is seen queued, then processed', async () => {
    const { isbn13, hash_id } = WELL_KNOWN.unprocessed;
    expect((await lookup(isbn13)).status.is_processed).toBe(false);
    expect((await c.partner.call('book.process', { params: { hash_id } })).status).toBe(200);
    expect((await lookup(isbn13)).status.is_queued).toBe(true);
    await sb.control.runWorker(); // starts it
    expect((await lookup(isbn13)).status).toMatchObject({ is_processed: false, is_queued: true });
    await sb.control.advanceClock('1h');
    await sb.control.runWorker(); // finishes it
    const done = await lookup(isbn13);
    expect(done.status).toMatchObject({ is_processed: true, is_queued: false });
  });
});
