// A catalogue load's price writes (src/sandbox/repo/prices.ts): a record of many prices keeps
// them all, in record order, and a re-send deactivates exactly the live prices that changed
// (all of them in one statement, or some by id), not another book's nor the ones already
// deactivated.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { cleanupKeyFiles } from '../../src/sandbox/control.js';
import { loadCatalogue } from '../../src/sandbox/catalogue/load.js';
import { readOnix } from '../../src/sandbox/catalogue/onix.js';
import type { Store } from '../../src/sandbox/db/store.js';
import { seededMemoryStore } from '../helpers/memory-store.js';

let store: Store;
beforeEach(async () => {
  store = await seededMemoryStore();
});
afterEach(() => {
  cleanupKeyFiles(store);
  store.close();
});

const CURRENCIES = ['USD', 'EUR', 'GBP', 'CAD', 'AUD', 'NZD', 'CHF', 'SEK', 'NOK', 'DKK', 'PLN', 'CZK'];
const MANY = '9781770100015';
const ONE = '9781770100022';

/** A digital edition with a lifetime price in each of `amounts`' currencies, in that order. */
function product(isbn: string, amounts: Array<[string, string]>): string {
  const prices = amounts
    .map(
      ([currency, amount]) =>
        `<Price><PriceAmount>${amount}</PriceAmount><CurrencyCode>${currency}</CurrencyCode></Price>`,
    )
    .join('');
  return `<Product><RecordReference>ref-${isbn}</RecordReference><NotificationType>03</NotificationType>
<ProductIdentifier><ProductIDType>15</ProductIDType><IDValue>${isbn}</IDValue></ProductIdentifier>
<DescriptiveDetail><ProductComposition>00</ProductComposition><ProductForm>ED</ProductForm>
<TitleDetail><TitleType>01</TitleType><TitleElement><TitleElementLevel>01</TitleElementLevel><TitleText>Title ${isbn}</TitleText></TitleElement></TitleDetail>
</DescriptiveDetail>
<PublishingDetail><Publisher><PublishingRole>01</PublishingRole><PublisherName>Tidewater Press</PublisherName></Publisher></PublishingDetail>
<ProductSupply><SupplyDetail>${prices}</SupplyDetail></ProductSupply></Product>`;
}

async function load(...products: string[]) {
  const xml = `<?xml version="1.0"?>\n<ONIXMessage release="3.0">\n<Header><Sender><SenderName>Tidewater Press</SenderName></Sender></Header>\n${products.join('\n')}\n</ONIXMessage>\n`;
  async function* once() {
    yield Buffer.from(xml);
  }
  const s = await loadCatalogue(store, 'onix', (l) => readOnix(once(), l));
  expect(s).toMatchObject({ refused: 0 });
  return s;
}

type PriceOf = { id: number; currency: string; price: string; deactivated_at: number | null };
const pricesOf = (isbn: string) =>
  store.all<PriceOf>(
    'SELECT id, currency, price, deactivated_at FROM pricing WHERE book_id = (SELECT id FROM books WHERE eisbn13 = ?) ORDER BY id',
    isbn,
  );
const live = (isbn: string) =>
  pricesOf(isbn)
    .filter((p) => p.deactivated_at === null)
    .map((p) => `${p.currency} ${p.price}`);

it('a record with many prices keeps them all, in record order, and a re-send deactivates exactly the stale ones', async () => {
  const first = CURRENCIES.map((c, i): [string, string] => [c, `${10 + i}.00`]);
  await load(product(MANY, first), product(ONE, [['USD', '8.49']]));
  expect(live(MANY)).toEqual(first.map(([c, a]) => `${c} ${a}`));
  const ids = pricesOf(MANY).map((p) => p.id);
  expect(ids).toEqual([...ids].sort((a, b) => a - b));
  const other = pricesOf(ONE);

  // Every price changed: the twelve old ones deactivated, twelve new ones live in record order.
  const second = CURRENCIES.map((c, i): [string, string] => [c, `${20 + i}.00`]);
  await load(product(MANY, second), product(ONE, [['USD', '8.49']]));
  const after = pricesOf(MANY);
  expect(after.filter((p) => ids.includes(p.id)).every((p) => p.deactivated_at !== null)).toBe(true);
  expect(live(MANY)).toEqual(second.map(([c, a]) => `${c} ${a}`));
  expect(after).toHaveLength(24);
  expect(pricesOf(ONE)).toEqual(other);

  // All but one changed: that one keeps its id; the other eleven are deactivated, the old ones stay as they were.
  const third = second.map(([c, a], i): [string, string] => [c, i === 5 ? a : `${30 + i}.00`]);
  const kept = after.find((p) => p.currency === 'NZD' && p.deactivated_at === null)!;
  const deactivatedBefore = after.filter((p) => p.deactivated_at !== null);
  // A minute later: a price deactivated again would get another time.
  store.advanceClock(60_000);
  await load(product(MANY, third), product(ONE, [['USD', '8.49']]));
  const last = pricesOf(MANY);
  expect(last).toHaveLength(35);
  expect(last.find((p) => p.id === kept.id)).toEqual(kept);
  expect(last.filter((p) => deactivatedBefore.some((d) => d.id === p.id))).toEqual(deactivatedBefore);
  expect(last.filter((p) => p.deactivated_at !== null)).toHaveLength(23);
  expect(live(MANY)).toEqual(['NZD 25.00', ...third.filter((_, i) => i !== 5).map(([c, a]) => `${c} ${a}`)]);
  expect(pricesOf(ONE)).toEqual(other);
});
