// Hostile edges of a running sandbox over real HTTP: inputs at the bounds the validation lets
// through, and connections that misbehave. Each case was a 5xx, a hang or a wrong answer once.
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { clients, type Clients } from './_support.js';

let sb: TestSandbox;
let c: Clients;

beforeAll(async () => {
  sb = await startTestSandbox({ processDelayMs: 1 });
  c = clients(sb);
}, 60_000);

afterAll(async () => {
  await c?.closeAll();
  await sb?.close();
});

/** What a plain LIKE over the whole table finds for every word of title and author, in id order. */
function plainLike(table: 'books' | 'imports', p: { title?: string; author?: string }): number[] {
  const esc = (w: string) => '%' + w.replace(/[\\%_]/g, (m) => '\\' + m) + '%';
  const conds: string[] = [];
  const args: string[] = [];
  for (const col of ['title', 'author'] as const) {
    for (const w of p[col]?.trim() ? p[col]!.trim().split(/\s+/) : []) conds.push(`${col} LIKE ? ESCAPE '\\'`), args.push(esc(w));
  }
  // Grouped, so that SQLite's own expression depth limit does not stop the reference query.
  const groups: string[] = [];
  for (let i = 0; i < conds.length; i += 50) groups.push(`(${conds.slice(i, i + 50).join(' AND ')})`);
  const db = new DatabaseSync(sb.dbPath, { readOnly: true });
  try {
    const sql = `SELECT id FROM ${table} ${groups.length ? 'WHERE ' + groups.join(' AND ') : ''} ORDER BY id`;
    return (db.prepare(sql).all(...args) as Array<{ id: number }>).map((r) => r.id);
  } finally {
    db.close();
  }
}

describe('search at the bounds of its fields', () => {
  it('title and author of 500 one-character words each (1,000 conditions): an answer, the same as LIKE, never a 500', async () => {
    const cases = [
      { title: 'a '.repeat(500), author: 'a '.repeat(500) },
      { title: 'e '.repeat(500), author: 'r '.repeat(500), isbn: ['9780000000002'] },
      { title: 'abc '.repeat(250), author: 'e '.repeat(500) },
    ];
    for (const p of cases) {
      for (const [ep, table] of [['book.search', 'books'], ['import.search', 'imports']] as const) {
        const r = await c.partner.call(ep, { payload: { ...p, limit: 500 } });
        expect(r.status, `${ep} ${JSON.stringify(p).slice(0, 40)}: ${JSON.stringify(r.body).slice(0, 120)}`).toBe(200);
        if (!('isbn' in p)) expect(r.body.count).toBe(plainLike(table, p).length);
      }
    }
    const r = await c.partner.call('book.search', { payload: { title: 'e '.repeat(500), author: 'e '.repeat(500), limit: 500 } });
    const expected = plainLike('books', { title: 'e', author: 'e' });
    expect(expected.length).toBeGreaterThan(0);
    expect(r.body.results.map((b: any) => b.id)).toEqual(expected.slice(0, 500));
  });
});
