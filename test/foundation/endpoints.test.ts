// The endpoint table's two ways in (src/spec/endpoints.ts): endpoint(name), which builds the one
// row a command calls, and endpoints(), the whole table for the sandbox, the OpenAPI document and
// the ledger. Both must give the same objects, in the table's order, whichever is asked first.
import { describe, expect, it, vi } from 'vitest';

/** A fresh copy of the module: nothing built yet. */
async function fresh() {
  vi.resetModules();
  return import('../../src/spec/endpoints.js');
}

describe('endpoint table', () => {
  it('a row asked for by name first is the same object the whole table holds later', async () => {
    const { endpoint, endpoints } = await fresh();
    const isbn = endpoint('book.isbn');
    expect(endpoint('book.isbn')).toBe(isbn);
    const all = endpoints();
    expect(all.find((e) => e.name === 'book.isbn')).toBe(isbn);
    expect(endpoints()).toBe(all);
    for (const e of all) expect(endpoint(e.name)).toBe(e);
  });

  it('the whole table first: each name once, the name its first member, the document order kept', async () => {
    const { endpoint, endpoints } = await fresh();
    const all = endpoints();
    const names = all.map((e) => e.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.slice(0, 5)).toEqual(['index', 'profile', 'describe', 'openapi', 'book.get']);
    expect(names.at(-1)).toBe('checkout');
    for (const e of all) expect(Object.keys(e)[0]).toBe('name');
    expect(endpoint('checkout')).toBe(all.at(-1));
  });

  it('an unknown name, an inherited property name among them, is no endpoint', async () => {
    const { endpoint, findEndpoint } = await fresh();
    for (const name of ['book.nope', 'toString', 'constructor', '__proto__', 'hasOwnProperty', '']) {
      expect(findEndpoint(name)).toBeUndefined();
      expect(() => endpoint(name)).toThrow(`unknown endpoint ${name}`);
    }
  });
});
