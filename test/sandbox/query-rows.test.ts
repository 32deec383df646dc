// A query's rows (db/connection.ts): node:sqlite's own for its first two runs, then objects of one
// fixed shape made from arrays by a function compiled once for the statement (issue 31: a
// command's embedded sandbox runs most statements once, and never paid back compiling a maker for
// each). Every run gives the same values, a repeated column name keeping its last value.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Store } from '../../src/sandbox/db/store.js';

let store: Store;
beforeEach(() => {
  store = new Store(':memory:');
  store.db.exec(
    "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, n REAL); INSERT INTO t VALUES (1, 'a', 1.5), (2, 'b', NULL)",
  );
});
afterEach(() => store.close());

const ONE = 'SELECT id, name, n, name AS twice, id AS name FROM t WHERE id = ?';
const ALL = 'SELECT id, name, n FROM t ORDER BY id';

it('get: the same row on every run, a repeated name keeping its last value', () => {
  const rows = [1, 2, 3, 4].map(() => store.get(ONE, 1));
  for (const r of rows) expect({ ...r }).toEqual({ id: 1, name: 1, n: 1.5, twice: 'a' });
  expect(store.get(ONE, 3)).toBeUndefined();
});

it('all: the same rows on every run', () => {
  for (let i = 0; i < 4; i++)
    expect(store.all(ALL).map((r) => ({ ...r }))).toEqual([
      { id: 1, name: 'a', n: 1.5 },
      { id: 2, name: 'b', n: null },
    ]);
});

it("node:sqlite's own rows for a statement's first two runs; the fixed-shape rows from the third", () => {
  const sql = 'SELECT id, name FROM t WHERE id = ?';
  const proto = () => Object.getPrototypeOf(store.get(sql, 2));
  expect([proto(), proto(), proto(), proto()]).toEqual([null, null, Object.prototype, Object.prototype]);
});
