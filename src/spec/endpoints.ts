// The endpoint table: one source of truth for the client's calls, the sandbox's router,
// `GET /v1/describe/` and the OpenAPI document (src/spec/openapi.ts). Plain data, no run-time
// imports, so it is cheap to load. Response shapes name the resources of interface.md section 2,
// whose schemas live in src/spec/schemas.ts (loaded only by the OpenAPI generator). The table is
// typed `as const`: src/spec/contract.ts derives each endpoint's name, payload and answer types
// from it and from those schemas.
import type { Schema } from './json-schema.js';
import type { Schemas } from './schemas.js';

type FieldType =
  | 'string'
  | 'integer'
  | 'number'
  | 'boolean'
  | 'date'
  | 'array<string>'
  | 'array<integer>'
  | 'address'
  | 'object';

export interface FieldDef {
  name: string;
  type: FieldType;
  required?: boolean;
  description: string;
  /** Integers: smallest and largest accepted value. */
  min?: number;
  max?: number;
  /** Strings (and each entry of a string array): at most this many characters (default 1000). */
  maxLength?: number;
  /** What the string holds, when it has a known shape (documented; the sandbox checks email/decimal). */
  format?: 'email' | 'decimal' | 'username' | 'hash_id' | 'isbn';
  /** The only values the service supports (documented; others get a 400). */
  enum?: readonly string[];
}

interface ResponseDef {
  /** Status of a success (200; 302 for the checkout redirect). */
  status: number;
  /**
   * Members of the success body besides the envelope (code, success, test_mode). A name ending
   * in `?` may be absent.
   */
  body: Readonly<Record<string, Schema>>;
  /** The body is exactly `body` with no envelope (the OpenAPI document itself). */
  raw?: boolean;
  /** Response headers of a success (e.g. the redirect's `location`). */
  headers?: readonly string[];
}

type AuthKind = 'partner' | 'access' | 'public' | 'none';

export interface Endpoint {
  /** Stable name used by the client: `book.isbn`, `order.external`, ... */
  name: string;
  /** Methods the service accepts. */
  methods: ReadonlyArray<'GET' | 'POST'>;
  /** Method the CLI sends. */
  clientMethod: 'GET' | 'POST';
  /** Path template with `{param}` segments; always ends in `/` except the store's paths. */
  path: string;
  /** Other paths serving the same operation. */
  aliases?: readonly string[];
  /** Scope the caller needs (decisions.md), or null. */
  scope: string | null;
  /** `partner`: CryptoAuth/SharedKeyAuth; `access`: operator token (or partner auth); `public`/`none`: no auth. */
  auth: AuthKind;
  /** A partner endpoint that the operator token may call too (interface.md 4.8). */
  token?: boolean;
  /** `store`: lives on the price comparison host (profile's store URL). */
  host: 'api' | 'store';
  summary: string;
  /** Fields of the `request` payload (POST) or query (GET of listings/store). */
  fields: readonly FieldDef[];
  /** Fields that reference clients send but the service ignores (accepted when null or empty). */
  ignored?: readonly string[];
  /** Where the payload goes for the client's method. */
  payloadIn: 'none' | 'body' | 'query';
  /** Safe to retry on 503 and dropped connections (GETs; idempotent POSTs). */
  idempotent: boolean;
  /** The success response (interface.md section 2 and 4, decisions.md). */
  response: ResponseDef;
}

/** Path parameters: `{name}` segments of the paths below. */
export const PATH_PARAMS: Record<string, FieldDef> = {
  hash_id: {
    name: 'hash_id',
    type: 'string',
    required: true,
    format: 'hash_id',
    description: 'book hash id (40 hex characters)',
  },
  isbn: {
    name: 'isbn',
    type: 'string',
    required: true,
    format: 'isbn',
    description: 'ISBN-10 or ISBN-13, hyphens allowed',
  },
  sku: { name: 'sku', type: 'string', required: true, description: 'book SKU' },
  username: {
    name: 'username',
    type: 'string',
    required: true,
    format: 'username',
    description: 'user (30 hex characters)',
  },
  email: { name: 'email', type: 'string', required: true, format: 'email', description: 'e-mail address of the user' },
  purchase_id: { name: 'purchase_id', type: 'integer', required: true, min: 1, description: 'order item id' },
};

const f = <
  const N extends string,
  const T extends FieldType,
  const R extends boolean = false,
  const M extends Partial<FieldDef> = {},
>(
  name: N,
  type: T,
  description: string,
  required: R = false as R,
  more: M = {} as M,
) => ({ name, type, description, required, ...more });

const LIMIT = f('limit', 'integer', 'page size; 0 or absent means the default (50), at most 500', false, {
  min: 0,
  max: 500,
});
const OFFSET = f('offset', 'integer', 'rows to skip (default 0)', false, { min: 0 });
const USERNAME = { format: 'username' } as const;
const HASH_ID = { format: 'hash_id' } as const;

// Response members (JSON Schema). `ref('Book')` names a resource of src/spec/schemas.ts.
const ref = <const N extends keyof Schemas>(name: N) => ({ $ref: name });
const STR = { type: 'string' } as const;
const INT = { type: 'integer' } as const;
const BOOL = { type: 'boolean' } as const;
const list = <const I extends Schema>(items: I) => ({ type: 'array', items }) as const;
const ok = <const B extends Record<string, Schema>, const S extends number = 200>(body: B, status: S = 200 as S) => ({
  status,
  body,
});
const MESSAGE = ok({ 'message?': STR });

const DATE_TIME = { type: ['string', 'null'], format: 'date-time' } as const;
const PURCHASE = {
  id: INT,
  book: ref('ItemBook'),
  digital_pricing: {
    type: 'object',
    required: ['description', 'id'],
    properties: { description: STR, id: { type: ['integer', 'null'] } },
  },
  expiration_date: DATE_TIME,
  is_active: BOOL,
  is_digital: BOOL,
  is_print: BOOL,
  is_refunded: BOOL,
  purchase_date: { type: 'string', format: 'date-time' },
  purchase_price: ref('Decimal'),
  quantity: INT,
  refund_available: BOOL,
  user: ref('ItemUser'),
} as const;

/**
 * The table: each endpoint's row by its name, in the order of the OpenAPI document and of
 * `GET /v1/describe/`. A row is built when it is first asked for (endpoint()): a command builds
 * the one or two it calls, not all of them (about 1.5M instructions of every request, issue 31);
 * endpoints() builds the whole table for the sandbox, the OpenAPI document and the ledger. Each
 * row keeps its literal types (src/spec/contract.ts reads them as EndpointTable).
 */
const ROWS = {
  index: () =>
    ({
      name: 'index',
      methods: ['GET'],
      clientMethod: 'GET',
      path: '/',
      aliases: ['/index/'],
      scope: null,
      auth: 'none',
      host: 'api',
      summary: 'Service index: API versions and host',
      fields: [],
      payloadIn: 'none',
      idempotent: true,
      response: ok({ api: ref('ApiIndex') }),
    }) as const,
  profile: () =>
    ({
      name: 'profile',
      methods: ['GET'],
      clientMethod: 'GET',
      path: '/profile/',
      scope: null,
      auth: 'partner',
      host: 'api',
      summary: 'The calling account: profile and scopes',
      fields: [],
      payloadIn: 'none',
      idempotent: true,
      response: ok({ profile: ref('AccountProfile'), scopes: list(STR) }),
    }) as const,
  describe: () =>
    ({
      name: 'describe',
      methods: ['GET'],
      clientMethod: 'GET',
      path: '/v1/describe/',
      scope: null,
      auth: 'partner',
      host: 'api',
      summary: 'Every endpoint with its field definitions',
      fields: [],
      payloadIn: 'none',
      idempotent: true,
      response: ok({ endpoints: list(ref('DescribedEndpoint')) }),
    }) as const,
  openapi: () =>
    ({
      name: 'openapi',
      methods: ['GET'],
      clientMethod: 'GET',
      path: '/openapi.json',
      scope: null,
      auth: 'none',
      host: 'api',
      summary: 'This OpenAPI 3.1 document, generated from the endpoint table',
      fields: [],
      payloadIn: 'none',
      idempotent: true,
      response: {
        status: 200,
        raw: true,
        body: { openapi: { const: '3.1.0' }, info: { type: 'object' }, paths: { type: 'object' } },
      },
    }) as const,
  'book.get': () =>
    ({
      name: 'book.get',
      methods: ['GET'],
      clientMethod: 'GET',
      path: '/v1/book/{hash_id}/',
      scope: 'book_metadata',
      auth: 'partner',
      host: 'api',
      summary: 'A book by hash id',
      fields: [],
      payloadIn: 'none',
      idempotent: true,
      response: ok({ book: ref('Book') }),
    }) as const,
  'book.isbn': () =>
    ({
      name: 'book.isbn',
      methods: ['GET'],
      clientMethod: 'GET',
      path: '/v1/book/isbn/{isbn}/',
      scope: 'book_metadata',
      auth: 'partner',
      host: 'api',
      summary: 'A book by ISBN',
      fields: [],
      payloadIn: 'none',
      idempotent: true,
      response: ok({ book: ref('Book') }),
    }) as const,
  'book.sku': () =>
    ({
      name: 'book.sku',
      methods: ['GET'],
      clientMethod: 'GET',
      path: '/v1/book/sku/{sku}/',
      scope: 'book_metadata',
      auth: 'partner',
      host: 'api',
      summary: 'A book by SKU',
      fields: [],
      payloadIn: 'none',
      idempotent: true,
      response: ok({ book: ref('Book') }),
    }) as const,
  'book.pricing': () =>
    ({
      name: 'book.pricing',
      methods: ['GET'],
      clientMethod: 'GET',
      path: '/v1/book/isbn/{isbn}/pricing/',
      scope: 'book_metadata',
      auth: 'partner',
      host: 'api',
      summary: 'Digital pricing of a book by ISBN',
      fields: [],
      payloadIn: 'none',
      idempotent: true,
      response: ok({ hash_id: STR, isbn: STR, title: STR, digital_pricing: list(ref('PricingEntry')) }),
    }) as const,
  'book.search': () =>
    ({
      name: 'book.search',
      methods: ['POST'],
      clientMethod: 'POST',
      path: '/v1/book/search/',
      scope: 'book_metadata',
      auth: 'partner',
      host: 'api',
      summary: 'Search books by ISBN, title, author or hash id',
      fields: [
        f('isbn', 'array<string>', 'ISBNs to match'),
        f('title', 'string', 'words of the title'),
        f('author', 'string', 'words of the author'),
        f('hash_ids', 'array<string>', 'hash ids to match'),
        OFFSET,
        LIMIT,
      ],
      payloadIn: 'body',
      idempotent: true,
      response: ok({ count: INT, results: list(ref('Book')) }),
    }) as const,
  'book.index': () =>
    ({
      name: 'book.index',
      // The client pages with the POST form: the interface (4.2) gives limit and offset to it, and
      // says the GET form "takes none" (a deployment may ignore a GET's query).
      token: true,
      methods: ['GET', 'POST'],
      clientMethod: 'POST',
      path: '/v1/book/index/',
      scope: 'book_metadata',
      auth: 'partner',
      host: 'api',
      summary: 'Books controlled by the calling account',
      fields: [OFFSET, LIMIT],
      payloadIn: 'body',
      idempotent: true,
      // The interface (4.2) gives count and results; limit and offset are the sandbox's extra.
      response: ok({ count: INT, 'limit?': INT, 'offset?': INT, results: list(ref('Book')) }),
    }) as const,
  'book.viewer': () =>
    ({
      name: 'book.viewer',
      token: true,
      methods: ['GET', 'POST'],
      clientMethod: 'POST',
      path: '/v1/book/viewer/',
      scope: 'viewer',
      auth: 'partner',
      host: 'api',
      summary: 'Reader URL for a user and a book',
      fields: [
        f('username', 'string', 'user (30 hex characters)', true, USERNAME),
        f('hash_id', 'string', 'book hash id', true, HASH_ID),
      ],
      payloadIn: 'body',
      idempotent: true,
      response: ok({ viewer_url: { type: 'string', format: 'uri' } }),
    }) as const,
  'book.process': () =>
    ({
      name: 'book.process',
      methods: ['POST'],
      clientMethod: 'POST',
      path: '/v1/book/{hash_id}/process/',
      scope: 'process',
      auth: 'partner',
      host: 'api',
      summary: 'Queue a book for processing',
      fields: [
        f('force', 'boolean', 'queue again even when already processed (deletes annotations)'),
        f('urgent', 'boolean', 'put the book at the head of the queue'),
      ],
      payloadIn: 'body',
      idempotent: true,
      response: ok({ message: STR }),
    }) as const,
  'user.invite': () =>
    ({
      name: 'user.invite',
      methods: ['POST'],
      clientMethod: 'POST',
      path: '/v1/user/invite/',
      scope: 'invite_user',
      auth: 'partner',
      host: 'api',
      summary: 'Create a user and e-mail an invitation with a generated password',
      fields: [
        f('email', 'string', 'e-mail address', true, { format: 'email' }),
        f('first_name', 'string', 'first name'),
        f('last_name', 'string', 'last name'),
        f('profile', 'object', 'profile fields (address_1, city, zip, country, ...)'),
        f('label', 'string', "white label sub-domain under the caller's control"),
      ],
      payloadIn: 'body',
      idempotent: false,
      response: ok({ email: STR, message: STR, username: STR }),
    }) as const,
  'user.create': () =>
    ({
      name: 'user.create',
      token: true,
      methods: ['POST'],
      clientMethod: 'POST',
      path: '/v1/user/',
      scope: 'create_user',
      auth: 'partner',
      host: 'api',
      summary: 'Create a user silently; returns the password',
      fields: [
        f('email', 'string', 'e-mail address', true, { format: 'email' }),
        f('first_name', 'string', 'first name'),
        f('last_name', 'string', 'last name'),
        f('passwd', 'string', 'password (at least 6 characters); generated when omitted'),
        f('passwd_confirm', 'string', 'the password again'),
        f(
          'profile',
          'object',
          'profile fields (address_1, city, zip, country, ...), as the Ruby reference client sends',
        ),
        f('label', 'string', 'white label sub-domain'),
      ],
      payloadIn: 'body',
      idempotent: false,
      // With the operator token, an existing user is a 200 with conflict fields (interface.md 4.8).
      response: ok({
        'email?': STR,
        'passwd?': STR,
        message: STR,
        username: STR,
        'value?': STR,
        'conflict?': { const: true },
        'field?': { const: 'email' },
      }),
    }) as const,
  'user.get': () =>
    ({
      name: 'user.get',
      methods: ['GET'],
      clientMethod: 'GET',
      path: '/v1/user/{username}/',
      scope: 'users',
      auth: 'partner',
      host: 'api',
      summary: 'A user by username',
      fields: [],
      payloadIn: 'none',
      idempotent: true,
      response: ok({ user: ref('User') }),
    }) as const,
  'user.email': () =>
    ({
      name: 'user.email',
      methods: ['GET'],
      clientMethod: 'GET',
      path: '/v1/user/email/{email}/',
      scope: 'users',
      auth: 'partner',
      host: 'api',
      summary: 'A user by e-mail address',
      fields: [],
      payloadIn: 'none',
      idempotent: true,
      response: ok({ user: ref('User') }),
    }) as const,
  'user.orders': () =>
    ({
      name: 'user.orders',
      methods: ['GET', 'POST'],
      clientMethod: 'GET',
      path: '/v1/user/{username}/orders/',
      scope: 'users',
      auth: 'partner',
      host: 'api',
      summary: 'Completed orders of a user',
      fields: [],
      payloadIn: 'none',
      idempotent: true,
      response: ok({ count: INT, results: list(ref('ListedOrder')) }),
    }) as const,
  'user.purchase': () =>
    ({
      name: 'user.purchase',
      methods: ['GET', 'POST'],
      clientMethod: 'POST',
      path: '/v1/user/{username}/purchase/{purchase_id}/',
      scope: 'users',
      auth: 'partner',
      host: 'api',
      summary: 'One purchase (order item) of a user',
      fields: [
        f('refund_data', 'boolean', 'compute the true refund availability (slower)'),
        f('refund_info', 'boolean', 'alias of refund_data, as in the reference example'),
      ],
      payloadIn: 'body',
      idempotent: true,
      response: ok(PURCHASE),
    }) as const,
  'order.external': () =>
    ({
      name: 'order.external',
      methods: ['POST'],
      clientMethod: 'POST',
      path: '/v1/order/external/',
      scope: 'create_orders',
      auth: 'partner',
      host: 'api',
      summary: 'Report an order processed outside the service',
      fields: [
        f('username', 'string', 'buyer', true, USERNAME),
        f('digital_pricing', 'array<integer>', 'ids of the pricing entries sold', true),
        f('billing_address', 'address', 'full_name (or first_name + last_name), postal_code, country', true),
        f('order_type', 'string', 'payment plan: TestPlan or ExternalPlan', true, {
          enum: ['TestPlan', 'ExternalPlan'],
        }),
        f('org', 'string', 'organization supplying the order', true),
        f('shipping_address', 'address', 'for print-on-demand books'),
        f('label', 'string', 'white label sub-domain'),
        f('send_email', 'boolean', 'e-mail transaction details to label members (default true)'),
        f('order_number', 'string', 'your order number, at most 20 characters; makes the call idempotent', false, {
          maxLength: 20,
        }),
      ],
      ignored: ['print_pricing', 'combo_pricing'],
      payloadIn: 'body',
      idempotent: false,
      response: ok({ message: STR, order: ref('Order') }),
    }) as const,
  'order.refund': () =>
    ({
      name: 'order.refund',
      methods: ['POST'],
      clientMethod: 'POST',
      path: '/v1/order/refund/',
      scope: 'refunds',
      auth: 'partner',
      host: 'api',
      summary: 'Refund an order, or some of its items',
      fields: [
        f('order_id', 'integer', 'order to refund (or `id`)'),
        f('id', 'integer', 'alias of order_id'),
        f('items', 'array<integer>', 'item ids, for a partial refund; absent or empty: the whole order'),
        f('type', 'string', 'refund', false, { enum: ['refund'] }),
        f('send_email', 'boolean', "e-mail the refund (default: the organization's setting, true)"),
      ],
      payloadIn: 'body',
      idempotent: false,
      response: ok({
        message: STR,
        refunds: list({
          type: 'object',
          required: ['purchase_id', 'success'],
          properties: { purchase_id: INT, success: BOOL },
        }),
      }),
    }) as const,
  'order.free': () =>
    ({
      name: 'order.free',
      methods: ['POST'],
      clientMethod: 'POST',
      path: '/v1/order/free/',
      scope: 'create_orders',
      auth: 'partner',
      host: 'api',
      summary: 'Give a user free access to a book',
      fields: [
        f('username', 'string', 'user', true, USERNAME),
        f('hash_id', 'string', 'book', true, HASH_ID),
        f('expiration_date', 'date', 'YYYY-MM-DD HH:MM:SS; access ends then'),
        f('label', 'string', 'white label sub-domain'),
      ],
      payloadIn: 'body',
      idempotent: false,
      // The interface (4.4) promises only a message; the sandbox adds the order it made.
      response: ok({ message: STR, 'order?': ref('Order') }),
    }) as const,
  'codes.generate': () =>
    ({
      name: 'codes.generate',
      methods: ['POST'],
      clientMethod: 'POST',
      path: '/v1/codes/generate/',
      scope: 'codes',
      auth: 'partner',
      host: 'api',
      summary: 'Generate redemption codes for a book',
      fields: [
        f('hash_id', 'string', 'book', true, HASH_ID),
        f('org', 'string', 'organization', true),
        f('count', 'integer', 'how many codes (1..1000 per request)', true, { min: 1, max: 1000 }),
        f('limit_days', 'integer', 'days of access counted from redemption', false, { min: 0, max: 36500 }),
        f('expiration_date', 'date', 'hard date after which access ends'),
        f('samples', 'boolean', 'sample codes'),
        f('label', 'string', 'white label sub-domain'),
      ],
      payloadIn: 'body',
      idempotent: false,
      response: ok({ codes: list(ref('Code')) }),
    }) as const,
  'codes.summary': () =>
    ({
      name: 'codes.summary',
      methods: ['GET'],
      clientMethod: 'GET',
      path: '/v1/codes/summary/',
      scope: 'codes',
      auth: 'partner',
      host: 'api',
      summary: 'Codes generated and redeemed by the calling account',
      fields: [],
      payloadIn: 'none',
      idempotent: true,
      response: ok({
        codes_generated: INT,
        codes_redeemed: INT,
        redemption_percentage: { type: 'number', minimum: 0, maximum: 1 },
      }),
    }) as const,
  'import.search': () =>
    ({
      name: 'import.search',
      methods: ['GET', 'POST'],
      clientMethod: 'POST',
      path: '/v1/import/search/',
      scope: 'import',
      auth: 'partner',
      host: 'api',
      summary: 'Search imported titles not yet for sale',
      fields: [
        f('title', 'string', 'words of the title'),
        f('isbn', 'array<string>', 'ISBNs to match'),
        f('author', 'string', 'words of the author'),
        LIMIT,
        OFFSET,
      ],
      payloadIn: 'body',
      idempotent: true,
      response: ok({ count: INT, limit: INT, offset: INT, results: list(ref('ImportedTitle')) }),
    }) as const,
  'access.allow': () =>
    ({
      name: 'access.allow',
      methods: ['GET', 'POST'],
      clientMethod: 'POST',
      path: '/v1/access/allow/',
      scope: 'access',
      auth: 'access',
      host: 'api',
      summary: 'Grant a user access to a book on a partner-hosted reader',
      fields: [
        f('hash_id', 'string', 'book', true, HASH_ID),
        f('username', 'string', 'user', true, USERNAME),
        f('price', 'string', "the partner's external price, a decimal with at most two places", true, {
          format: 'decimal',
        }),
        f('expiration_date', 'date', 'YYYY-MM-DD HH:MM:SS; access ends then'),
        f('email', 'string', 'who sends out access', false, { format: 'email' }),
        f('send_email', 'boolean', 'e-mail the user that access was granted'),
      ],
      payloadIn: 'body',
      idempotent: false,
      response: MESSAGE,
    }) as const,
  'access.revoke': () =>
    ({
      name: 'access.revoke',
      methods: ['GET', 'POST'],
      clientMethod: 'POST',
      path: '/v1/access/revoke/',
      scope: 'access',
      auth: 'access',
      host: 'api',
      summary: "Revoke a user's access to a book",
      fields: [f('hash_id', 'string', 'book', true, HASH_ID), f('username', 'string', 'user', true, USERNAME)],
      payloadIn: 'body',
      idempotent: false,
      response: MESSAGE,
    }) as const,
  offers: () =>
    ({
      name: 'offers',
      methods: ['GET'],
      clientMethod: 'GET',
      path: '/api/offers.json',
      scope: null,
      auth: 'public',
      host: 'store',
      summary: 'Price offers for an ISBN',
      fields: [f('isbn', 'string', 'ISBN', true, { format: 'isbn' })],
      payloadIn: 'query',
      idempotent: true,
      response: ok({ Status: STR, Isbn: STR, Offers: list(ref('PriceOffer')) }),
    }) as const,
  checkout: () =>
    ({
      name: 'checkout',
      methods: ['GET'],
      clientMethod: 'GET',
      path: '/checkout',
      scope: null,
      auth: 'public',
      host: 'store',
      summary: 'Redirect to a pre-filled cart',
      fields: [
        f('ids', 'string', 'price ids, comma-separated', true, { maxLength: 2000 }),
        f('rejoiner_ids', 'string', 'rejoiner ids, comma-separated', false, { maxLength: 2000 }),
      ],
      payloadIn: 'query',
      idempotent: true,
      response: { status: 302, body: { location: STR }, headers: ['location'] },
    }) as const,
} as const satisfies Readonly<Record<string, () => Endpoint>>;

type Rows = typeof ROWS;

/** The table's literal type: each endpoint's name, path, fields and response as written above. */
export type EndpointTable = ReturnType<Rows[keyof Rows]>[];

/** Each row's name is its key: a row under another name does not compile. */
const namesMatch: [Misnamed] extends [never] ? true : Misnamed = true;
type Misnamed = { [N in keyof Rows]: ReturnType<Rows[N]>['name'] extends N ? never : N }[keyof Rows];
void namesMatch;

/** The rows built so far, by name: each endpoint is one object however often it is asked for. */
const BUILT = new Map<string, Endpoint>();
let all: readonly Endpoint[] | undefined;

/** Every endpoint of the table, in its order. */
export function endpoints(): readonly Endpoint[] {
  return (all ??= Object.keys(ROWS).map(endpoint));
}

/** The endpoint of this name, or undefined when the table has none. */
export function findEndpoint(name: string): Endpoint | undefined {
  let e = BUILT.get(name);
  if (!e && Object.hasOwn(ROWS, name)) {
    e = ROWS[name as keyof Rows]();
    BUILT.set(name, e);
  }
  return e;
}

export function endpoint(name: string): Endpoint {
  const e = findEndpoint(name);
  if (!e) throw new Error(`unknown endpoint ${name}`);
  return e;
}

/**
 * May this endpoint's payload come as plain query or form fields, outside `request`? Where it
 * takes GET (a POST form is then read as that GET's query) and on the book search, a read. A
 * CryptoAuth signature of such a request covers only the username, the same for every GET of
 * the account (wire.md); on the endpoints that write, fields it does not cover would let one
 * captured GET signature create orders, codes or users, refund orders or queue books.
 */
export function takesPlainFields(ep: Endpoint): boolean {
  return ep.methods.includes('GET') || ep.name === 'book.search';
}
