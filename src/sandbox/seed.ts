// The sandbox's seed. The catalogue is deterministic (same books, hash ids, ISBNs and pricing ids
// on every machine) so that the README and tests can name them; keys, shared keys, the operator
// token and passwords are generated per database.
import { createHash, generateKeyPair, generateKeyPairSync, randomBytes } from 'node:crypto';
import { CliError, ExitCode } from '../errors.js';
import { isbnPair } from './isbn.js';
import { MIGRATIONS, SCHEMA_VERSION } from './db/schema.js';
import type { Store } from './db/store.js';
import {
  deleteTokens,
  insertSeedAccount,
  insertSeedBook,
  insertSeedImport,
  insertSeedPrice,
  insertSeedPublisher,
  insertSeedToken,
  insertSeedUser,
  replaceAccountKeys,
} from './repo/seed.js';
import { hashPassword } from './util.js';

const sha1 = (s: string) => createHash('sha1').update(s).digest('hex');
const T = (y: number, m: number, d: number) => Date.UTC(y, m - 1, d, 12, 0, 0);

interface SeedPricing {
  id: number;
  currency: string;
  price: string;
  description: string;
  description_limit: string;
  is_limited: boolean;
  limit_days: number;
  other_pricing: string | null;
  /** ISO datetime when the price was deactivated, or null. */
  deactivation_date: string | null;
}

export interface SeedBook {
  id: number;
  hash_id: string;
  title: string;
  subtitle: string;
  author: string;
  description: string;
  language: string;
  num_pages: number;
  publish_year: number | null;
  isbn13: string;
  isbn10: string;
  eisbn13: string;
  eisbn10: string;
  sku: string;
  publisher_id: number;
  publisher: string;
  distribution_type: 'standard' | 'code';
  is_active: boolean;
  is_public: boolean;
  is_published: boolean;
  is_processed: boolean;
  is_queued: boolean;
  is_html: boolean;
  pricing: SeedPricing[];
}

const SEED_PUBLISHERS = [
  { id: 1, title: 'Harbor Lane Press', description: 'Literary fiction and essays from the coast.', is_active: true },
  {
    id: 2,
    title: 'Northwind Academic',
    description: 'Textbooks and references for higher education.',
    is_active: true,
  },
  { id: 3, title: 'Copperleaf Books', description: 'Cookery, outdoors and popular fiction.', is_active: true },
] as const;

type P = [price: string, limitDays?: number, deactivated?: boolean];
type B = {
  title: string;
  subtitle?: string;
  author: string;
  pub: 1 | 2 | 3;
  year: number | null;
  pages: number;
  prices: P[];
  lang?: string;
  code?: boolean;
  inactive?: boolean;
  unpublished?: boolean;
  queued?: boolean;
  unprocessed?: boolean;
  html?: boolean;
  about: string;
};

const CATALOGUE: B[] = [
  {
    title: "The Lighthouse Keeper's Ledger",
    author: 'Margaret Ellison',
    pub: 1,
    year: 2019,
    pages: 312,
    prices: [['14.99'], ['6.99', 180]],
    about: 'A keeper on a northern rock island records every ship that passes, and the one that never did.',
  },
  {
    title: 'Salt and Cedar',
    author: 'Tomas Brennan',
    pub: 1,
    year: 2021,
    pages: 268,
    prices: [['12.99']],
    about: 'Two brothers rebuild their late father’s boatyard over one long summer.',
  },
  {
    title: 'A Winter Atlas',
    subtitle: 'Journeys Through the Cold Months',
    author: 'Ines Calloway',
    pub: 1,
    year: 2018,
    pages: 224,
    prices: [
      ['3.99', 30],
      ['5.99', 90],
    ],
    about: 'Travel writing from frozen lakes, mountain huts and snowbound railway towns.',
  },
  {
    title: 'The Orchard at Dusk',
    author: 'Priya Natarajan',
    pub: 1,
    year: 2020,
    pages: 296,
    prices: [['11.99'], ['9.99', 0, true]],
    about: 'Three generations of a family of apple growers, and the autumn that changes them.',
  },
  {
    title: 'Quiet Harbors',
    subtitle: 'Essays on Staying Put',
    author: 'Daniel Okafor',
    pub: 1,
    year: 2017,
    pages: 184,
    prices: [['8.99']],
    code: true,
    about: 'Essays on home, routine and the small rituals of a fishing town.',
  },
  {
    title: 'Northern Lights Over Galway',
    author: 'Aoife Brennan',
    pub: 1,
    year: 2025,
    pages: 344,
    prices: [['15.99']],
    unpublished: true,
    about: 'A forthcoming novel of music, weather and second chances on the west coast of Ireland.',
  },
  {
    title: 'Letters from Tidewater',
    author: 'Samuel Whitlock',
    pub: 1,
    year: 2012,
    pages: 208,
    prices: [['7.99']],
    inactive: true,
    about: 'Correspondence between a river pilot and his sister, 1890–1904.',
  },
  {
    title: 'The Glass Meridian',
    author: 'Helena Voss',
    pub: 1,
    year: 2023,
    pages: 388,
    prices: [['13.99']],
    queued: true,
    about: 'A navigator’s instrument, lost at sea, resurfaces two centuries later.',
  },
  {
    title: 'Fieldnotes from a Small Island',
    author: 'Rowan Pike',
    pub: 1,
    year: 2022,
    pages: 176,
    prices: [['9.99']],
    unprocessed: true,
    about: 'A naturalist’s year among seabirds, tides and lichens.',
  },
  {
    title: "The Cartographer's Apprentice",
    author: 'Elena Marsh',
    pub: 1,
    year: 2016,
    pages: 352,
    prices: [['10.99']],
    about: 'A young mapmaker in a port city learns that every map is an argument.',
  },
  {
    title: 'Paper Boats',
    author: 'Jun Takahashi',
    pub: 1,
    year: 2015,
    pages: 240,
    prices: [['9.49']],
    html: true,
    about: 'Linked stories of a canal neighbourhood over forty years.',
  },
  {
    title: 'Foundations of Organic Chemistry',
    subtitle: 'Fourth Edition',
    author: 'Laura Chen',
    pub: 2,
    year: 2020,
    pages: 864,
    prices: [['89.99'], ['39.99', 180]],
    about: 'Structure, mechanism and synthesis for first- and second-year students.',
  },
  {
    title: 'Principles of Microeconomics',
    author: 'Robert Alvarez',
    pub: 2,
    year: 2019,
    pages: 512,
    prices: [['64.99'], ['24.99', 120]],
    about: 'Markets, incentives and policy, with worked problems in every chapter.',
  },
  {
    title: 'Applied Linear Algebra for Engineers',
    author: 'Nadia Petrova',
    pub: 2,
    year: 2021,
    pages: 448,
    prices: [['72.00']],
    about: 'Matrices, least squares and eigenproblems with engineering applications.',
  },
  {
    title: 'A Concise History of the Baltic States',
    author: 'Marek Nowicki',
    pub: 2,
    year: 2014,
    pages: 320,
    prices: [['29.99']],
    about: 'From the Hanseatic League to the present day.',
  },
  {
    title: 'Clinical Nursing Fundamentals',
    author: 'Grace Adeyemi',
    pub: 2,
    year: 2022,
    pages: 704,
    prices: [['54.99', 365]],
    about: 'Core skills, assessment and patient safety for nursing students.',
  },
  {
    title: 'Discrete Mathematics',
    subtitle: 'A Gentle Start',
    author: 'Oliver Grant',
    pub: 2,
    year: 2018,
    pages: 388,
    prices: [['49.99'], ['19.99', 90]],
    about: 'Logic, sets, combinatorics and graphs for first-year courses.',
  },
  {
    title: 'The Midnight Garden Club',
    author: 'Clara Hughes',
    pub: 3,
    year: 2021,
    pages: 288,
    prices: [['10.99']],
    about: 'Neighbours who garden by moonlight uncover a decades-old secret.',
  },
  {
    title: 'Running the Fells',
    author: 'Tom Ashworth',
    pub: 3,
    year: 2019,
    pages: 256,
    prices: [['12.49'], ['4.99', 60]],
    about: 'A runner’s guide to the hills of northern England, route by route.',
  },
  {
    title: 'Small Kitchen, Big Flavours',
    author: 'Maya Kapoor',
    pub: 3,
    year: 2022,
    pages: 232,
    prices: [['16.99']],
    about: 'One hundred recipes for cooks with one shelf and two burners.',
  },
  {
    title: "The Stonemason's Song",
    author: 'Bridget Kerr',
    pub: 3,
    year: 2013,
    pages: 416,
    prices: [['8.99']],
    about: 'A cathedral town, a feud between two workshops, and a missing apprentice.',
  },
  {
    title: 'Tidal Patterns',
    author: 'Leo Hartmann',
    pub: 3,
    year: null,
    pages: 198,
    prices: [['6.99']],
    lang: 'de',
    about: 'Kurze Erzählungen von der Nordseeküste.',
  },
];

function buildBooks(): SeedBook[] {
  let pricingId = 0;
  return CATALOGUE.map((b, i) => {
    const n = i + 1;
    const print = isbnPair('1' + String(61_400_000 + n * 137).padStart(8, '0'));
    const ebook = isbnPair('1' + String(64_700_000 + n * 211).padStart(8, '0'));
    const pub = SEED_PUBLISHERS[b.pub - 1];
    const prefix = ['HLP', 'NWA', 'CPL'][b.pub - 1];
    return {
      id: n,
      hash_id: sha1(`bookdist-sandbox-book-${n}`),
      title: b.title,
      subtitle: b.subtitle ?? '',
      author: b.author,
      description: b.about,
      language: b.lang ?? 'en',
      num_pages: b.pages,
      publish_year: b.year,
      isbn13: print.isbn13,
      isbn10: print.isbn10,
      eisbn13: ebook.isbn13,
      eisbn10: ebook.isbn10,
      sku: `${prefix}-${String(n).padStart(4, '0')}`,
      publisher_id: b.pub,
      publisher: pub.title,
      distribution_type: b.code ? 'code' : 'standard',
      is_active: !b.inactive,
      is_public: !b.unpublished,
      is_published: !b.unpublished,
      is_processed: !b.queued && !b.unprocessed && !b.unpublished,
      is_queued: !!b.queued,
      is_html: !!b.html,
      pricing: b.prices.map(([price, days = 0, deactivated]) => {
        const limited = days > 0;
        return {
          id: ++pricingId,
          currency: 'USD',
          price,
          description: limited ? `${days}-day rental` : 'Digital edition (lifetime access)',
          description_limit: limited ? `Access for ${days} days` : 'Unlimited access',
          is_limited: limited,
          limit_days: days,
          other_pricing: limited ? (days <= 30 ? 'EXPIRATION' : 'LIMITED') : null,
          deactivation_date: deactivated ? '2024-01-01T00:00:00Z' : null,
        };
      }),
    };
  });
}

let catalogue: readonly SeedBook[] | undefined;
/**
 * The seeded books, built on first use: a command on a database already seeded never needs them,
 * and building them (a SHA-1 and two ISBN pairs a book) cost every embedded command about 4M
 * instructions, 1.3% of its start-up (issue 31).
 */
export function seedCatalogue(): readonly SeedBook[] {
  return (catalogue ??= buildBooks());
}

export interface SeedImport {
  id: number;
  title: string;
  author: string;
  publisher: string;
  edition_number: number;
  book_id: number;
  isbn13: string;
  isbn10: string;
  eisbn13: string;
  eisbn10: string;
  deleted: boolean;
  file_received: boolean;
  imported: boolean;
}

const IMPORTS: Array<[string, string, string, number, boolean, boolean, boolean]> = [
  // title, author, publisher, edition, deleted, file_received, imported
  ['The Salt Road', 'Imogen Reyes', 'Harbor Lane Press', 1, false, false, false],
  ['Coastal Ecology', 'Henrik Aalto', 'Northwind Academic', 3, false, true, false],
  ['Calculus Without Tears', 'Beatrice Lowe', 'Northwind Academic', 2, false, true, true],
  ['The Ferryman’s Wife', 'Conor Doyle', 'Harbor Lane Press', 1, false, false, false],
  ['Bread and Stone', 'Lucia Ferraro', 'Copperleaf Books', 1, true, false, false],
  ['Modern Data Structures', 'Arun Mehta', 'Northwind Academic', 5, false, true, false],
  ['Walking the Coast Path', 'Fiona Gale', 'Copperleaf Books', 1, false, true, true],
  ['An Almanac of Weather', 'Peter Lindqvist', 'Harbor Lane Press', 2, true, true, false],
  ['Introduction to Pharmacology', 'Samira Haddad', 'Northwind Academic', 7, false, false, false],
  ['The Beekeeper of Aldmoor', 'Hannah Pryce', 'Copperleaf Books', 1, false, true, false],
];

export const SEED_IMPORTS: readonly SeedImport[] = IMPORTS.map(
  ([title, author, publisher, ed, deleted, fr, imported], i) => {
    const n = i + 1;
    const print = isbnPair('1' + String(68_100_000 + n * 173).padStart(8, '0'));
    const ebook = isbnPair('1' + String(69_200_000 + n * 191).padStart(8, '0'));
    return {
      id: n,
      title,
      author,
      publisher,
      edition_number: ed,
      book_id: 5000 + n,
      isbn13: print.isbn13,
      isbn10: print.isbn10,
      eisbn13: ebook.isbn13,
      eisbn10: ebook.isbn10,
      deleted,
      file_received: fr,
      imported,
    };
  },
);

const ALL_SCOPES = [
  'book_metadata',
  'viewer',
  'process',
  'invite_user',
  'create_user',
  'users',
  'create_orders',
  'refunds',
  'codes',
  'import',
  'access',
] as const;

const SEED_ACCOUNTS = {
  partner: {
    id: 1,
    role: 'partner',
    username: sha1('bookdist-sandbox-account-partner').slice(0, 30),
    email: 'integrations@harborlane.example',
    full_name: 'Harbor Lane Integrations',
    scopes: [...ALL_SCOPES] as string[],
    publishers: [1, 2],
    label: { subdomain: 'harborlane', member_email: 'sales@harborlane.example' },
    profile: {
      address_1: '12 Quay Street',
      address_2: 'Suite 4',
      city: 'Portland',
      country: 'US',
      nickname: 'harborlane',
      state: 'ME',
      zip: '04101',
    },
  },
  limited: {
    id: 2,
    role: 'limited',
    username: sha1('bookdist-sandbox-account-limited').slice(0, 30),
    email: 'partners@copperleaf.example',
    full_name: 'Copperleaf Partner Desk',
    scopes: ['book_metadata', 'invite_user'] as string[],
    publishers: [3],
    label: { subdomain: 'copperleaf', member_email: 'orders@copperleaf.example' },
    profile: {
      address_1: '3 Mill Lane',
      address_2: '',
      city: 'Kendal',
      country: 'GB',
      nickname: 'copperleaf',
      state: 'Cumbria',
      zip: 'LA9 4AB',
    },
  },
} as const;

export const SEED_USERS = [
  {
    id: 1,
    username: sha1('bookdist-sandbox-user-1').slice(0, 30),
    email: 'avery.reader@example.com',
    first_name: 'Avery',
    last_name: 'Reader',
    owner: 1,
  },
  {
    id: 2,
    username: sha1('bookdist-sandbox-user-2').slice(0, 30),
    email: 'jordan.lee@example.com',
    first_name: 'Jordan',
    last_name: 'Lee',
    owner: 1,
  },
  {
    id: 3,
    username: sha1('bookdist-sandbox-user-3').slice(0, 30),
    email: 'sam.okoro@example.com',
    first_name: 'Sam',
    last_name: 'Okoro',
    owner: 2,
  },
] as const;

const byTitle = (t: string) => seedCatalogue().find((b) => b.title === t)!;

/** Names for the seed's notable records, for the README, tests and other engineers. */
export const WELL_KNOWN = {
  /** The README's first lookup: active, published, processed, unlimited + limited pricing (publisher 1). */
  get readme() {
    return byTitle("The Lighthouse Keeper's Ledger");
  },
  /** Only limited (rental) pricing: 30 and 90 days. */
  get limitedPricing() {
    return byTitle('A Winter Atlas');
  },
  /** Has a deactivated price (pricing[1]) next to an active one. */
  get deactivatedPrice() {
    return byTitle('The Orchard at Dusk');
  },
  /** Distribution type `code`: offers answer "not available". */
  get codeDistribution() {
    return byTitle('Quiet Harbors');
  },
  /** Not published and not public. */
  get unpublished() {
    return byTitle('Northern Lights Over Galway');
  },
  /** Inactive. */
  get inactive() {
    return byTitle('Letters from Tidewater');
  },
  /** Queued for processing, held by the seed so it stays queued (until forced). */
  get queued() {
    return byTitle('The Glass Meridian');
  },
  /** Neither processed nor queued: `book process` queues it. */
  get unprocessed() {
    return byTitle('Fieldnotes from a Small Island');
  },
  /** A book of the partner's second publisher (Northwind Academic), unlimited + limited pricing. */
  get otherPublisher() {
    return byTitle('Foundations of Organic Chemistry');
  },
  /** A book of a publisher the partner does NOT control (Copperleaf Books; the limited account does). */
  get foreignPublisher() {
    return byTitle('The Midnight Garden Club');
  },
  partner: {
    username: SEED_ACCOUNTS.partner.username,
    email: SEED_ACCOUNTS.partner.email,
    scopes: SEED_ACCOUNTS.partner.scopes,
    publishers: ['Harbor Lane Press', 'Northwind Academic'],
    label: SEED_ACCOUNTS.partner.label.subdomain,
    labelMember: SEED_ACCOUNTS.partner.label.member_email,
  },
  limited: {
    username: SEED_ACCOUNTS.limited.username,
    email: SEED_ACCOUNTS.limited.email,
    scopes: SEED_ACCOUNTS.limited.scopes,
    publishers: ['Copperleaf Books'],
    label: SEED_ACCOUNTS.limited.label.subdomain,
    labelMember: SEED_ACCOUNTS.limited.label.member_email,
  },
  /** Seeded users (owned by the partner, except the third). */
  user: SEED_USERS[0],
  user2: SEED_USERS[1],
  /** An imported title (not deleted, file received, not imported yet). */
  importTitle: SEED_IMPORTS[1],
} as const;

export interface GeneratedSecrets {
  partner: { publicKey: string; privateKey: string; sharedKey: string };
  limited: { publicKey: string; privateKey: string; sharedKey: string };
  operatorToken: string;
}

/** Keys and secrets for one database. Slow-ish (two RSA 2048 keys): call outside a transaction. */
function generateSecrets(): GeneratedSecrets {
  const pair = () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    return { publicKey, privateKey, sharedKey: randomBytes(24).toString('hex') };
  };
  return { partner: pair(), limited: pair(), operatorToken: randomBytes(20).toString('hex') };
}

/**
 * The same as generateSecrets, made on libuv's thread pool: both key pairs at once, and the
 * thread that awaits them free meanwhile (a workspace copies its rows in the meantime).
 */
export async function generateSecretsAsync(): Promise<GeneratedSecrets> {
  const pair = () =>
    new Promise<GeneratedSecrets['partner']>((resolve, reject) =>
      generateKeyPair(
        'rsa',
        {
          modulusLength: 2048,
          publicKeyEncoding: { type: 'spki', format: 'pem' },
          privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
        },
        (err, publicKey, privateKey) =>
          err ? reject(err) : resolve({ publicKey, privateKey, sharedKey: randomBytes(24).toString('hex') }),
      ),
    );
  const [partner, limited] = await Promise.all([pair(), pair()]);
  return { partner, limited, operatorToken: randomBytes(20).toString('hex') };
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Write the seed into an empty schema. Call inside a transaction. */
function writeSeed(store: Store, secrets: GeneratedSecrets): void {
  const now = Date.now();
  for (const p of SEED_PUBLISHERS)
    insertSeedPublisher(store, {
      id: p.id,
      title: p.title,
      description: p.description,
      is_active: p.is_active ? 1 : 0,
    });
  seedAccounts(store, secrets);
  insertSeedToken(store, secrets.operatorToken, SEED_ACCOUNTS.partner.id);

  seedBooks(store);
  for (const im of SEED_IMPORTS) {
    insertSeedImport(store, {
      id: im.id,
      title: im.title,
      author: im.author,
      publisher: im.publisher,
      edition_number: im.edition_number,
      book_id: im.book_id,
      isbn10: im.isbn10,
      isbn13: im.isbn13,
      eisbn10: im.eisbn10,
      eisbn13: im.eisbn13,
      deleted: im.deleted ? 1 : 0,
      file_received: im.file_received ? 1 : 0,
      imported: im.imported ? 1 : 0,
    });
  }
  for (const u of SEED_USERS) {
    insertSeedUser(store, {
      id: u.id,
      username: u.username,
      email: u.email,
      first_name: u.first_name,
      last_name: u.last_name,
      password_hash: hashPassword(randomBytes(12).toString('base64url')),
      owner_account_id: u.owner,
      date_joined: T(2024, 6, 1),
      last_login: T(2025, 1, 2),
      city: 'Portland',
      country: 'US',
      nickname: u.first_name.toLowerCase(),
    });
  }
  store.setMeta('schema_version', String(SCHEMA_VERSION));
  store.setMeta('seeded_at', iso(now));
  store.setMeta('clock_offset_ms', '0');
  store.setMeta('queue_seq', '1');
}

/** The two seeded accounts, with the keys made for this database. */
function seedAccounts(store: Store, secrets: GeneratedSecrets): void {
  for (const a of [SEED_ACCOUNTS.partner, SEED_ACCOUNTS.limited]) {
    const s = secrets[a.role];
    const pr = a.profile;
    insertSeedAccount(
      store,
      {
        id: a.id,
        role: a.role,
        username: a.username,
        email: a.email,
        full_name: a.full_name,
        public_key: s.publicKey,
        private_key: s.privateKey,
        shared_key: s.sharedKey,
        scopes: JSON.stringify(a.scopes),
        address_1: pr.address_1,
        address_2: pr.address_2,
        city: pr.city,
        country: pr.country,
        nickname: pr.nickname,
        state: pr.state,
        zip: pr.zip,
      },
      a.publishers,
      a.label,
    );
  }
}

/** The seeded books and their digital pricing. */
function seedBooks(store: Store): void {
  const processedAt = T(2024, 3, 1);
  for (const b of seedCatalogue()) {
    insertSeedBook(store, {
      id: b.id,
      hash_id: b.hash_id,
      publisher_id: b.publisher_id,
      title: b.title,
      subtitle: b.subtitle,
      description: b.description,
      author: b.author,
      language: b.language,
      num_pages: b.num_pages,
      publish_year: b.publish_year,
      isbn10: b.isbn10,
      isbn13: b.isbn13,
      eisbn10: b.eisbn10,
      eisbn13: b.eisbn13,
      parent_isbn: b.isbn13,
      sku: b.sku,
      distribution_type: b.distribution_type,
      copy_percent: b.publisher_id === 2 ? 10 : 20,
      offline_percent: b.publisher_id === 2 ? null : 100,
      sample_percent: 10,
      offline_range: b.publisher_id === 2 ? '180 days' : 'unlimited',
      print_allowance_range: '30 days',
      print_allowance_percent: b.publisher_id === 2 ? 10 : 20,
      sample_page_end: Math.max(1, Math.floor(b.num_pages / 10)),
      is_active: b.is_active ? 1 : 0,
      is_html: b.is_html ? 1 : 0,
      is_processed: b.is_processed ? 1 : 0,
      is_public: b.is_public ? 1 : 0,
      is_published: b.is_published ? 1 : 0,
      is_queued: b.is_queued ? 1 : 0,
      processed_at: b.is_processed ? processedAt : null,
      queued_at: b.is_queued ? T(2025, 1, 10) : null,
      queue_seq: b.is_queued ? 0 : null,
      queue_hold: b.is_queued ? 1 : 0,
    });
    for (const p of b.pricing) {
      insertSeedPrice(store, {
        id: p.id,
        book_id: b.id,
        currency: p.currency,
        price: p.price,
        description: p.description,
        description_limit: p.description_limit,
        is_limited: p.is_limited ? 1 : 0,
        limit_days: p.limit_days,
        other_pricing: p.other_pricing,
        deactivated_at: p.deactivation_date ? Date.parse(p.deactivation_date) : null,
      });
    }
  }
}

/**
 * Make sure the database has its schema and seed. Race-safe across processes. `secrets`: where a
 * new seed's keys come from (in-process tests that seed many databases in memory make theirs once).
 */
export function ensureSeeded(store: Store, secrets: () => GeneratedSecrets = generateSecrets): boolean {
  if (store.schemaIsCurrent()) return false;
  const seeded = () => store.hasSchema() && store.meta('seeded_at') !== undefined;
  if (seeded()) {
    upgradeSchema(store);
    // A database seeded by an earlier version: add the tables and indexes that came later.
    if (!store.hasTable('idempotency') || !store.hasIndexes()) store.tx(() => store.createSchema());
    store.markSchemaCurrent();
    return false;
  }
  const made = secrets();
  const seededHere = store.tx(() => {
    store.createSchema();
    if (store.meta('seeded_at') !== undefined) return false;
    writeSeed(store, made);
    return true;
  });
  // Seeded by another process meanwhile (perhaps another version): checked again at the next open.
  if (seededHere) store.markSchemaCurrent();
  return seededHere;
}

/** The schema version a seeded database says it has (1 for those made before it was recorded). */
export function schemaVersion(store: Store): number {
  const v = Number(store.meta('schema_version') ?? 1);
  return Number.isInteger(v) && v > 0 ? v : 1;
}

/** A database this version cannot read: written by a later bookdist (exit 2, saying what to do). */
export class SchemaTooNew extends CliError {
  constructor(
    readonly path: string,
    readonly version: number,
  ) {
    super(
      `The sandbox database ${path} was written by a newer bookdist (schema version ${version}; this one reads up to ${SCHEMA_VERSION}). ` +
        'Upgrade bookdist to open it, or use another database (--db), or start this one afresh with `bookdist sandbox reset' +
        (path ? ` --db ${path}` : '') +
        ' --yes` (which deletes what it holds).',
      ExitCode.USAGE,
    );
  }
}

/**
 * Bring a database written by an earlier version up to SCHEMA_VERSION, one migration at a time,
 * in one transaction (all or nothing); refuse one written by a later version.
 */
function upgradeSchema(store: Store): void {
  const have = schemaVersion(store);
  if (have > SCHEMA_VERSION) throw new SchemaTooNew(store.path, have);
  if (have === SCHEMA_VERSION) return;
  store.tx(() => {
    const now = schemaVersion(store); // another process may have upgraded it meanwhile
    for (let v = now + 1; v <= SCHEMA_VERSION; v++) store.exec(MIGRATIONS[v]);
    if (now < SCHEMA_VERSION) store.setMeta('schema_version', String(SCHEMA_VERSION));
  });
}

/** Drop everything and seed again, with new keys and secrets. */
export function reseed(store: Store): void {
  const secrets = generateSecrets();
  store.exec('PRAGMA foreign_keys = OFF');
  try {
    store.tx(() => {
      // The control secret guards a running server's /_sandbox/ routes: it outlives a reset, so
      // a `sandbox serve` on this file and whoever holds its secret keep working (delete the
      // file for a new one).
      const controlSecret = store.hasSchema() ? store.meta('control_secret') : undefined;
      store.dropAll();
      store.createSchema();
      writeSeed(store, secrets);
      if (controlSecret) store.setMeta('control_secret', controlSecret);
    });
  } finally {
    store.exec('PRAGMA foreign_keys = ON');
  }
}

/**
 * Give a copy of a database credentials of its own (a workspace, workspaces/): new keys and
 * shared keys for both accounts, a new operator token (the old tokens are dropped) and a new
 * control secret, so that nothing signed or sent with the original's credentials passes here.
 */
export function renewSecrets(store: Store, secrets: GeneratedSecrets = generateSecrets()): void {
  store.tx(() => {
    replaceAccountKeys(store, 'partner', secrets.partner);
    replaceAccountKeys(store, 'limited', secrets.limited);
    deleteTokens(store);
    insertSeedToken(store, secrets.operatorToken, SEED_ACCOUNTS.partner.id);
    store.setMeta('control_secret', randomBytes(24).toString('base64url'));
  });
}
