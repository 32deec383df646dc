// One ONIX product as the parser gathers it (a draft of the parts the loader reads), and the
// rules that turn a draft into the loader's record: which identifier is the ISBN, which title is
// the product's own, who the authors are, which prices are digital rentals, which related product
// is the print edition.
import { languageCode, newRecord, plainText, type CatalogueRecord } from './record.js';

export interface Id {
  type?: string;
  value?: string;
}
export interface Contributor {
  seq: number;
  role?: string;
  name?: string;
  inverted?: string;
  before?: string;
  key?: string;
  corporate?: string;
}
export interface TitleEl {
  level?: string;
  prefix?: string;
  without?: string;
  text?: string;
  subtitle?: string;
}
export interface TitleGroup {
  type?: string;
  collection: boolean;
  elements: TitleEl[];
}
export interface Related {
  code?: string;
  ids: Id[];
}
export interface PriceCondition {
  type?: string;
  qtyType?: string;
  qty?: string;
  unit?: string;
}
export interface Price {
  type?: string;
  amount?: string;
  currency?: string;
  unpriced?: string;
  conditions: PriceCondition[];
}
export interface Draft {
  rec: CatalogueRecord;
  ids: Id[];
  notification?: string;
  form?: string;
  titles: TitleGroup[];
  contributors: Contributor[];
  related: Related[];
  languages: Array<{ role?: string; code?: string }>;
  extents: Array<{ type?: string; value?: string; unit?: string }>;
  dates: Array<{ role?: string; date?: string }>;
  publishers: Array<{ role?: string; name?: string }>;
  texts: Array<{ type?: string; text: string }>;
  prices: Price[];
  unpriced?: string;
}

export interface Header {
  currency?: string;
  priceType?: string;
  language?: string;
  sender?: string;
}

/** What the loader offers a reader: print editions that name their digital edition. */
export interface PrintEditionSink {
  notePrintEdition(digitalIsbn: string, printIsbn: string): void;
}

export function newDraft(number: number, line: number): Draft {
  return {
    rec: newRecord(number, line),
    ids: [],
    titles: [],
    contributors: [],
    related: [],
    languages: [],
    extents: [],
    dates: [],
    publishers: [],
    texts: [],
    prices: [],
  };
}

/** Days in a unit of ONIX list 169 (quantity unit). */
const UNIT_DAYS: Record<string, number> = { '07': 1, '08': 7, '09': 30, '10': 365 };

const ISBN_TYPES: Record<string, string> = { '15': 'ISBN-13', '03': 'GTIN-13', '02': 'ISBN-10' };

/** The ISBN among identifiers: ISBN-13 first, then a GTIN-13 of a book (978/979), then an ISBN-10. */
function isbnOf(ids: Id[]): { value: string; kind: string } | undefined {
  for (const type of ['15', '03', '02']) {
    for (const id of ids) {
      const v = id.value?.trim();
      if (id.type === type && v && (type !== '03' || /^97[89]/.test(v.replace(/[\s-]/g, ''))))
        return { value: v, kind: ISBN_TYPES[type] };
    }
  }
  return undefined;
}

/** `first second`, or the one of them that is not empty. */
const joined = (first: string | undefined, second: string): string => (first ? `${first} ${second}` : second);

function personName(c: Contributor): string | undefined {
  const name = c.name?.trim();
  if (name) return name;
  const key = c.key?.trim();
  if (key) return joined(c.before?.trim(), key);
  if (c.inverted?.trim()) {
    // "Voss, Helena" -> "Helena Voss"; a name without a comma as it is.
    const comma = c.inverted.indexOf(',');
    if (comma < 0) return c.inverted.trim();
    return joined(c.inverted.slice(comma + 1).trim(), c.inverted.slice(0, comma).trim());
  }
  return c.corporate?.trim() || undefined;
}

function titleOf(el: TitleEl): string | undefined {
  const without = el.without?.trim();
  if (without) return joined(el.prefix?.trim(), without);
  return el.text?.trim() || undefined;
}

/** A draft product to the loader's record. */
export function finishProduct(d: Draft, header: Header, sink?: PrintEditionSink): CatalogueRecord {
  const rec = d.rec;
  const isbn = identify(d, rec);
  rec.kind = kindOf(d.form, rec.action);
  productTitle(d, rec);
  authors(d, rec);
  details(d, header, rec);
  prices(d, header, rec);
  for (const r of d.related) {
    const other = isbnOf(r.ids);
    if (!other) continue;
    // ProductRelationCode (list 51): 13 "epublication based on" (print product); 06 alternative format.
    if (rec.kind === 'digital' && (r.code === '13' || (r.code === '06' && !rec.printIsbn))) rec.printIsbn = other.value;
    // 27 "electronic version available as": a print record naming its digital edition.
    if (rec.kind === 'print edition' && r.code === '27' && isbn && sink) sink.notePrintEdition(other.value, isbn.value);
  }
  return rec;
}

/** ProductIDTypes (list 5) the sandbox represents: proprietary, ISBN-10, GTIN-13, ISBN-13. */
const KNOWN_ID_TYPES = new Set(['01', '02', '03', '15']);

/** The record's ISBN, SKU and action (NotificationType); the ISBN found, if any. */
function identify(d: Draft, rec: CatalogueRecord): { value: string; kind: string } | undefined {
  const isbn = isbnOf(d.ids);
  if (isbn) {
    rec.isbn = isbn.value;
    rec.isbnKind = isbn.kind;
  }
  const proprietary = d.ids.find((i) => i.type === '01' && i.value?.trim());
  if (proprietary) rec.sku = proprietary.value!.trim();
  if (d.ids.some((i) => i.type && !KNOWN_ID_TYPES.has(i.type)))
    rec.unrepresented.push('identifiers other than ISBN and proprietary ids');
  // NotificationType (list 1): 05 delete; 01/02 announce a title not yet published.
  if (d.notification === '05') rec.action = 'withdraw';
  if (d.notification === '01' || d.notification === '02') rec.published = false;
  return isbn;
}

/** What the product is, from its ProductForm (list 150): `digital`, or why the sandbox skips it. */
function kindOf(productForm: string | undefined, action: CatalogueRecord['action']): string {
  const form = productForm?.trim().toUpperCase();
  if (!form) return action === 'withdraw' ? 'digital' : 'product form not given';
  if (form.startsWith('E') || form === 'DG') return 'digital';
  if (form.startsWith('B') || form.startsWith('P')) return 'print edition';
  if (form.startsWith('A')) return 'audio edition';
  return `product form ${form.slice(0, 4)}`;
}

/** The product's own title: TitleType 01 (distinctive title), element level 01; collection titles beside it. */
function productTitle(d: Draft, rec: CatalogueRecord): void {
  const distinctive = d.titles.filter((t) => !t.collection && (t.type ?? '01') === '01');
  let collection = d.titles.some((t) => t.collection);
  for (const t of distinctive) {
    for (const el of t.elements) {
      const level = el.level ?? '01';
      if (level === '01' && rec.title === undefined) {
        rec.title = titleOf(el);
        if (el.subtitle?.trim()) rec.subtitle = el.subtitle.trim();
      } else if (level !== '01') collection = true;
    }
  }
  if (collection) rec.unrepresented.push('collection (series) titles');
}

/** The authors (ContributorRole A01) in sequence, else every contributor. */
function authors(d: Draft, rec: CatalogueRecord): void {
  const contributors = d.contributors.length > 1 ? [...d.contributors].sort((a, b) => a.seq - b.seq) : d.contributors;
  const authors = contributors.filter((c) => c.role === 'A01');
  const named = (authors.length ? authors : contributors).map(personName).filter((n): n is string => !!n);
  if (named.length) rec.author = named.join(', ');
  if (authors.length && authors.length < contributors.length) rec.unrepresented.push('contributors other than authors');
}

/** Language, page count, publication year, publisher and description. */
function details(d: Draft, header: Header, rec: CatalogueRecord): void {
  const lang =
    d.languages.find((l) => (l.role ?? '01') === '01' && l.code?.trim()) ??
    (header.language ? { code: header.language } : undefined);
  if (lang?.code) rec.language = languageCode(lang.code);

  const pages = pageCount(d.extents);
  if (pages !== undefined) rec.pages = pages;

  const date = d.dates.find((x) => x.role === '01' && x.date?.trim()) ?? d.dates.find((x) => x.date?.trim());
  const year = date ? /^\s*(\d{4})/.exec(date.date!)?.[1] : undefined;
  if (year) rec.publishYear = Number(year);

  const pub = d.publishers.find((p) => p.role === '01' && p.name?.trim()) ?? d.publishers.find((p) => p.name?.trim());
  rec.publisher = pub?.name?.trim() ?? header.sender?.trim();

  const text =
    d.texts.find((t) => t.type === '03') ??
    d.texts.find((t) => t.type === '02') ??
    d.texts.find((t) => t.type === '01');
  if (text) rec.description = plainText(text.text);
}

/** ExtentTypes (list 23) that give a page count, the best first. */
const PAGE_EXTENTS = ['00', '11', '08', '10', '07'];

/** The page count among extents (in pages, ExtentUnit 03): of the best type that gives one. */
function pageCount(extents: Draft['extents']): string | undefined {
  for (const type of PAGE_EXTENTS)
    for (const e of extents) {
      if (e.type !== type || (e.unit ?? '03') !== '03') continue;
      const value = e.value?.trim();
      if (value) return value;
    }
  return undefined;
}

/** The prices: amount, currency (or the header's default) and a rental's duration in days. */
function prices(d: Draft, header: Header, rec: CatalogueRecord): void {
  for (const p of d.prices) {
    let rentalDays: number | undefined;
    for (const c of p.conditions) {
      // PriceConditionType 10 (rental duration) with a time-period quantity in days/weeks/months/years.
      const qty = Number(c.qty);
      if (
        (c.type === '10' || c.type === undefined) &&
        (c.qtyType ?? '01') === '01' &&
        UNIT_DAYS[c.unit ?? ''] &&
        Number.isFinite(qty) &&
        qty > 0
      ) {
        rentalDays = Math.round(qty * UNIT_DAYS[c.unit!]);
      } else if (c.type !== '00') rec.unrepresented.push('price conditions other than a rental duration');
    }
    const amount = p.amount ?? (p.unpriced === '01' ? '0' : undefined);
    if (amount === undefined) {
      rec.unrepresented.push('prices without an amount');
      continue;
    }
    rec.prices.push({ amount, currency: p.currency?.trim() || header.currency?.trim(), rentalDays });
  }
  if (!d.prices.length && d.unpriced === '01')
    rec.prices.push({ amount: '0', currency: header.currency?.trim() || 'USD' });
}
