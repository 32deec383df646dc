// The ledger's row times: isoTime is Date#toISOString made faster (the text of a second is made
// once), so it must give exactly the same text for every date, and throw as it does.
import { describe, expect, it } from 'vitest';
import { isoTime } from '../../src/ledger/rows.js';

describe('isoTime', () => {
  it('is toISOString for every millisecond, second after second, before 1970, at the years 0 and 9999 and beyond them', () => {
    const base = Date.UTC(2026, 10, 28, 1, 2, 3);
    const times = [
      0,
      -1,
      -999,
      -1000,
      -1001,
      -62167219200000,
      -62167219200001,
      253402300799999,
      253402300800000,
      8.64e15,
      -8.64e15,
      ...Array.from({ length: 2500 }, (_, i) => base + i),
      ...Array.from({ length: 500 }, (_, i) => base - 7 * i * 997),
    ];
    for (const ms of times) {
      const d = new Date(ms);
      // Twice: the second from the cache the first made.
      expect(isoTime(d), String(ms)).toBe(d.toISOString());
      expect(isoTime(d), String(ms)).toBe(d.toISOString());
    }
    expect(() => isoTime(new Date(NaN))).toThrow(RangeError);
  });
});
