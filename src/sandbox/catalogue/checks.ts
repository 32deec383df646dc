// The checks of one catalogue record's values that need nothing of the database: its ISBNs and
// their check digits, its prices and their terms; and the texts a loaded price gets. The loader
// (load.ts) makes its decisions from them.
import { hash } from 'node:crypto';
import { formatAmount } from '../../spec/currency.js';
import { isbn13Check, isValidIsbn, normalizeIsbn, toIsbn13 } from '../isbn.js';
import type * as books from '../repo/books.js';
import type { CatalogueRecord } from './record.js';

const PRICE = /^\d{1,9}(\.\d{1,4})?$/;
export const MAX_PAGES = 100_000;
export const DEFAULT_PAGES = 100;

/** The hash id of a loaded book: from its ISBN, so the same title gets the same one after a reset. */
export function loadedHashId(eisbn13: string): string {
  return hash('sha1', `bookdist-sandbox-loaded-${eisbn13}`, 'hex');
}

/** An ISBN as given, as a valid ISBN-13, or why not. */
export function isbn13Of(raw: string, what: string): { isbn: string } | { problem: string } {
  if (isGoodIsbn13(raw)) return { isbn: String(Number(raw)) };
  const v = normalizeIsbn(raw);
  if (/^\d{13}$/.test(v)) {
    if (!/^97[89]/.test(v)) return { problem: `${what} ${v} is not an ISBN (a GTIN-13 of a book starts 978 or 979)` };
    // Stryker disable next-line MethodExpression: equivalent, isbn13Check reads only the first twelve digits
    const want = isbn13Check(v.slice(0, 12));
    if (want !== v[12])
      return { problem: `${what} ${v} has a bad check digit (${v[12]}; the digits before it give ${want})` };
    // A copy of its own: the parser's text may be a slice of the whole chunk it came in, which
    // the map of ISBNs seen would keep alive (a 100,000-product file then held every chunk).
    return { isbn: String(Number(v)) };
  }
  if (/^\d{9}[\dX]$/.test(v)) {
    if (!isValidIsbn(v)) return { problem: `${what} ${v} (ISBN-10) has a bad check digit` };
    return { isbn: toIsbn13(v) };
  }
  return { problem: `${what} "${raw.slice(0, 40)}" is not an ISBN-13` };
}

/**
 * Is `raw` an ISBN-13 as feeds mostly give one (13 digits, 978 or 979, its check digit right)?
 * Read from its character codes: the patterns, the copy without hyphens and the check digit's
 * strings cost more than the rest of a record's checks. Anything else goes through isbn13Of's
 * patterns, which word the problem.
 */
// Stryker disable next-line BlockStatement: equivalent, a fast check that says no sends the ISBN down the general path, which gives the same answer (test/mutation/accepted.md)
function isGoodIsbn13(raw: string): boolean {
  if (raw.length !== 13 || raw.charCodeAt(0) !== 57 || raw.charCodeAt(1) !== 55) return false;
  const third = raw.charCodeAt(2);
  // Stryker disable next-line LogicalOperator: equivalent, `||` says no to every third digit: a fast check that says no sends the ISBN down the general path, which gives the same answer
  if (third !== 56 && third !== 57) return false;
  let sum = 0;
  for (let i = 0; i < 13; i++) {
    // Stryker disable next-line ArithmeticOperator: equivalent, `+ 48` makes every character no digit: a fast check that says no sends the ISBN down the general path, which gives the same answer
    const d = raw.charCodeAt(i) - 48;
    // Stryker disable next-line EqualityOperator: equivalent, each change says no to a digit (0, 9 or all): a fast check that says no sends the ISBN down the general path, which gives the same answer
    if (d < 0 || d > 9) return false;
    if (i < 12) sum += i % 2 === 0 ? d : 3 * d;
  }
  return (10 - (sum % 10)) % 10 === raw.charCodeAt(12) - 48;
}

export function isbn10Of(isbn13: string): string {
  if (!isbn13.startsWith('978')) return '';
  const nine = isbn13.slice(3, 12);
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += Number(nine[i]) * (10 - i);
  const c = (11 - (sum % 11)) % 11;
  return nine + (c === 10 ? 'X' : String(c));
}

export function priceTexts(
  days: number,
): Pick<books.NewPriceRow, 'description' | 'description_limit' | 'is_limited' | 'limit_days' | 'other_pricing'> {
  const limited = days > 0;
  return {
    description: limited ? `${days}-day rental` : 'Digital edition (lifetime access)',
    description_limit: limited ? `Access for ${days} days` : 'Unlimited access',
    is_limited: limited ? 1 : 0,
    limit_days: days,
    other_pricing: limited ? (days <= 30 ? 'EXPIRATION' : 'LIMITED') : null,
  };
}

/** A record's values, checked and ready to write. */
export interface Checked {
  isbn: string;
  title?: string;
  pages?: number;
  /** The print edition's ISBN-13 (RelatedProduct, print_isbn13). */
  print?: string;
  sku?: string;
  prices: Array<{ currency: string; price: string; days: number }>;
  publisherId: number;
}

/** An amount as formatAmount writes one of two decimal places (no leading zero, at most 9 digits before the point). */
const TWO_PLACES = /^(0|[1-9]\d{0,8})\.\d\d$/;
/** Currencies whose amounts have two decimal places (formatAmount's answer, asked once per currency). */
const twoPlaces = new Map<string, boolean>();
// Stryker disable next-line BlockStatement: equivalent, no answer keeps the amount from the fast path, and formatAmount gives what it would have kept
const hasTwoPlaces = (currency: string): boolean => {
  let yes = twoPlaces.get(currency);
  // Stryker disable next-line ConditionalExpression,EqualityOperator,BlockStatement: equivalent, a memo: asked again, formatAmount answers the same; never asked (or not kept), the amount goes through formatAmount
  if (yes === undefined) {
    // Stryker disable next-line StringLiteral: equivalent, no amount is formatted as '': the amount goes through formatAmount
    yes = formatAmount(0, currency) === '0.00';
    twoPlaces.set(currency, yes);
  }
  return yes;
};

/** A record's prices checked: one per currency and term (a later duplicate is noted and dropped); or why not. */
export function checkedPrices(rec: CatalogueRecord): Checked['prices'] | string {
  const prices: Checked['prices'] = [];
  for (const p of rec.prices) {
    // Stryker disable next-line MethodExpression: equivalent, both readers trim every value (csv.ts each cell, onix.ts each element's text)
    const amount = p.amount.trim();
    if (!PRICE.test(amount)) return `price "${amount.slice(0, 20)}" is not a number (like 14.99)`;
    // Stryker disable next-line MethodExpression: equivalent, both readers trim every value (csv.ts each cell, onix.ts each element's text) (the line's toUpperCase mutant, disabled with it, is killed by catalogue.test.ts, currency usd)
    const currency = (p.currency ?? '').trim().toUpperCase();
    if (!/^[A-Z]{3}$/.test(currency))
      return currency
        ? `currency "${currency.slice(0, 10)}" is not an ISO 4217 code`
        : `price ${amount} has no currency (and the file gives no default)`;
    const days = p.rentalDays ?? 0;
    // Stryker disable next-line ConditionalExpression,LogicalOperator: accepted, defensive: both readers give whole days of at least 1 (csv.ts) or a rounded positive quantity (onix-product.ts), so only days > 36500 is reachable (killed by catalogue.test.ts, 36501 and 36500 days)
    if (!Number.isInteger(days) || days < 0 || days > 36500)
      return `rental of "${p.rentalDays}" days is not a whole number of days up to 36500`;
    // In the currency's minor unit: 1200 JPY, 14.99 USD (an amount already written so, as it is).
    const price = hasTwoPlaces(currency) && TWO_PLACES.test(amount) ? amount : formatAmount(Number(amount), currency);
    if (prices.some((q) => q.currency === currency && q.days === days)) {
      rec.unrepresented.push('more than one price of a currency and term (the first is kept)');
      continue;
    }
    prices.push({ currency, price, days });
  }
  return prices;
}
