// Piped and file formats (issue 17 item 5, issue 22 item 5): one documented, reversible form for
// lists of objects in TSV/CSV cells; TSV and CSV escaping; --fields names that are JavaScript's
// object machinery are ordinary (absent) names; a mistyped field gets a did-you-mean.
import { describe, expect, it } from 'vitest';
import {
  cellOf,
  cellText,
  csvCell,
  fieldsProblem,
  flatCell,
  getPath,
  nearestFields,
  parseObjectCell,
  selectFields,
  tsvCell,
  unmatchedFields,
} from '../../src/output/format.js';

describe('lists in a cell', () => {
  it('values join with ;', () => {
    expect(flatCell([101, 102])).toBe('101;102');
  });
  it('objects are key=value pairs joined with , and entries with ; (nested keys dotted)', () => {
    const pricing = [
      { id: 1, price: '14.99', is_limited: false, other_pricing: null },
      { id: 2, price: '6.99', is_limited: true, other_pricing: 'LIMITED' },
    ];
    expect(flatCell(pricing)).toBe(
      'id=1,price=14.99,is_limited=false,other_pricing=;id=2,price=6.99,is_limited=true,other_pricing=LIMITED',
    );
    expect(flatCell([{ id: 7, book: { title: 'Salt', hash_id: 'ab' } }])).toBe('id=7,book.title=Salt,book.hash_id=ab');
    expect(cellOf({ items: [{ id: 7 }, { id: 8 }] }, 'items')).toBe('id=7;id=8');
  });
  it('reads back exactly, separators and backslashes in values included', () => {
    const items = [
      { id: '1', title: 'A; B, C = D \\ E', codes: '["x","y"]' },
      { id: '2', title: '', note: 'tab\there' },
    ];
    const cell = flatCell(items) as string;
    expect(parseObjectCell(cell)).toEqual(items);
    // Through TSV and CSV too.
    expect(tsvCell(cell)).not.toMatch(/\t/);
    expect(parseObjectCell(cell)).toEqual(items);
  });
  it('is not JSON', () => {
    expect(String(flatCell([{ a: 1 }]))).not.toMatch(/^\[|\{/);
  });
});

describe('the text of one value in a cell', () => {
  it('a scalar as itself, an object or list as its JSON, nothing for what has no value', () => {
    expect(cellText('9780306406157')).toBe('9780306406157');
    expect(cellText('')).toBe('');
    expect([cellText(14.5), cellText(0), cellText(Number.NaN), cellText(Number.POSITIVE_INFINITY)]).toEqual([
      '14.5',
      '0',
      'NaN',
      'Infinity',
    ]);
    expect([cellText(true), cellText(false), cellText(12345678901234567890n)]).toEqual([
      'true',
      'false',
      '12345678901234567890',
    ]);
    expect([cellText(null), cellText(undefined), cellText(() => 1), cellText(Symbol('s'))]).toEqual(['', '', '', '']);
    expect(cellText({ id: 7, tags: ['a'] })).toBe('{"id":7,"tags":["a"]}');
    expect(cellText([1, 'a', null])).toBe('[1,"a",null]');
  });
});

describe('escaping', () => {
  it('TSV escapes backslash, tab, newline and carriage return', () => {
    expect(tsvCell('a\\b\tc\nd\re')).toBe('a\\\\b\\tc\\nd\\re');
  });
  it('CSV quotes as RFC 4180 says', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell('cr\r')).toBe('"cr\r"');
  });
});

describe('dotted paths through lists', () => {
  const order = {
    items: [
      { id: 7, book: { title: 'Salt' } },
      { id: 8, book: { title: 'Sea' } },
    ],
  };
  it('a numeric part picks one element; any other part applies to each', () => {
    expect(getPath(order, 'items.1.id')).toBe(8);
    expect(getPath(order, 'items.0.book.title')).toBe('Salt');
    expect(getPath(order, 'items.id')).toEqual([7, 8]);
    expect(getPath(order, 'items.2.id')).toBeUndefined();
    expect(selectFields(order, ['items.1.book.title'])).toEqual({ items: { book: { title: 'Sea' } } });
  });
});

describe('--fields and the names of JavaScript objects', () => {
  const book = { hash_id: 'h', title: 'T', identifiers: { isbn13: '978' } };
  it.each([
    'constructor',
    '__proto__',
    'prototype',
    'toString',
    'hasOwnProperty',
    'identifiers.constructor',
    'title.length',
  ])('%s is no field', (f) => {
    expect(getPath(book, f)).toBeUndefined();
    expect(unmatchedFields([book], [f])).toEqual([f]);
    expect(JSON.stringify(selectFields(book, [f]))).toBe('{}');
  });
  it('a record that has such a field of its own keeps it', () => {
    const odd = JSON.parse('{"constructor":"c","__proto__":{"x":1},"title":"T"}');
    expect(getPath(odd, 'constructor')).toBe('c');
    expect(getPath(odd, '__proto__.x')).toBe(1);
    expect(JSON.stringify(selectFields(odd, ['__proto__.x', 'constructor']))).toBe(
      '{"__proto__":{"x":1},"constructor":"c"}',
    );
  });
});

describe('did you mean', () => {
  const paths = [
    'hash_id',
    'title',
    'author',
    'identifiers.isbn13',
    'identifiers.isbn10',
    'publisher.title',
    'digital_pricing.price',
  ];
  it('suggests the nearest names', () => {
    expect(nearestFields('titel', paths)[0]).toBe('title');
    expect(nearestFields('isbn13', paths)[0]).toBe('identifiers.isbn13');
    expect(nearestFields('hashid', paths)).toContain('hash_id');
    expect(nearestFields('price', paths)).toContain('digital_pricing.price');
    expect(nearestFields('zzzzzz', paths)).toEqual([]);
    expect(nearestFields('x'.repeat(100_000), paths)).toEqual([]);
  });
  it('a path by its last part or its first parts, never by a piece of a name; ties go to the shorter', () => {
    expect(nearestFields('publisher', paths)).toEqual(['publisher.title']);
    expect(nearestFields('id', paths)).toEqual([]);
    expect(nearestFields('digital', paths)).toEqual([]);
    // One edit from the last part: 1 + 0.5, just within the reach of a five-letter name.
    expect(nearestFields('titel', paths)).toEqual(['title', 'publisher.title']);
    expect(nearestFields('title', ['long.title', 'a.title'])).toEqual(['a.title', 'long.title']);
    // One edit from the whole path ranks before one edit from the last part.
    expect(nearestFields('publisher_nam', ['a.publishr_nam', 'publisher_name'])).toEqual([
      'publisher_name',
      'a.publishr_nam',
    ]);
    // Longer names reach further: a third of their length.
    expect(nearestFields('idntifers.isbn13', paths)).toEqual(['identifiers.isbn13', 'identifiers.isbn10']);
    // Up to 64 characters are compared.
    const long = `${'a'.repeat(32)}.${'b'.repeat(31)}`;
    expect(nearestFields(long.replace('ab', 'ba'), [long])).toEqual([long]);
  });
  it('a --fields list is bounded', () => {
    expect(fieldsProblem(['a', 'b.c'])).toBeUndefined();
    expect(fieldsProblem(Array.from({ length: 201 }, (_, i) => `f${i}`))).toMatch(/at most 200/);
    expect(fieldsProblem([Array(17).fill('a').join('.')])).toMatch(/at most 16 parts/);
    expect(fieldsProblem(['x'.repeat(100_000) + '.' + Array(20).fill('a').join('.')])!.length).toBeLessThan(400);
    expect(fieldsProblem(Array.from({ length: 200 }, (_, i) => `f${i}`))).toBeUndefined();
    expect(fieldsProblem(Array.from({ length: 201 }, (_, i) => `f${i}`))).toBe('--fields: 201 paths; at most 200.');
    expect(fieldsProblem([Array(16).fill('a').join('.')])).toBeUndefined();
    expect(fieldsProblem(['a..b'])).toBe('--fields a..b: an empty part in a dotted path.');
    expect(fieldsProblem(['title', 'a.'])).toBe('--fields a.: an empty part in a dotted path.');
    // A path of up to 200 characters is shown whole, a longer one cut.
    const p200 = `${'x'.repeat(199)}.`;
    expect(fieldsProblem([p200])).toBe(`--fields ${p200}: an empty part in a dotted path.`);
    const p201 = `${'y'.repeat(200)}.`;
    expect(fieldsProblem([p201])).toBe(
      `--fields ${'y'.repeat(200)}… (201 characters): an empty part in a dotted path.`,
    );
  });
});
