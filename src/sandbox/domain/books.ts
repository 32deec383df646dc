// Books: looked up, searched, listed per account, queued for processing, opened in the reader.
import type { Store } from '../db/store.js';
import { notFound } from '../errors.js';
import {
  bookRowById,
  bookRowBySkuNoCase,
  countOwnBooks,
  countOwnBooksUpTo,
  ownBooksAfter,
  ownBooksAt,
  type BookRow,
} from '../repo/books.js';
import { insertReaderSession } from '../repo/carts.js';
import { itemsOfUserBook } from '../repo/orders.js';
import { enqueue, makeUrgent } from '../repo/queue.js';
import { searchBooks } from '../repo/search.js';
import { DAY, randomHex } from '../util.js';
import { paging } from '../validate.js';
import { bookView, bookViews, itemLive } from '../views.js';
import { ok, sharedAnswer, type HandlerCtx, type HandlerResult } from './context.js';
import { bookByHash, bookByIsbn, requireControl, userByUsername } from './lookups.js';
import type { Promised } from '../../spec/contract.js';

export function bookGet(c: HandlerCtx): Promised<'book.get'> {
  return { book: bookView(c.store, bookByHash(c.store, c.params.hash_id), c.now) };
}

/** What a book's answer is made from: its row, prices, publisher and hold (views.ts). */
const BOOK_ANSWER_TABLES = ['books', 'pricing', 'publishers', 'book_controls'];

/**
 * A lookup by ISBN answers every caller alike, the same until a book, a price, a publisher or a
 * hold changes, or the sandbox's day turns (a limited price's expiration date is a day count
 * from today): made once per such state (Store.memo) and sent as the same text (sharedAnswer).
 */
export function bookIsbn(c: HandlerCtx): Promised<'book.isbn'> {
  // Stryker disable next-line StringLiteral: the route always gives its parameters
  const isbn = c.params.isbn ?? '';
  const body = c.store.memo(`book.isbn:${Math.floor(c.now / DAY)}:${isbn}`, BOOK_ANSWER_TABLES, () => {
    const b = bookByIsbn(c.store, isbn);
    return b ? sharedAnswer({ book: bookView(c.store, b, c.now) }) : undefined;
  });
  if (!body) throw notFound('Book not found');
  return body;
}

export function bookSku(c: HandlerCtx): Promised<'book.sku'> {
  // Stryker disable next-line StringLiteral: the route always gives its parameters
  const b = bookRowBySkuNoCase(c.store, c.params.sku ?? '');
  if (!b) throw notFound('Book not found');
  return { book: bookView(c.store, b, c.now) };
}

export function bookPricing(c: HandlerCtx): Promised<'book.pricing'> {
  // Stryker disable next-line StringLiteral: the route always gives its parameters
  const b = bookByIsbn(c.store, c.params.isbn ?? '');
  if (!b) throw notFound('Book not found');
  const v = bookView(c.store, b, c.now);
  return { hash_id: b.hash_id, isbn: b.isbn13, title: b.title, digital_pricing: v.digital_pricing };
}

type SearchAnswer = Promised<'book.search'>;

/** The search answers of one state of the books (see bookSearch). */
interface SearchAnswers {
  day: number;
  answers: Map<string, SearchAnswer>;
  /** The books in `answers`, all pages together. */
  books: number;
}

/** Books that the kept search answers hold at most (pages of up to 500): a few MB of text. */
const MAX_SEARCH_BOOKS = 2000;

/**
 * A search answers every caller alike, the same until a book, a price, a publisher or a hold
 * changes, or the sandbox's day turns (as the lookup by ISBN, bookIsbn): each page is made once
 * per such state, keyed by what the search asks (its filters as given, limit and offset), and
 * sent as the same text. The oldest are dropped past MAX_SEARCH_BOOKS books.
 */
export function bookSearch(c: HandlerCtx): Promised<'book.search'> {
  const { store, payload: p, now } = c;
  const { limit, offset } = paging(p);
  const day = Math.floor(now / DAY);
  const kept = store.memo(
    // Stryker disable next-line StringLiteral: no other memo is keyed '' either
    'book.search',
    BOOK_ANSWER_TABLES,
    // Stryker disable next-line ObjectLiteral: a kept object without its day is filled on the next line
    (): SearchAnswers => ({ day, answers: new Map(), books: 0 }),
  );
  if (kept.day !== day) Object.assign(kept, { day, answers: new Map(), books: 0 });
  const key = JSON.stringify([p.title, p.author, p.isbn, p.hash_ids, limit, offset]);
  let answer = kept.answers.get(key);
  if (answer === undefined) {
    const { rows, count } = searchBooks(store, p, limit, offset);
    answer = sharedAnswer({ count, results: bookViews(store, rows, now) });
    keepAnswer(kept, key, answer);
  }
  return answer;
}

/** Keep `answer` (a page: at most 500 books, validate.ts's paging), dropping the oldest past MAX_SEARCH_BOOKS. */
function keepAnswer(kept: SearchAnswers, key: string, answer: SearchAnswer): void {
  kept.books += answer.results.length;
  for (const [k, old] of kept.answers) {
    if (kept.books <= MAX_SEARCH_BOOKS) break;
    kept.answers.delete(k);
    kept.books -= old.results.length;
  }
  kept.answers.set(key, answer);
}

// Where the pages served so far ended: per store, `account:offset` -> the id of the last book
// before that offset. Reading a whole list page by page (`book list --all`) then costs one
// range read per page instead of skipping `offset` rows each time.
const pageEnds = new WeakMap<Store, Map<string, number>>();
const MAX_PAGE_ENDS = 1000;

export function bookIndex(c: HandlerCtx): Promised<'book.index'> {
  const { store, now } = c;
  const { limit, offset } = paging(c.payload);
  const acct: number = c.caller!.account.id;
  const count = countOwnBooks(store, acct);
  // Remembered page ends change only how a page is read, never which books it holds: an end is
  // used only when exactly `offset` of the account's books come before it (below), so the
  // mutants of their bookkeeping that keep none, the wrong one or one too few are equivalent.
  let ends = pageEnds.get(store);
  // Stryker disable next-line ConditionalExpression: see above (a new map each time remembers nothing)
  if (!ends) pageEnds.set(store, (ends = new Map()));
  // A remembered end is used only when exactly `offset` of the account's books still come
  // before it (counted on the index), so the page is the same as OFFSET would give.
  // Stryker disable next-line ConditionalExpression,EqualityOperator,StringLiteral: see above (no end is kept for offset 0)
  const after = offset > 0 ? ends.get(`${acct}:${offset}`) : undefined;
  let rows: BookRow[];
  // Stryker disable next-line ConditionalExpression: see above (false: every page read with OFFSET)
  if (after !== undefined && countOwnBooksUpTo(store, acct, after) === offset) {
    rows = ownBooksAfter(store, acct, after, limit);
  } else {
    rows = ownBooksAt(store, acct, limit, offset);
  }
  // Stryker disable next-line ConditionalExpression,BlockStatement: see above (no end remembered)
  if (rows.length) {
    // Stryker disable next-line ConditionalExpression,EqualityOperator: see above (fewer or more ends kept)
    if (ends.size >= MAX_PAGE_ENDS) ends.delete(ends.keys().next().value!);
    // Stryker disable next-line StringLiteral,ArithmeticOperator: see above (an end kept under a key no page asks, or checked and refused)
    ends.set(`${acct}:${offset + rows.length}`, rows[rows.length - 1].id);
  }
  return { count, limit, offset, results: bookViews(store, rows, now) };
}

export function bookProcess(c: HandlerCtx): HandlerResult<Promised<'book.process'>> {
  const { store, payload: p, now } = c;
  const book = bookByHash(store, c.params.hash_id);
  requireControl(store, c.caller!, book);
  const force = p.force === true;
  const urgent = p.urgent === true;
  return store.tx(() => {
    const b = bookRowById(store, book.id)!;
    const seq = Number(store.meta('queue_seq') ?? 1);
    store.setMeta('queue_seq', String(seq + 1));
    const position = urgent ? -seq : seq;
    if (b.is_queued && !force) {
      if (urgent) makeUrgent(store, b.id, position);
      return ok({ message: 'Book already queued.' });
    }
    if (b.is_processed && !b.is_queued && !force) return ok({ message: 'Book already processed.' });
    enqueue(store, b.id, now, urgent, position);
    c.queued();
    return ok({ message: 'Book queued for processing.' });
  });
}

/** Does the user hold a live purchase or grant of the book now? */
export function itemLiveFor(store: Store, userId: number, bookId: number, now: number): boolean {
  return itemsOfUserBook(store, userId, bookId).some((i) => itemLive(i, now));
}

export function bookViewer(c: HandlerCtx): HandlerResult<Promised<'book.viewer'>> {
  const { store, payload: p, now } = c;
  const user = userByUsername(store, p.username);
  const book = bookByHash(store, p.hash_id);
  requireControl(store, c.caller!, book);
  if (!itemLiveFor(store, user.id, book.id, now)) throw notFound('Purchase for user not found.');
  const token = randomHex(32);
  store.tx(() => insertReaderSession(store, token, user.id, book.id, now));
  return ok({ viewer_url: `${c.origin}/reader/${token}/` });
}
