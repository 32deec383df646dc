// What most handlers look up first: a book, a user, a label, whether the caller controls a book;
// and the mail they send.
import type { Caller } from '../auth.js';
import type { Store } from '../db/store.js';
import { bad, HttpError, notFound } from '../errors.js';
import { normalizeIsbn, toIsbn13 } from '../isbn.js';
import { accountControls, bookRowByAnyIsbn, bookRowByHash, type BookRow } from '../repo/books.js';
import { labelOfAccount, type LabelRow } from '../repo/labels.js';
import { insertMail } from '../repo/outbox.js';
import { userByUsername as userRow, type UserRow } from '../repo/users.js';

export function bookByHash(store: Store, hashId: string | undefined): BookRow {
  const b = hashId ? bookRowByHash(store, hashId.toLowerCase()) : undefined;
  if (!b) throw notFound('Book not found');
  return b;
}

/** The first book (lowest id) any of whose ISBNs is this one. */
export function bookByIsbn(store: Store, isbn: string): BookRow | undefined {
  const v = normalizeIsbn(isbn);
  // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator: a bound on what is looked up: no book has an empty ISBN or one of more than 13 characters, so either finds nothing (rules.test.ts asks '' and 21 digits)
  if (!v || v.length > 20) return undefined;
  return bookRowByAnyIsbn(store, v, toIsbn13(v));
}

export function userByUsername(store: Store, username: string | undefined): UserRow {
  const u = username ? userRow(store, username.toLowerCase()) : undefined;
  if (!u) throw notFound('User not found');
  return u;
}

export function requireControl(store: Store, caller: Caller, book: BookRow): void {
  if (!accountControls(store, caller.account.id, book.publisher_id))
    throw new HttpError(401, 'Not Authorized for Book');
}

/** The caller's white label named in a request (none when not named). */
export function labelOf(store: Store, caller: Caller, label: string | undefined): LabelRow | undefined {
  if (label === undefined || label === '') return undefined;
  const row = labelOfAccount(store, label.toLowerCase(), caller.account.id);
  if (!row) throw bad(`Label "${label}" is not a white label under your control.`);
  return row;
}

export function sendMail(store: Store, now: number, to: string[], subject: string, body: string, kind: string): void {
  insertMail(store, { recipients: to, subject, body, kind, created_at: now });
}

/** Who hears of an order: the label's member when made under a label, else the caller's account. */
export function labelRecipients(caller: Caller, label: LabelRow | undefined): string[] {
  return [label ? label.member_email : caller.account.email];
}
