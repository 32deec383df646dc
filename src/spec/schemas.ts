// The resources of interface.md section 2 (and the envelope and error body of sections 2.1 and
// 7) as JSON Schemas (2020-12, the dialect of OpenAPI 3.1). The endpoint table's responses name
// them with `{ $ref: 'Book' }`; src/spec/openapi.ts puts them under components.schemas. Loaded only
// by the OpenAPI generator, never at CLI start-up; its literal types (`as const`) give the types
// of the answers (src/spec/contract.ts), which cost nothing at run time.
import type { Schema } from './json-schema.js';

const STR = { type: 'string' } as const;
const INT = { type: 'integer' } as const;
const BOOL = { type: 'boolean' } as const;
const NUM_OR_NULL = { type: ['number', 'null'] } as const;
const DATE_TIME = { type: 'string', format: 'date-time' } as const;
const DATE_TIME_OR_NULL = { type: ['string', 'null'], format: 'date-time' } as const;
const ref = <const N extends string>(name: N) => ({ $ref: name });

/** An object whose listed members are all present but `optional`; more members may be added (decisions.md). */
function obj<const P extends Record<string, Schema>, const O extends keyof P & string = never>(
  properties: P,
  optional: readonly O[] = [],
): { type: 'object'; required: Array<Exclude<keyof P & string, O>>; properties: P } {
  return {
    type: 'object',
    required: Object.keys(properties).filter((k) => !(optional as readonly string[]).includes(k)) as Array<
      Exclude<keyof P & string, O>
    >,
    properties,
  };
}
/** Members that all have schema `schema`. */
function members<const N extends string, const S extends Schema>(names: readonly N[], schema: S): { [K in N]: S } {
  return Object.fromEntries(names.map((n) => [n, schema])) as { [K in N]: S };
}
const strings = <const N extends string>(...names: N[]) => members(names, STR);

export const SCHEMAS = {
  Envelope: {
    description: 'Members of every success response: `code` (the HTTP status), `success` and `test_mode`.',
    ...obj({ code: INT, success: { const: true }, test_mode: BOOL }),
  },
  Error: {
    description:
      'Every error: JSON with code (the HTTP status), error true, test_mode and a ' +
      'message that names the fix. Some errors add members (conflict, value, field, username on an existing ' +
      'user; purchase_id on a refused refund).',
    ...obj({
      code: { type: 'integer', minimum: 400, maximum: 599 },
      error: { const: true },
      test_mode: BOOL,
      message: STR,
    }),
  },
  XmlError: {
    description:
      "The access-control API's error body when the request's Accept prefers application/xml: " +
      '<response><error>The following errors were detected:</error><message>…</message></response>.',
    type: 'string',
    pattern:
      '^<\\?xml [^>]*\\?>\\s*<response><error>The following errors were detected:</error><message>[^<]*</message></response>\\s*$',
  },
  Decimal: {
    description: 'A decimal amount as a string, e.g. "12.99".',
    type: 'string',
    pattern: '^-?\\d+(\\.\\d+)?$',
  },
  ApiIndex: obj({
    admin: STR,
    available_versions: {
      type: 'array',
      items: obj({
        version: STR,
        version_date: STR,
        version_help: STR,
        version_major: INT,
        version_string: STR,
        version_url: STR,
      }),
    },
    current_version: STR,
    host: STR,
  }),
  AccountProfile: obj(strings('address_1', 'address_2', 'city', 'country', 'nickname', 'state', 'zip')),
  DescribedEndpoint: obj({
    name: STR,
    methods: { type: 'array', items: { enum: ['GET', 'POST'] } },
    path: STR,
    aliases: { type: 'array', items: STR },
    scope: { type: ['string', 'null'] },
    auth: { enum: ['partner', 'access', 'public', 'none'] },
    summary: STR,
    fields: { type: 'array', items: obj({ name: STR, type: STR, required: BOOL, description: STR }) },
  }),
  PricingEntry: obj(
    {
      id: INT,
      currency: STR,
      price: ref('Decimal'),
      description: STR,
      description_limit: STR,
      is_limited: BOOL,
      limit_days: INT,
      other_pricing: { type: ['string', 'null'] },
      deactivation_date: DATE_TIME_OR_NULL,
      calculated_expiration_date: { type: 'string', format: 'date' },
      days_until_expiration: STR,
    },
    ['calculated_expiration_date', 'days_until_expiration'],
  ),
  BookStatus: obj(
    {
      is_active: BOOL,
      is_html: BOOL,
      is_processed: BOOL,
      is_public: BOOL,
      is_published: BOOL,
      is_queued: BOOL,
      processed_date: DATE_TIME_OR_NULL,
      queued_date: DATE_TIME_OR_NULL,
      is_held: {
        type: 'boolean',
        description: 'Sandbox only: queued, but held (never processed until queued again with force).',
      },
      held_reason: {
        type: ['string', 'null'],
        description: 'Sandbox only: why the book is held and what releases it.',
      },
    },
    ['is_held', 'held_reason'],
  ),
  Book: obj({
    id: INT,
    hash_id: STR,
    ...strings('title', 'subtitle', 'description', 'author', 'language'),
    num_pages: INT,
    publish_year: { type: ['integer', 'null'] },
    sample_url: STR,
    identifiers: obj({
      ...strings('eisbn10', 'eisbn13', 'hash_id', 'isbn10', 'isbn13', 'parent_isbn', 'sku'),
      id: INT,
    }),
    drm: obj({
      copy_percent: NUM_OR_NULL,
      offline_percent: NUM_OR_NULL,
      sample_percent: NUM_OR_NULL,
      offline_range: STR,
      print_allowance_range: STR,
      print_allowance_percent: { type: 'number' },
      sample_page_end: INT,
    }),
    files: obj({ cover_image: obj({ filename: STR, url: STR }), thumbnail: { type: ['object', 'null'] } }),
    digital_pricing: { type: 'array', items: ref('PricingEntry') },
    publisher: obj({ title: STR, description: STR, is_active: BOOL }),
    status: ref('BookStatus'),
  }),
  User: obj({
    ...strings('username', 'first_name', 'last_name', 'email'),
    status: obj({
      is_active: BOOL,
      verified: BOOL,
      over_18: BOOL,
      last_login: DATE_TIME_OR_NULL,
      date_joined: DATE_TIME,
    }),
    profile: obj(strings('address_1', 'address_2', 'city', 'zip', 'country', 'state', 'nickname')),
    owner: obj(strings('username', 'full_name')),
    permissions: obj({ html_posting: BOOL, bdp_posting: BOOL, can_post: BOOL }),
  }),
  ItemBook: obj(strings('hash_id', 'title', 'sample_url')),
  ItemUser: obj(strings('full_name', 'username')),
  OrderItem: obj(
    {
      id: INT,
      order: obj({ id: INT }),
      book: ref('ItemBook'),
      user: ref('ItemUser'),
      expiration_date: DATE_TIME_OR_NULL,
      is_active: BOOL,
      is_digital: BOOL,
      is_print: BOOL,
      is_refunded: BOOL,
      refund_available: BOOL,
      purchase_date: DATE_TIME,
      purchase_price: ref('Decimal'),
      quantity: INT,
    },
    ['refund_available'],
  ),
  Order: {
    description: 'An order as created: totals are numbers.',
    ...obj({
      id: INT,
      username: STR,
      is_complete: BOOL,
      item_count: INT,
      items: { type: 'array', items: ref('OrderItem') },
      totals: obj({
        subtotal: { type: 'number' },
        taxes: { type: 'number' },
        shipping: { type: 'number' },
        total: { type: 'number' },
      }),
    }),
  },
  ListedOrder: {
    description: 'An order as listed: totals are decimal strings; items say whether a refund is available.',
    ...obj({
      id: INT,
      username: STR,
      is_complete: BOOL,
      item_count: INT,
      items: { type: 'array', items: { allOf: [ref('OrderItem'), { required: ['refund_available'] }] } },
      totals: obj(
        members(['subtotal', 'discount', 'taxes', 'shipping_fee', 'processing_fee', 'total'], ref('Decimal')),
      ),
    }),
  },
  Code: obj({
    code: { type: 'string', pattern: '^[A-HJKMNP-Z2-9]{4}-[A-HJKMNP-Z2-9]{4}-[A-HJKMNP-Z2-9]{4}$' },
    deactivation_date: DATE_TIME_OR_NULL,
    limit_days: INT,
  }),
  ImportedTitle: obj({
    ...strings('title', 'author', 'publisher'),
    edition_number: INT,
    identifiers: obj({ book_id: { type: ['integer', 'null'] }, ...strings('eisbn10', 'eisbn13', 'isbn10', 'isbn13') }),
    status: obj({ deleted: BOOL, file_received: BOOL, imported: BOOL }),
  }),
  Address: {
    description:
      'An address: either first_name plus last_name, or full_name, names the person; a billing address needs ' +
      'a name, postal_code and country.',
    type: 'object',
    additionalProperties: false,
    properties: members(
      [
        'first_name',
        'last_name',
        'full_name',
        'company_name',
        'line_1',
        'line_2',
        'city',
        'state',
        'postal_code',
        'country',
        'phone',
        'email',
      ],
      { type: ['string', 'null'], maxLength: 200 },
    ),
  },
  PriceOffer: obj({ Price: ref('Decimal'), Id: INT, Condition: STR, RentalDays: INT }),
} as const satisfies Record<string, Schema>;

/** The named schemas, as types: what `{ $ref: name }` points into. */
export type Schemas = typeof SCHEMAS;
