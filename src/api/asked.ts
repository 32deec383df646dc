// An answer to a lookup by identifier must be about what was asked: `GET /v1/book/{hash_id}/`
// answered with another book, or `GET /v1/user/email/{email}/` with another user, is a wrong
// answer of the right shape (a caching proxy, a misrouted deployment), and taking it would show
// the wrong book, or make `ledger reconcile` confirm a user create by someone else's account.
// The identifier is read back from the request's own URL (the endpoint's path template), so the
// check needs nothing the client does not already hold.
import type { Endpoint } from '../spec/endpoints.js';
import { compactIsbn, isIsbn10Digits, isIsbn13Digits, placeholders } from '../util/scan.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (v && typeof v === 'object' ? (v as Obj) : undefined);
const lower = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : undefined);

/** An ISBN without its check digit, as ISBN-13 digits: an ISBN-10 and its 978 form compare equal. */
function isbnKey(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const s = compactIsbn(v);
  if (isIsbn10Digits(s)) return `978${s.slice(0, 9)}`;
  if (isIsbn13Digits(s)) return s.slice(0, 12);
  return s;
}

const ISBN_FIELDS = ['isbn13', 'isbn10', 'eisbn13', 'eisbn10', 'parent_isbn'];

/** For each lookup: what the answer names, in words, and whether it is what was asked. */
const LOOKUPS: Record<string, { what: string; is(asked: string, body: Obj): boolean }> = {
  'book.get': { what: 'book', is: (h, b) => lower(obj(b.book)?.hash_id) === h.toLowerCase() },
  'book.isbn': {
    what: 'book',
    is: (isbn, b) => {
      const ids = obj(obj(b.book)?.identifiers) ?? {};
      const key = isbnKey(isbn);
      return ISBN_FIELDS.some((f) => isbnKey(ids[f]) === key);
    },
  },
  'book.sku': { what: 'book', is: (sku, b) => lower(obj(obj(b.book)?.identifiers)?.sku) === sku.toLowerCase() },
  'user.get': { what: 'user', is: (u, b) => lower(obj(b.user)?.username) === u.toLowerCase() },
  'user.email': { what: 'user', is: (e, b) => lower(obj(b.user)?.email) === e.toLowerCase() },
};

/** The value of the path template's one `{name}` in `url`'s path (undefined when it does not match). */
function askedIn(template: string, url: string): string | undefined {
  // The text around the first placeholder (a lookup's template has one), as far as the next.
  const [first, second] = placeholders(template, true);
  if (!first) return undefined;
  const before = template.slice(0, first[0]);
  const after = template.slice(first[1], second?.[0]);
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return undefined;
  }
  // The base URL may have a path of its own before the template's.
  const at = path.lastIndexOf(before);
  if (at < 0 || !path.endsWith(after)) return undefined;
  const raw = path.slice(at + before.length, path.length - after.length);
  let asked: string | undefined;
  try {
    asked = decodeURIComponent(raw);
  } catch {
    // A malformed escape: nothing to compare with.
  }
  return asked;
}

/**
 * Why a lookup's answer (already of the promised shape) is not about what was asked: undefined
 * when it is, or when `ep` is no lookup by identifier.
 */
export function askedProblem(ep: Endpoint, url: string, body: unknown): string | undefined {
  const lookup = LOOKUPS[ep.name];
  if (!lookup) return undefined;
  const asked = askedIn(ep.path, url);
  const b = obj(body);
  if (asked === undefined || !b || lookup.is(asked, b)) return undefined;
  const key = /\{([a-z_]+)\}/.exec(ep.path)![1];
  return `it is about another ${lookup.what}, not the one whose ${key} is ${asked}`;
}
