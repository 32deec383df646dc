// Counts are grouped by thousands without ICU (output/text.ts `grouped`): the text is
// toLocaleString('en-US')'s, and a catalogue load's summary line, whose first ICU number format
// built ICU's whole locale set (about 113 million instructions a load), asks ICU for none.
import { afterEach, expect, it, vi } from 'vitest';
import { summaryLine } from '../../src/commands/sandbox/catalogue.js';
import { grouped, plural } from '../../src/output/text.js';

afterEach(() => {
  vi.restoreAllMocks();
});

it("groups every integer as toLocaleString('en-US') does, and leaves the rest to it", () => {
  const values = [0, 1, 9, 10, 99, 100, 999, 1000, 1001, 9999, 10_000, 99_999, 100_000, 123_456, 999_999, 1_000_000];
  values.push(1_234_567, 12_345_678, 123_456_789, 2 ** 31, 2 ** 32 + 7, Number.MAX_SAFE_INTEGER);
  // Every length up to 16 digits, by a fixed sequence (no Math.random: the same values each run).
  for (let i = 0, x = 7; i < 200; i++, x = (x * 48_271) % 2_147_483_647)
    values.push(Math.floor((x / 2_147_483_647) * 10 ** (1 + (i % 16))));
  for (const v of [...values]) values.push(-v);
  values.push(-0, 0.5, 1234.5678, -1234.5, 1e21, 2 ** 53, NaN, Infinity, -Infinity);
  for (const v of values) expect([v, grouped(v)]).toEqual([v, v.toLocaleString('en-US')]);
  expect(grouped(1234567)).toBe('1,234,567');
  expect(plural(1000, 'record')).toBe('1,000 records');
  expect(plural(1, 'record')).toBe('1 record');
});

it("a catalogue load's summary line formats its counts without ICU", () => {
  const icu = vi.spyOn(Number.prototype, 'toLocaleString');
  const line = summaryLine('feed.xml', {
    format: 'onix',
    records: 100_000,
    added: 90_000,
    updated: 1234,
    withdrawn: 0,
    refused: 5,
    skipped: 10_000,
    skipped_by_reason: { 'print edition': 10_000 },
    not_represented: { 'collection (series) titles': 2500 },
    publishers_created: [],
  });
  expect(line).toBe(
    'feed.xml (ONIX, 100,000 records): 90,000 added, 1,234 updated, 0 withdrawn, 5 refused, 10,000 skipped (10,000 print edition). Not represented in the sandbox: collection (series) titles: 2,500.',
  );
  expect(icu).not.toHaveBeenCalled();
});
