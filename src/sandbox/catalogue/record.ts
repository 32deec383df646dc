// One product of a catalogue file as the readers (ONIX, CSV) hand it to the loader: the values
// as the file gave them (still to be checked), where the record is, and what of it the sandbox
// cannot represent.

interface RecordPrice {
  /** The amount as written ("14.99"); checked by the loader. */
  amount: string;
  /** ISO 4217 code, when the record (or its file's header) gives one. */
  currency?: string;
  /** A rental's duration in days (ONIX: PriceCondition "rental duration"), else a lifetime price. */
  rentalDays?: number;
}

export interface CatalogueRecord {
  /** 1-based position of the record in the file (products of an ONIX file, data rows of a CSV). */
  number: number;
  /** The line of the file where the record starts. */
  line?: number;
  /** The file's own reference for it (ONIX RecordReference), if any. */
  reference?: string;
  /** Add or update (ONIX 01-04, 88/89; a CSV row), or withdraw (ONIX 05, CSV action=withdraw). */
  action: 'upsert' | 'withdraw';
  /** The edition's own ISBN as given (ISBN-13, a GTIN-13 of 978/979, or an ISBN-10). */
  isbn?: string;
  /** Which identifier gave it, for messages (`ISBN-13`, `GTIN-13`, `ISBN-10`). */
  isbnKind?: string;
  /** The print edition's ISBN (ONIX RelatedProduct), if any. */
  printIsbn?: string;
  sku?: string;
  title?: string;
  subtitle?: string;
  author?: string;
  publisher?: string;
  /** ISO 639 code (two or three letters). */
  language?: string;
  /** Page count as given (checked by the loader). */
  pages?: string;
  publishYear?: number;
  description?: string;
  prices: RecordPrice[];
  /**
   * What the edition is: `digital` (loaded), or why it is not a book the sandbox sells
   * (`print edition`, `audio edition`, `product form XX`): skipped and counted by that reason.
   */
  kind: string;
  /** False for an announcement of a title not yet published (ONIX NotificationType 01/02). */
  published: boolean;
  /** What the record holds that the sandbox's book cannot hold: counted in the summary. */
  unrepresented: string[];
  /** Problems the reader found (an unreadable price, a bad page count): the record is refused. */
  problems: string[];
}

export function newRecord(number: number, line?: number): CatalogueRecord {
  return {
    number,
    line,
    action: 'upsert',
    prices: [],
    kind: 'digital',
    published: true,
    unrepresented: [],
    problems: [],
  };
}

/** ISO 639-2 (bibliographic and terminology) codes of common languages, to the sandbox's two letters. */
const LANG3: Record<string, string> = {
  eng: 'en',
  ger: 'de',
  deu: 'de',
  fre: 'fr',
  fra: 'fr',
  spa: 'es',
  ita: 'it',
  dut: 'nl',
  nld: 'nl',
  por: 'pt',
  swe: 'sv',
  dan: 'da',
  nor: 'no',
  nob: 'nb',
  nno: 'nn',
  fin: 'fi',
  pol: 'pl',
  cze: 'cs',
  ces: 'cs',
  rus: 'ru',
  jpn: 'ja',
  chi: 'zh',
  zho: 'zh',
  kor: 'ko',
  ara: 'ar',
  heb: 'he',
  gre: 'el',
  ell: 'el',
  tur: 'tr',
  hun: 'hu',
  ice: 'is',
  isl: 'is',
  wel: 'cy',
  cym: 'cy',
  gle: 'ga',
  cat: 'ca',
  baq: 'eu',
  eus: 'eu',
  lat: 'la',
  ukr: 'uk',
};

/** `eng` -> `en`; two-letter codes as they are; others kept in lower case. */
export function languageCode(code: string): string {
  const c = code.trim().toLowerCase();
  return LANG3[c] ?? c;
}

/** A few HTML entities that escaped HTML in descriptions uses beyond XML's own five. */
const HTML_ENTITIES: Record<string, string> = {
  nbsp: '\u00a0',
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  copy: '©',
  reg: '®',
  trade: '™',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  laquo: '«',
  raquo: '»',
  bull: '•',
  middot: '·',
  eacute: 'é',
  egrave: 'è',
  ecirc: 'ê',
  euml: 'ë',
  aacute: 'á',
  agrave: 'à',
  acirc: 'â',
  auml: 'ä',
  aring: 'å',
  atilde: 'ã',
  iacute: 'í',
  igrave: 'ì',
  icirc: 'î',
  iuml: 'ï',
  oacute: 'ó',
  ograve: 'ò',
  ocirc: 'ô',
  ouml: 'ö',
  otilde: 'õ',
  oslash: 'ø',
  uacute: 'ú',
  ugrave: 'ù',
  ucirc: 'û',
  uuml: 'ü',
  ccedil: 'ç',
  ntilde: 'ñ',
  szlig: 'ß',
  aelig: 'æ',
  oelig: 'œ',
  yuml: 'ÿ',
  Eacute: 'É',
  Egrave: 'È',
  Aacute: 'Á',
  Agrave: 'À',
  Auml: 'Ä',
  Aring: 'Å',
  Ouml: 'Ö',
  Oslash: 'Ø',
  Uuml: 'Ü',
  Ccedil: 'Ç',
  Ntilde: 'Ñ',
  AElig: 'Æ',
  euro: '€',
  pound: '£',
  yen: '¥',
  cent: '¢',
  sect: '§',
  deg: '°',
  frac12: '½',
  times: '×',
};

/** The HTML entities above, as an XML parser's table of entities (feeds that relied on ONIX 2.1's DTD use them). */
export const XML_EXTRA_ENTITIES: Record<string, string> = Object.fromEntries(
  Object.entries(HTML_ENTITIES).filter(([k]) => !['amp', 'lt', 'gt', 'quot', 'apos'].includes(k)),
);

/** Text of an HTML fragment: tags removed (block ends as spaces), entities decoded, whitespace collapsed. */
export function plainText(s: string): string {
  return plainTextOnePass(s) ?? plainTextByPatterns(s);
}

/** ASCII whitespace as plainText collapses it: space, tab, LF, VT, FF, CR. */
const isAsciiSpace = (c: number) => c === 32 || (c >= 9 && c <= 13);
const isAlpha = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isAlnum = (c: number) => isAlpha(c) || (c >= 48 && c <= 57);

/**
 * plainText in one pass over a description as feeds write it (tags like <p> and </p>, named
 * entities of the table): three patterns' passes and the entity callback were a third of a
 * product's own work. Undefined for anything else (a comment, a '<' not opening a tag, a numeric
 * or unknown entity), which plainTextByPatterns reads as it always did.
 */
function plainTextOnePass(s: string): string | undefined {
  // A comment goes before tags are read (a '>' in it does not end a tag begun before it).
  if (s.includes('<!--')) return undefined;
  let out = '';
  let from = 0;
  /** In a run of whitespace (given or made by a tag): written as one space when the run ends. */
  let space = false;
  const n = s.length;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (isAsciiSpace(c) || c === 60 /* < */ || c === 38 /* & */) {
      if (from < i) {
        if (space) out += ' ';
        out += s.slice(from, i);
        space = false;
      }
      if (c === 60) {
        const after = s.charCodeAt(i + 1);
        if (!(isAlpha(after) || after === 47)) return undefined;
        const close = s.indexOf('>', i + 2);
        if (close < 0) return undefined;
        i = close;
        space = true;
      } else if (c === 38) {
        let j = i + 1;
        while (j < n && j - i <= 12 && isAlnum(s.charCodeAt(j))) j++;
        const name = s.slice(i + 1, j);
        if (s.charCodeAt(j) !== 59 || name.length < 2 || !isAlpha(name.charCodeAt(0))) return undefined;
        if (!Object.hasOwn(HTML_ENTITIES, name)) return undefined;
        const value = HTML_ENTITIES[name];
        if (space) out += ' ';
        out += value;
        space = false;
        i = j;
      } else space = true;
      from = i + 1;
    }
  }
  if (from < n) {
    if (space) out += ' ';
    out += s.slice(from);
  }
  return out.trim();
}

function plainTextByPatterns(s: string): string {
  let t = s;
  if (/<[a-zA-Z!/]/.test(t)) {
    if (t.includes('<!--')) t = t.replace(/<!--[\s\S]*?-->/g, '');
    t = t.replace(/<[^>]*>/g, ' ');
  }
  if (t.includes('&')) {
    t = t.replace(/&(#x[0-9a-fA-F]{1,6}|#\d{1,7}|[A-Za-z][A-Za-z0-9]{1,10});/g, (m, e: string) => {
      if (e[0] === '#') {
        const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
        return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : m;
      }
      // Own names only: `&constructor;` is no entity (the table is a plain object with a prototype).
      return Object.hasOwn(HTML_ENTITIES, e) ? HTML_ENTITIES[e] : m;
    });
  }
  // Collapse ASCII whitespace only: a no-break space stays. A single space is left as it is
  // (replacing it with itself cost a match per word).
  return t.replace(/[ \t\n\r\f\v]{2,}|[\t\n\r\f\v]/g, ' ').trim();
}
