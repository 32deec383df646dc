// The endpoint table: one source of truth for the client's calls, the sandbox's router and
// `GET /v1/describe/`. Plain data, no imports, so it is cheap to load.

export type FieldType =
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
}

export type AuthKind = 'partner' | 'access' | 'public' | 'none';

export interface Endpoint {
  /** Stable name used by the client: `book.isbn`, `order.external`, ... */
  name: string;
  /** Methods the service accepts. */
  methods: Array<'GET' | 'POST'>;
  /** Method the CLI sends. */
  clientMethod: 'GET' | 'POST';
  /** Path template with `{param}` segments; always ends in `/` except the store's paths. */
  path: string;
  /** Other paths serving the same operation. */
  aliases?: string[];
  /** Scope the caller needs (decisions.md), or null. */
  scope: string | null;
  /** `partner`: CryptoAuth/SharedKeyAuth; `access`: operator token (or partner auth); `public`/`none`: no auth. */
  auth: AuthKind;
  /** `store`: lives on the price comparison host (profile's store URL). */
  host: 'api' | 'store';
  summary: string;
  /** Fields of the `request` payload (POST) or query (GET of listings/store). */
  fields: FieldDef[];
  /** Where the payload goes for the client's method. */
  payloadIn: 'none' | 'body' | 'query';
  /** Safe to retry on 503 and dropped connections (GETs; idempotent POSTs). */
  idempotent: boolean;
}

const f = (name: string, type: FieldType, description: string, required = false): FieldDef => ({
  name,
  type,
  description,
  required,
});

const LIMIT = f('limit', 'integer', 'page size; 0 or absent means the default (50), at most 500');
const OFFSET = f('offset', 'integer', 'rows to skip (default 0)');

export const ENDPOINTS: Endpoint[] = [
  {
    name: 'index', methods: ['GET'], clientMethod: 'GET', path: '/', aliases: ['/index/'], scope: null,
    auth: 'none', host: 'api', summary: 'Service index: API versions and host', fields: [], payloadIn: 'none', idempotent: true,
  },
  {
    name: 'profile', methods: ['GET'], clientMethod: 'GET', path: '/profile/', scope: null, auth: 'partner',
    host: 'api', summary: 'The calling account: profile and scopes', fields: [], payloadIn: 'none', idempotent: true,
  },
  {
    name: 'describe', methods: ['GET'], clientMethod: 'GET', path: '/v1/describe/', scope: null, auth: 'partner',
    host: 'api', summary: 'Every endpoint with its field definitions', fields: [], payloadIn: 'none', idempotent: true,
  },
  {
    name: 'book.get', methods: ['GET'], clientMethod: 'GET', path: '/v1/book/{hash_id}/', scope: 'book_metadata',
    auth: 'partner', host: 'api', summary: 'A book by hash id', fields: [], payloadIn: 'none', idempotent: true,
  },
  {
    name: 'book.isbn', methods: ['GET'], clientMethod: 'GET', path: '/v1/book/isbn/{isbn}/', scope: 'book_metadata',
    auth: 'partner', host: 'api', summary: 'A book by ISBN', fields: [], payloadIn: 'none', idempotent: true,
  },
  {
    name: 'book.sku', methods: ['GET'], clientMethod: 'GET', path: '/v1/book/sku/{sku}/', scope: 'book_metadata',
    auth: 'partner', host: 'api', summary: 'A book by SKU', fields: [], payloadIn: 'none', idempotent: true,
  },
  {
    name: 'book.pricing', methods: ['GET'], clientMethod: 'GET', path: '/v1/book/isbn/{isbn}/pricing/',
    scope: 'book_metadata', auth: 'partner', host: 'api', summary: 'Digital pricing of a book by ISBN', fields: [],
    payloadIn: 'none', idempotent: true,
  },
  {
    name: 'book.search', methods: ['POST'], clientMethod: 'POST', path: '/v1/book/search/', scope: 'book_metadata',
    auth: 'partner', host: 'api', summary: 'Search books by ISBN, title, author or hash id',
    fields: [
      f('isbn', 'array<string>', 'ISBNs to match'),
      f('title', 'string', 'words of the title'),
      f('author', 'string', 'words of the author'),
      f('hash_ids', 'array<string>', 'hash ids to match'),
      OFFSET,
      LIMIT,
    ],
    payloadIn: 'body', idempotent: true,
  },
  {
    name: 'book.index', methods: ['GET', 'POST'], clientMethod: 'GET', path: '/v1/book/index/', scope: 'book_metadata',
    auth: 'partner', host: 'api', summary: 'Books controlled by the calling account', fields: [OFFSET, LIMIT],
    payloadIn: 'query', idempotent: true,
  },
  {
    name: 'book.viewer', methods: ['GET', 'POST'], clientMethod: 'POST', path: '/v1/book/viewer/', scope: 'viewer',
    auth: 'partner', host: 'api', summary: 'Reader URL for a user and a book',
    fields: [f('username', 'string', 'user (30 hex characters)', true), f('hash_id', 'string', 'book hash id', true)],
    payloadIn: 'body', idempotent: true,
  },
  {
    name: 'book.process', methods: ['POST'], clientMethod: 'POST', path: '/v1/book/{hash_id}/process/', scope: 'process',
    auth: 'partner', host: 'api', summary: 'Queue a book for processing',
    fields: [
      f('force', 'boolean', 'queue again even when already processed (deletes annotations)'),
      f('urgent', 'boolean', 'put the book at the head of the queue'),
    ],
    payloadIn: 'body', idempotent: true,
  },
  {
    name: 'user.invite', methods: ['POST'], clientMethod: 'POST', path: '/v1/user/invite/', scope: 'invite_user',
    auth: 'partner', host: 'api', summary: 'Create a user and e-mail an invitation with a generated password',
    fields: [
      f('email', 'string', 'e-mail address', true),
      f('first_name', 'string', 'first name'),
      f('last_name', 'string', 'last name'),
      f('profile', 'object', 'profile fields (address_1, city, zip, country, ...)'),
      f('label', 'string', 'white label sub-domain under the caller\'s control'),
    ],
    payloadIn: 'body', idempotent: false,
  },
  {
    name: 'user.create', methods: ['POST'], clientMethod: 'POST', path: '/v1/user/', scope: 'create_user',
    auth: 'partner', host: 'api', summary: 'Create a user silently; returns the password',
    fields: [
      f('email', 'string', 'e-mail address', true),
      f('first_name', 'string', 'first name'),
      f('last_name', 'string', 'last name'),
      f('passwd', 'string', 'password; generated when omitted'),
      f('passwd_confirm', 'string', 'the password again'),
      f('label', 'string', 'white label sub-domain'),
    ],
    payloadIn: 'body', idempotent: false,
  },
  {
    name: 'user.get', methods: ['GET'], clientMethod: 'GET', path: '/v1/user/{username}/', scope: 'users',
    auth: 'partner', host: 'api', summary: 'A user by username', fields: [], payloadIn: 'none', idempotent: true,
  },
  {
    name: 'user.email', methods: ['GET'], clientMethod: 'GET', path: '/v1/user/email/{email}/', scope: 'users',
    auth: 'partner', host: 'api', summary: 'A user by e-mail address', fields: [], payloadIn: 'none', idempotent: true,
  },
  {
    name: 'user.orders', methods: ['GET', 'POST'], clientMethod: 'GET', path: '/v1/user/{username}/orders/',
    scope: 'users', auth: 'partner', host: 'api', summary: 'Completed orders of a user', fields: [],
    payloadIn: 'none', idempotent: true,
  },
  {
    name: 'user.purchase', methods: ['GET', 'POST'], clientMethod: 'POST',
    path: '/v1/user/{username}/purchase/{purchase_id}/', scope: 'users', auth: 'partner', host: 'api',
    summary: 'One purchase (order item) of a user',
    fields: [
      f('refund_data', 'boolean', 'compute the true refund availability (slower)'),
      f('refund_info', 'boolean', 'alias of refund_data, as in the reference example'),
    ],
    payloadIn: 'body', idempotent: true,
  },
  {
    name: 'order.external', methods: ['POST'], clientMethod: 'POST', path: '/v1/order/external/',
    scope: 'create_orders', auth: 'partner', host: 'api', summary: 'Report an order processed outside the service',
    fields: [
      f('username', 'string', 'buyer', true),
      f('digital_pricing', 'array<integer>', 'ids of the pricing entries sold', true),
      f('billing_address', 'address', 'full_name (or first_name + last_name), postal_code, country', true),
      f('order_type', 'string', 'payment plan: TestPlan or ExternalPlan', true),
      f('org', 'string', 'organization supplying the order', true),
      f('shipping_address', 'address', 'for print-on-demand books'),
      f('label', 'string', 'white label sub-domain'),
      f('send_email', 'boolean', 'e-mail transaction details to label members (default true)'),
      f('order_number', 'string', 'your order number, at most 20 characters; makes the call idempotent'),
    ],
    payloadIn: 'body', idempotent: false,
  },
  {
    name: 'order.refund', methods: ['POST'], clientMethod: 'POST', path: '/v1/order/refund/', scope: 'refunds',
    auth: 'partner', host: 'api', summary: 'Refund an order, or some of its items',
    fields: [
      f('order_id', 'integer', 'order to refund (or `id`)'),
      f('id', 'integer', 'alias of order_id'),
      f('items', 'array<integer>', 'item ids, for a partial refund'),
      f('type', 'string', 'refund'),
      f('send_email', 'boolean', 'e-mail the refund (default: the organization\'s setting, true)'),
    ],
    payloadIn: 'body', idempotent: false,
  },
  {
    name: 'order.free', methods: ['POST'], clientMethod: 'POST', path: '/v1/order/free/', scope: 'create_orders',
    auth: 'partner', host: 'api', summary: 'Give a user free access to a book',
    fields: [
      f('username', 'string', 'user', true),
      f('hash_id', 'string', 'book', true),
      f('expiration_date', 'date', 'YYYY-MM-DD HH:MM:SS; access ends then'),
      f('label', 'string', 'white label sub-domain'),
    ],
    payloadIn: 'body', idempotent: false,
  },
  {
    name: 'codes.generate', methods: ['POST'], clientMethod: 'POST', path: '/v1/codes/generate/', scope: 'codes',
    auth: 'partner', host: 'api', summary: 'Generate redemption codes for a book',
    fields: [
      f('hash_id', 'string', 'book', true),
      f('org', 'string', 'organization', true),
      f('count', 'integer', 'how many codes (1..1000 per request)', true),
      f('limit_days', 'integer', 'days of access counted from redemption'),
      f('expiration_date', 'date', 'hard date after which access ends'),
      f('samples', 'boolean', 'sample codes'),
      f('label', 'string', 'white label sub-domain'),
    ],
    payloadIn: 'body', idempotent: false,
  },
  {
    name: 'codes.summary', methods: ['GET'], clientMethod: 'GET', path: '/v1/codes/summary/', scope: 'codes',
    auth: 'partner', host: 'api', summary: 'Codes generated and redeemed by the calling account', fields: [],
    payloadIn: 'none', idempotent: true,
  },
  {
    name: 'import.search', methods: ['GET', 'POST'], clientMethod: 'POST', path: '/v1/import/search/', scope: 'import',
    auth: 'partner', host: 'api', summary: 'Search imported titles not yet for sale',
    fields: [
      f('title', 'string', 'words of the title'),
      f('isbn', 'array<string>', 'ISBNs to match'),
      f('author', 'string', 'words of the author'),
      LIMIT,
      OFFSET,
    ],
    payloadIn: 'body', idempotent: true,
  },
  {
    name: 'access.allow', methods: ['GET', 'POST'], clientMethod: 'POST', path: '/v1/access/allow/', scope: 'access',
    auth: 'access', host: 'api', summary: 'Grant a user access to a book on a partner-hosted reader',
    fields: [
      f('hash_id', 'string', 'book', true),
      f('username', 'string', 'user', true),
      f('price', 'string', 'the partner\'s external price, a decimal with at most two places', true),
      f('expiration_date', 'date', 'YYYY-MM-DD HH:MM:SS; access ends then'),
      f('email', 'string', 'who sends out access'),
      f('send_email', 'boolean', 'e-mail the user that access was granted'),
    ],
    payloadIn: 'body', idempotent: false,
  },
  {
    name: 'access.revoke', methods: ['GET', 'POST'], clientMethod: 'POST', path: '/v1/access/revoke/', scope: 'access',
    auth: 'access', host: 'api', summary: 'Revoke a user\'s access to a book',
    fields: [f('hash_id', 'string', 'book', true), f('username', 'string', 'user', true)],
    payloadIn: 'body', idempotent: false,
  },
  {
    name: 'offers', methods: ['GET'], clientMethod: 'GET', path: '/api/offers.json', scope: null, auth: 'public',
    host: 'store', summary: 'Price offers for an ISBN', fields: [f('isbn', 'string', 'ISBN', true)],
    payloadIn: 'query', idempotent: true,
  },
  {
    name: 'checkout', methods: ['GET'], clientMethod: 'GET', path: '/checkout', scope: null, auth: 'public',
    host: 'store', summary: 'Redirect to a pre-filled cart',
    fields: [f('ids', 'string', 'price ids, comma-separated', true), f('rejoiner_ids', 'string', 'rejoiner ids, comma-separated')],
    payloadIn: 'query', idempotent: true,
  },
];

const BY_NAME = new Map(ENDPOINTS.map((e) => [e.name, e]));

export function endpoint(name: string): Endpoint {
  const e = BY_NAME.get(name);
  if (!e) throw new Error(`unknown endpoint ${name}`);
  return e;
}
