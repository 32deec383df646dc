// The record checks' fast paths (src/sandbox/catalogue/checks.ts) give exactly what the general
// path gives: an ISBN-13 read from its character codes (isbn13Of) and an amount already written
// with two places (checkedPrices). The whole mutation run of 28 Nov (mutate-43) found 62 changes of
// those fast paths that no test saw: a fast path that says yes to what it should not (a 14th
// character, a 977 prefix, a character next to the digits, a wrong check digit) changes the book
// loaded. Each input here is judged against the general rules, written from isbn.ts's own helpers.
import { describe, expect, it } from 'vitest';
import { checkedPrices, isbn13Of } from '../../src/sandbox/catalogue/checks.js';
import { formatAmount } from '../../src/spec/currency.js';
import { isbn13Check, normalizeIsbn } from '../../src/sandbox/isbn.js';
import type { CatalogueRecord } from '../../src/sandbox/catalogue/record.js';

/** What an ISBN-13-like text should give: the number of a valid ISBN-13 (hyphens and spaces dropped), or nothing. */
function expected(raw: string): string | undefined {
  const v = normalizeIsbn(raw);
  if (!/^97[89]\d{10}$/.test(v)) return undefined;
  return isbn13Check(v.slice(0, 12)) === v[12] ? String(Number(v)) : undefined;
}

const BASE = '978316148410'; // + its check digit 0: 9783161484100
const ODD = ['/', ':', 'A', ' ', '-', '.', '\u0660'];

function candidates(): string[] {
  const out = new Set<string>();
  for (const prefix of ['978', '979', '977', '988', '878', '97', '9788']) {
    const body = (prefix + BASE.slice(3)).slice(0, 12);
    for (let d = 0; d <= 9; d++) out.add(body + d);
  }
  for (let i = 0; i < 13; i++)
    for (const c of [...ODD, ...'0123456789'])
      for (let d = 0; d <= 9; d++) {
        const s = (BASE + d).split('');
        if (i === 12) s[12] = c;
        else s[i] = c;
        const t = s.join('');
        out.add(i === 12 ? t : t.slice(0, 12) + d);
      }
  // As feeds also write them: hyphens and spaces, which only the general path reads (valid or not).
  for (let d = 0; d <= 9; d++)
    for (const form of [`978-3-16-148410-${d}`, `978 3 16 148410 ${d}`, ` 978316148410${d}`, `978316148410${d} `])
      out.add(form);
  for (let d = 0; d <= 9; d++) {
    out.add(`${BASE}${d}0`); // 14 characters
    out.add(`${BASE}${d}:`);
    out.add(`${BASE.slice(0, 11)}${d}`); // 12
  }
  return [...out];
}

describe("a record's ISBN-13, read fast from its character codes", () => {
  it('is taken exactly when the general rules take it, as the same number', () => {
    const wrong: string[] = [];
    let taken = 0;
    for (const raw of candidates()) {
      const got = isbn13Of(raw, 'ISBN');
      const want = expected(raw);
      const isbn = 'isbn' in got ? got.isbn : undefined;
      if (isbn !== want && !/^\d{9}[\dX]$/.test(normalizeIsbn(raw)))
        wrong.push(`${JSON.stringify(raw)}: ${isbn} (want ${want})`);
      if (isbn) taken++;
    }
    expect(wrong).toEqual([]);
    // The set holds valid ones too (each body with its one right check digit).
    expect(taken).toBeGreaterThan(50);
  });
});

const rec = (amount: string, currency: string): CatalogueRecord =>
  ({ prices: [{ amount, currency }], unrepresented: [] }) as unknown as CatalogueRecord;

describe("a record's price, kept as written when it is already in the currency's two places", () => {
  it('gives what formatAmount gives, for every form of amount and currency', () => {
    const amounts = [
      '0.00',
      '0.5',
      '1.50',
      '01.50',
      '14.99',
      '14.999',
      '14.9',
      '14',
      '123456789.00',
      '100000000.99',
      '1.5000',
      '0',
      '0.01',
    ];
    const wrong: string[] = [];
    for (const currency of ['USD', 'EUR', 'JPY', 'KWD', 'GBP'])
      for (const amount of amounts) {
        const got = checkedPrices(rec(amount, currency));
        const want = formatAmount(Number(amount), currency);
        const price = typeof got === 'string' ? got : got[0]?.price;
        if (price !== want) wrong.push(`${amount} ${currency}: ${price} (want ${want})`);
      }
    expect(wrong).toEqual([]);
  });
});
