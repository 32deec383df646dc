// ONIX for Books 3.0, read as a stream with saxes: a product at a time, never the whole file.
// Takes what real feeds send: reference or short tags, EDItEUR's namespace, none or another (only
// local names count), a byte-order mark or a declared encoding (UTF-8, UTF-16, ISO-8859-1,
// Windows-1252...), character references and the HTML entities feeds made for ONIX 2.1's DTD
// use, escaped or inline (X)HTML in texts, TitlePrefix + TitleWithoutPrefix, GTIN-13s, names
// given only inverted, and the header's defaults (currency, price type, language).
import { SaxesParser, type SaxesAttributeNS, type SaxesTagPlain } from 'saxes';
import { CatalogueFileError } from './load.js';
import { languageCode, newRecord, plainText, XML_EXTRA_ENTITIES, type CatalogueRecord } from './record.js';

/** Short tags (ONIX 3.0) to reference names, for the elements the loader reads. */
export const ONIX_SHORT_TAGS: Record<string, string> = {
  onixmessage: 'ONIXMessage', header: 'Header', sender: 'Sender', x298: 'SenderName', m184: 'DefaultLanguageOfText',
  x310: 'DefaultPriceType', m186: 'DefaultCurrencyCode', product: 'Product', a001: 'RecordReference', a002: 'NotificationType',
  productidentifier: 'ProductIdentifier', b221: 'ProductIDType', b233: 'IDTypeName', b244: 'IDValue',
  descriptivedetail: 'DescriptiveDetail', x314: 'ProductComposition', b012: 'ProductForm', collection: 'Collection',
  titledetail: 'TitleDetail', b202: 'TitleType', titleelement: 'TitleElement', x409: 'TitleElementLevel', b030: 'TitlePrefix',
  b031: 'TitleWithoutPrefix', b203: 'TitleText', b029: 'Subtitle', contributor: 'Contributor', b034: 'SequenceNumber',
  b035: 'ContributorRole', b036: 'PersonName', b037: 'PersonNameInverted', b039: 'NamesBeforeKey', b040: 'KeyNames',
  b047: 'CorporateName', language: 'Language', b253: 'LanguageRole', b252: 'LanguageCode', extent: 'Extent',
  b218: 'ExtentType', b219: 'ExtentValue', b220: 'ExtentUnit', collateraldetail: 'CollateralDetail', textcontent: 'TextContent',
  x426: 'TextType', d104: 'Text', publishingdetail: 'PublishingDetail', publisher: 'Publisher', b291: 'PublishingRole',
  b081: 'PublisherName', publishingdate: 'PublishingDate', x448: 'PublishingDateRole', b306: 'Date',
  relatedmaterial: 'RelatedMaterial', relatedproduct: 'RelatedProduct', x455: 'ProductRelationCode',
  productsupply: 'ProductSupply', supplydetail: 'SupplyDetail', j192: 'UnpricedItemType', price: 'Price', x462: 'PriceType',
  j151: 'PriceAmount', j152: 'CurrencyCode', pricecondition: 'PriceCondition', x463: 'PriceConditionType',
  priceconditionquantity: 'PriceConditionQuantity', x464: 'PriceConditionQuantityType', x320: 'Quantity', x466: 'QuantityUnit',
};

/** XHTML elements inside a <Text> that end a line of its text (the others are inline). */
const BLOCK = new Set(['p', 'br', 'div', 'li', 'ul', 'ol', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'tr', 'td', 'th', 'dt', 'dd', 'blockquote']);

/** Days in a unit of ONIX list 169 (quantity unit). */
const UNIT_DAYS: Record<string, number> = { '07': 1, '08': 7, '09': 30, '10': 365 };

interface Id {
  type?: string;
  value?: string;
}
interface Contributor {
  seq: number;
  role?: string;
  name?: string;
  inverted?: string;
  before?: string;
  key?: string;
  corporate?: string;
}
interface TitleEl {
  level?: string;
  prefix?: string;
  without?: string;
  text?: string;
  subtitle?: string;
}
interface Draft {
  rec: CatalogueRecord;
  ids: Id[];
  notification?: string;
  form?: string;
  titles: Array<{ type?: string; collection: boolean; elements: TitleEl[] }>;
  contributors: Contributor[];
  related: Array<{ code?: string; ids: Id[] }>;
  languages: Array<{ role?: string; code?: string }>;
  extents: Array<{ type?: string; value?: string; unit?: string }>;
  dates: Array<{ role?: string; date?: string }>;
  publishers: Array<{ role?: string; name?: string }>;
  texts: Array<{ type?: string; text: string }>;
  prices: Array<{ type?: string; amount?: string; currency?: string; unpriced?: string; conditions: Array<{ type?: string; qtyType?: string; qty?: string; unit?: string }> }>;
  unpriced?: string;
}

interface Header {
  currency?: string;
  priceType?: string;
  language?: string;
  sender?: string;
}

/** What the loader offers a reader: print editions that name their digital edition. */
export interface PrintEditionSink {
  notePrintEdition(digitalIsbn: string, printIsbn: string): void;
}

/** The encoding of an XML file from its first bytes: a byte-order mark, else the declaration, else UTF-8. */
function sniffEncoding(head: Buffer): string {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return 'utf-8';
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  if (head[0] === 0x3c && head[1] === 0x00) return 'utf-16le';
  if (head[0] === 0x00 && head[1] === 0x3c) return 'utf-16be';
  const decl = /^\s*<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._:-]+)["']/.exec(head.toString('latin1'));
  return decl ? decl[1].toLowerCase() : 'utf-8';
}

const ISBN_TYPES: Record<string, string> = { '15': 'ISBN-13', '03': 'GTIN-13', '02': 'ISBN-10' };

/** The ISBN among identifiers: ISBN-13 first, then a GTIN-13 of a book (978/979), then an ISBN-10. */
function isbnOf(ids: Id[]): { value: string; kind: string } | undefined {
  for (const type of ['15', '03', '02']) {
    for (const id of ids) {
      const v = id.value?.trim();
      if (id.type === type && v && (type !== '03' || /^97[89]/.test(v.replace(/[\s-]/g, '')))) return { value: v, kind: ISBN_TYPES[type] };
    }
  }
  return undefined;
}

function personName(c: Contributor): string | undefined {
  if (c.name?.trim()) return c.name.trim();
  if (c.key?.trim()) return [c.before?.trim(), c.key.trim()].filter(Boolean).join(' ');
  if (c.inverted?.trim()) {
    // "Voss, Helena" -> "Helena Voss"; a name without a comma as it is.
    const [key, ...rest] = c.inverted.split(',');
    const before = rest.join(',').trim();
    return before ? `${before} ${key.trim()}` : key.trim();
  }
  return c.corporate?.trim() || undefined;
}

function titleOf(el: TitleEl): string | undefined {
  if (el.without?.trim()) return [el.prefix?.trim(), el.without.trim()].filter(Boolean).join(' ');
  return el.text?.trim() || undefined;
}

/** A draft product to the loader's record. */
function finishProduct(d: Draft, header: Header, sink?: PrintEditionSink): CatalogueRecord {
  const rec = d.rec;
  const isbn = isbnOf(d.ids);
  if (isbn) (rec.isbn = isbn.value), (rec.isbnKind = isbn.kind);
  const proprietary = d.ids.find((i) => i.type === '01' && i.value?.trim());
  if (proprietary) rec.sku = proprietary.value!.trim();
  if (d.ids.some((i) => i.type && !['01', '02', '03', '15'].includes(i.type))) rec.unrepresented.push('identifiers other than ISBN and proprietary ids');

  // NotificationType (list 1): 05 delete; 01/02 announce a title not yet published.
  if (d.notification === '05') rec.action = 'withdraw';
  if (d.notification === '01' || d.notification === '02') rec.published = false;

  const form = d.form?.trim().toUpperCase();
  if (!form) rec.kind = rec.action === 'withdraw' ? 'digital' : 'product form not given';
  else if (form.startsWith('E') || form === 'DG') rec.kind = 'digital';
  else if (form.startsWith('B') || form.startsWith('P')) rec.kind = 'print edition';
  else if (form.startsWith('A')) rec.kind = 'audio edition';
  else rec.kind = `product form ${form.slice(0, 4)}`;

  // The product's own title: TitleType 01 (distinctive title), element level 01; collection titles beside it.
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

  const contributors = [...d.contributors].sort((a, b) => a.seq - b.seq);
  const authors = contributors.filter((c) => c.role === 'A01');
  const named = (authors.length ? authors : contributors).map(personName).filter((n): n is string => !!n);
  if (named.length) rec.author = named.join(', ');
  if (authors.length && authors.length < contributors.length) rec.unrepresented.push('contributors other than authors');

  const lang = d.languages.find((l) => (l.role ?? '01') === '01' && l.code?.trim()) ?? (header.language ? { code: header.language } : undefined);
  if (lang?.code) rec.language = languageCode(lang.code);

  const pages = ['00', '11', '08', '10', '07'].map((t) => d.extents.find((e) => e.type === t && (e.unit ?? '03') === '03' && e.value?.trim())).find(Boolean);
  if (pages) rec.pages = pages.value!.trim();

  const date = d.dates.find((x) => x.role === '01' && x.date?.trim()) ?? d.dates.find((x) => x.date?.trim());
  const year = date ? /^\s*(\d{4})/.exec(date.date!)?.[1] : undefined;
  if (year) rec.publishYear = Number(year);

  const pub = d.publishers.find((p) => p.role === '01' && p.name?.trim()) ?? d.publishers.find((p) => p.name?.trim());
  rec.publisher = pub?.name?.trim() ?? header.sender?.trim();

  const text = d.texts.find((t) => t.type === '03') ?? d.texts.find((t) => t.type === '02') ?? d.texts.find((t) => t.type === '01');
  if (text) rec.description = plainText(text.text);

  for (const p of d.prices) {
    let rentalDays: number | undefined;
    for (const c of p.conditions) {
      // PriceConditionType 10 (rental duration) with a time-period quantity in days/weeks/months/years.
      const qty = Number(c.qty);
      if ((c.type === '10' || c.type === undefined) && (c.qtyType ?? '01') === '01' && UNIT_DAYS[c.unit ?? ''] && Number.isFinite(qty) && qty > 0) {
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
  if (!d.prices.length && d.unpriced === '01') rec.prices.push({ amount: '0', currency: header.currency?.trim() || 'USD' });

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

/**
 * The products of an ONIX 3.0 file, one record each, read from `source` chunk by chunk.
 * Throws CatalogueFileError when the file is not well-formed XML, not ONIX, or not in its
 * declared encoding.
 */
export async function* readOnix(source: AsyncIterable<Buffer | string>, sink?: PrintEditionSink): AsyncGenerator<CatalogueRecord> {
  const ready: CatalogueRecord[] = [];
  const p = onixParser((rec) => ready.push(rec), sink);
  for await (const chunk of source) {
    p.write(chunk);
    while (ready.length) yield ready.shift()!;
  }
  p.end();
  while (ready.length) yield ready.shift()!;
}

/**
 * The products of an ONIX file handed to `sink.add` as each one ends, synchronously: a product
 * dies young (read, checked, written, dropped within one chunk), where records queued for an
 * async consumer outlived V8's young generation and piled up in the old one, so a large load's
 * memory grew with the file (bench/catalogue.mjs measures the peak).
 */
export async function pumpOnix(source: AsyncIterable<Buffer | string>, sink: PrintEditionSink & { add(rec: CatalogueRecord): void }): Promise<void> {
  const p = onixParser((rec) => sink.add(rec), sink);
  for await (const chunk of source) p.write(chunk);
  p.end();
}

/** An ONIX parser fed chunk by chunk: bytes (decoded as the file declares) or text. */
function onixParser(emit: (rec: CatalogueRecord) => void, sink?: PrintEditionSink): { write(chunk: Buffer | string): void; end(): void } {
  const parser = new SaxesParser({ position: true });
  Object.assign(parser.ENTITIES, XML_EXTRA_ENTITIES);
  const header: Header = {};
  const stack: string[] = [];
  let number = 0;
  let rootSeen = false;
  let text = '';
  /** Depth of the <Text> element being read (its inline XHTML adds to its text), 0 outside. */
  let textDepth = 0;
  let d: Draft | undefined;
  let id: Id | undefined;
  let related: Draft['related'][number] | undefined;
  let title: Draft['titles'][number] | undefined;
  let titleEl: TitleEl | undefined;
  let contributor: Contributor | undefined;
  let language: Draft['languages'][number] | undefined;
  let extent: Draft['extents'][number] | undefined;
  let pubDate: Draft['dates'][number] | undefined;
  let publisher: Draft['publishers'][number] | undefined;
  let textContent: { type?: string; text: string } | undefined;
  let price: Draft['prices'][number] | undefined;
  let condition: Draft['prices'][number]['conditions'][number] | undefined;

  // Element names to reference names, worked out once per distinct name (a feed uses a few dozen).
  const names = new Map<string, string>();
  const local = (name: string) => {
    let ref = names.get(name);
    if (ref === undefined) {
      const n = name.includes(':') ? name.slice(name.indexOf(':') + 1) : name;
      ref = Object.hasOwn(ONIX_SHORT_TAGS, n) ? ONIX_SHORT_TAGS[n] : n;
      if (names.size < 10_000) names.set(name, ref);
    }
    return ref;
  };
  const parent = () => stack[stack.length - 2];

  parser.on('error', (err) => {
    throw new CatalogueFileError(`The file is not well-formed XML (line ${parser.line}, column ${parser.column}): ${err.message.replace(/^.*?:\d+:\d+: /, '')}`);
  });
  parser.on('text', (t) => {
    text += t;
  });
  parser.on('cdata', (t) => {
    text += t;
  });
  parser.on('opentag', (tag: SaxesTagPlain | { name: string; attributes: Record<string, SaxesAttributeNS | string> }) => {
    const name = local(tag.name);
    stack.push(name);
    if (textDepth) {
      textDepth++;
      if (BLOCK.has(name.toLowerCase())) text += ' ';
      return;
    }
    text = '';
    if (!rootSeen) {
      rootSeen = true;
      if (name !== 'ONIXMessage') throw new CatalogueFileError(`This is not an ONIX for Books file: its root element is <${tag.name.slice(0, 40)}>, not <ONIXMessage>.`);
      return;
    }
    const p = parent();
    switch (name) {
      case 'Product':
        d = { rec: newRecord(++number, parser.line), ids: [], titles: [], contributors: [], related: [], languages: [], extents: [], dates: [], publishers: [], texts: [], prices: [] };
        break;
      case 'ProductIdentifier':
        if (p === 'Product' || p === 'RelatedProduct') id = {};
        break;
      case 'RelatedProduct':
        if (d) related = { ids: [] };
        break;
      case 'TitleDetail':
        if (d) title = { collection: p === 'Collection', elements: [] };
        break;
      case 'TitleElement':
        if (title) titleEl = {};
        break;
      case 'Contributor':
        if (d && p === 'DescriptiveDetail') contributor = { seq: d.contributors.length + 1 };
        break;
      case 'Language':
        if (d && p === 'DescriptiveDetail') language = {};
        break;
      case 'Extent':
        if (d) extent = {};
        break;
      case 'PublishingDate':
        if (d) pubDate = {};
        break;
      case 'Publisher':
        if (d && p === 'PublishingDetail') publisher = {};
        break;
      case 'TextContent':
        if (d) textContent = { text: '' };
        break;
      case 'Text':
        if (textContent) textDepth = 1;
        break;
      case 'Price':
        if (d && p === 'SupplyDetail') price = { conditions: [] };
        break;
      case 'PriceCondition':
        if (price) condition = {};
        break;
    }
  });
  parser.on('closetag', (tag) => {
    const name = local(tag.name);
    const value = text.trim();
    if (textDepth) {
      textDepth--;
      if (textDepth > 0) {
        stack.pop();
        if (BLOCK.has(name.toLowerCase())) text += ' ';
        return;
      }
      if (textContent) textContent.text = text;
    }
    const p = parent();
    stack.pop();
    if (!d) {
      switch (name) {
        case 'SenderName':
          if (p === 'Sender') header.sender = value;
          break;
        case 'DefaultCurrencyCode':
          header.currency = value;
          break;
        case 'DefaultPriceType':
          header.priceType = value;
          break;
        case 'DefaultLanguageOfText':
          header.language = value;
          break;
      }
      text = '';
      return;
    }
    switch (name) {
      case 'Product':
        emit(finishProduct(d, header, sink));
        d = undefined;
        break;
      case 'RecordReference':
        if (p === 'Product') d.rec.reference = value;
        break;
      case 'NotificationType':
        if (p === 'Product') d.notification = value;
        break;
      case 'ProductIDType':
        if (id) id.type = value;
        break;
      case 'IDValue':
        if (id) id.value = value;
        break;
      case 'ProductIdentifier':
        if (id) (related ? related.ids : d.ids).push(id);
        id = undefined;
        break;
      case 'ProductRelationCode':
        if (related) related.code = value;
        break;
      case 'RelatedProduct':
        if (related) d.related.push(related);
        related = undefined;
        break;
      case 'ProductForm':
        if (p === 'DescriptiveDetail') d.form = value;
        break;
      case 'TitleType':
        if (title) title.type = value;
        break;
      case 'TitleElementLevel':
        if (titleEl) titleEl.level = value;
        break;
      case 'TitlePrefix':
        if (titleEl) titleEl.prefix = value;
        break;
      case 'TitleWithoutPrefix':
        if (titleEl) titleEl.without = value;
        break;
      case 'TitleText':
        if (titleEl) titleEl.text = value;
        break;
      case 'Subtitle':
        if (titleEl) titleEl.subtitle = value;
        break;
      case 'TitleElement':
        if (title && titleEl) title.elements.push(titleEl);
        titleEl = undefined;
        break;
      case 'TitleDetail':
        if (title) d.titles.push(title);
        title = undefined;
        break;
      case 'SequenceNumber':
        if (contributor && p === 'Contributor' && /^\d+$/.test(value)) contributor.seq = Number(value);
        break;
      case 'ContributorRole':
        if (contributor && contributor.role === undefined) contributor.role = value;
        break;
      case 'PersonName':
        if (contributor && p === 'Contributor') contributor.name = value;
        break;
      case 'PersonNameInverted':
        if (contributor && p === 'Contributor') contributor.inverted = value;
        break;
      case 'NamesBeforeKey':
        if (contributor && p === 'Contributor') contributor.before = value;
        break;
      case 'KeyNames':
        if (contributor && p === 'Contributor') contributor.key = value;
        break;
      case 'CorporateName':
        if (contributor && p === 'Contributor') contributor.corporate = value;
        break;
      case 'Contributor':
        if (contributor) d.contributors.push(contributor);
        contributor = undefined;
        break;
      case 'LanguageRole':
        if (language) language.role = value;
        break;
      case 'LanguageCode':
        if (language) language.code = value;
        break;
      case 'Language':
        if (language) d.languages.push(language);
        language = undefined;
        break;
      case 'ExtentType':
        if (extent) extent.type = value;
        break;
      case 'ExtentValue':
        if (extent) extent.value = value;
        break;
      case 'ExtentUnit':
        if (extent) extent.unit = value;
        break;
      case 'Extent':
        if (extent) d.extents.push(extent);
        extent = undefined;
        break;
      case 'PublishingDateRole':
        if (pubDate) pubDate.role = value;
        break;
      case 'Date':
        if (pubDate && p === 'PublishingDate') pubDate.date = value;
        break;
      case 'PublishingDate':
        if (pubDate) d.dates.push(pubDate);
        pubDate = undefined;
        break;
      case 'PublishingRole':
        if (publisher) publisher.role = value;
        break;
      case 'PublisherName':
        if (publisher) publisher.name = value;
        break;
      case 'Publisher':
        if (publisher) d.publishers.push(publisher);
        publisher = undefined;
        break;
      case 'TextType':
        if (textContent) textContent.type = value;
        break;
      case 'TextContent':
        if (textContent) d.texts.push(textContent);
        textContent = undefined;
        break;
      case 'UnpricedItemType':
        if (p === 'SupplyDetail') d.unpriced = value;
        break;
      case 'PriceType':
        if (price) price.type = value;
        break;
      case 'PriceAmount':
        if (price) price.amount = value;
        break;
      case 'CurrencyCode':
        if (price && p === 'Price') price.currency = value;
        break;
      case 'PriceConditionType':
        if (condition) condition.type = value;
        break;
      case 'PriceConditionQuantityType':
        if (condition) condition.qtyType = value;
        break;
      case 'Quantity':
        if (condition && p === 'PriceConditionQuantity') condition.qty = value;
        break;
      case 'QuantityUnit':
        if (condition) condition.unit = value;
        break;
      case 'PriceCondition':
        if (price && condition) price.conditions.push(condition);
        condition = undefined;
        break;
      case 'Price':
        if (price) d.prices.push(price);
        price = undefined;
        break;
    }
    text = '';
  });

  let decoder: InstanceType<typeof TextDecoder> | undefined;
  let head: Buffer | undefined = Buffer.alloc(0);
  const feed = (s: string) => {
    if (s) parser.write(s);
  };
  const decode = (buf: Buffer, end: boolean): string => {
    try {
      return decoder!.decode(buf, { stream: !end });
    } catch {
      throw new CatalogueFileError(`The file is not valid ${decoder!.encoding.toUpperCase()}${parser.line ? ` (near line ${parser.line})` : ''}: declare its real encoding in <?xml ... encoding="..."?>, or convert it to UTF-8.`);
    }
  };
  const start = (buf: Buffer) => {
    const label = sniffEncoding(buf);
    try {
      decoder = new TextDecoder(label, { fatal: true });
    } catch {
      throw new CatalogueFileError(`The file declares the encoding "${label.slice(0, 40)}", which bookdist cannot read; convert it to UTF-8.`);
    }
  };
  return {
    write(chunk: Buffer | string) {
      if (typeof chunk === 'string') {
        head = undefined;
        feed(chunk);
      } else if (head) {
        // Wait for the XML declaration (or 1 KB) before choosing the decoder.
        head = Buffer.concat([head, chunk]);
        if (head.length < 1024 && !head.includes('?>') && !head.includes(0)) return;
        start(head);
        const first = head;
        head = undefined;
        feed(decode(first, false));
      } else feed(decode(chunk, false));
    },
    end() {
      if (head) {
        start(head);
        feed(decode(head, false));
      }
      if (decoder) feed(decode(Buffer.alloc(0), true));
      parser.close();
      if (!rootSeen) throw new CatalogueFileError('The file is empty: no <ONIXMessage>.');
    },
  };
}
