// Dotted paths through records and lists (src/output/format.ts) at their edges: what `--fields`
// picks and keeps, a list's cell in TSV/CSV and its reading back, the columns a field expands to,
// the fields that match nothing and the did-you-mean for a mistyped one.
import { describe, expect, it } from 'vitest';
import {
  fieldColumns,
  fieldPaths,
  flatCell,
  flatten,
  getPath,
  nearestFields,
  parseObjectCell,
  selectFields,
  unmatchedFields,
} from '../../src/output/format.js';

describe('a numeric part indexes a list; any other part reads each element', () => {
  const items = Array.from({ length: 12 }, (_, i) => ({ id: i }));
  it('digits only, however many', () => {
    expect(getPath({ items }, 'items.11.id')).toBe(11);
    expect(getPath({ items: [{ a1: 'x', '1a': 'y' }] }, 'items.a1')).toEqual(['x']);
    expect(getPath({ items: [{ a1: 'x', '1a': 'y' }] }, 'items.1a')).toEqual(['y']);
  });

  it('elements without the field keep their place; none with it is no match', () => {
    expect(getPath({ items: [{ id: 1 }, {}] }, 'items.id')).toEqual([1, undefined]);
    expect(getPath({ items: [{}, {}] }, 'items.id')).toBeUndefined();
  });
});

describe('--fields keeps the nesting of what it picks', () => {
  it('through a list: an element without the field is an empty record; none with it, nothing', () => {
    expect(selectFields({ items: [{ id: 1, x: 2 }, { x: 3 }] }, ['items.id'])).toEqual({ items: [{ id: 1 }, {}] });
    expect(selectFields({ items: [{ x: 1 }] }, ['items.id'])).toEqual({});
    expect(Object.keys(selectFields({ a: { b: 1 } }, ['a.c']) as object)).toEqual([]);
  });

  it('two paths into the same list merge element by element; a value picked twice stays itself', () => {
    const rec = {
      items: [
        { id: 1, name: 'a', x: 0 },
        { id: 2, name: 'b' },
      ],
    };
    expect(selectFields(rec, ['items.id', 'items.name'])).toEqual({
      items: [
        { id: 1, name: 'a' },
        { id: 2, name: 'b' },
      ],
    });
    expect(selectFields({ n: 5 }, ['n', 'n'])).toEqual({ n: 5 });
    expect(selectFields({ items: [{ id: 1 }, 7] }, ['items.id', 'items'])).toEqual({ items: [{ id: 1 }, 7] });
  });
});

describe('a value as a flat cell (README, "Lists in TSV and CSV")', () => {
  it('a list of values joins with `;` as they are; a list with an object among them is a list of objects', () => {
    expect(flatCell(['a;b', 'c', null])).toBe('a;b;c;');
    expect(flatCell([{ a: 1 }, 'x;y'])).toBe('a=1;x\\;y');
    expect(flatCell([[1, 2], { a: 1 }])).toBe('[1\\,2];a=1');
    expect(flatCell({ a: { b: 1 }, c: 2 })).toBe('a.b=1,c=2');
    expect(flatCell(7)).toBe(7);
  });

  it('flatten: a record to dotted keys; a bare value has no key', () => {
    expect(flatten(5)).toEqual({});
    expect(flatten({ a: { b: null, c: {} }, d: [1, 2] })).toEqual({ 'a.b': null, 'a.c': '', d: '1;2' });
  });

  it('reads back: a key without `=` is empty, a trailing backslash is itself, an empty cell is no records', () => {
    expect(parseObjectCell('a=1,flag;b=\\,x')).toEqual([{ a: '1', flag: '' }, { b: ',x' }]);
    expect(parseObjectCell('a=x\\')).toEqual([{ a: 'x\\' }]);
    expect(parseObjectCell('')).toEqual([]);
    expect(parseObjectCell(';')).toEqual([{}, {}]);
  });
});

describe('the columns and fields of --fields', () => {
  it("a field expands by the first record that has it as an object (not null): each of the records' leaves", () => {
    expect(fieldColumns([{ status: null }, { status: { a: 1 } }, { status: { b: 2 } }], ['status'])).toEqual([
      'status.a',
      'status.b',
    ]);
  });

  it('records without the field are passed over for the sample', () => {
    expect(fieldColumns([{}, { status: { a: 1 } }], ['status'])).toEqual(['status.a']);
  });

  it('a field matched by any record is matched', () => {
    expect(unmatchedFields([{ a: 1 }, {}], ['a', 'b'])).toEqual(['b']);
  });

  it('the paths a record has: a list of lists is one path; a bare value or list has none', () => {
    expect(fieldPaths([{ x: [[{ a: 1 }]], y: [{ b: 1 }] }])).toEqual(['x', 'y', 'y.b']);
    expect(fieldPaths([5, [{ a: 1 }]])).toEqual(['a']);
  });
});

describe('did you mean: the nearest field paths', () => {
  it('a swap of two neighbours counts one', () => {
    expect(nearestFields('tilte', ['title'])).toEqual(['title']);
    expect(nearestFields('tilte', ['title', 'tilt'])).toEqual(['tilt', 'title']);
    expect(nearestFields('ba', ['ab'])).toEqual(['ab']);
    expect(nearestFields('abcd', ['badc'])).toEqual([]);
    // Only both halves of a swap make one.
    expect(nearestFields('ab', ['ca'])).toEqual([]);
    expect(nearestFields('ab', ['bc'])).toEqual([]);
  });

  it('a path that ends with the dotted one given; at most three, best first', () => {
    expect(nearestFields('status.active', ['book.status.active'])).toEqual(['book.status.active']);
    expect(nearestFields('name', ['nam', 'names', 'nme', 'naem', 'named'])).toEqual(['nam', 'nme', 'naem']);
  });
});
