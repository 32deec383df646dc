// The prose of the OpenAPI document (src/spec/openapi.ts): what a partner reads in their own tools
// (a documentation viewer, a client generator's comments). Written for someone who has only the
// document: no reference to files of this project. The generator takes the structure from the
// endpoint table; what is said about each operation lives here, keyed by the table's names.

/** The extension that marks what only the sandbox does; a deployment may not. */
export const SANDBOX_ONLY = 'x-sandbox-only';

/** The sentence that goes with every `x-sandbox-only` mark. */
const SANDBOX_ONLY_SENTENCE =
  'Sandbox only (`x-sandbox-only`): the bookdist sandbox accepts this; a deployment of the service may not, so a client ' +
  'meant for production should not depend on it.';

/** Endpoints that honour the Idempotency-Key header. */
export const IDEMPOTENCY_KEY_ENDPOINTS = new Set(['codes.generate', 'order.free']);

export const IDEMPOTENCY_KEY_DESCRIPTION =
  'Makes a retry of this write safe. 1 to 255 visible ASCII characters (0x21-0x7E), chosen by the client, unique per ' +
  'request it means to make (e.g. a job id and a batch number). The first request with a key runs and its answer is ' +
  'remembered for the calling account; a later request with the same key and the same payload gets that answer again ' +
  'and changes nothing (no new codes, no second order); the same key with another payload or endpoint is a 400. ' +
  'An answer that was an error is not remembered. The sandbox remembers keys for the life of its database; a ' +
  'deployment may forget them sooner. Other endpoints ignore the header, but the sandbox refuses a malformed one ' +
  'with a 400 everywhere. ' +
  SANDBOX_ONLY_SENTENCE;

const AUTH_SECTION = `
## Authentication

Every operation lists the schemes it accepts under \`security\`. The partner API takes **CryptoAuth** or
**SharedKeyAuth**, each with the caller's username (**ApiUser**); the access-control API
(\`/v1/access/*\`) and the operations that say so also take the operator token. \`GET /\`, \`/openapi.json\`
and the store's \`/api/offers.json\` and \`/checkout\` take no credentials. Header names are
case-insensitive and the service treats \`-\` and \`_\` in them alike (\`api_user\` is \`api-user\`).

Headers of a signed (CryptoAuth) request:

| header | value |
|---|---|
| \`authorization\` | \`CryptoAuth\` (a bare word; a request with a \`signature\` and no \`authorization\` is CryptoAuth too) |
| \`signature\` | the signature, standard base64 with padding, no line breaks (344 characters for a 2048-bit key) |
| \`api-user\` and \`user\` | the caller's username (30 hexadecimal characters) |
| \`version\` | \`v1\` |

**What is signed, exactly.** RSASSA-PKCS1-v1_5 with SHA-256, with the account's RSA private key
(PEM, PKCS#1 \`BEGIN RSA PRIVATE KEY\` or PKCS#8 \`BEGIN PRIVATE KEY\`), over the UTF-8 bytes of:
- for a request with a body (every POST): the exact text of the \`request\` field's value, as it is
  after form decoding (e.g. \`{"force": true, "urgent": false}\`). Sign the very string you put in the form
  field, character for character; the service never re-serialises it. With an \`application/json\` body
  (sandbox only), it is the exact text of the body's \`request\` member as it stands in the body, from its
  opening \`{\` to its closing \`}\`.
- for a request without a body (every GET): the caller's username. A GET whose query carries a
  \`request\` parameter (sandbox only) may sign that parameter's decoded value instead.

SharedKeyAuth sends \`authorization: SharedKeyAuth\`, the account's shared key in plain text in \`api-key\`, and
the same \`api-user\`, \`user\` and \`version\` headers; nothing is signed. The operator token goes in \`api-key\` the
same way (\`api-user\` optional), or as \`authorization: Bearer <token>\`.

**Replay.** A signature binds neither the method, the path, the time nor a nonce: anyone who captures a
signed request can send it again, and every GET of an account carries the same signature. Send requests
over HTTPS only, never log signatures or keys, and make writes safe to repeat (\`order_number\` on orders,
the \`Idempotency-Key\` header where documented).

**Bodies travel byte for byte.** Because the signature covers the exact text of \`request\`, anything between
the client and the service that re-serialises JSON (a proxy, a gateway, a client library that parses and
re-encodes the body) breaks the signature: key order, spacing and escapes (\`\\u00e9\` against \`é\`) must arrive
as they were signed. Prism's validating proxy, for one, re-serialises a JSON body: a signed JSON body gets
through it only when its text is exactly what \`JSON.stringify\` gives. Send the form encoding (the JSON text
is opaque there), or a JSON body only through components that pass it through untouched.
`;

export const INFO_DESCRIPTION = `
The partner API of the digital book distribution service (books, users, orders, codes, imported
titles), its access-control API for partner-hosted readers, and the store's price comparison
endpoints, as the bookdist sandbox serves them. Generated from the same endpoint table that drives
the bookdist CLI, the sandbox's router and \`GET /v1/describe/\`.

## Paths

Every path of the partner API ends in \`/\` (\`/v1/book/isbn/{isbn}/\`), as clients send it. Where a literal
segment sits beside a parameter (\`/v1/book/isbn/{isbn}/\` and \`/v1/book/{hash_id}/process/\`,
\`/v1/user/email/{email}/\` and \`/v1/user/{username}/orders/\`), **a literal segment wins over a parameter**:
\`/v1/book/isbn/...\` is always the ISBN lookup. Put a value into its path segment percent-encoded (an
e-mail's \`@\` may stay, a \`/\` or \`?\` must not). The sandbox also answers every path without its final
slash; those forms are listed as operations of their own, marked \`x-sandbox-only\`.

## Payloads

A POST carries its payload as one form field, \`request\`, holding the payload as JSON text
(\`Content-Type: application/x-www-form-urlencoded\`, \`request=%7B%22force%22%3A+true%7D\`): the encoding every
reference client sends and the one to use against a deployment. The sandbox also takes a JSON body
\`{"request": {...}}\` (marked \`x-sandbox-only\`). Both encodings of an operation name one schema for the
decoded payload (\`components/schemas/<operation>.request\`): the form field through \`contentMediaType\` and
\`contentSchema\`, the JSON body directly. **Form payloads are validated by the service, not by generic
tools**: validators, mock servers and validating proxies check a JSON body against that schema, but none
decodes the JSON text inside a form field. \`bookdist --dry-run\` checks a payload against this document
before anything is sent. A field that is absent and a field that is \`null\` mean the same; boolean fields
also take \`"true"\`/\`"True"\`/\`"1"\` and their opposites, as the reference clients send them.

## Responses and errors

Every JSON answer carries \`code\` (the HTTP status) and \`test_mode\`; a success adds \`success: true\`, an
error \`error: true\` and a \`message\` that names the fix (\`components/schemas/Error\`). The access-control API
answers its errors as XML instead when the request's \`Accept\` prefers \`application/xml\`
(\`components/schemas/XmlError\`). Answers may gain members; clients should ignore the ones they do not know.

## What only the sandbox does

The sandbox accepts more than a deployment has to. Operations, parameters and media types marked
\`x-sandbox-only: true\` (JSON bodies, the \`Idempotency-Key\` header, paths without their final slash, the
\`?request=\` form of GET operations) say so in their description; build production clients on the rest.
${AUTH_SECTION}`.trim();

export const CONTACT = {
  name: 'bookdist (the CLI and sandbox that serve this document)',
  email: 'operator@bookdist.example',
};

/** The document's tags, in reading order: the first segment of the endpoint names, grouped. */
export const TAGS: Array<{ name: string; description: string; endpoints: string[] }> = [
  {
    name: 'service',
    description: 'The service itself: index, the calling account, the endpoint list and this document.',
    endpoints: ['index', 'profile', 'describe', 'openapi'],
  },
  {
    name: 'book',
    description: 'Books of the catalogue: lookups, pricing, search, listing, reader URLs and processing.',
    endpoints: ['book'],
  },
  { name: 'user', description: 'Users: create, invite, look up; their orders and purchases.', endpoints: ['user'] },
  {
    name: 'order',
    description: 'Orders processed outside the service, free orders and refunds.',
    endpoints: ['order'],
  },
  { name: 'codes', description: 'Redemption codes that give a user access to a book.', endpoints: ['codes'] },
  { name: 'import', description: 'Titles being imported, not yet for sale.', endpoints: ['import'] },
  {
    name: 'access',
    description: 'The access-control API for partner-hosted readers (operator token).',
    endpoints: ['access'],
  },
  {
    name: 'store',
    description: "The store's public price comparison endpoints, on the store's base URL.",
    endpoints: ['offers', 'checkout'],
  },
];

/** The tag of an endpoint name. */
export function tagOf(name: string): string {
  const first = name.split('.')[0];
  return TAGS.find((t) => t.endpoints.includes(first) || t.endpoints.includes(name))?.name ?? first;
}

/** What each operation does, for a partner: keyed by the endpoint table's names. */
export const OPERATION_DESCRIPTIONS: Record<string, string> = {
  index:
    'The service index: the API versions it offers (`available_versions`, `current_version`), an operator e-mail ' +
    'address and the host name. Needs no credentials; a good first call to check that the base URL is right.',
  profile: 'The calling account: its profile (address, nickname) and the scopes it holds. Use it to check credentials.',
  describe:
    'Every endpoint of the service with its methods, path, scope and request fields (name, type, whether required, ' +
    'description): the same facts as this document, in a compact form.',
  openapi: 'This OpenAPI 3.1 document. Needs no credentials.',
  'book.get':
    'One book by its hash id: metadata, identifiers, DRM settings, files, digital pricing and status. 404 when no book matches.',
  'book.isbn':
    'One book by ISBN-10 or ISBN-13 (hyphens allowed), as `GET /v1/book/{hash_id}/` answers it. 404 when no book matches.',
  'book.sku': 'One book by its SKU, as `GET /v1/book/{hash_id}/` answers it. 404 when no book matches.',
  'book.pricing':
    'The digital pricing entries of a book by ISBN: the ids to sell with `POST /v1/order/external/` (`digital_pricing`), ' +
    'their prices and whether access is limited in time.',
  'book.search':
    'Books matching every criterion given (ISBNs, words of the title, words of the author, hash ids), one page at a ' +
    'time (`limit` default 50, at most 500; `offset`), ordered by id so paging is stable. `count` is the number of ' +
    'matches over all pages.',
  'book.index':
    'The books of the publishers the calling account controls, one page at a time (`limit` default 50, at most 500; ' +
    '`limit` 0 means the default; `offset`), ordered by id.',
  'book.viewer':
    'The URL that opens a book in the reader as a user. The user needs an active purchase or access grant for the ' +
    'book (not refunded, not expired), else 404. Asking for the URL does not count as viewing a page.',
  'book.process':
    'Queues a book for processing. Already queued: 200 "Book already queued."; already processed: 200 "Book already ' +
    'processed." and nothing changes, unless `force` is true, which queues it again and deletes its annotations. ' +
    '`urgent` puts it at the head of the queue. Poll `GET /v1/book/{hash_id}/` (`status`) to see it processed. ' +
    '401 "Not Authorized for Book" when the account does not control the book\'s publisher.',
  'user.invite':
    'Creates a user and e-mails them an invitation with a generated password. Answers the new `username`: store it, ' +
    'it identifies the user everywhere. An e-mail address that already has an account is a 400 whose body adds ' +
    '`conflict`, `field`, `value` and the existing `username`.',
  'user.create':
    'Creates a user without e-mailing anyone and answers the password (`passwd`: generated when not given; show it ' +
    'once, never log it) and the new `username`. An existing e-mail address is a 400 with conflict fields; with the ' +
    'operator token it is a 200 with `conflict: true` and the existing `username` instead.',
  'user.get': 'A user by username: names, e-mail, status, profile, owner and permissions. 404 when there is none.',
  'user.email': 'A user by e-mail address, as `GET /v1/user/{username}/` answers it. 404 when there is none.',
  'user.orders':
    'The completed orders of a user with their items (book, price, dates, refunded or still refundable) and totals as decimal strings.',
  'user.purchase':
    "One purchase (an order item, by the `id` of an entry of an order's `items`). Without `refund_data` (or its alias " +
    '`refund_info`) the answer is faster and `refund_available` is always true; with it, it is the true availability. ' +
    '404 "Purchase not found".',
  'order.external':
    'Reports an order you charged for yourself: the user gets access to the books of the pricing entries sold (ids ' +
    'from the book pricing). The billing address needs a name (`full_name`, or `first_name` and `last_name`), ' +
    '`postal_code` and `country`. `order_type` is the payment plan. An `order_number` (at most 20 characters) makes ' +
    'the call idempotent: the same number again answers the first order with "Order already exists." and creates nothing.',
  'order.refund':
    'Refunds an order (`order_id`, or `id`), or only the items listed in `items`. All or nothing: an item is ' +
    'refundable within 30 days of purchase and 14 days of first access, while at most 10% of the book was viewed ' +
    'and no page printed; if any item named is not, the answer is a 403 naming it and nothing changes. Items ' +
    "already refunded report `success: false`. `send_email` absent: the organization's setting decides.",
  'order.free':
    'Gives a user free access to a book: an order at 0.00, ending at `expiration_date` when given. Send an ' +
    '`Idempotency-Key` to make a retry safe.',
  'codes.generate':
    'Generates 1 to 1000 redemption codes for a book (`XXXX-XXXX-XXXX`), each giving access when redeemed: for ' +
    '`limit_days` days from redemption, and never after `expiration_date`. Send an `Idempotency-Key` so that a retry ' +
    'of a request whose answer was lost returns the same codes instead of making new ones. For more codes, send ' +
    'several requests, each with its own key.',
  'codes.summary':
    'How many codes the calling account generated, how many were redeemed, and the redeemed share as a fraction (0 when none were generated).',
  'import.search':
    'Titles being imported and not yet for sale, matching every criterion given (words of the title or author, ' +
    'ISBNs), one page at a time (`limit` default 50, at most 500; `offset`), with their import status. Without ' +
    'criteria it lists them all.',
  'access.allow':
    'Grants a user access to a book sold on your own reader, recorded as a purchase at your external `price` (a ' +
    'decimal with at most two places, e.g. "12.01"), until `expiration_date` when given. 400 "The user already has ' +
    'access to this book"; 404 "Book not found" / "User not found"; 401 "Not Authorized for Book".',
  'access.revoke':
    'Revokes a user\'s access to a book granted with `/v1/access/allow/`. 404 "Purchase record not found" when the ' +
    'user has no access; 404 "Book not found" / "User not found"; 401 "Not Authorized for Book".',
  offers:
    "The store's price offers for a book by ISBN: one offer per digital pricing entry (`Id` for `/checkout`, `Price`, " +
    '`Condition`, `RentalDays`, 0 when unlimited). 400 "Invalid ISBN supplied" for an ISBN shorter than 10 characters, ' +
    '"The requested book does not exist", "... is not available" or "... is not published". Public, on the store\'s base URL.',
  checkout:
    'Answers a 302 whose `location` is a cart pre-filled with the offers given (`ids` from `/api/offers.json`). The ' +
    "redirect is the answer: hand its `location` to the buyer's browser. Clients must not follow it blindly (an HTTP " +
    'library that follows redirects by default would fetch the cart page, HTML, instead of giving you its URL; so does ' +
    "a validating proxy that follows redirects, such as Prism's, which then reports the cart page as a violation). Public, " +
    "on the store's base URL.",
};

export const REQUEST_BODY_DESCRIPTION =
  'One form field `request` holding the payload as JSON text: what a CryptoAuth signature covers, byte for byte. ' +
  'Form payloads are validated by the service, not by generic tools (they do not decode the JSON text); the schema ' +
  'of the decoded payload is the `contentSchema` of the field.';

export const JSON_BODY_DESCRIPTION = `The payload as a JSON body \`{"request": {...}}\`, validated against the same schema. ${SANDBOX_ONLY_SENTENCE}`;

export const REQUEST_QUERY_DESCRIPTION =
  'The whole payload as JSON text; the other query parameters are then not read, and a CryptoAuth signature may cover ' +
  `this text instead of the username. ${SANDBOX_ONLY_SENTENCE}`;

export const NO_SLASH_DESCRIPTION = (path: string) =>
  `The same operation as \`${path}\`, addressed without the final slash. ${SANDBOX_ONLY_SENTENCE}`;
