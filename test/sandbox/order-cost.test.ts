// What an order costs the sandbox, as work it does not do (bench/sandbox-throughput.mjs, order
// creation): no temporary b-tree built by the CHECKs of the rows it inserts, no read-back of the
// order it has just written (its answer is made from the rows as inserted), the text of a second
// made once. Each holds only while the answer stays exactly the one read from the database.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Caller } from '../../src/sandbox/auth.js';
import { Store } from '../../src/sandbox/db/store.js';
import { ensureSeeded, generateSecretsAsync, type GeneratedSecrets, WELL_KNOWN } from '../../src/sandbox/seed.js';
import { isoTime } from '../../src/sandbox/util.js';
import { callerOf, handlerCalls } from '../helpers/domain-call.js';

const dir = mkdtempSync(join(tmpdir(), 'bookdist-order-cost-'));
let secrets: GeneratedSecrets;
let store: Store;
let partner: Caller;
beforeAll(async () => {
  secrets = await generateSecretsAsync();
  store = new Store(join(dir, 'sandbox.db'));
  ensureSeeded(store, () => secrets);
  partner = callerOf(store, 'partner');
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => vi.restoreAllMocks());

const { call } = handlerCalls(
  () => store,
  () => partner,
);
/** The end of the event loop's turn: a served request's read snapshot ends. */
const nextTurn = () => new Promise((r) => setImmediate(r));

let seq = 0;
function newUser(names: Record<string, string> = {}): string {
  return call('user.create', { payload: { email: `cost${++seq}@example.com`, ...names } }).body.username as string;
}
const billing = { full_name: 'Avery Reader', postal_code: '02139', country: 'US' };
function order(username: string, pricing: number[], more: Record<string, unknown> = {}) {
  return call('order.external', {
    payload: { username, digital_pricing: pricing, billing_address: billing, order_type: 'TestPlan', org: 7, ...more },
  });
}

describe('the rows an order inserts', () => {
  it('build no temporary b-tree for their CHECKs (an IN list of more than two values did, at every insert)', () => {
    const fresh = new Store(':memory:');
    try {
      fresh.tx(() => fresh.createSchema());
      for (const table of ['orders', 'order_items']) {
        const cols = (fresh.db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>)
          .map((c) => c.name)
          .filter((n) => n !== 'id');
        const program = fresh.db
          .prepare(`EXPLAIN INSERT INTO ${table}(${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`)
          .all() as Array<{ opcode: string }>;
        expect(
          program.filter((op) => op.opcode === 'OpenEphemeral'),
          table,
        ).toEqual([]);
      }
      // The CHECKs still refuse what they refused (no accounts or users here: their keys aside).
      fresh.db.exec('PRAGMA foreign_keys = OFF');
      const bad = (sql: string) => () => fresh.db.exec(sql);
      expect(
        bad("INSERT INTO orders(account_id, user_id, kind, is_complete, created_at) VALUES (1, 1, 'gift', 1, 0)"),
      ).toThrow(/CHECK constraint failed/);
      fresh.db.exec(
        "INSERT INTO orders(account_id, user_id, kind, is_complete, created_at) VALUES (1, 1, 'code', 1, 0)",
      );
      expect(
        bad(`INSERT INTO order_items(order_id, user_id, book_id, source, purchase_price, quantity, is_digital, is_print,
          is_active, is_refunded, purchase_date) VALUES (1, 1, 1, 'External', '1.00', 1, 1, 0, 1, 0, 0)`),
      ).toThrow(/CHECK constraint failed/);
    } finally {
      void fresh.close();
    }
  });
});

describe("an order's answer", () => {
  it('is the order as read back from the database: items, names, prices, rentals, totals', async () => {
    const cases: Array<[Record<string, string>, number[]]> = [
      [{ first_name: 'Ana', last_name: 'Lima' }, [WELL_KNOWN.readme.pricing[0].id]],
      [{}, WELL_KNOWN.readme.pricing.map((p) => p.id)],
      [
        { first_name: 'Solo' },
        [...WELL_KNOWN.limitedPricing.pricing.map((p) => p.id), WELL_KNOWN.otherPublisher.pricing[0].id],
      ],
      [{ last_name: 'Only' }, [WELL_KNOWN.otherPublisher.pricing[1].id, WELL_KNOWN.readme.pricing[0].id]],
    ];
    for (const [names, pricing] of cases) {
      const u = newUser(names);
      const number = `C-${++seq}`;
      await nextTurn();
      // In a served turn, as the service runs it (its group committed at the turn's end).
      const made = store.serve(() => order(u, pricing, { order_number: number }));
      await nextTurn();
      expect(made.body.message).toBe('Order created.');
      // The same number again answers the order it made, read from the database.
      const read = order(u, pricing, { order_number: number });
      expect(read.body.message).toBe('Order already exists.');
      expect(JSON.stringify(made.body.order)).toBe(JSON.stringify(read.body.order));
      expect(made.body.order.item_count).toBe(pricing.length);
    }
  });

  it('reads nothing back of the order it wrote (in a served turn)', async () => {
    const u = newUser({ first_name: 'Quinn' });
    await nextTurn();
    const sql: string[] = [];
    const get = store.get.bind(store);
    const all = store.all.bind(store);
    vi.spyOn(store, 'get').mockImplementation((q, ...p) => {
      sql.push(q);
      return get(q, ...p);
    });
    vi.spyOn(store, 'all').mockImplementation((q, ...p) => {
      sql.push(q);
      return all(q, ...p);
    });
    const r = store.serve(() => order(u, [WELL_KNOWN.readme.pricing[0].id], { send_email: false }));
    expect(r.body.order.items[0].user.full_name).toBe('Quinn');
    expect(sql.filter((q) => /\bFROM (orders|order_items)\b/.test(q))).toEqual([]);
    await nextTurn();
  });

  it('shows what another connection committed between its reads and its write, as a read-back did', async () => {
    const u = newUser({ first_name: 'Before' });
    const book = WELL_KNOWN.otherPublisher;
    await nextTurn();
    const other = new DatabaseSync(join(dir, 'sandbox.db'), { timeout: 10_000 });
    try {
      const r = store.serve(() => {
        // The turn's read snapshot begins: the handler's reads below see it.
        store.get('SELECT 1 FROM meta LIMIT 1');
        other.prepare("UPDATE users SET first_name = 'After' WHERE username = ?").run(u);
        other
          .prepare('UPDATE books SET title = ? WHERE id = (SELECT book_id FROM pricing WHERE id = ?)')
          .run('Retitled', book.pricing[0].id);
        return order(u, [book.pricing[0].id], { send_email: false });
      });
      await nextTurn();
      expect(r.body.order.items[0].user.full_name).toBe('After');
      expect(r.body.order.items[0].book.title).toBe('Retitled');
    } finally {
      other.prepare('UPDATE books SET title = ? WHERE hash_id = ?').run(book.title, book.hash_id);
      other.close();
    }
  });
});

describe('isoTime', () => {
  const old = (ms: number) => {
    const s = new Date(ms).toISOString();
    return s.length === 24 ? s.slice(0, 19) + 'Z' : s.replace(/\.\d{3}Z$/, 'Z');
  };

  it('is the date without milliseconds for every millisecond, fractions, before 1970 and past the year 9999', () => {
    const base = Date.UTC(2026, 10, 28, 1, 2, 3);
    const times = [
      0,
      -0,
      0.5,
      -0.5,
      -1,
      -999,
      -999.5,
      -1000,
      -1000.5,
      -1001,
      999.9,
      1000,
      -62167219200000,
      -62167219200001,
      253402300799999,
      253402300800000,
      253402300800000.5,
      8.64e15,
      -8.64e15,
      ...Array.from({ length: 2500 }, (_, i) => base + i),
      ...Array.from({ length: 500 }, (_, i) => base - 7 * i * 997.25),
    ];
    for (const ms of times) {
      // Twice, and after its neighbours: the second from the text kept.
      expect(isoTime(ms), String(ms)).toBe(old(ms));
      expect(isoTime(ms), String(ms)).toBe(old(ms));
    }
    for (const ms of [...times].reverse()) expect(isoTime(ms), String(ms)).toBe(old(ms));
    expect(isoTime(null)).toBeNull();
    expect(isoTime(undefined)).toBeNull();
    expect(() => isoTime(NaN)).toThrow(RangeError);
    expect(() => isoTime(8.64e15 + 1)).toThrow(RangeError);
    expect(() => isoTime(Infinity)).toThrow(RangeError);
  });

  it('formats a second once, however many dates of it come one after the other', () => {
    const spy = vi.spyOn(Date.prototype, 'toISOString');
    const base = Date.UTC(2027, 0, 1, 0, 0, 0);
    for (let i = 0; i < 1000; i++) isoTime(base + i);
    expect(spy).toHaveBeenCalledTimes(1);
  });
});
