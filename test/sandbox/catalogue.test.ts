// Loading a partner's catalogue (ONIX 3.0, CSV) into the sandbox, in process on an in-memory
// database: what each form of a real feed gives, invalid records, updates and withdrawals, one
// transaction, and --strict.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanupKeyFiles } from '../../src/sandbox/control.js';
import { readCsv } from '../../src/sandbox/catalogue/csv.js';
import { loadedHashId } from '../../src/sandbox/catalogue/checks.js';
import { loadCatalogue } from '../../src/sandbox/catalogue/load.js';
import { CatalogueFileError, StrictRefusal, type LoadOptions } from '../../src/sandbox/catalogue/summary.js';
import { ONIX_SHORT_TAGS } from '../../src/sandbox/catalogue/onix-tags.js';
import { readOnix } from '../../src/sandbox/catalogue/onix.js';
import type { Store } from '../../src/sandbox/db/store.js';
import { seededMemoryStore } from '../helpers/memory-store.js';

const SAMPLE_ONIX = readFileSync(
  fileURLToPath(new URL('../../docs/samples/catalogue.onix.xml', import.meta.url)),
  'utf8',
);
const SAMPLE_CSV = readFileSync(fileURLToPath(new URL('../../docs/samples/catalogue.csv', import.meta.url)), 'utf8');

/** The bytes in small chunks, so that tags, characters and UTF-8 sequences are split across them. */
async function* chunks(data: Buffer | string, size = 37): AsyncGenerator<Buffer> {
  const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

let store: Store;

/** A valid ISBN-13 from its first twelve digits. */
function isbn13(first12: string): string {
  const sum = [...first12].reduce((n, d, k) => n + Number(d) * (k % 2 ? 3 : 1), 0);
  return first12 + ((10 - (sum % 10)) % 10);
}
beforeEach(async () => {
  store = await seededMemoryStore();
});
afterEach(() => {
  cleanupKeyFiles(store);
  store.close();
});

const onix = (xml: Buffer | string, opts?: LoadOptions) =>
  loadCatalogue(store, 'onix', (l) => readOnix(chunks(xml), l), opts);
const csv = (text: string, opts?: LoadOptions) => loadCatalogue(store, 'csv', () => readCsv(chunks(text)), opts);
const book = (eisbn: string) =>
  store.get(
    'SELECT b.*, p.title AS publisher FROM books b JOIN publishers p ON p.id = b.publisher_id WHERE eisbn13 = ?',
    eisbn,
  );
const prices = (eisbn: string) =>
  store.all(
    'SELECT currency, price, limit_days, deactivated_at FROM pricing WHERE book_id = (SELECT id FROM books WHERE eisbn13 = ?) ORDER BY id',
    eisbn,
  );

/** The sample rewritten in short tags (element names only; attributes and text as they are). */
function toShortTags(xml: string): string {
  const byReference = new Map(Object.entries(ONIX_SHORT_TAGS).map(([short, ref]) => [ref, short]));
  return xml.replace(/<(\/?)([A-Za-z]+)([\s>/])/g, (m, slash, name, after) =>
    byReference.has(name) ? `<${slash}${byReference.get(name)}${after}` : m,
  );
}

/** One product around the given DescriptiveDetail etc. */
function product(
  isbn: string,
  inner: { form?: string; title?: string; notification?: string; extra?: string; price?: string; ref?: string } = {},
): string {
  return `<Product><RecordReference>${inner.ref ?? 'ref-' + isbn}</RecordReference><NotificationType>${inner.notification ?? '03'}</NotificationType>
<ProductIdentifier><ProductIDType>15</ProductIDType><IDValue>${isbn}</IDValue></ProductIdentifier>
<DescriptiveDetail><ProductComposition>00</ProductComposition><ProductForm>${inner.form ?? 'ED'}</ProductForm>
${inner.title === '' ? '' : `<TitleDetail><TitleType>01</TitleType><TitleElement><TitleElementLevel>01</TitleElementLevel><TitleText>${inner.title ?? 'Title ' + isbn}</TitleText></TitleElement></TitleDetail>`}
</DescriptiveDetail>${inner.extra ?? ''}
<PublishingDetail><Publisher><PublishingRole>01</PublishingRole><PublisherName>Tidewater Press</PublisherName></Publisher></PublishingDetail>
<ProductSupply><SupplyDetail><Price><PriceAmount>${inner.price ?? '9.99'}</PriceAmount><CurrencyCode>USD</CurrencyCode></Price></SupplyDetail></ProductSupply></Product>`;
}
const message = (...products: string[]) =>
  `<?xml version="1.0"?>\n<ONIXMessage release="3.0">\n<Header><Sender><SenderName>Tidewater Press</SenderName></Sender></Header>\n${products.join('\n')}\n</ONIXMessage>\n`;

describe('ONIX 3.0', () => {
  it('loads the sample: digital editions with their prices, print ISBN, header defaults; print and audio skipped and counted', async () => {
    const s = await onix(SAMPLE_ONIX);
    expect(s).toMatchObject({
      format: 'onix',
      records: 5,
      added: 3,
      updated: 0,
      withdrawn: 0,
      refused: 0,
      skipped: 2,
      committed: true,
    });
    expect(s.skipped_by_reason).toEqual({ 'print edition': 1, 'audio edition': 1 });
    expect(s.not_represented).toEqual({ 'collection (series) titles': 1, 'contributors other than authors': 1 });
    expect(s.publishers_created).toEqual(['Tidewater Press']);

    const almanac = book('9781770100015');
    expect(almanac).toMatchObject({
      title: 'The Tidewater Almanac', // TitlePrefix + TitleWithoutPrefix
      subtitle: 'Twelve Months on the Estuary',
      author: 'Ada Marlowe', // PersonNameInverted "Marlowe, Ada"
      description: 'A year of tides & storms on the estuary, month by month.', // escaped HTML, &amp;amp;
      language: 'en',
      num_pages: 264,
      publish_year: 2024,
      isbn13: '9781770200012', // the print edition (RelatedProduct 13)
      parent_isbn: '9781770200012',
      eisbn13: '9781770100015',
      sku: 'TWP-E-0001',
      publisher: 'Tidewater Press',
      hash_id: loadedHashId('9781770100015'),
      is_active: 1,
      is_published: 1,
      is_processed: 1,
    });
    expect(prices('9781770100015')).toEqual([
      { currency: 'USD', price: '12.99', limit_days: 0, deactivated_at: null },
      { currency: 'USD', price: '4.99', limit_days: 30, deactivated_at: null },
      { currency: 'GBP', price: '9.99', limit_days: 0, deactivated_at: null },
    ]);
    // GTIN-13 as the identifier, a character reference in a name, the header's currency and language.
    expect(book('9781770100022')).toMatchObject({
      title: 'Salt Marsh Recipes',
      author: 'Renée Holt',
      language: 'en',
      num_pages: 192,
      publish_year: 2023,
      isbn13: '9781770100022',
      parent_isbn: '',
    });
    expect(prices('9781770100022')).toEqual([{ currency: 'USD', price: '8.49', limit_days: 0, deactivated_at: null }]);
    // An advance notification (02) is loaded unpublished.
    expect(book('9781770100053')).toMatchObject({ title: 'Winter Harbour', is_published: 0, is_public: 0 });
    // The partner account controls the new publisher; the seed is untouched.
    expect(
      store.get(
        "SELECT count(*) AS n FROM account_publishers ap JOIN publishers p ON p.id = ap.publisher_id WHERE p.title = 'Tidewater Press' AND ap.account_id = 1",
      )!.n,
    ).toBe(1);
    expect(store.get('SELECT count(*) AS n FROM books WHERE loaded_at IS NULL')!.n).toBe(22);
    // Searchable at once, through the text index.
    expect(
      store
        .all(
          'SELECT books.title FROM books_fts JOIN books ON books.id = books_fts.rowid WHERE books_fts MATCH \'title : "Tid" AND title : "ewa"\' ORDER BY books.id',
        )
        .map((r) => r.title),
    ).toContain('The Tidewater Almanac');
  });

  const same = (s: { added: number; skipped: number; refused: number }) =>
    expect([s.added, s.skipped, s.refused]).toEqual([3, 2, 0]);

  it('reads short tags, no namespace, another namespace, a BOM, ISO-8859-1 and UTF-16 alike', async () => {
    const short = toShortTags(SAMPLE_ONIX).replace(
      'xmlns="http://ns.editeur.org/onix/3.0/reference"',
      'xmlns="http://ns.editeur.org/onix/3.0/short"',
    );
    expect(short).toContain('<b031>Tidewater Almanac</b031>');
    same(await onix(short));
    expect(book('9781770100015')).toMatchObject({
      title: 'The Tidewater Almanac',
      author: 'Ada Marlowe',
      isbn13: '9781770200012',
    });

    const variants: Array<[string, Buffer]> = [
      ['no namespace', Buffer.from(SAMPLE_ONIX.replace(/ xmlns="[^"]*"/, ''))],
      [
        'a wrong namespace, prefixed',
        Buffer.from(
          SAMPLE_ONIX.replace(/ xmlns="[^"]*"/, ' xmlns:o="http://example.com/not-onix"').replace(
            /<(\/?)([A-Z])/g,
            '<$1o:$2',
          ),
        ),
      ],
      ['a UTF-8 byte-order mark', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(SAMPLE_ONIX)])],
      [
        'ISO-8859-1, declared',
        Buffer.from(
          SAMPLE_ONIX.replace('encoding="UTF-8"', 'encoding="ISO-8859-1"').replace('Ren&#233;e', 'Renée'),
          'latin1',
        ),
      ],
      [
        'UTF-16LE with a BOM',
        Buffer.concat([
          Buffer.from([0xff, 0xfe]),
          Buffer.from(SAMPLE_ONIX.replace('encoding="UTF-8"', 'encoding="UTF-16"'), 'utf16le'),
        ]),
      ],
    ];
    for (const [what, bytes] of variants) {
      store.run('DELETE FROM pricing WHERE book_id IN (SELECT id FROM books WHERE loaded_at IS NOT NULL)');
      store.run('DELETE FROM books WHERE loaded_at IS NOT NULL');
      const s = await onix(bytes);
      expect([what, s.added, s.skipped, s.refused]).toEqual([what, 3, 2, 0]);
      expect([what, book('9781770100022')?.author]).toEqual([what, 'Renée Holt']);
    }
  });

  it('takes HTML entities that feeds made for the ONIX 2.1 DTD use, and inline XHTML', async () => {
    const s = await onix(
      message(
        product('9781770100015', {
          title: 'Caf&eacute; at the Quay&nbsp;&mdash; Stories',
          extra:
            '<CollateralDetail><TextContent><TextType>03</TextType><Text textformat="05"><p>First <em>part</em>.</p><p>Second&#160;part.</p></Text></TextContent></CollateralDetail>',
        }),
      ),
    );
    expect(s.added).toBe(1);
    expect(book('9781770100015')).toMatchObject({
      title: 'Café at the Quay\u00a0— Stories',
      description: 'First part. Second\u00a0part.',
    });
  });

  it('links a digital edition to a print edition named later in the file (RelatedProduct 27)', async () => {
    const print = `<Product><RecordReference>p</RecordReference><NotificationType>03</NotificationType>
<ProductIdentifier><ProductIDType>15</ProductIDType><IDValue>9781770200036</IDValue></ProductIdentifier>
<DescriptiveDetail><ProductForm>BC</ProductForm></DescriptiveDetail>
<RelatedMaterial><RelatedProduct><ProductRelationCode>27</ProductRelationCode><ProductIdentifier><ProductIDType>03</ProductIDType><IDValue>9781770100039</IDValue></ProductIdentifier></RelatedProduct></RelatedMaterial></Product>`;
    const s = await onix(message(product('9781770100039'), print));
    expect(s).toMatchObject({ added: 1, skipped: 1 });
    expect(book('9781770100039')).toMatchObject({
      isbn13: '9781770200036',
      parent_isbn: '9781770200036',
      eisbn13: '9781770100039',
    });
  });

  it('reads products whose parts come in another order in each: every element is found by its name whatever came before it', async () => {
    // The reader guesses an element from the ones that followed the element before it earlier in
    // the file (a few are kept): here each part follows NotificationType, and each other part, in
    // turn, so the guesses miss and are replaced all along; and a Contributor begins with one of
    // two names of one length (SequenceNumber, NamesBeforeKey).
    const parts = (i: number, isbn: string) => [
      `<ProductIdentifier><ProductIDType>15</ProductIDType><IDValue>${isbn}</IDValue></ProductIdentifier>`,
      `<DescriptiveDetail><ProductForm>ED</ProductForm><TitleDetail><TitleType>01</TitleType><TitleElement><TitleElementLevel>01</TitleElementLevel><TitleText>Order ${i}</TitleText></TitleElement></TitleDetail>${i % 2 ? `<Contributor><SequenceNumber>1</SequenceNumber><ContributorRole>A01</ContributorRole><KeyNames>Author ${i}</KeyNames></Contributor>` : `<Contributor><NamesBeforeKey>Author</NamesBeforeKey><KeyNames>${i}</KeyNames><ContributorRole>A01</ContributorRole></Contributor>`}<Extent><ExtentType>00</ExtentType><ExtentValue>${100 + i}</ExtentValue><ExtentUnit>03</ExtentUnit></Extent></DescriptiveDetail>`,
      `<CollateralDetail><TextContent><TextType>03</TextType><Text>Told ${i} ways.</Text></TextContent></CollateralDetail>`,
      `<PublishingDetail><Publisher><PublishingRole>01</PublishingRole><PublisherName>Tidewater Press</PublisherName></Publisher><PublishingDate><PublishingDateRole>01</PublishingDateRole><Date>${2001 + i}0101</Date></PublishingDate></PublishingDetail>`,
      `<RelatedMaterial><RelatedProduct><ProductRelationCode>13</ProductRelationCode><ProductIdentifier><ProductIDType>15</ProductIDType><IDValue>${isbn13('97817703' + String(i).padStart(4, '0'))}</IDValue></ProductIdentifier></RelatedProduct></RelatedMaterial>`,
      `<ProductSupply><SupplyDetail><Price><PriceAmount>${i + 1}.50</PriceAmount><CurrencyCode>USD</CurrencyCode></Price></SupplyDetail></ProductSupply>`,
    ];
    const isbns = Array.from({ length: 12 }, (_, i) => isbn13('97817704' + String(i).padStart(4, '0')));
    const products = isbns.map((isbn, i) => {
      const p = parts(i, isbn);
      const turned = [...p.slice(i % p.length), ...p.slice(0, i % p.length)];
      return `<Product><RecordReference>o-${i}</RecordReference><NotificationType>03</NotificationType>${i % 2 ? turned.join('') : turned.reverse().join('\n')}</Product>`;
    });
    const s = await onix(message(...products));
    expect(s).toMatchObject({ added: 12, refused: 0, skipped: 0 });
    isbns.forEach((isbn, i) => {
      expect(book(isbn)).toMatchObject({
        title: `Order ${i}`,
        author: `Author ${i}`,
        description: `Told ${i} ways.`,
        num_pages: 100 + i,
        publish_year: 2001 + i,
        publisher: 'Tidewater Press',
        parent_isbn: isbn13('97817703' + String(i).padStart(4, '0')),
      });
      expect(prices(isbn)).toEqual([{ currency: 'USD', price: `${i + 1}.50`, limit_days: 0, deactivated_at: null }]);
    });
  });

  it('refuses invalid records with their number, line, reference and reason, and loads the rest in one transaction', async () => {
    const xml = message(
      product('9781770100015'),
      product('9781770100016', { ref: 'bad-check' }), // bad check digit
      product('9781770100022', { title: '' }), // no title
      product('9781770100039', { price: 'twelve' }), // price not a number
      product('9781770100015', { ref: 'again' }), // the same ISBN twice
      product('9781770100046'),
    );
    const s = await onix(xml);
    expect(s).toMatchObject({ records: 6, added: 2, refused: 4, committed: true });
    expect(s.refusals.map((r) => [r.record, r.reference, r.reason])).toEqual([
      [2, 'bad-check', 'ISBN-13 9781770100016 has a bad check digit (6; the digits before it give 5)'],
      [3, 'ref-9781770100022', 'no title'],
      [4, 'ref-9781770100039', 'price "twelve" is not a number (like 14.99)'],
      [5, 'again', 'ISBN 9781770100015 is also in record 1 of this file'],
    ]);
    // Lines: where each <Product> starts.
    const lines = xml.split('\n');
    for (const r of s.refusals) expect(lines[r.line! - 1]).toContain('<Product>');
    expect(book('9781770100015')).toBeDefined();
    expect(book('9781770100046')).toBeDefined();
  });

  it('--strict: one refused record and nothing is loaded', async () => {
    const before = store.get('SELECT count(*) AS n FROM books')!.n;
    const err = await onix(message(product('9781770100015'), product('9781770100016')), { strict: true }).catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(StrictRefusal);
    expect(err.summary).toMatchObject({ added: 1, refused: 1 });
    expect(store.get('SELECT count(*) AS n FROM books')!.n).toBe(before);
    expect(store.get("SELECT count(*) AS n FROM publishers WHERE title = 'Tidewater Press'")!.n).toBe(0);
  });

  it('a file that is not well-formed XML, or not ONIX, loads nothing and says where', async () => {
    const broken = message(product('9781770100015'), '<Product><RecordReference>x</Record>');
    const err = await onix(broken).catch((e) => e);
    expect(err).toBeInstanceOf(CatalogueFileError);
    expect(err.message).toMatch(/not well-formed XML \(line \d+, column \d+\)/);
    expect(book('9781770100015')).toBeUndefined();
    await expect(onix('<?xml version="1.0"?><rss><channel/></rss>')).rejects.toThrow(
      /not an ONIX for Books file: its root element is <rss>/,
    );
    await expect(
      onix(
        Buffer.from(
          '<?xml version="1.0" encoding="UTF-8"?><ONIXMessage><Header><SenderName>\xff\xfe</SenderName></Header></ONIXMessage>',
          'latin1',
        ),
      ),
    ).rejects.toThrow(/not valid UTF-8/);
  });

  it('feeds are re-sent: 03 updates in place (orders and prices still ordered survive), 05 withdraws', async () => {
    await onix(SAMPLE_ONIX);
    const before = book('9781770100015')!;
    const oldPrice = store.get(
      "SELECT id FROM pricing WHERE book_id = ? AND currency = 'USD' AND limit_days = 0",
      before.id,
    )!.id;
    // An order of the lifetime price, as `order create` makes one.
    const order = store.run(
      "INSERT INTO orders(account_id, user_id, kind, is_complete, created_at) VALUES (1, 1, 'external', 1, 0)",
    ).lastInsertRowid;
    store.run(
      `INSERT INTO order_items(order_id, user_id, book_id, pricing_id, source, purchase_price, quantity, is_digital, is_print, is_active, is_refunded, purchase_date)
       VALUES (?, 1, ?, ?, 'external', '12.99', 1, 1, 0, 1, 0, 0)`,
      order,
      before.id,
      oldPrice,
    );
    const update = SAMPLE_ONIX.replace('<PriceAmount>12.99</PriceAmount>', '<PriceAmount>10.99</PriceAmount>').replace(
      'Twelve Months on the Estuary',
      'A Year on the Estuary',
    );
    const s = await onix(update);
    expect(s).toMatchObject({ added: 0, updated: 3, refused: 0 });
    const after = book('9781770100015')!;
    expect(after).toMatchObject({ id: before.id, hash_id: before.hash_id, subtitle: 'A Year on the Estuary' });
    const p = prices('9781770100015');
    expect(p.filter((x) => x.deactivated_at === null).map((x) => `${x.currency} ${x.price} ${x.limit_days}`)).toEqual([
      'USD 4.99 30',
      'GBP 9.99 0',
      'USD 10.99 0',
    ]);
    expect(store.get('SELECT deactivated_at FROM pricing WHERE id = ?', oldPrice)!.deactivated_at).not.toBeNull();
    expect(store.get('SELECT pricing_id, is_active FROM order_items WHERE order_id = ?', order)).toEqual({
      pricing_id: oldPrice,
      is_active: 1,
    });
    // Every price of the book changed: all three deactivated, the new ones live; another book's price untouched.
    const repriced = update
      .replace('<PriceAmount>10.99</PriceAmount>', '<PriceAmount>11.49</PriceAmount>')
      .replace('<PriceAmount>4.99</PriceAmount>', '<PriceAmount>5.49</PriceAmount>')
      .replace('<PriceAmount>9.99</PriceAmount>', '<PriceAmount>10.49</PriceAmount>');
    expect(await onix(repriced)).toMatchObject({ updated: 3, refused: 0 });
    const q = prices('9781770100015');
    expect(q.filter((x) => x.deactivated_at === null).map((x) => `${x.currency} ${x.price} ${x.limit_days}`)).toEqual([
      'USD 11.49 0',
      'USD 5.49 30',
      'GBP 10.49 0',
    ]);
    expect(q.filter((x) => x.deactivated_at !== null)).toHaveLength(4);
    expect(prices('9781770100022')).toEqual([{ currency: 'USD', price: '8.49', limit_days: 0, deactivated_at: null }]);

    const withdraw = message(
      product('9781770100015', { notification: '05' }),
      product('9781770100060', { notification: '05' }),
    );
    const w = await onix(withdraw);
    expect(w).toMatchObject({ withdrawn: 1, refused: 1 });
    expect(w.refusals[0].reason).toMatch(/not in the sandbox's catalogue: nothing to withdraw/);
    expect(book('9781770100015')).toMatchObject({ is_active: 0, is_published: 0 });
    expect(prices('9781770100015').every((x) => x.deactivated_at !== null)).toBe(true);
    expect(store.get('SELECT count(*) AS n FROM order_items WHERE order_id = ?', order)!.n).toBe(1);
    // Sent again as 03, the title is back on sale.
    await onix(SAMPLE_ONIX);
    expect(book('9781770100015')).toMatchObject({ is_active: 1, is_published: 1 });
  });

  it("books go under the partner account: --publisher chooses one, another account's publisher is refused", async () => {
    const s = await onix(message(product('9781770100015')), { publisher: 'Harbor Lane Press' });
    expect(s.publishers_created).toEqual([]);
    expect(book('9781770100015')!.publisher).toBe('Harbor Lane Press');
    const foreign = await onix(message(product('9781770100022')), { publisher: 'Copperleaf Books' });
    expect(foreign.refusals[0].reason).toMatch(/publisher "Copperleaf Books" belongs to another account/);
    // A seeded book of a publisher the partner does not control cannot be changed through a file.
    const copperleaf = store.get('SELECT eisbn13 FROM books WHERE publisher_id = 3 LIMIT 1')!.eisbn13;
    const t = await onix(message(product(copperleaf)), { publisher: 'Harbor Lane Press' });
    expect(t.refusals[0].reason).toMatch(/does not control/);
  });
});

describe('CSV', () => {
  it('loads the sample: prices and rentals, the print ISBN, quoted fields', async () => {
    const s = await csv(SAMPLE_CSV);
    expect(s).toMatchObject({ format: 'csv', records: 2, added: 2, refused: 0 });
    expect(book('9781770100039')).toMatchObject({
      title: 'Harbour Lights',
      subtitle: 'A Novel',
      isbn13: '9781770200036',
      parent_isbn: '9781770200036',
      sku: 'TWP-E-0003',
      num_pages: 288,
      publish_year: 2022,
    });
    expect(prices('9781770100039').map((x) => `${x.currency} ${x.price} ${x.limit_days}`)).toEqual([
      'USD 11.99 0',
      'USD 3.99 30',
    ]);
    expect(book('9781770100060')).toMatchObject({
      title: 'Knots, Nets and Sails',
      description: 'A practical guide to the working waterfront, with "how-to" drawings.',
      sku: 'EB-9781770100060',
    });
  });

  it('reports invalid rows by record number and the line where they start; a row with the same ISBN updates', async () => {
    const text = [
      'isbn13,title,price,pages,shelf',
      '9781770100015,Good,9.99,100,A1',
      '9781770100016,Bad checksum,9.99,100,',
      '9781770100022,"Two',
      'lines",abc,100,',
      '9781770100039,,9.99,100,',
      '9781770100046,Pages,9.99,many,',
      '9781770100015,Twice,9.99,100,',
    ].join('\n');
    const s = await csv(text, { publisher: 'Tidewater Press' });
    expect(s).toMatchObject({ records: 6, added: 1, refused: 5 });
    expect(s.refusals.map((r) => [r.record, r.line, r.reason])).toEqual([
      [2, 3, 'ISBN 9781770100016 has a bad check digit (6; the digits before it give 5)'],
      [3, 4, 'price "abc" is not a number (like 14.99)'],
      [4, 6, 'no title'],
      [5, 7, 'page count "many" is not a whole number from 1 to 100000'],
      [6, 8, 'ISBN 9781770100015 is also in record 1 of this file'],
    ]);
    expect(s.not_represented).toEqual({ 'column shelf': 1 });
    const again = await csv('isbn13,price\n9781770100015,7.00\n', {});
    expect(again).toMatchObject({ updated: 1, added: 0 });
    expect(book('9781770100015')!.title).toBe('Good');
    expect(
      prices('9781770100015')
        .filter((x) => x.deactivated_at === null)
        .map((x) => x.price),
    ).toEqual(['7.00']);
    const gone = await csv('isbn13,action\n9781770100015,withdraw\n');
    expect(gone.withdrawn).toBe(1);
  });

  it('a re-sent row that changes every field changes each of them in place (same book, same hash id)', async () => {
    const header =
      'isbn13,title,subtitle,author,publisher,language,pages,publish_date,description,sku,print_isbn13,price,currency';
    await csv(
      `${header}\n9781770100015,Old Title,Old Sub,Old Author,Tidewater Press,en,288,2020,Old text,SKU-OLD,9781770200036,9.99,USD\n`,
    );
    const before = book('9781770100015')!;
    const s = await csv(
      `${header}\n9781770100015,New Title,New Sub,New Author,Harbour Books,fr,285,2023,New text,SKU-NEW,9780306406157,9.99,USD\n`,
    );
    expect(s).toMatchObject({ updated: 1, added: 0, refused: 0 });
    expect(book('9781770100015')).toMatchObject({
      id: before.id,
      hash_id: before.hash_id,
      title: 'New Title',
      subtitle: 'New Sub',
      author: 'New Author',
      publisher: 'Harbour Books',
      language: 'fr',
      num_pages: 285, // the same sample (28 pages) as 288: only num_pages says it changed
      publish_year: 2023,
      description: 'New text',
      sku: 'SKU-NEW',
      parent_isbn: '9780306406157',
      isbn13: '9780306406157',
      isbn10: '0306406152',
      eisbn13: '9781770100015',
    });
  });

  it('prices: up to nine digits and four decimals; anything else is refused by its text', async () => {
    const rows = ['1', '123456789', '14.99', '0.0001', '1234567890', '1.23456', '14.', '.99', 'x14.99', '14.99x'];
    const text = [
      'isbn13,title,price,currency',
      ...rows.map((p, i) => `${isbn13(String(978177010010 + i))},T${i},${p},USD`),
    ].join('\n');
    const s = await csv(text, { publisher: 'Tidewater Press' });
    expect(s.refusals.map((r) => r.reason)).toEqual(
      rows.slice(4).map((p) => `price "${p}" is not a number (like 14.99)`),
    );
    expect(s.added).toBe(4);
  });

  it('a header without isbn13, or an unclosed quote, loads nothing', async () => {
    await expect(csv('title,price\nA,1\n')).rejects.toThrow(/no isbn13 column/);
    const err = await csv('isbn13,title\n9781770100015,Fine\n9781770100022,"Open\n', {
      publisher: 'Tidewater Press',
    }).catch((e) => e);
    expect(err).toBeInstanceOf(CatalogueFileError);
    expect(err.message).toMatch(
      /^The CSV file cannot be read \(line \d+\): a quoted field is never closed \(the file ends inside it\); close it, or double a quote/,
    );
    expect(book('9781770100015')).toBeUndefined();
  });
});

describe("ISBN-10 (ONIX ProductIDType 02, or the CSV isbn13 column): its check digit is checked as an ISBN-13's is", () => {
  const isbn10 = (isbn: string, ref: string) =>
    product(isbn, { ref }).replace('<ProductIDType>15</ProductIDType>', '<ProductIDType>02</ProductIDType>');

  it('ONIX: 0306406152 loads as 9780306406157, 0306406153 is refused and nothing is added for it', async () => {
    const s = await onix(
      message(isbn10('0306406152', 'good'), isbn10('0306406153', 'bad'), isbn10('080442957X', 'x-check')),
    );
    expect(s.refusals.map((r) => [r.reference, r.reason])).toEqual([
      ['bad', 'ISBN-10 0306406153 (ISBN-10) has a bad check digit'],
    ]);
    expect(s).toMatchObject({ added: 2, refused: 1 });
    expect(book('9780306406157')).toBeDefined();
    expect(book('9780804429573')).toBeDefined();
    expect(book('9780306406157')!.eisbn13).toBe('9780306406157');
    expect(store.get('SELECT COUNT(*) AS n FROM books WHERE eisbn13 LIKE ?', '978030640615%')).toEqual({ n: 1 });
  });

  it('CSV: a bad ISBN-10 is refused by record and line; a good one loads as its ISBN-13', async () => {
    const s = await csv('isbn13,title,price\n0306406153,Bad,9.99\n0-306-40615-2,Good,9.99\n', {
      publisher: 'Tidewater Press',
    });
    expect(s.refusals.map((r) => [r.record, r.line, r.reason])).toEqual([
      [1, 2, 'ISBN 0306406153 (ISBN-10) has a bad check digit'],
    ]);
    expect(s).toMatchObject({ added: 1, refused: 1 });
    expect(book('9780306406157')!.title).toBe('Good');
  });
});

describe('what a loaded book gets from its ISBNs and prices', () => {
  it('ISBN-10 columns: the check character X, and 0 where the sum is a multiple of eleven; none for a 979 ISBN', async () => {
    const s = await csv(
      [
        'isbn13,title,price,print_isbn13',
        '9781770100138,Ten X,9.99,',
        '9781770100183,Ten Zero,9.99,',
        '9791770100014,Nine Seven Nine,9.99,',
        '9781770100350,Printed as 979,9.99,9791770100021',
      ].join('\n'),
      { publisher: 'Tidewater Press' },
    );
    expect(s).toMatchObject({ added: 4, refused: 0 });
    const isbns = (eisbn: string) => {
      const b = book(eisbn)!;
      return [b.eisbn13, b.eisbn10, b.isbn13, b.isbn10];
    };
    expect(['9781770100138', '9781770100183', '9791770100014', '9781770100350'].map(isbns)).toEqual([
      ['9781770100138', '177010013X', '9781770100138', '177010013X'],
      ['9781770100183', '1770100180', '9781770100183', '1770100180'],
      ['9791770100014', '', '9791770100014', ''],
      ['9781770100350', '1770100350', '9791770100021', ''],
    ]);
  });

  it('each price says its term: lifetime, a rental of up to 30 days (it expires) and a longer one', async () => {
    await csv(
      [
        'isbn13,title,price,rental_price,rental_days,currency',
        '9781770100138,Thirty,9.99,2.99,30,USD',
        '9781770100183,Thirty-one,9.99,3.99,31,USD',
      ].join('\n'),
      { publisher: 'Tidewater Press' },
    );
    const terms = (eisbn: string) =>
      store.all(
        'SELECT price, description, description_limit, is_limited, limit_days, other_pricing FROM pricing WHERE book_id = (SELECT id FROM books WHERE eisbn13 = ?) ORDER BY id',
        eisbn,
      );
    const lifetime = {
      price: '9.99',
      description: 'Digital edition (lifetime access)',
      description_limit: 'Unlimited access',
      is_limited: 0,
      limit_days: 0,
      other_pricing: null,
    };
    expect(terms('9781770100138')).toEqual([
      lifetime,
      {
        price: '2.99',
        description: '30-day rental',
        description_limit: 'Access for 30 days',
        is_limited: 1,
        limit_days: 30,
        other_pricing: 'EXPIRATION',
      },
    ]);
    expect(terms('9781770100183')).toEqual([
      lifetime,
      {
        price: '3.99',
        description: '31-day rental',
        description_limit: 'Access for 31 days',
        is_limited: 1,
        limit_days: 31,
        other_pricing: 'LIMITED',
      },
    ]);
  });

  it('an ISBN with a digit too many or too few, or a GTIN-13 that is not a book, is refused for what it is', async () => {
    const given = [
      '19781770100015',
      '97817701000150',
      '10306406152',
      '03064061521',
      '1297800000005',
      '978177010001',
      `isbn:${'9'.repeat(60)}`,
    ];
    const s = await csv(['isbn13,title,price', ...given.map((isbn) => `${isbn},T,9.99`)].join('\n'), {
      publisher: 'Tidewater Press',
    });
    expect(s).toMatchObject({ added: 0, refused: given.length });
    expect(s.refusals.map((r) => r.reason)).toEqual([
      'ISBN "19781770100015" is not an ISBN-13',
      'ISBN "97817701000150" is not an ISBN-13',
      'ISBN "10306406152" is not an ISBN-13',
      'ISBN "03064061521" is not an ISBN-13',
      'ISBN 1297800000005 is not an ISBN (a GTIN-13 of a book starts 978 or 979)',
      'ISBN "978177010001" is not an ISBN-13',
      `ISBN "isbn:${'9'.repeat(35)}" is not an ISBN-13`,
    ]);
  });
});

describe("a record's checks: each refusal says what is wrong, and nothing of the record is written", () => {
  it('a new book whose print ISBN, own ISBN or SKU another book holds: isbn13 falls back to its own ISBN, or it is refused', async () => {
    const rows = [
      'isbn13,title,price,currency,sku,print_isbn13,publisher',
      // Takes 9781770200036 into its isbn13 column (and SKU EB-9781770100022).
      '9781770100015,First print,9.99,USD,EB-9781770100022,9781770200036,Tidewater Press',
      // The same print ISBN: its isbn13 is its own, the print one is its parent.
      '9781770100039,Second print,9.99,USD,,9781770200036,Tidewater Press',
      // Its own ISBN is another book's print ISBN (isbn13 column): refused.
      '9781770200036,Print as digital,9.99,USD,,,Tidewater Press',
      // The SKU it would get (EB-<ISBN>) is the first book's.
      '9781770100022,No SKU,9.99,USD,,,Tidewater Press',
    ];
    const s = await csv(rows.join('\n'));
    expect(s.refusals.map((r) => [r.line, r.reason])).toEqual([
      [4, 'ISBN 9781770200036 is already the print ISBN of another book'],
      [5, "the SKU EB-9781770100022 it would get is already another book's; give it a SKU"],
    ]);
    expect(book('9781770100015')).toMatchObject({ isbn13: '9781770200036', parent_isbn: '9781770200036' });
    expect(book('9781770100039')).toMatchObject({ isbn13: '9781770100039', parent_isbn: '9781770200036' });
  });

  it('CSV: print ISBN, pages, SKU, currency, rental term, publisher, ISBN', async () => {
    const long = 'S'.repeat(65);
    const rows = [
      'isbn13,title,price,currency,rental_price,rental_days,pages,sku,print_isbn13,publisher,publish_date',
      '9781770100015,Taken SKU,9.99,USD,,,100,SKU-1,9781770200036,Tidewater Press,',
      '9781770100022,Bad print,9.99,USD,,,,,9781770200037,Tidewater Press,',
      '9781770100039,Own print,9.99,USD,,,,,9781770100039,Tidewater Press,',
      '9781770100046,Zero pages,9.99,USD,,,0,,,Tidewater Press,',
      '9781770100053,Too many pages,9.99,USD,,,100001,,,Tidewater Press,',
      '9781770100060,Most pages,9.99,USD,,,100000,,,Tidewater Press,',
      `9781770100077,Long SKU,9.99,USD,,,,${long},,Tidewater Press,`,
      '9781770100084,Same SKU,9.99,USD,,,,SKU-1,,Tidewater Press,',
      '9781770100091,Euro,9.99,EURO,,,,,,Tidewater Press,',
      '9781770100107,Long rental,9.99,USD,1.99,36501,,,,Tidewater Press,',
      '9781770100114,Longest rental,9.99,USD,1.99,36500,,,,Tidewater Press,',
      `9781770100121,Long publisher,9.99,USD,,,,,,${'P'.repeat(201)},`,
      '9781770100138,No publisher,9.99,USD,,,,,,,',
      ',No ISBN,9.99,USD,,,,,,Tidewater Press,',
      '9781770100145,Pages after,9.99,USD,,,a12,,,Tidewater Press,',
      '9781770100152,Pages before,9.99,USD,,,12a,,,Tidewater Press,',
      '9781770100169,One page,9.99,usd,,,1,,,Tidewater Press,',
      `9781770100176,Longest SKU,9.99,USD,,,,${'S'.repeat(64)},,Tidewater Press,`,
      '9781770100183,Dollars,9.99,DOLLARSUSDX,,,,,,Tidewater Press,',
      `9781770100190,Long price,${'x'.repeat(25)},USD,,,,,,Tidewater Press,`,
      `9781770100206,Longest publisher,9.99,USD,,,,,,${'Q'.repeat(200)},`,
      '9781770100213,Soon,9.99,USD,,,,,,Tidewater Press,soon',
      `9781770100220,Long pages,9.99,USD,,,${'9'.repeat(25)},,,Tidewater Press,`,
    ];
    const s = await csv(rows.join('\n'));
    expect(s.refusals.map((r) => [r.line, r.reason])).toEqual([
      [3, 'print ISBN 9781770200037 has a bad check digit (7; the digits before it give 6)'],
      [4, "the print ISBN 9781770100039 is the edition's own ISBN"],
      [5, 'page count "0" is not a whole number from 1 to 100000'],
      [6, 'page count "100001" is not a whole number from 1 to 100000'],
      [8, `SKU "${long.slice(0, 20)}…" is longer than 64 characters`],
      [9, 'SKU SKU-1 is already the SKU of another book (9781770100015)'],
      [10, 'currency "EURO" is not an ISO 4217 code'],
      [11, 'rental of "36501" days is not a whole number of days up to 36500'],
      [13, `publisher name "${'P'.repeat(40)}…" is longer than 200 characters`],
      [14, 'no publisher (the record names none: give --publisher)'],
      [15, 'no ISBN-13 (an ISBN-13, a GTIN-13 of 978/979, or an ISBN-10)'],
      [16, 'page count "a12" is not a whole number from 1 to 100000'],
      [17, 'page count "12a" is not a whole number from 1 to 100000'],
      [20, 'currency "DOLLARSUSD" is not an ISO 4217 code'],
      [21, `price "${'x'.repeat(20)}" is not a number (like 14.99)`],
      [23, 'publish_date "soon" is not YYYY or YYYY-MM-DD'],
      [24, `page count "${'9'.repeat(20)}" is not a whole number from 1 to 100000`],
    ]);
    expect(s).toMatchObject({ added: 6, refused: 17, publishers_created: ['Tidewater Press', 'Q'.repeat(200)] });
    expect(book('9781770100060')!.num_pages).toBe(100000);
    expect(book('9781770100169')!.num_pages).toBe(1);
    expect(prices('9781770100169').map((p) => p.currency)).toEqual(['USD']);
    expect(book('9781770100176')!.sku).toBe('S'.repeat(64));
    expect(prices('9781770100114').map((p) => p.limit_days)).toEqual([0, 36500]);
    expect(book('9781770100213')).toBeUndefined();
    expect(book('9781770100022')).toBeUndefined();
  });

  it('CSV: a row with more than one problem is refused with each of them', async () => {
    const s = await csv(
      ['isbn13,title,price,currency,action', '9781770100015,Two problems,9.99,USD,replace,extra'].join('\n'),
    );
    expect(s.refusals.map((r) => [r.line, r.reason])).toEqual([
      [2, 'the row has 6 fields, the header 5; action "replace" is not add, update or withdraw'],
    ]);
    expect(book('9781770100015')).toBeUndefined();
  });

  it('a book already there keeps its publisher when the record names none, and its SKU may be sent again', async () => {
    await csv('isbn13,title,price,sku,publisher\n9781770100015,First,9.99,SKU-1,Tidewater Press\n');
    const s = await csv('isbn13,title,price,sku\n9781770100015,Second,9.99,SKU-1\n');
    expect(s).toMatchObject({ updated: 1, refused: 0 });
    expect(book('9781770100015')).toMatchObject({ title: 'Second', sku: 'SKU-1', publisher: 'Tidewater Press' });
  });

  it('--publisher is taken without the spaces around it; a book of a publisher the partner does not control cannot be withdrawn', async () => {
    const s = await csv('isbn13,title,price\n9781770100015,Spaced,9.99\n', { publisher: '  Tidewater Press  ' });
    expect(s).toMatchObject({ added: 1, publishers_created: ['Tidewater Press'] });
    expect(book('9781770100015')!.publisher).toBe('Tidewater Press');
    expect(store.get('SELECT description FROM publishers WHERE title = ?', 'Tidewater Press')).toEqual({
      description: 'Loaded from a catalogue file.',
    });
    const foreign = store.get('SELECT eisbn13 FROM books WHERE publisher_id = 3 LIMIT 1')!.eisbn13 as string;
    const w = await csv(`isbn13,action\n${foreign},withdraw\n`);
    expect(w.refusals.map((r) => r.reason)).toEqual([
      `ISBN ${foreign} is a book of a publisher that the partner account does not control`,
    ]);
    expect(book(foreign)!.is_active).toBe(1);
  });

  it('ONIX: a print product without an ISBN is skipped, its withdrawal refused for want of one', async () => {
    const noId = (xml: string) => xml.replace(/<ProductIdentifier>.*?<\/ProductIdentifier>/s, '');
    const s = await onix(
      message(
        noId(product('9781770100015', { form: 'BB', ref: 'print' })),
        noId(product('9781770100022', { form: 'BB', ref: 'print-gone', notification: '05' })),
      ),
    );
    expect(s.refusals.map((r) => [r.reference, r.reason])).toEqual([
      ['print-gone', 'no ISBN-13 (an ISBN-13, a GTIN-13 of 978/979, or an ISBN-10)'],
    ]);
    expect(s).toMatchObject({ skipped: 1, refused: 1, added: 0 });
  });

  it('ONIX: a price without a currency (and no default in the header) is refused; a second price of one currency and term is dropped and said', async () => {
    const noCurrency = product('9781770100015').replace('<CurrencyCode>USD</CurrencyCode>', '');
    const twice = product('9781770100022', {
      price: '9.99</PriceAmount><CurrencyCode>USD</CurrencyCode></Price><Price><PriceAmount>5.00',
    });
    const s = await onix(message(noCurrency, twice));
    expect(s.refusals.map((r) => r.reason)).toEqual(['price 9.99 has no currency (and the file gives no default)']);
    expect(s.not_represented).toMatchObject({ 'more than one price of a currency and term (the first is kept)': 1 });
    expect(prices('9781770100022').map((p) => `${p.currency} ${p.price}`)).toEqual(['USD 9.99']);
  });
});
