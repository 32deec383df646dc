// Rows to the resource shapes of interface.md section 2.
import type { Store } from './db/store.js';
import { accountOwnerNames } from './repo/accounts.js';
import type { BookRow } from './repo/books.js';
import type { ItemJoinRow, ItemRow } from './repo/orders.js';
import { pricesOfBook, pricesOfBooks, type PricingRow } from './repo/pricing.js';
import { allPublishers, type PublisherFullRow } from './repo/publishers.js';
import type { UserRow } from './repo/users.js';
import { DAY, isoDate, isoTime } from './util.js';
import { holdReason } from './fixtures/book-controls.js';
import type { Resource } from '../spec/contract.js';

const b = (n: unknown) => n === 1 || n === true;

function sampleUrl(hashId: string): string {
  return `/v1/book/${hashId}/sample/`;
}

function pricingView(p: PricingRow, now: number): Resource<'PricingEntry'> {
  const out: Resource<'PricingEntry'> = {
    id: p.id,
    currency: p.currency,
    price: p.price,
    description: p.description,
    description_limit: p.description_limit,
    is_limited: b(p.is_limited),
    limit_days: p.limit_days,
    other_pricing: p.other_pricing ?? null,
    deactivation_date: isoTime(p.deactivated_at),
  };
  if (b(p.is_limited)) {
    out.calculated_expiration_date = isoDate(now + p.limit_days * DAY);
    out.days_until_expiration = String(p.limit_days);
  }
  return out;
}

/** The publishers by id (a handful of rows every book view needs), made once per database state. */
function publishers(store: Store): Map<number, PublisherFullRow> {
  return store.memo('publishers', ['publishers'], () => new Map(allPublishers(store).map((p) => [p.id, p])));
}

export function bookView(store: Store, book: BookRow, now: number): Resource<'Book'> {
  const pricing = pricesOfBook(store, book.id);
  return bookShape(store, book, publishers(store).get(book.publisher_id)!, pricing, now);
}

/**
 * Many books at once (a page of a listing or search): their prices in one statement and the
 * publishers once, instead of two statements per book.
 */
export function bookViews(store: Store, books: BookRow[], now: number): Array<Resource<'Book'>> {
  if (books.length === 0) return [];
  if (books.length === 1) return [bookView(store, books[0], now)];
  const pubs = publishers(store);
  const prices = new Map<number, PricingRow[]>(books.map((b) => [b.id, []]));
  const rows = pricesOfBooks(
    store,
    books.map((b) => b.id),
  );
  for (const p of rows) prices.get(p.book_id)!.push(p);
  return books.map((b) => bookShape(store, b, pubs.get(b.publisher_id)!, prices.get(b.id)!, now));
}

function bookShape(
  store: Store,
  book: BookRow,
  pub: PublisherFullRow,
  pricing: PricingRow[],
  now: number,
): Resource<'Book'> {
  return {
    id: book.id,
    hash_id: book.hash_id,
    title: book.title,
    subtitle: book.subtitle,
    description: book.description,
    author: book.author,
    language: book.language,
    num_pages: book.num_pages,
    publish_year: book.publish_year ?? null,
    sample_url: sampleUrl(book.hash_id),
    identifiers: {
      eisbn10: book.eisbn10,
      eisbn13: book.eisbn13,
      hash_id: book.hash_id,
      id: book.id,
      isbn10: book.isbn10,
      isbn13: book.isbn13,
      parent_isbn: book.parent_isbn,
      sku: book.sku,
    },
    drm: {
      copy_percent: book.copy_percent ?? null,
      offline_percent: book.offline_percent ?? null,
      sample_percent: book.sample_percent ?? null,
      offline_range: book.offline_range,
      print_allowance_range: book.print_allowance_range,
      print_allowance_percent: book.print_allowance_percent,
      sample_page_end: book.sample_page_end,
    },
    files: {
      cover_image: { filename: `${book.hash_id}.jpg`, url: `/media/covers/${book.hash_id}.jpg` },
      thumbnail: null,
    },
    digital_pricing: pricing.map((p) => pricingView(p, now)),
    publisher: { title: pub.title, description: pub.description, is_active: b(pub.is_active) },
    status: {
      is_active: b(book.is_active),
      is_html: b(book.is_html),
      is_processed: b(book.is_processed),
      is_public: b(book.is_public),
      is_published: b(book.is_published),
      is_queued: b(book.is_queued),
      processed_date: isoTime(book.processed_at),
      queued_date: isoTime(book.queued_at),
      // Sandbox only: a queued book the worker leaves alone, and why (the seed's "The Glass Meridian").
      is_held: held(book),
      held_reason: held(book) ? (holdReason(store, book.id) ?? HELD_REASON) : null,
    },
  };
}

const held = (book: BookRow) => b(book.is_queued) && b(book.queue_hold);

/** Why a held book stays queued, and what releases it. */
export const HELD_REASON = 'held by the sandbox seed; book process --force releases it';

export function fullName(u: Pick<UserRow, 'first_name' | 'last_name'>): string {
  return [u.first_name, u.last_name].filter(Boolean).join(' ');
}

export function userView(store: Store, u: UserRow): Resource<'User'> {
  const owner = u.owner_account_id ? accountOwnerNames(store, u.owner_account_id) : undefined;
  return {
    username: u.username,
    first_name: u.first_name,
    last_name: u.last_name,
    email: u.email,
    status: {
      is_active: b(u.is_active),
      verified: b(u.verified),
      over_18: b(u.over_18),
      last_login: isoTime(u.last_login ?? u.date_joined),
      date_joined: isoTime(u.date_joined),
    },
    profile: {
      address_1: u.address_1,
      address_2: u.address_2,
      city: u.city,
      zip: u.zip,
      country: u.country,
      state: u.state,
      nickname: u.nickname,
    },
    owner: { username: owner?.username ?? '', full_name: owner?.full_name ?? '' },
    permissions: { html_posting: b(u.html_posting), bdp_posting: b(u.bdp_posting), can_post: b(u.can_post) },
  };
}

/** Is the item's access live now (active, not refunded, not expired)? */
export function itemLive(item: Pick<ItemRow, 'is_active' | 'is_refunded' | 'expiration_date'>, now: number): boolean {
  return b(item.is_active) && !b(item.is_refunded) && (item.expiration_date == null || item.expiration_date > now);
}

export function itemView(item: ItemJoinRow, now: number): Resource<'OrderItem'>;
export function itemView(
  item: ItemJoinRow,
  now: number,
  refundAvailable: boolean,
): Resource<'OrderItem'> & { refund_available: boolean };
export function itemView(item: ItemJoinRow, now: number, refundAvailable?: boolean): Resource<'OrderItem'> {
  const out: Resource<'OrderItem'> = {
    id: item.id,
    order: { id: item.order_id },
    book: { hash_id: item.book_hash_id, title: item.book_title, sample_url: sampleUrl(item.book_hash_id) },
    user: { full_name: [item.user_first, item.user_last].filter(Boolean).join(' '), username: item.user_username },
    expiration_date: isoTime(item.expiration_date),
    is_active: itemLive(item, now),
    is_digital: b(item.is_digital),
    is_print: b(item.is_print),
    is_refunded: b(item.is_refunded),
    purchase_date: isoTime(item.purchase_date),
    purchase_price: item.purchase_price,
    quantity: item.quantity,
  };
  if (refundAvailable !== undefined) out.refund_available = refundAvailable;
  return out;
}
