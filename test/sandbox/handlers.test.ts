// The rest of the service's handlers asked in-process (beside rules.test.ts), on a seeded database in
// memory: book lookups and searches as a served request makes them (answers kept per state of the
// books, changed the moment a book, price, publisher or hold changes, or the day turns), the
// processing queue's order, readers' profiles, the storefront's checks, the service's own
// description. These run in milliseconds, so `npm run mutate` judges src/sandbox/domain/ by them
// first (test/mutation/sequencer.ts).
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Caller } from '../../src/sandbox/auth.js';
import { listOutbox } from '../../src/sandbox/control.js';
import type { Store } from '../../src/sandbox/db/store.js';
import { runWorker } from '../../src/sandbox/domain/index.js';
import { failNextProcessing, holdBook, releaseBook } from '../../src/sandbox/fixtures/book-controls.js';
import { seedCatalogue, SEED_IMPORTS, WELL_KNOWN } from '../../src/sandbox/seed.js';
import { endpoints } from '../../src/spec/endpoints.js';
import { callerOf, handlerCalls, ORIGIN } from '../helpers/domain-call.js';
import { seededMemoryStore } from '../helpers/memory-store.js';

const SEED_BOOKS = seedCatalogue();

const DAY = 86_400_000;
const readme = WELL_KNOWN.readme;

let store: Store;
let partner: Caller;
let queued = 0;
beforeAll(async () => {
  store = await seededMemoryStore();
  partner = callerOf(store, 'partner');
});
afterAll(() => store.close());
afterEach(() => vi.restoreAllMocks());

const { call, refusal } = handlerCalls(
  () => store,
  () => partner,
  () => queued++,
);

/** The end of the event loop's turn: a served request's read snapshot ends. */
const nextTurn = () => new Promise((r) => setImmediate(r));
/** `fn` as a served request runs it (inside `serve`, where answers made before are kept). */
const served = <T>(fn: () => T): T => store.serve(fn);

type Book = { hash_id: string; title: string; [k: string]: any };
const byIsbn = (isbn: string, now?: number) => call('book.isbn', { params: { isbn }, now }).body as { book: Book };
const search = (payload: Record<string, unknown>, now?: number) =>
  call('book.search', { payload, now }).body as { count: number; results: Book[] };

describe('a book looked up by ISBN in served requests', () => {
  it('each ISBN its own book; the same one answer while nothing changes, all day; another on the next day', async () => {
    await nextTurn();
    const now = store.now();
    served(() => {
      const a = byIsbn(readme.isbn13, now);
      expect(a.book.hash_id).toBe(readme.hash_id);
      expect(byIsbn(WELL_KNOWN.otherPublisher.isbn13, now).book.hash_id).toBe(WELL_KNOWN.otherPublisher.hash_id);
      expect(byIsbn(readme.isbn13, now + 1)).toBe(a);
      expect(byIsbn(readme.isbn13, now + 2)).toBe(a);
      // A rental's expiration date is a day count from today: it moves with the day.
      const limited = WELL_KNOWN.limitedPricing.isbn13;
      const today = byIsbn(limited, now).book.digital_pricing[0].calculated_expiration_date;
      const tomorrow = byIsbn(limited, now + DAY).book.digital_pricing[0].calculated_expiration_date;
      expect(Date.parse(tomorrow) - Date.parse(today)).toBe(DAY);
    });
  });

  it("shows this connection's change of the book, a price, its publisher and a hold at the next request", async () => {
    const other = WELL_KNOWN.otherPublisher;
    const before = served(() => byIsbn(other.isbn13).book);
    const priceId = before.digital_pricing[0].id as number;
    const publisher = store.get<{ id: number; title: string }>(
      'SELECT id, title FROM publishers WHERE id = (SELECT publisher_id FROM books WHERE hash_id = ?)',
      other.hash_id,
    )!;
    try {
      await nextTurn();
      store.run('UPDATE books SET title = ? WHERE hash_id = ?', 'Renamed Here', other.hash_id);
      expect(served(() => byIsbn(other.isbn13).book.title)).toBe('Renamed Here');
      await nextTurn();
      store.run('UPDATE pricing SET price = ? WHERE id = ?', '1.23', priceId);
      expect(served(() => byIsbn(other.isbn13).book.digital_pricing[0].price)).toBe('1.23');
      await nextTurn();
      store.run('UPDATE publishers SET title = ? WHERE id = ?', 'New Press', publisher.id);
      expect(served(() => byIsbn(other.isbn13).book.publisher.title)).toBe('New Press');
      await nextTurn();
      holdBook(store, other.hash_id, 'kept back for the test');
      expect(served(() => byIsbn(other.isbn13).book.status)).toMatchObject({
        is_held: true,
        held_reason: 'kept back for the test',
      });
      // The hold's reason alone (the table of holds, not the book's row).
      await nextTurn();
      store.run('UPDATE book_controls SET hold_reason = ? WHERE book_id = ?', 'another reason', before.id);
      expect(served(() => byIsbn(other.isbn13).book.status.held_reason)).toBe('another reason');
    } finally {
      await nextTurn();
      releaseBook(store, other.hash_id);
      store.run('UPDATE books SET title = ? WHERE hash_id = ?', before.title, other.hash_id);
      store.run('UPDATE pricing SET price = ? WHERE id = ?', before.digital_pricing[0].price, priceId);
      store.run('UPDATE publishers SET title = ? WHERE id = ?', publisher.title, publisher.id);
    }
  });

  it('an unknown ISBN, SKU or ISBN of the pricing lookup: 404 "Book not found"', () => {
    for (const [name, params] of [
      ['book.isbn', { isbn: '9780000000002' }],
      ['book.sku', { sku: 'NO-SUCH-SKU' }],
      ['book.pricing', { isbn: '9780000000002' }],
      ['book.get', { hash_id: 'f'.repeat(40) }],
    ] as const)
      expect(refusal(name, { params }), name).toEqual({ status: 404, message: 'Book not found', extra: {} });
  });
});

describe('a book search in served requests', () => {
  it('each search its own answer (every filter, limit and offset is part of it); the same search one answer all day', async () => {
    await nextTurn();
    const now = store.now();
    const queries: Array<Record<string, unknown>> = [
      { title: 'the' },
      { title: 'the', author: 'e' },
      { author: 'e' },
      { isbn: [readme.isbn13] },
      { hash_ids: [WELL_KNOWN.otherPublisher.hash_id] },
      { title: 'the', limit: 2 },
      { title: 'the', limit: 2, offset: 2 },
    ];
    const fresh = queries.map((q) => JSON.stringify(search(q, now)));
    expect(new Set(fresh).size).toBe(queries.length);
    served(() => {
      const first = queries.map((q) => search(q, now));
      for (const [i, q] of queries.entries()) {
        expect(JSON.stringify(first[i]), JSON.stringify(q)).toBe(fresh[i]);
        expect(search(q, now + 1 + i), JSON.stringify(q)).toBe(first[i]);
      }
      // The next day: made again (a rental's expiration date moves), and kept for that day.
      const q = { isbn: [WELL_KNOWN.limitedPricing.isbn13] };
      const today = search(q, now);
      const tomorrow = search(q, now + DAY);
      expect(
        Date.parse(tomorrow.results[0].digital_pricing[0].calculated_expiration_date) -
          Date.parse(today.results[0].digital_pricing[0].calculated_expiration_date),
      ).toBe(DAY);
      expect(search(q, now + DAY + 1)).toBe(tomorrow);
      expect(search({ title: 'the' }, now + DAY)).not.toBe(first[0]);
    });
    expect(JSON.stringify(search({ title: 'the' }, now + DAY))).toBe(
      JSON.stringify(served(() => search({ title: 'the' }, now + DAY))),
    );
  });

  it('keeps answers of at most 2000 books, the oldest dropped first: one that fills it exactly stays', async () => {
    await nextTurn();
    const now = store.now() + 3 * DAY; // a day of its own: nothing kept yet
    const all = search({ title: 'e', limit: 500 }, now).count;
    expect(all).toBeGreaterThan(10);
    served(() => {
      // Whole answers of `all` books each (limits all..500 are distinct searches), then one that makes 2000 exactly.
      const whole = Math.floor(2000 / all);
      const kept = Array.from({ length: whole }, (_, i) => search({ title: 'e', limit: all + i }, now));
      const rest = 2000 - whole * all;
      const filler = rest ? search({ title: 'e', limit: rest }, now) : undefined;
      for (const [i, k] of kept.entries()) expect(search({ title: 'e', limit: all + i }, now)).toBe(k);
      if (filler) expect(search({ title: 'e', limit: rest }, now)).toBe(filler);
      // One more book: the oldest answer goes, the rest stay.
      search({ title: 'e', offset: all - 1, limit: 1 }, now);
      const again = search({ title: 'e', limit: all }, now);
      expect(again).not.toBe(kept[0]);
      expect(JSON.stringify(again)).toBe(JSON.stringify(kept[0]));
      expect(search({ title: 'e', limit: all + 2 }, now)).toBe(kept[2]);
    });
  });
});

describe('the processing queue', () => {
  const ours = SEED_BOOKS.filter(
    (b) =>
      b.publisher_id === readme.publisher_id &&
      b.hash_id !== readme.hash_id &&
      b.hash_id !== WELL_KNOWN.queued.hash_id &&
      b.hash_id !== WELL_KNOWN.unprocessed.hash_id,
  );
  const processed = (hash: string) => {
    const st = call('book.get', { params: { hash_id: hash } }).body.book.status;
    return st.is_processed === true && st.is_queued === false;
  };
  const queue = (hash: string, payload: Record<string, unknown> = { force: true }) =>
    call('book.process', { params: { hash_id: hash }, payload }).body.message as string;
  /** Run the worker at a clock of our own (real time stopped at `t`). */
  const workAt = (t: number, delay = 60_000) => {
    vi.spyOn(Date, 'now').mockReturnValue(t);
    return runWorker(store, delay);
  };
  /** The books processed, in the order the worker completes them, one at a time. */
  function order(hashes: string[], t0: number): string[] {
    const done: string[] = [];
    for (let t = t0 + 60_000; done.length < hashes.length && t < t0 + 60_000 * (hashes.length + 2); t += 60_000) {
      workAt(t);
      for (const h of hashes) if (!done.includes(h) && processed(h)) done.push(h);
    }
    return done;
  }

  it('books are processed in the order they were queued; one queued again without --urgent keeps its place', () => {
    const [a, b, c] = ours.map((x) => x.hash_id);
    const t0 = Date.now();
    vi.spyOn(Date, 'now').mockReturnValue(t0);
    expect([queue(a), queue(b), queue(c)]).toEqual(Array(3).fill('Book queued for processing.'));
    workAt(t0); // a starts
    expect(queue(b, {})).toBe('Book already queued.');
    expect(order([a, b, c], t0)).toEqual([a, b, c]);
  });

  it('--urgent puts a book, or one already queued, ahead of the others', () => {
    const [a, b, c, d] = ours.map((x) => x.hash_id);
    const t0 = Date.now() + 10 * DAY;
    vi.spyOn(Date, 'now').mockReturnValue(t0);
    queue(a);
    queue(b);
    queue(c);
    workAt(t0); // a starts
    expect(queue(c, { urgent: true })).toBe('Book already queued.');
    queue(d, { force: true, urgent: true });
    expect(order([a, b, c, d], t0)).toEqual([a, d, c, b]);
  });

  it('the next book starts when the one before it finishes, not when the worker next looks; a book made to fail leaves the queue unprocessed', () => {
    const [a, b, c] = ours.map((x) => x.hash_id);
    const t0 = Date.now() + 20 * DAY;
    vi.spyOn(Date, 'now').mockReturnValue(t0);
    queue(a);
    queue(b);
    expect(workAt(t0)).toBe(0);
    // Two books' time at once, to the millisecond: both done.
    expect(workAt(t0 + 120_000)).toBe(2);
    expect(processed(a) && processed(b)).toBe(true);
    expect(workAt(t0 + 500_000)).toBe(0);
    const before = call('book.get', { params: { hash_id: c } }).body.book.status;
    failNextProcessing(store, c, 'a damaged file');
    vi.spyOn(Date, 'now').mockReturnValue(t0 + 600_000);
    queue(c);
    expect(workAt(t0 + 600_000)).toBe(0);
    expect(workAt(t0 + 660_000)).toBe(1);
    const st = call('book.get', { params: { hash_id: c } }).body.book.status;
    expect(st).toMatchObject({ is_queued: false, processed_date: before.processed_date });
    // Processed, it would say when.
    queue(c);
    workAt(t0 + 660_000);
    workAt(t0 + 720_000);
    expect(call('book.get', { params: { hash_id: c } }).body.book.status.processed_date).toBe(
      new Date(t0 + 720_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    );
  });
});

describe('readers', () => {
  it('every profile field is taken and shown; one not given is empty', () => {
    const profile = {
      address_1: '1 Quay St',
      address_2: 'Flat 2',
      city: 'Cork',
      zip: 'T12',
      country: 'IE',
      state: 'Munster',
      nickname: 'ann',
    };
    const full = call('user.create', { payload: { email: 'profile-full@example.com', profile } }).body.username;
    expect(call('user.get', { params: { username: full } }).body.user.profile).toEqual(profile);
    const bare = call('user.create', { payload: { email: 'profile-none@example.com' } }).body.username;
    const shown = call('user.get', { params: { username: bare } }).body.user;
    expect(shown.profile).toEqual(Object.fromEntries(Object.keys(profile).map((k) => [k, ''])));
    expect([shown.first_name, shown.last_name]).toEqual(['', '']);
  });

  it('an invitation without a first name greets no one by name; its mail is an invitation; an unknown e-mail is 404 "User not found"', () => {
    const inv = call('user.invite', { payload: { email: 'no-name@example.com' } }).body;
    const mail = listOutbox(store).at(-1)!;
    expect(mail.kind).toBe('user.invite');
    expect(mail.to).toEqual(['no-name@example.com']);
    expect(mail.subject).toBe('You are invited to read with Harbor Lane Integrations');
    expect(mail.body).toMatch(
      /^Hello , an account was created for you \(no-name@example\.com\)\. Your password: \S{6,}$/,
    );
    expect(inv.username).toMatch(/^[0-9a-f]{30}$/);
    expect(refusal('user.email', { params: { email: 'nobody@example.com' } })).toEqual({
      status: 404,
      message: 'User not found',
      extra: {},
    });
  });

  it('an empty label is no label; another must be one of the caller’s', () => {
    expect(call('user.create', { payload: { email: 'label-empty@example.com', label: '' } }).body.message).toBe(
      'User created.',
    );
    expect(refusal('user.create', { payload: { email: 'label-x@example.com', label: 'nope' } }).message).toBe(
      'Label "nope" is not a white label under your control.',
    );
  });
});

describe('the storefront', () => {
  it('offers: an ISBN-10 is an ISBN; none given, or one too short, is refused; a book active and public but not published is not offered', () => {
    expect(call('offers', { query: { isbn: readme.isbn10 } }).body).toMatchObject({ Status: 'OK' });
    expect(refusal('offers', {}).message).toBe('Invalid ISBN supplied');
    expect(refusal('offers', { query: { isbn: readme.isbn10.slice(0, 9) } }).message).toBe('Invalid ISBN supplied');
    const other = WELL_KNOWN.otherPublisher;
    store.run('UPDATE books SET is_published = 0 WHERE hash_id = ?', other.hash_id);
    try {
      expect(refusal('offers', { query: { isbn: other.isbn13 } }).message).toBe('The requested book is not published');
    } finally {
      store.run('UPDATE books SET is_published = 1 WHERE hash_id = ?', other.hash_id);
    }
  });

  it('checkout: no ids is refused; an id is digits only, any number of them; the rejoiner ids kept, cut at 2000', () => {
    expect(refusal('checkout', {}).message).toBe('Field "ids" is required.');
    const ids = store.all<{ id: number }>('SELECT id FROM pricing ORDER BY id').map((r) => r.id);
    const big = ids.find((i) => i >= 10)!;
    expect(big).toBeDefined();
    const cart = (query: Record<string, string>) => {
      const token = /t=([0-9a-f]+)/.exec(call('checkout', { query }).body.location)![1];
      return store.get<{ pricing_ids: string; rejoiner_ids: string }>('SELECT * FROM carts WHERE token = ?', token)!;
    };
    expect(JSON.parse(cart({ ids: String(big) }).pricing_ids)).toEqual([big]);
    for (const spelled of [`+${big}`, `0x${big.toString(16)}`, `${big}.0`, `${big}e0`, ` ${big}x`])
      expect(refusal('checkout', { query: { ids: spelled } }).message, spelled).toMatch(/^Unknown price id /);
    expect(cart({ ids: String(big) }).rejoiner_ids).toBe('');
    expect(cart({ ids: String(big), rejoiner_ids: 'r1,r2' }).rejoiner_ids).toBe('r1,r2');
    expect(cart({ ids: String(big), rejoiner_ids: 'r'.repeat(2500) }).rejoiner_ids).toBe('r'.repeat(2000));
  });
});

describe('the service describes itself', () => {
  it('the index: the versions, the admin and the host it is reached by', () => {
    expect(call('index').body).toEqual({
      api: {
        admin: 'operator@bookdist.example',
        available_versions: [
          {
            version: 'v1',
            version_date: '2015-01-21',
            version_help: '/v1/describe/',
            version_major: 1,
            version_string: '1.0.3',
            version_url: '/v1/',
          },
        ],
        current_version: 'v1',
        host: new URL(ORIGIN).hostname,
      },
    });
  });

  it("the profile: the account's address and its scopes, sorted", () => {
    const shuffled: Caller = { ...partner, scopes: new Set(['viewer', 'access', 'book_metadata']) };
    expect(call('profile', { caller: shuffled }).body).toEqual({
      profile: {
        address_1: '12 Quay Street',
        address_2: 'Suite 4',
        city: 'Portland',
        country: 'US',
        nickname: 'harborlane',
        state: 'ME',
        zip: '04101',
      },
      scopes: ['access', 'book_metadata', 'viewer'],
    });
  });

  it("describe: each endpoint's methods and aliases as the table has them", () => {
    const d = call('describe').body.endpoints as Array<{ name: string; methods: string[]; aliases: string[] }>;
    expect(d.map((e) => [e.name, e.methods, e.aliases])).toEqual(
      endpoints().map((e) => [e.name, [...e.methods], [...(e.aliases ?? [])]]),
    );
    expect(d.some((e) => e.aliases.length > 0)).toBe(true);
    expect(d.some((e) => e.aliases.length === 0)).toBe(true);
  });

  it('the import search: where each title stands', () => {
    const r = call('import.search', { payload: { limit: 100 } }).body;
    const byTitle = new Map(r.results.map((i: { title: string; status: unknown }) => [i.title, i.status]));
    for (const im of SEED_IMPORTS)
      expect(byTitle.get(im.title), im.title).toEqual({
        deleted: im.deleted,
        file_received: im.file_received,
        imported: im.imported,
      });
  });
});
