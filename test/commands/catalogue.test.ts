// e2e: `bookdist codes summary`, `import search`, `offers get|checkout`, and the exit codes of
// authentication failures, against a sandbox over HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEED_IMPORTS, startTestSandbox, WELL_KNOWN, type TestSandbox } from '../helpers/sandbox.js';
import { cliFor, json, limitedEnv, type Cli } from './_support.js';

let sb: TestSandbox;
let cli: Cli;

beforeAll(async () => {
  sb = await startTestSandbox();
  cli = cliFor(sb, { COLUMNS: '220' });
});
afterAll(async () => {
  await sb?.close();
});

describe('codes summary', () => {
  it('shows generated and redeemed counts (card, JSON)', async () => {
    const [card, out] = await Promise.all([
      cli(['codes', 'summary', '-o', 'table']),
      cli(['codes', 'summary', '--json']),
    ]);
    expect(card.code).toBe(0);
    expect(card.stdout).toMatch(/Codes generated\s+0\nCodes redeemed\s+0\nRedemption rate\s+0%/);
    // The service's field is a fraction despite its name: the card shows a percentage in words, no raw key.
    expect(card.stdout).toMatch(/Redemption rate\s+0% of the codes generated\n/);
    expect(card.stdout).not.toContain('redemption_percentage');
    expect(out.code).toBe(0);
    expect(json(out)).toMatchObject({ codes_generated: 0, codes_redeemed: 0, redemption_percentage: 0 });
  });

  it('exits 4 for an account without the codes scope', async () => {
    const r = await cli(['codes', 'summary'], { env: limitedEnv(sb) });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('Missing scope: codes');
  });
});

describe('import search', () => {
  const live = SEED_IMPORTS;

  it('lists imported titles with their status (table), and one page with `N of M`', async () => {
    const t = WELL_KNOWN.importTitle;
    const [table, page] = await Promise.all([
      cli(['import', 'search', '--title', t.title, '-o', 'table']),
      cli(['import', 'search', '--limit', '3', '--json']),
    ]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^TITLE +AUTHOR +PUBLISHER/);
    expect(table.stdout).toContain(t.title);
    expect(table.stdout).toContain(t.isbn13);
    expect(table.stdout).toContain('file received');
    expect(page.code).toBe(0);
    const body = json(page);
    expect(body.results).toHaveLength(3);
    expect(page.stderr).toContain(`3 of ${body.count} imported titles`);
  });

  it('--all fetches every page', async () => {
    const first = json(await cli(['import', 'search', '--json']));
    const r = await cli(['import', 'search', '--all', '--limit', '2', '-o', 'ndjson']);
    expect(r.code).toBe(0);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows).toHaveLength(first.count);
    expect(rows.map((x: any) => x.title)).toEqual(first.results.map((x: any) => x.title));
    expect(live.length).toBeGreaterThan(0);
  });

  it('exits 4 without the import scope', async () => {
    const r = await cli(['import', 'search'], { env: limitedEnv(sb) });
    expect(r.code).toBe(4);
  });
});

describe('offers', () => {
  it('lists the offers of a book (table, JSON)', async () => {
    const b = WELL_KNOWN.readme;
    const [table, out] = await Promise.all([
      cli(['offers', 'get', '--isbn', b.isbn10, '-o', 'table']),
      cli(['offers', 'get', '--isbn', b.isbn13, '--json']),
    ]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^PRICE ID +PRICE +CONDITION +RENTAL$/m);
    expect(table.stdout).toMatch(
      new RegExp(
        `^${b.pricing[0].id}\\s+${b.pricing[0].price.replace('.', '\\.')}\\s+digital\\s+no \\(lifetime\\)$`,
        'm',
      ),
    );
    expect(table.stdout).toMatch(/180 days/);
    expect(out.code).toBe(0);
    const body = json(out);
    expect(body.Status).toBe('OK');
    expect(body.Offers.map((o: any) => o.Id)).toEqual(b.pricing.map((p) => p.id));
  });

  it("exits 1 with the store's message for a book sold only by code", async () => {
    const r = await cli(['offers', 'get', '--isbn', WELL_KNOWN.codeDistribution.isbn13]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('The requested book is not available');
  });

  it('prints the absolute cart URL the checkout redirects to (text, JSON)', async () => {
    const ids = WELL_KNOWN.readme.pricing.map((p) => String(p.id));
    const [text, out] = await Promise.all([
      cli([
        'offers',
        'checkout',
        '--id',
        ids[0],
        '--id',
        ids[1],
        '--rejoiner-id',
        'rj-1',
        '--open',
        '-o',
        'tsv',
        '--query',
        'url',
      ]),
      cli(['offers', 'checkout', '--id', ids.join(','), '--json']),
    ]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`^${sb.url}/cart/\\?t=\\w+\\n$`));
    const cart = await fetch(text.stdout.trim());
    expect(cart.status).toBe(200);
    expect(out.code).toBe(0);
    const body = json(out);
    expect(body.status).toBe(302);
    expect(body.url).toMatch(new RegExp(`^${sb.url}/cart/\\?t=`));
    expect(body.ids).toEqual(ids.map(Number));
  });

  it('exits 1 for an unknown price id', async () => {
    const r = await cli(['offers', 'checkout', '--id', '99999']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Unknown price id 99999');
  });
});

describe('exit codes', () => {
  it('are documented by `bookdist help exit-codes`', async () => {
    const r = await cli(['help', 'exit-codes']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/3\s+not found/);
    expect(r.stdout).toMatch(/4\s+credentials or scopes refused/);
    expect(r.stdout).toMatch(/1\s+the service refused by a business rule/);
    expect(r.stdout).toMatch(/5\s+conflict/);
  });

  it('a bad key is an authentication failure: exit 4', async () => {
    const r = await cli(['book', 'get', '--isbn', WELL_KNOWN.readme.isbn13], {
      env: { BOOKDIST_KEY_FILE: sb.creds.limited.keyFile },
    });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('Authentication failed');
  });
});
