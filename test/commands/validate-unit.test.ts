// Unit tests of the input validators (src/validate): normalised values and usage errors (exit 2).
import { describe, expect, it } from 'vitest';
import {
  address,
  dateTime,
  isbn,
  label,
  orderNumber,
  password,
  price,
  priceFromCents,
  sku,
} from '../../src/validate/index.js';
import { pages } from '../../src/commands/paging.js';

const usage = (fn: () => unknown, text: string) => {
  try {
    fn();
  } catch (e: any) {
    expect(e.exitCode).toBe(2);
    expect(e.message).toContain(text);
    return;
  }
  throw new Error('expected a usage error');
};

describe('validators', () => {
  it('normalise ISBNs and check their digits', () => {
    expect(isbn('978-1-61400-137-9')).toBe('9781614001379');
    expect(isbn('1 61400 137 5')).toBe('1614001375');
    expect(isbn('080442957x')).toBe('080442957X');
    expect(isbn('9781614001372', '--isbn', false)).toBe('9781614001372');
    usage(() => isbn('9781614001372'), '--no-check');
  });

  it('send dates as YYYY-MM-DD HH:MM:SS', () => {
    expect(dateTime('2030-01-02')).toBe('2030-01-02 00:00:00');
    expect(dateTime('2030-01-02 10:30')).toBe('2030-01-02 10:30:00');
    expect(dateTime('2030-01-02T10:30:15')).toBe('2030-01-02 10:30:15');
    expect(dateTime('2030-01-02T10:30:00+02:00')).toBe('2030-01-02 08:30:00');
    expect(dateTime('2030-01-02T10:30:00Z')).toBe('2030-01-02 10:30:00');
    usage(() => dateTime('2030-13-01'), '--expires 2030-13-01');
    usage(() => dateTime('02/01/2030', '--expires'), 'YYYY-MM-DD');
  });

  it('take prices with at most two places, or cents', () => {
    expect(price('12')).toBe('12.00');
    expect(price('12.5')).toBe('12.50');
    expect(price('0.99')).toBe('0.99');
    usage(() => price('12.345'), '--price 12.345');
    usage(() => price('-1'), '--price -1');
    usage(() => price('1,50'), '--price 1,50');
    expect(priceFromCents('1201')).toBe('12.01');
    expect(priceFromCents('5')).toBe('0.05');
    usage(() => priceFromCents('12.01'), '--price-cents');
  });

  it('check order numbers, labels, SKUs and passwords', () => {
    expect(orderNumber('A'.repeat(20))).toHaveLength(20);
    usage(() => orderNumber('A'.repeat(21)), 'at most 20 characters');
    expect(label('HarborLane')).toBe('harborlane');
    usage(() => label('-x'), '--label');
    expect(sku('HLP-0001')).toBe('HLP-0001');
    expect(password('pw\n')).toBe('pw');
    usage(() => password('a\nb'), 'single line');
  });

  it('build billing addresses: full name from first + last, required fields named', () => {
    expect(
      address({ first_name: 'Ada', last_name: 'Byron', postal_code: '1', country: 'US' }, 'billing', { billing: true }),
    ).toEqual({
      first_name: 'Ada',
      last_name: 'Byron',
      full_name: 'Ada Byron',
      postal_code: '1',
      country: 'US',
    });
    usage(
      () =>
        address({ full_name: 'A', country: 'US' }, 'billing', {
          billing: true,
          flags: { postal_code: '--billing-postal-code' },
        }),
      '--billing-postal-code',
    );
    usage(() => address([], 'billing'), 'JSON object');
    usage(() => address({ full_name: { x: 1 } }, 'billing'), 'must be text');
  });
});

describe('paging', () => {
  const fake = (total: number, cap = Infinity, withCount = true) => {
    const calls: Array<[number, number]> = [];
    const fetch = async (offset: number, limit: number) => {
      calls.push([offset, limit]);
      const n = Math.max(0, Math.min(limit, cap, total - offset));
      const results = Array.from({ length: n }, (_, i) => offset + i);
      return withCount ? { count: total, results } : { results };
    };
    return { calls, fetch };
  };
  const all = async (it: AsyncIterable<{ results: unknown[] }>) => {
    const out: unknown[] = [];
    for await (const p of it) out.push(...p.results);
    return out;
  };

  it('stops when the count is reached', async () => {
    const f = fake(10);
    expect(await all(pages(f.fetch, { pageSize: 4 }))).toEqual([...Array(10).keys()]);
    expect(f.calls).toEqual([
      [0, 4],
      [4, 4],
      [8, 4],
    ]);
  });

  it('keeps going when the service caps the page below the size asked for', async () => {
    const f = fake(10, 3);
    expect(await all(pages(f.fetch, { pageSize: 5 }))).toEqual([...Array(10).keys()]);
    expect(f.calls.map((c) => c[0])).toEqual([0, 3, 6, 9]);
  });

  it('without a count, stops at a short page; honours offset and max', async () => {
    const f = fake(7, Infinity, false);
    expect(await all(pages(f.fetch, { pageSize: 3, offset: 2 }))).toEqual([2, 3, 4, 5, 6]);
    expect(f.calls).toEqual([
      [2, 3],
      [5, 3],
    ]);
    const g = fake(100);
    expect(await all(pages(g.fetch, { pageSize: 10, max: 15 }))).toHaveLength(15);
    expect(g.calls).toEqual([
      [0, 10],
      [10, 5],
    ]);
  });
});
