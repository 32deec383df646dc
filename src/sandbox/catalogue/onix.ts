// ONIX for Books 3.0, read as a stream with saxes: a product at a time, never the whole file.
// Takes what real feeds send: reference or short tags, EDItEUR's namespace, none or another (only
// local names count), a byte-order mark or a declared encoding (UTF-8, UTF-16, ISO-8859-1,
// Windows-1252...), character references and the HTML entities feeds made for ONIX 2.1's DTD
// use, escaped or inline (X)HTML in texts, TitlePrefix + TitleWithoutPrefix, GTIN-13s, names
// given only inverted, and the header's defaults (currency, price type, language).
import { SaxesParser } from 'saxes';
import { byteFeeder } from './onix-bytes.js';
import { CatalogueFileError } from './summary.js';
import {
  finishProduct,
  newDraft,
  type Contributor,
  type Draft,
  type Header,
  type Id,
  type Price,
  type PriceCondition,
  type PrintEditionSink,
  type Related,
  type TitleEl,
  type TitleGroup,
} from './onix-product.js';
import { ONIX_SHORT_TAGS, REFERENCE_NAMES } from './onix-tags.js';
import { XML_EXTRA_ENTITIES, type CatalogueRecord } from './record.js';

/**
 * The products of an ONIX 3.0 file, one record each, read from `source` chunk by chunk.
 * Throws CatalogueFileError when the file is not well-formed XML, not ONIX, or not in its
 * declared encoding.
 */
export async function* readOnix(
  source: AsyncIterable<Buffer | string>,
  sink?: PrintEditionSink,
): AsyncGenerator<CatalogueRecord> {
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
export async function pumpOnix(
  source: AsyncIterable<Buffer | string>,
  sink: PrintEditionSink & { add(rec: CatalogueRecord): void },
): Promise<void> {
  const p = onixParser((rec) => sink.add(rec), sink);
  for await (const chunk of source) p.write(chunk);
  p.end();
}

/** XHTML elements inside a <Text> that end a line of its text (the others are inline). */
const BLOCK = new Set('p br div li ul ol h1 h2 h3 h4 h5 h6 tr td th dt dd blockquote'.split(' '));

/** Where a parse is: the header's defaults, the product being read and its parts still open. */
interface ParseState {
  header: Header;
  /** Products begun so far. */
  number: number;
  d?: Draft;
  id?: Id;
  related?: Related;
  title?: TitleGroup;
  titleEl?: TitleEl;
  contributor?: Contributor;
  language?: Draft['languages'][number];
  extent?: Draft['extents'][number];
  pubDate?: Draft['dates'][number];
  publisher?: Draft['publishers'][number];
  textContent?: Draft['texts'][number];
  price?: Price;
  condition?: PriceCondition;
  /** Depth of the <Text> element being read (its inline XHTML adds to its text), 0 outside. */
  textDepth: number;
}

type Opener = (s: ParseState, d: Draft, parent: string) => void;
type Closer = (s: ParseState, d: Draft, value: string, parent: string) => void;

/** Elements of a product that open a part of it (reference names; the parent decides where it counts). */
const OPEN = new Map<string, Opener>(
  Object.entries({
    ProductIdentifier: (s, _d, p) => {
      if (p === 'Product' || p === 'RelatedProduct') s.id = {};
    },
    RelatedProduct: (s) => void (s.related = { ids: [] }),
    TitleDetail: (s, _d, p) => void (s.title = { collection: p === 'Collection', elements: [] }),
    TitleElement: (s) => void (s.title && (s.titleEl = {})),
    Contributor: (s, d, p) => void (p === 'DescriptiveDetail' && (s.contributor = { seq: d.contributors.length + 1 })),
    Language: (s, _d, p) => void (p === 'DescriptiveDetail' && (s.language = {})),
    Extent: (s) => void (s.extent = {}),
    PublishingDate: (s) => void (s.pubDate = {}),
    Publisher: (s, _d, p) => void (p === 'PublishingDetail' && (s.publisher = {})),
    TextContent: (s) => void (s.textContent = { text: '' }),
    Text: (s) => void (s.textContent && (s.textDepth = 1)),
    Price: (s, _d, p) => void (p === 'SupplyDetail' && (s.price = { conditions: [] })),
    PriceCondition: (s) => void (s.price && (s.condition = {})),
  } satisfies Record<string, Opener>),
);

/** Elements of a product that give a value, or close a part (reference names). */
const CLOSE = new Map<string, Closer>(
  Object.entries({
    RecordReference: (_s, d, v, p) => void (p === 'Product' && (d.rec.reference = v)),
    NotificationType: (_s, d, v, p) => void (p === 'Product' && (d.notification = v)),
    ProductIDType: (s, _d, v) => void (s.id && (s.id.type = v)),
    IDValue: (s, _d, v) => void (s.id && (s.id.value = v)),
    ProductIdentifier: (s, d) => {
      if (s.id) (s.related ? s.related.ids : d.ids).push(s.id);
      s.id = undefined;
    },
    ProductRelationCode: (s, _d, v) => void (s.related && (s.related.code = v)),
    RelatedProduct: (s, d) => void (s.related && d.related.push(s.related), (s.related = undefined)),
    ProductForm: (_s, d, v, p) => void (p === 'DescriptiveDetail' && (d.form = v)),
    TitleType: (s, _d, v) => void (s.title && (s.title.type = v)),
    TitleElementLevel: (s, _d, v) => void (s.titleEl && (s.titleEl.level = v)),
    TitlePrefix: (s, _d, v) => void (s.titleEl && (s.titleEl.prefix = v)),
    TitleWithoutPrefix: (s, _d, v) => void (s.titleEl && (s.titleEl.without = v)),
    TitleText: (s, _d, v) => void (s.titleEl && (s.titleEl.text = v)),
    Subtitle: (s, _d, v) => void (s.titleEl && (s.titleEl.subtitle = v)),
    TitleElement: (s) => {
      if (s.title && s.titleEl) s.title.elements.push(s.titleEl);
      s.titleEl = undefined;
    },
    TitleDetail: (s, d) => void (s.title && d.titles.push(s.title), (s.title = undefined)),
    SequenceNumber: (s, _d, v, p) =>
      void (s.contributor && p === 'Contributor' && /^\d+$/.test(v) && (s.contributor.seq = Number(v))),
    ContributorRole: (s, _d, v) => void (s.contributor && s.contributor.role === undefined && (s.contributor.role = v)),
    PersonName: (s, _d, v, p) => void (s.contributor && p === 'Contributor' && (s.contributor.name = v)),
    PersonNameInverted: (s, _d, v, p) => void (s.contributor && p === 'Contributor' && (s.contributor.inverted = v)),
    NamesBeforeKey: (s, _d, v, p) => void (s.contributor && p === 'Contributor' && (s.contributor.before = v)),
    KeyNames: (s, _d, v, p) => void (s.contributor && p === 'Contributor' && (s.contributor.key = v)),
    CorporateName: (s, _d, v, p) => void (s.contributor && p === 'Contributor' && (s.contributor.corporate = v)),
    Contributor: (s, d) => void (s.contributor && d.contributors.push(s.contributor), (s.contributor = undefined)),
    LanguageRole: (s, _d, v) => void (s.language && (s.language.role = v)),
    LanguageCode: (s, _d, v) => void (s.language && (s.language.code = v)),
    Language: (s, d) => void (s.language && d.languages.push(s.language), (s.language = undefined)),
    ExtentType: (s, _d, v) => void (s.extent && (s.extent.type = v)),
    ExtentValue: (s, _d, v) => void (s.extent && (s.extent.value = v)),
    ExtentUnit: (s, _d, v) => void (s.extent && (s.extent.unit = v)),
    Extent: (s, d) => void (s.extent && d.extents.push(s.extent), (s.extent = undefined)),
    PublishingDateRole: (s, _d, v) => void (s.pubDate && (s.pubDate.role = v)),
    Date: (s, _d, v, p) => void (s.pubDate && p === 'PublishingDate' && (s.pubDate.date = v)),
    PublishingDate: (s, d) => void (s.pubDate && d.dates.push(s.pubDate), (s.pubDate = undefined)),
    PublishingRole: (s, _d, v) => void (s.publisher && (s.publisher.role = v)),
    PublisherName: (s, _d, v) => void (s.publisher && (s.publisher.name = v)),
    Publisher: (s, d) => void (s.publisher && d.publishers.push(s.publisher), (s.publisher = undefined)),
    TextType: (s, _d, v) => void (s.textContent && (s.textContent.type = v)),
    TextContent: (s, d) => void (s.textContent && d.texts.push(s.textContent), (s.textContent = undefined)),
    UnpricedItemType: (_s, d, v, p) => void (p === 'SupplyDetail' && (d.unpriced = v)),
    PriceType: (s, _d, v) => void (s.price && (s.price.type = v)),
    PriceAmount: (s, _d, v) => void (s.price && (s.price.amount = v)),
    CurrencyCode: (s, _d, v, p) => void (s.price && p === 'Price' && (s.price.currency = v)),
    PriceConditionType: (s, _d, v) => void (s.condition && (s.condition.type = v)),
    PriceConditionQuantityType: (s, _d, v) => void (s.condition && (s.condition.qtyType = v)),
    Quantity: (s, _d, v, p) => void (s.condition && p === 'PriceConditionQuantity' && (s.condition.qty = v)),
    QuantityUnit: (s, _d, v) => void (s.condition && (s.condition.unit = v)),
    PriceCondition: (s) => {
      if (s.price && s.condition) s.price.conditions.push(s.condition);
      s.condition = undefined;
    },
    Price: (s, d) => void (s.price && d.prices.push(s.price), (s.price = undefined)),
  } satisfies Record<string, Closer>),
);

type HeaderSetter = (h: Header, value: string, parent: string | undefined) => void;

/** Elements of the header that give a default (reference names), read before the first product. */
const HEADER = new Map<string, HeaderSetter>(
  Object.entries({
    SenderName: (h: Header, v: string, p: string | undefined) => void (p === 'Sender' && (h.sender = v)),
    DefaultCurrencyCode: (h: Header, v: string) => void (h.currency = v),
    DefaultPriceType: (h: Header, v: string) => void (h.priceType = v),
    DefaultLanguageOfText: (h: Header, v: string) => void (h.language = v),
  }),
);

/** What the parser does with an element, worked out once per name (a feed uses a few dozen). */
interface ElementKind {
  /** The reference name (a short tag's reference name, a namespace prefix dropped). */
  name: string;
  open?: Opener;
  close?: Closer;
  header?: HeaderSetter;
  /** An XHTML element that ends a line of a <Text>'s text. */
  block: boolean;
  /** The elements that opened after this one (see elementTable). */
  next: Known[];
  /** In the table (not: a file with too many names of its length). */
  kept: boolean;
}

/** Elements remembered as following one element (see elementTable). */
const NEXT_KEPT = 4;

/** Element names of one length a parse remembers (a feed uses a few dozen names in all; a hostile file could use millions). */
const KINDS_PER_LENGTH = 64;

/** An element name as the file spells it, and what it is. */
interface Known {
  tag: string;
  kind: ElementKind;
}

/**
 * Element names as the file spells them to what they are: one look-up per start tag, and none
 * per end tag (the kind of the element that ends is on the parser's stack). A feed's products
 * are alike, so the elements that opened after this one before are tried first, in the order
 * they first did: one `===` of equal names (one of another length is told apart by its length
 * alone) where the table compared several of one length. An element is followed by different
 * ones within a product (an IDValue by ProductIdentifier or DescriptiveDetail, a price's
 * CurrencyCode by the next Price or the next Product): when only the latest was kept, seven
 * tags of each product of the bench's feed missed it and went to the table, three comparisons
 * each. Else the names are kept by their length, each length's few compared with `===`: saxes
 * hands a name over as a string made of two pieces, which a Map would first copy into one to
 * hash it; comparing reads the pieces as they are (a look-up costs about half).
 */
function elementTable(): (name: string) => ElementKind {
  const byLength: Array<Known[] | undefined> = [];
  let last: ElementKind | undefined;
  const lookUp = (tagName: string): Known => {
    const same = byLength[tagName.length];
    if (same !== undefined) for (const known of same) if (known.tag === tagName) return known;
    const n = tagName.includes(':') ? tagName.slice(tagName.indexOf(':') + 1) : tagName;
    // The table's own string when it knows the name: the `parent === 'Product'` tests of the
    // closers then compare two constants, not the characters of a copy the parser made.
    const name = Object.hasOwn(ONIX_SHORT_TAGS, n) ? ONIX_SHORT_TAGS[n] : (REFERENCE_NAMES.get(n) ?? n);
    const kind: ElementKind = {
      name,
      open: OPEN.get(name),
      close: CLOSE.get(name),
      header: HEADER.get(name),
      block: BLOCK.has(name.toLowerCase()),
      next: [],
      kept: true,
    };
    const known = { tag: tagName, kind };
    const list = (byLength[tagName.length] ??= []);
    if (list.length < KINDS_PER_LENGTH) list.push(known);
    else kind.kept = false;
    return known;
  };
  return (tagName) => {
    const next = last?.next;
    if (next !== undefined) for (const guess of next) if (guess.tag === tagName) return (last = guess.kind);
    const known = lookUp(tagName);
    // Only between kinds the table keeps (a chain of names it does not keep would grow with the
    // file), and a few after each (a file whose elements follow one another in every order
    // compares a few names more, not the whole table's): the last one is replaced.
    if (last?.kept && known.kind.kept) last.next[Math.min(last.next.length, NEXT_KEPT - 1)] = known;
    return (last = known.kind);
  };
}

/** An ONIX parser fed chunk by chunk: bytes (decoded as the file declares) or text. */
function onixParser(
  emit: (rec: CatalogueRecord) => void,
  sink?: PrintEditionSink,
): { write(chunk: Buffer | string): void; end(): void } {
  const parser = new SaxesParser({ position: true });
  Object.assign(parser.ENTITIES, XML_EXTRA_ENTITIES);
  const s: ParseState = { header: {}, number: 0, textDepth: 0 };
  const kindOf = elementTable();
  const stack: ElementKind[] = [];
  let rootSeen = false;
  let text = '';

  parser.on('error', (err) => {
    throw new CatalogueFileError(
      `The file is not well-formed XML (line ${parser.line}, column ${parser.column}): ${err.message.replace(/^.*?:\d+:\d+: /, '')}`,
    );
  });
  parser.on('text', (t) => void (text += t));
  parser.on('cdata', (t) => void (text += t));
  parser.on('opentag', (tag) => {
    const el = kindOf(tag.name);
    stack.push(el);
    if (s.textDepth) {
      s.textDepth++;
      if (el.block) text += ' ';
      return;
    }
    text = '';
    if (!rootSeen) {
      rootSeen = true;
      if (el.name !== 'ONIXMessage')
        throw new CatalogueFileError(
          `This is not an ONIX for Books file: its root element is <${tag.name.slice(0, 40)}>, not <ONIXMessage>.`,
        );
    } else if (el.name === 'Product') s.d = newDraft(++s.number, parser.line);
    else if (s.d && el.open) el.open(s, s.d, stack[stack.length - 2].name);
  });
  parser.on('closetag', () => {
    // The element that ends is the one on top of the stack (saxes refuses a mismatched end tag).
    const el = stack.pop()!;
    if (s.textDepth) {
      if (--s.textDepth > 0) {
        if (el.block) text += ' ';
        return;
      }
      // The end of the <Text> itself: its text, inline XHTML included.
      if (s.textContent) s.textContent.text = text;
    }
    const d = s.d;
    if (!d) el.header?.(s.header, text.trim(), stack[stack.length - 1]?.name);
    else if (el.name === 'Product') {
      emit(finishProduct(d, s.header, sink));
      s.d = undefined;
    } else if (el.close) el.close(s, d, text.trim(), stack[stack.length - 1].name);
    text = '';
  });

  const bytes = byteFeeder(parser);
  return {
    write: (chunk) => bytes.write(chunk),
    end() {
      bytes.end();
      parser.close();
      if (!rootSeen) throw new CatalogueFileError('The file is empty: no <ONIXMessage>.');
    },
  };
}
