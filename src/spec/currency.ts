// Amounts keep their currency's minor unit (decisions.md, Orders): 14.99 USD, 1200 JPY. Read from
// ICU (Intl) for any ISO 4217 code, at most two places (amounts are counted in hundredths).
// The common ones are known without asking ICU: its first currency format in a process builds its
// whole locale set (about 110 million instructions, as much as parsing 300 ONIX products), which
// a catalogue load and every amount printed paid once. test/spec/currency.test.ts checks them
// against ICU.
export const KNOWN_DIGITS: ReadonlyArray<[string, number]> = [
  ['USD', 2],
  ['EUR', 2],
  ['GBP', 2],
  ['CAD', 2],
  ['AUD', 2],
  ['JPY', 0],
];
const digits = new Map<string, number>(KNOWN_DIGITS);

/** Decimal places of an amount in `currency`: 2 for USD and EUR, 0 for JPY and KRW; 2 when unknown. */
function minorDigits(currency: string | undefined): number {
  const cur = (currency ?? '').toUpperCase();
  let d = digits.get(cur);
  if (d === undefined) {
    try {
      d = Math.min(
        2,
        new Intl.NumberFormat('en', { style: 'currency', currency: cur }).resolvedOptions().maximumFractionDigits ?? 2,
      );
    } catch {
      d = 2;
    }
    digits.set(cur, d);
  }
  return d;
}

/** An amount as the wire and people show it in its currency: `14.99`, `1200` (JPY). */
export function formatAmount(value: number, currency: string | undefined): string {
  return value.toFixed(minorDigits(currency));
}
