// Every statement the sandbox prepares, checked with EXPLAIN QUERY PLAN on a database grown far
// past the seed (50,000 books, 20,000 users, orders, codes, imports, mails): no full scan of a
// table that grows with use.
//
// The statements are collected two ways, so a new one cannot slip by:
//  - at run time: DatabaseSync.prototype.prepare is wrapped while a real sandbox serves every
//    endpoint of the endpoint table (each must answer 2xx at least once), the control routes,
//    the reader, the cart and the processing worker — this catches SQL built on the fly;
//  - from the source: every SQL string literal in src/sandbox/*.ts (and src/sandbox/**), so a
//    statement on a branch the run did not reach is still explained.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { foldText } from '../../src/sandbox/db/store.js';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM helper shared with the bench
import { growSandboxDb } from '../../bench/grow-db.mjs';
import { endpoints } from '../../src/spec/endpoints.js';
import { startSandbox } from '../../src/sandbox/http/server.js';
import { INDEX_NAMES } from '../../src/sandbox/db/schema.js';
import { Store } from '../../src/sandbox/db/store.js';
import { startTestSandbox, WELL_KNOWN, type TestSandbox } from '../helpers/sandbox.js';
import { clients, probe, raw, type Clients } from './_support.js';
import type { EndpointName } from '../../src/spec/contract.js';

const BOOKS = 50_000;
const GROW = { books: BOOKS, users: 20_000, orders: 20_000, codes: 20_000, imports: 20_000, outbox: 20_000 };

/** Tables that grow with use: a full scan of one of them is a failure. */
const GROWING = new Set([
  'books',
  'pricing',
  'users',
  'orders',
  'order_items',
  'usage',
  'reader_pages',
  'reader_sessions',
  'codes',
  'idempotency',
  'imports',
  'outbox',
  'carts',
  'journal',
  'journal_bodies',
  'book_controls',
  'fixture_steps',
]);
/**
 * Small fixed tables written by the seed only (2 accounts, 3 publishers, their links, 2 labels,
 * 1 token, a handful of meta keys): scanning them costs the same at any data size.
 */
const FIXED = new Set([
  'meta',
  'publishers',
  'accounts',
  'account_publishers',
  'labels',
  'tokens',
  'sqlite_master',
  'sqlite_schema',
]);

/**
 * Statements whose plan scans a growing table on purpose, each with its reason. Keep this short:
 * every entry must still match a statement (checked below).
 */
const WHOLE_BY_DESIGN: Array<[RegExp, string]> = [
  [
    /^SELECT coalesce\(sum\(coalesce\(n, 1\)\), 0\) AS n FROM journal$/,
    '`sandbox requests clear` counts the requests it drops (a packed row holds several): the DELETE that follows empties the whole table anyway',
  ],
  [
    /^SELECT \* FROM outbox ORDER BY id$/,
    'the /_sandbox/outbox control route returns every mail (a testing aid, not a service route)',
  ],
  [
    /^SELECT (\*|count\(\*\) AS n) FROM (books|imports) WHERE fold\((title|author)\) LIKE \? ESCAPE '\\'( ORDER BY id LIMIT \? OFFSET \?)?$/,
    'a search whose only word is shorter than 3 characters: no trigram can narrow it (a word that short matches much of any catalogue)',
  ],
  [
    /^SELECT \* FROM (books|imports)( WHERE \+publisher_id IN \(SELECT publisher_id FROM account_publishers WHERE account_id = \?\))? ORDER BY id LIMIT \? OFFSET \?$/,
    'a page at an OFFSET reads the rows before it in id order (no sort), then stops: the API pages by offset. book.index serves a following page from where the previous one ended instead',
  ],
  [
    /^SELECT count\(\*\) AS n FROM (books|imports)$/,
    'the count of an unfiltered listing: every row matches (SQLite counts on the smallest index)',
  ],
  [
    /^INSERT INTO books\(id, hash_id,/,
    "the seed's INSERT INTO books, once per database: the child-table scans in its plan are the foreign-key checks of a parent insert, which SQLite skips at run time unless deferred violations are pending (OP_FkIfZero)",
  ],
];

const recorded = new Set<string>();
let recording = false;
const realPrepare = DatabaseSync.prototype.prepare;

let sb: TestSandbox;
let c: Clients;

beforeAll(async () => {
  DatabaseSync.prototype.prepare = function (this: DatabaseSync, sql: string, ...rest: unknown[]) {
    if (recording) recorded.add(sql);
    return (realPrepare as any).call(this, sql, ...rest);
  } as typeof realPrepare;
  recording = true;
  sb = await startTestSandbox({ processDelayMs: 1 });
  recording = false;
  growSandboxDb(sb.dbPath, GROW);
  recording = true;
  c = clients(sb);
}, 120_000);

afterAll(async () => {
  recording = false;
  DatabaseSync.prototype.prepare = realPrepare;
  await c?.closeAll();
  await sb?.close();
});

const norm = (sql: string) => sql.replace(/\s+/g, ' ').trim();

/** SQL string literals ('...', "..." or `...` without ${}) in the sandbox's source. */
function sqlLiterals(): Set<string> {
  const out = new Set<string>();
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((f) => {
      const p = join(dir, f);
      return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') && !p.endsWith('.test.ts') ? [p] : [];
    });
  for (const file of walk(join(__dirname, '../../src/sandbox'))) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(['"`])((?:SELECT|INSERT|UPDATE|DELETE|WITH)\s[^'"`]*?)\1/g)) {
      if (m[1] === '`' && m[2].includes('${')) continue;
      if (!/\b(FROM|INTO|SET)\b/.test(m[2])) continue;
      out.add(norm(m[2]));
    }
  }
  return out;
}

interface Finding {
  sql: string;
  problem: string;
}

/** The plan's problems: full scans of growing tables, unconstrained text-index scans. */
function planProblems(db: DatabaseSync, sql: string, partialIndexes: Set<string>): string[] {
  const plan = realPrepare.call(db, `EXPLAIN QUERY PLAN ${sql}`).all() as Array<{ detail: string }>;
  const problems: string[] = [];
  for (const { detail } of plan) {
    const m = /^SCAN (\w+)(?: VIRTUAL TABLE INDEX (\d+):(\S*))?(?: USING (?:COVERING )?INDEX (\w+))?/.exec(detail);
    if (!m) continue;
    const [, table, , idxStr, index] = m;
    if (table === 'json_each') continue; // the statement's own parameter list (a page of ids)
    if (table.endsWith('_fts')) {
      // A text index scan must be driven by a constraint (M = MATCH, L = LIKE); "0:" reads it whole.
      if (!idxStr) problems.push(`${detail} (the text index is read whole)`);
      continue;
    }
    if (FIXED.has(table)) continue;
    if (index && partialIndexes.has(index)) continue; // scans only the rows the partial index holds
    if (GROWING.has(table)) problems.push(detail);
    else problems.push(`${detail} (a table this test does not know: add it to GROWING or FIXED)`);
  }
  return problems;
}

describe('query plans on a grown database', () => {
  it('serves every endpoint of the table, the control routes, the reader, the cart and the worker', async () => {
    const served = new Set<string>();
    const call = async (
      client: keyof Omit<Clients, 'closeAll'>,
      name: EndpointName,
      args: Parameters<Clients['partner']['call']>[1] = {},
    ) => {
      const r = await c[client].call(name, args);
      if (r.status < 400) served.add(name);
      return r;
    };
    const readme = WELL_KNOWN.readme;
    const user = WELL_KNOWN.user.username;

    for (const name of ['index', 'profile', 'describe'] as const) await call('partner', name);
    if ((await raw(`${sb.url}/openapi.json`)).status === 200) served.add('openapi');
    await call('partner', 'book.get', { params: { hash_id: readme.hash_id } });
    for (const isbn of [readme.isbn13, readme.isbn10, readme.eisbn13, readme.eisbn10, '9780000000002']) {
      await call('partner', 'book.isbn', { params: { isbn } });
    }
    await call('partner', 'book.sku', { params: { sku: readme.sku.toLowerCase() } });
    await call('partner', 'book.pricing', { params: { isbn: readme.isbn13 } });
    for (const payload of [
      { title: 'lighthouse ledger' },
      { title: 'of' },
      { author: 'Ellison' },
      { title: 'Volume 4999', author: 'Author' },
      { isbn: [readme.isbn13, WELL_KNOWN.otherPublisher.isbn10] },
      { hash_ids: [readme.hash_id, WELL_KNOWN.foreignPublisher.hash_id] },
      { limit: 5, offset: 40_000 },
    ]) {
      const r = await call('partner', 'book.search', { payload });
      expect(r.status, JSON.stringify(payload)).toBe(200);
    }
    // A page read at its OFFSET, then again after the page before it: the second is served from
    // where that page ended, and must be the same books.
    const ids = (r: any) => r.body.results.map((b: any) => b.id);
    const direct = await call('partner', 'book.index', { payload: { offset: 30_500, limit: 500 } });
    // The text index narrows, the exact LIKE decides: % and _ stay literal, case folds as before.
    const titles = async (title: string) =>
      (await call('partner', 'book.search', { payload: { title } })).body.results.map((b: any) => b.title);
    expect(await titles('LEDGER keeper')).toEqual([readme.title]);
    expect(await titles('Ledg_r')).toEqual([]);
    expect(await titles('Led%er')).toEqual([]);
    expect(await titles('Volume 49999 River')).toEqual([]); // 49999 % 4 = 3: a Forest volume
    expect(await titles('Volume 49999 Forest')).toEqual(['Grown Volume 49999 of the Forest Series']);
    // The count is the same whether the page tells it (a short page) or a count query does.
    const countOf = async (payload: Record<string, unknown>) =>
      (await call('partner', 'book.search', { payload })).body.count;
    for (const [offset, limit] of [
      [0, 50],
      [5, 3],
      [8, 50],
      [20, 5],
    ])
      expect(await countOf({ title: 'Volume 4999', offset, limit })).toBe(15); // 4999, 14999 … 44999, 49990 … 49999
    // A common word (12,500 grown titles): the text index drives the pages in id order, the same
    // books a plain LIKE gives, page after page, with the full count.
    recording = false; // the test's own plain LIKE is not the sandbox's
    const store = new Store(sb.dbPath);
    const harbour = store.all("SELECT id FROM books WHERE title LIKE '%Harbour%' ORDER BY id").map((r) => r.id);
    store.close();
    recording = true;
    expect(harbour.length).toBeGreaterThan(12_000);
    for (const offset of [0, 10, 6_000, harbour.length - 5]) {
      const page = await call('partner', 'book.search', { payload: { title: 'harbour', offset, limit: 10 } });
      expect(ids(page), `offset ${offset}`).toEqual(harbour.slice(offset, offset + 10));
      expect(page.body.count).toBe(harbour.length);
    }
    const list = await call('partner', 'book.index', { payload: { offset: 30_000, limit: 500 } });
    expect(list.body.results).toHaveLength(500);
    expect(list.body.count).toBe(BOOKS + 17); // 17 seeded books of the partner's two publishers
    const next = await call('partner', 'book.index', { payload: { offset: 30_500, limit: 500 } });
    expect(ids(next)).toEqual(ids(direct));
    expect(ids(next)[0]).toBeGreaterThan(ids(list)[499]);

    // Users, orders, refunds, purchases.
    const created = await call('partner', 'user.create', {
      payload: { email: 'plans@example.com', first_name: 'Plan', last_name: 'Reader' },
    });
    expect(created.status).toBe(200);
    const buyer = created.body.username as string;
    await call('operator', 'user.create', { payload: { email: 'plans@example.com' } }); // conflict answer of the token variant
    await call('partner', 'user.invite', { payload: { email: 'invited-plans@example.com', first_name: 'In' } });
    await call('partner', 'user.get', { params: { username: buyer } });
    await call('partner', 'user.email', { params: { email: 'PLANS@example.com' } });
    const order = await call('partner', 'order.external', {
      payload: {
        username: buyer,
        digital_pricing: [readme.pricing[0].id, readme.pricing[1].id],
        billing_address: { full_name: 'Plan Reader', postal_code: '04101', country: 'US' },
        order_type: 'TestPlan',
        org: 'plans',
        order_number: 'PLANS-1',
        label: WELL_KNOWN.partner.label,
      },
    });
    expect(order.status).toBe(200);
    await call('partner', 'order.external', {
      payload: {
        username: buyer,
        digital_pricing: [readme.pricing[0].id],
        billing_address: { full_name: 'P', postal_code: '1', country: 'US' },
        order_type: 'TestPlan',
        org: 'plans',
        order_number: 'PLANS-1',
      },
    }); // the repeat: answered from the existing order
    const orderId = order.body.order.id as number;
    const itemId = order.body.order.items[0].id as number;
    await call('partner', 'user.orders', { params: { username: buyer } });
    await call('partner', 'user.purchase', {
      params: { username: buyer, purchase_id: itemId },
      payload: { refund_data: true },
    });
    await sb.control.usage({ username: buyer, hashId: readme.hash_id, viewed: 1 });
    await call('partner', 'order.refund', { payload: { order_id: orderId, items: [itemId] } });
    const free = await call('partner', 'order.free', {
      payload: { username: buyer, hash_id: WELL_KNOWN.otherPublisher.hash_id, label: WELL_KNOWN.partner.label },
    });
    expect(free.status).toBe(200);

    // Reader: a viewer session, a page view and a printed page.
    const viewer = await call('partner', 'book.viewer', {
      payload: { username: buyer, hash_id: WELL_KNOWN.otherPublisher.hash_id },
    });
    expect(viewer.status).toBe(200);
    const readerUrl = viewer.body.viewer_url as string;
    expect((await raw(readerUrl + '?page=2')).status).toBe(200);
    expect((await raw(readerUrl.replace(/\/$/, '/print/') + '?page=2')).status).toBe(200);

    // Processing: queue a book, let the worker run.
    await call('partner', 'book.process', {
      params: { hash_id: WELL_KNOWN.unprocessed.hash_id },
      payload: { urgent: true },
    });
    await call('partner', 'book.process', { params: { hash_id: WELL_KNOWN.queued.hash_id }, payload: { force: true } });
    await sb.control.runWorker();

    // Codes, with and without an Idempotency-Key, redeemed through the control route.
    const codes = await call('partner', 'codes.generate', {
      payload: { hash_id: readme.hash_id, org: 'plans', count: 3, limit_days: 30 },
    });
    expect(codes.status).toBe(200);
    await call('partner', 'codes.generate', {
      payload: { hash_id: readme.hash_id, org: 'plans', count: 1 },
      headers: { 'idempotency-key': 'plans-1' },
    });
    await call('partner', 'codes.generate', {
      payload: { hash_id: readme.hash_id, org: 'plans', count: 1 },
      headers: { 'idempotency-key': 'plans-1' },
    });
    await sb.control.redeem(codes.body.codes[0].code, buyer);
    await call('partner', 'codes.summary');

    for (const payload of [
      { title: 'Import 1999' },
      { author: 'Importer' },
      { isbn: ['9796000000005'] },
      { limit: 3, offset: 15_000 },
    ]) {
      await call('partner', 'import.search', { payload });
    }

    // Access control with the operator token.
    const grant = await call('operator', 'access.allow', {
      payload: { username: user, hash_id: readme.hash_id, price: '0.00', send_email: true },
    });
    expect(grant.status).toBe(200);
    await call('operator', 'access.revoke', { payload: { username: user, hash_id: readme.hash_id } });

    // The public price comparison and cart.
    await call('anon', 'offers', { payload: { isbn: readme.isbn13 } } as any);
    const offers = await raw(`${sb.url}/api/offers.json?isbn=${readme.isbn13}`);
    expect(offers.status).toBe(200);
    served.add('offers');
    const cart = await raw(`${sb.url}/checkout?ids=${readme.pricing[0].id},${readme.pricing[1].id}`);
    expect(cart.status).toBe(302);
    served.add('checkout');
    expect((await raw(sb.url + cart.headers.location)).status).toBe(200);

    // Control routes.
    await sb.control.advanceClock('1m');
    await sb.control.now();
    await sb.control.outbox('avery.reader@example.com');

    const missing = endpoints()
      .map((e) => e.name)
      .filter((n) => !served.has(n));
    expect(missing, 'endpoints this test did not get a success from: add a call above').toEqual([]);
  }, 120_000);

  it('no statement scans a growing table', () => {
    recording = false;
    const db = new DatabaseSync(sb.dbPath, { readOnly: true });
    // The search's fold() (db/store.ts registers it on every connection of the sandbox).
    db.function('fold', { deterministic: true }, (v) => (typeof v === 'string' ? foldText(v) : v));
    try {
      const partial = new Set(
        (
          realPrepare
            .call(db, `SELECT name FROM sqlite_master WHERE type = 'index' AND sql LIKE '% WHERE %'`)
            .all() as Array<{ name: string }>
        ).map((r) => r.name),
      );
      const fromRun = [...recorded]
        .map(norm)
        .filter((s) => /^(SELECT|INSERT|UPDATE|DELETE|WITH)\b/i.test(s) && !/^SELECT coalesce\(max\(id\)/.test(s));
      // A literal that starts a statement of the run is a fragment (views.ts ITEM_SELECT), not a statement.
      const fromSource = [...sqlLiterals()].filter((lit) => !fromRun.some((s) => s !== lit && s.startsWith(lit)));
      const all = new Set([...fromRun, ...fromSource]);
      // The run reached most of what the source holds (a guard against recording nothing).
      expect(fromRun.length).toBeGreaterThan(60);
      const findings: Finding[] = [];
      const used = new Set<string>();
      for (const sql of all) {
        const problems = planProblems(db, sql, partial);
        if (process.env.QUERY_PLANS_PRINT) {
          console.log(
            `${sql}\n  ${(realPrepare.call(db, `EXPLAIN QUERY PLAN ${sql}`).all() as any[]).map((r) => r.detail).join('\n  ')}`,
          );
        }
        if (!problems.length) continue;
        const why = WHOLE_BY_DESIGN.find(([re]) => re.test(sql));
        if (why) used.add(why[1]);
        else for (const problem of problems) findings.push({ sql, problem });
      }
      expect(findings).toEqual([]);
      // Every exemption is still needed (remove one that no longer matches anything).
      expect(WHOLE_BY_DESIGN.map(([, why]) => why).filter((why) => !used.has(why))).toEqual([]);
    } finally {
      db.close();
    }
  });
});

describe('a sandbox.db made by an earlier version', () => {
  it('gains the indexes and the filled text indexes when a sandbox opens it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bookdist-plans-old-'));
    const dbPath = join(dir, 'sandbox.db');
    try {
      const first = await startSandbox({ host: '127.0.0.1', port: 0, dbPath });
      await first.close();
      // Back to the earlier schema: none of the new indexes, no text index tables or triggers.
      const old = new DatabaseSync(dbPath);
      for (const name of INDEX_NAMES) old.exec(`DROP INDEX IF EXISTS ${name}`);
      for (const t of ['books', 'imports']) {
        for (const k of ['insert', 'delete', 'update']) old.exec(`DROP TRIGGER IF EXISTS ${t}_fts_${k}`);
        old.exec(`DROP TABLE IF EXISTS ${t}_fts`);
      }
      const left = realPrepare
        .call(
          old,
          `SELECT count(*) AS n FROM sqlite_master WHERE name LIKE '%_fts%' OR name IN (${INDEX_NAMES.map(() => '?').join(',')})`,
        )
        .get(...INDEX_NAMES) as { n: number };
      expect(left.n).toBe(0);
      old.close();

      const again = await startSandbox({ host: '127.0.0.1', port: 0, dbPath });
      try {
        const db = new DatabaseSync(dbPath, { readOnly: true });
        const names = new Set(
          (realPrepare.call(db, 'SELECT name FROM sqlite_master').all() as Array<{ name: string }>).map((r) => r.name),
        );
        db.close();
        expect(INDEX_NAMES.filter((n) => !names.has(n))).toEqual([]);
        expect(names.has('books_fts') && names.has('imports_fts')).toBe(true);
        // The text index was filled from the rows already there: a title search finds the seeded book.
        // The partner's key straight from the database (no control route needed).
        const ro = new DatabaseSync(dbPath, { readOnly: true });
        const acct = realPrepare
          .call(ro, "SELECT username, private_key FROM accounts WHERE role = 'partner'")
          .get() as { username: string; private_key: string };
        ro.close();
        const { ApiClient } = await import('../../src/api/client.js');
        const { loadRsaPrivateKey } = await import('../../src/api/wire.js');
        const client = probe(
          new ApiClient({
            baseUrl: again.url,
            timeout: 10_000,
            retries: 0,
            credentials: { kind: 'crypto', username: acct.username, key: loadRsaPrivateKey(acct.private_key) },
          }),
        );
        const r = await client.call('book.search', { payload: { title: 'LIGHTHOUSE ledger' } });
        await client.close();
        expect(r.body.results.map((b: any) => b.hash_id)).toEqual([WELL_KNOWN.readme.hash_id]);
      } finally {
        await again.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
