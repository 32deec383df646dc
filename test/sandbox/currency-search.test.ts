// The sandbox never adds two currencies, shows amounts in their currency's minor unit, and finds
// titles and authors whatever their diacritics and case (issue 29), in the seeded and the loaded
// catalogue alike, and in a database whose text index an earlier version made.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../helpers/run.js';
import { startTestSandbox, WELL_KNOWN, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let dir: string;
const CSV =
  'isbn13,title,author,price,currency\n9780000000019,Die Brücke am Fluss,Anna Weber,8.99,USD\n9780000000026,Café Stories,Zoë Ångström,1200,JPY\n';
const cli = (args: string[], env: Record<string, string | undefined> = sb.env) =>
  run(args, { env: { ...env, COLUMNS: '100' } });

beforeAll(async () => {
  sb = await startTestSandbox();
  dir = mkdtempSync(join(tmpdir(), 'bookdist-currency-'));
  writeFileSync(join(dir, 'world.csv'), CSV);
  const load = await cli([
    'sandbox',
    'catalogue',
    'load',
    join(dir, 'world.csv'),
    '--db',
    sb.dbPath,
    '--publisher',
    'Harbor Lane Press',
  ]);
  expect(load.code, load.stderr).toBe(0);
}, 60_000);
afterAll(async () => {
  await sb?.close();
  rmSync(dir, { recursive: true, force: true });
});

const titles = async (args: string[], env?: Record<string, string | undefined>) => {
  const r = await cli(['book', 'search', ...args, '--json'], env);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).results.map((b: { title: string }) => b.title);
};
const pricingOf = async (isbn: string) =>
  JSON.parse((await cli(['book', 'get', '--isbn', isbn, '--json'])).stdout).book.digital_pricing[0];

describe('search ignores diacritics and case', () => {
  it('brucke finds Brücke, cafe and CAFÉ find Café, zoe finds Zoë (loaded titles)', async () => {
    expect(await titles(['--title', 'brucke'])).toEqual(['Die Brücke am Fluss']);
    expect(await titles(['--title', 'cafe'])).toContain('Café Stories');
    expect(await titles(['--title', 'CAFÉ'])).toContain('Café Stories');
    expect(await titles(['--author', 'zoe angstrom'])).toEqual(['Café Stories']);
    // A short word (no trigram) folds the same way.
    expect(await titles(['--author', 'zo'])).toContain('Café Stories');
  });

  it('the seeded catalogue alike: a seeded title found with diacritics added and its case changed', async () => {
    const seeded = WELL_KNOWN.readme.title; // The Lighthouse Keeper's Ledger
    expect(await titles(['--title', 'LÏGHTHOUSE'])).toContain(seeded);
  });

  it('a database whose text index an earlier version made (tokenizer without remove_diacritics) gets the new one when opened', async () => {
    const data = join(dir, 'old');
    const env = { BOOKDIST_DATA_DIR: data, BOOKDIST_CONFIG_DIR: join(dir, 'config'), NO_COLOR: '1' };
    const db = join(data, 'sandbox.db');
    expect(
      (
        await cli(
          ['sandbox', 'catalogue', 'load', join(dir, 'world.csv'), '--db', db, '--publisher', 'Harbor Lane Press'],
          env,
        )
      ).code,
    ).toBe(0);
    const old = new DatabaseSync(db);
    old.exec(
      "DROP TABLE books_fts; CREATE VIRTUAL TABLE books_fts USING fts5(title, author, content='books', content_rowid='id', tokenize='trigram'); INSERT INTO books_fts(books_fts) VALUES ('rebuild');",
    );
    old.close();
    expect(await titles(['--title', 'brucke'], env)).toEqual(['Die Brücke am Fluss']);
    const now = new DatabaseSync(db, { readOnly: true });
    const sql = (now.prepare("SELECT sql FROM sqlite_master WHERE name = 'books_fts'").get() as { sql: string }).sql;
    now.close();
    expect(sql).toContain('remove_diacritics');
  });
});

describe('one currency per order; amounts in their minor unit', () => {
  it('a yen price has no decimals in JSON, the card and the table', async () => {
    const yen = await pricingOf('9780000000026');
    expect(yen).toMatchObject({ currency: 'JPY', price: '1200' });
    const card = await run(['book', 'get', '--isbn', '9780000000026'], { env: sb.env, tty: { columns: 80 } });
    expect(card.stdout).toMatch(/ 1200 JPY /);
    expect(card.stdout).not.toMatch(/1200\.00/);
  });

  it('order create with a USD and a JPY price: 400 "All items of an order must be in one currency.", nothing created', async () => {
    const usd = await pricingOf('9780000000019');
    const yen = await pricingOf('9780000000026');
    const user = JSON.parse(
      (await cli(['user', 'create', '--email', `yen.${process.pid}@example.com`, '--json'])).stdout,
    ).username;
    const order = [
      'order',
      'create',
      '--username',
      user,
      '--order-type',
      'TestPlan',
      '--org',
      'acme',
      '--billing-name',
      'A B',
      '--billing-postal-code',
      '1',
      '--billing-country',
      'JP',
    ];
    const mixed = await cli([...order, '--pricing-id', String(usd.id), '--pricing-id', String(yen.id), '--json']);
    expect(mixed.code).toBe(1);
    expect(JSON.parse(mixed.stderr.trim().split('\n').pop()!).error).toMatchObject({
      status: 400,
      message: expect.stringContaining('All items of an order must be in one currency.'),
    });
    expect(JSON.parse((await cli(['user', 'orders', user, '--json'])).stdout).count).toBe(0);
    // One currency: the order's totals in it (2400, not 2400.00).
    const ok = await cli([...order, '--pricing-id', String(yen.id), '--pricing-id', String(yen.id), '--json']);
    expect(ok.code, ok.stderr).toBe(0);
    const listed = JSON.parse((await cli(['user', 'orders', user, '--json'])).stdout).results[0];
    expect(listed.totals).toMatchObject({ subtotal: '2400', total: '2400' });
  });

  it('the test checkout of a mixed cart is refused (400) and creates nothing', async () => {
    const usd = await pricingOf('9780000000019');
    const yen = await pricingOf('9780000000026');
    const cart = await fetch(`${sb.url}/checkout?ids=${usd.id},${yen.id}`, { redirect: 'manual' });
    const where = new URL(cart.headers.get('location')!, sb.url);
    const page = await (await fetch(where)).text();
    expect(page).toContain('All items of an order must be in one currency.');
    expect(page).not.toContain('id="complete"');
    const post = await fetch(where, {
      method: 'POST',
      body: new URLSearchParams({
        username: '70172cfe97283c430dcd57f8358d7a',
        billing_name: 'A',
        postal_code: '1',
        country: 'US',
      }),
      redirect: 'manual',
    });
    expect(post.status).toBe(400);
  });
});
