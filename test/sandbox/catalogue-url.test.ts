// `sandbox catalogue load --url`: the file sent to a running sandbox (in this process), which loads
// it; the same summary, refusals, exit codes, --strict and --publisher as a load with --db.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../helpers/run.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

const ONIX = fileURLToPath(new URL('../../docs/samples/catalogue.onix.xml', import.meta.url));

let sb: TestSandbox;
let dir: string;
beforeAll(async () => {
  sb = await startTestSandbox();
  dir = mkdtempSync(join(tmpdir(), 'bookdist-catalogue-url-'));
});
afterAll(async () => {
  await sb?.close();
  rmSync(dir, { recursive: true, force: true });
});

const env = () => ({ ...sb.env, BOOKDIST_SANDBOX_SECRET: sb.controlSecret });
const load = (...args: string[]) => run(['sandbox', 'catalogue', 'load', ...args, '--url', sb.url], { env: env() });

function isbn13(first12: string): string {
  const sum = [...first12].reduce((s, d, i) => s + Number(d) * (i % 2 ? 3 : 1), 0);
  return first12 + ((10 - (sum % 10)) % 10);
}

/** An ONIX file of `n` digital products (about 1 KB each), ISBNs from `from`. */
function onixFile(name: string, n: number, from: number, price = '4.99'): string {
  const products = Array.from({ length: n }, (_, i) => {
    const isbn = isbn13('9791777' + String(from + i).padStart(5, '0'));
    return `<Product><RecordReference>url-${from + i}</RecordReference><NotificationType>03</NotificationType>
<ProductIdentifier><ProductIDType>15</ProductIDType><IDValue>${isbn}</IDValue></ProductIdentifier>
<DescriptiveDetail><ProductForm>ED</ProductForm><TitleDetail><TitleType>01</TitleType><TitleElement><TitleElementLevel>01</TitleElementLevel><TitleText>Remote Harbour ${from + i}</TitleText></TitleElement></TitleDetail>
<Extent><ExtentType>00</ExtentType><ExtentValue>200</ExtentValue><ExtentUnit>03</ExtentUnit></Extent></DescriptiveDetail>
<CollateralDetail><TextContent><TextType>03</TextType><Text>${'A tale of tides and harbours. '.repeat(20)}</Text></TextContent></CollateralDetail>
<PublishingDetail><Publisher><PublishingRole>01</PublishingRole><PublisherName>Remote Press</PublisherName></Publisher></PublishingDetail>
<ProductSupply><SupplyDetail><Price><PriceAmount>${price}</PriceAmount><CurrencyCode>USD</CurrencyCode></Price></SupplyDetail></ProductSupply></Product>`;
  });
  const path = join(dir, name);
  writeFileSync(path, `<?xml version="1.0" encoding="UTF-8"?>\n<ONIXMessage release="3.0">\n${products.join('\n')}\n</ONIXMessage>\n`);
  return path;
}

describe('sandbox catalogue load --url', () => {
  it('loads the sample into the running sandbox: the same one-line summary as --db, the titles served at once', async () => {
    const r = await load(ONIX);
    expect(r.stderr + `(exit ${r.code})`).toMatch(/\(exit 0\)$/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('(ONIX, 5 records): 3 added, 0 updated, 0 withdrawn, 0 refused, 2 skipped (1 print edition, 1 audio edition).');
    const found = await run(['book', 'search', '--title', 'Tidewater Almanac', '--json'], { env: sb.env });
    expect(JSON.parse(found.stdout).results.map((b: { title: string }) => b.title)).toEqual(['The Tidewater Almanac']);
  });

  it('a file of several parts (over 1 MiB each) is loaded whole, in one transaction; sent again it updates', async () => {
    const big = onixFile('big.xml', 3000, 0);
    expect(readFileSync(big).length).toBeGreaterThan(3 * 1024 * 1024);
    const r = await load(big, '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ format: 'onix', records: 3000, added: 3000, updated: 0, refused: 0, committed: true, publishers_created: ['Remote Press'] });
    const again = await load(onixFile('again.xml', 3000, 0, '5.49'), '--json', '--publisher', 'Remote Press');
    expect(JSON.parse(again.stdout)).toMatchObject({ records: 3000, added: 0, updated: 3000 });
    const pricing = await run(['book', 'pricing', '--isbn', isbn13('979177700000'), '--json'], { env: sb.env });
    expect(JSON.parse(pricing.stdout).digital_pricing.map((p: { price: string }) => p.price)).toContain('5.49');
  });

  it('refused records: listed by record and line, exit 6; --strict loads nothing, exit 2; an unreadable file, exit 2', async () => {
    const bad = join(dir, 'bad.csv');
    writeFileSync(bad, 'isbn13,title,price\n9781770100091,Fine,5.00\n9781770100016,Bad,5.00\n');
    const r = await load(bad, '--publisher', 'Tidewater Press');
    expect(r.code).toBe(6);
    expect(r.stderr).toContain('record 2 (line 3) [9781770100016]: ISBN 9781770100016 has a bad check digit');
    expect(r.stderr).toContain('1 added, 0 updated, 0 withdrawn, 1 refused');

    writeFileSync(bad, 'isbn13,title,price\n9781770100107,Fine,5.00\n9781770100016,Bad,5.00\n');
    const strict = await load(bad, '--publisher', 'Tidewater Press', '--strict');
    expect(strict.code).toBe(2);
    expect(strict.stderr).toContain('(CSV, 2 records): 1 added, 0 updated, 0 withdrawn, 1 refused');
    expect(strict.stderr).toContain('With --strict nothing was loaded');
    expect((await run(['book', 'get', '--isbn', '9781770100107'], { env: sb.env })).code).toBe(3);

    const broken = join(dir, 'broken.xml');
    writeFileSync(broken, readFileSync(onixFile('ok.xml', 2, 5000)).toString().replace('</ONIXMessage>', '</ONIX>'));
    const unreadable = await load(broken);
    expect(unreadable.code).toBe(2);
    expect(unreadable.stderr).toMatch(/broken\.xml: The file is not well-formed XML \(line \d+, column \d+\): .* Nothing was loaded \(2 records were read before it\)\./);
    expect((await run(['book', 'get', '--isbn', isbn13('979177705000')], { env: sb.env })).code).toBe(3);

    // The sandbox is ready for the next load: nothing was left running.
    expect((await load(onixFile('after.xml', 1, 6000))).code).toBe(0);
  });

  it('without the control secret: exit 4 naming where it comes from; nothing was loaded', async () => {
    const r = await run(['sandbox', 'catalogue', 'load', onixFile('secret.xml', 1, 7000), '--url', sb.url], { env: { ...sb.env, BOOKDIST_SANDBOX_SECRET: 'wrong' } });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('BOOKDIST_SANDBOX_SECRET');
    expect((await run(['book', 'get', '--isbn', isbn13('979177707000')], { env: sb.env })).code).toBe(3);
  });
});
