// The minor units spec/currency.ts knows without asking ICU are ICU's own answers, and any other
// currency is still asked (JPY-like 0 places, 2 for an unknown code).
import { expect, it } from 'vitest';
import { formatAmount, KNOWN_DIGITS } from '../../src/spec/currency.js';

const icu = (currency: string) =>
  Math.min(
    2,
    new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2,
  );

it("the currencies known without ICU have ICU's minor unit, and the others are still ICU's", () => {
  expect(KNOWN_DIGITS.length).toBeGreaterThan(0);
  for (const [currency, digits] of KNOWN_DIGITS) expect([currency, digits]).toEqual([currency, icu(currency)]);
  expect(formatAmount(1200, 'usd')).toBe('1200.00');
  expect(formatAmount(1200, 'JPY')).toBe('1200');
  // Not in the table: ICU's answer (0 places for KRW and ISK), 2 for a code it does not know.
  expect(formatAmount(14.5, 'KRW')).toBe(icu('KRW') === 0 ? '15' : '14.50');
  expect(formatAmount(14.5, 'ISK')).toBe(icu('ISK') === 0 ? '15' : '14.50');
  expect(formatAmount(14.5, 'NZD')).toBe('14.50');
});
