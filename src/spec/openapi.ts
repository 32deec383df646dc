// The OpenAPI 3.1 document of the service, generated from the endpoint table (src/spec/endpoints.ts)
// and the resource schemas (src/spec/schemas.ts): served by the sandbox at GET /openapi.json and
// printed by `bookdist sandbox openapi`. Nothing here is written by hand per endpoint.
import { ENDPOINTS, PATH_PARAMS, takesPlainFields, type Endpoint, type FieldDef, type Schema } from './endpoints.js';
import { SCHEMAS } from './schemas.js';

const COMPONENT = '#/components/schemas/';
const MAX_STRING = 1000;
const MAX_ARRAY = 1000;

/** `{ $ref: 'Book' }` → `{ $ref: '#/components/schemas/Book' }`, deeply. */
function resolveRefs<T>(v: T): T {
  if (Array.isArray(v)) return v.map(resolveRefs) as T;
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = k === '$ref' && typeof x === 'string' && !x.startsWith('#') ? COMPONENT + x : resolveRefs(x);
    return out as T;
  }
  return v;
}

/** validate.ts refuses a NUL character in any string (SQLite would cut the text at it). */
const NO_NUL = '^[^\\u0000]*$';

const BOOLEAN_TEXT = ['true', 'True', 'TRUE', '1', 'false', 'False', 'FALSE', '0', ''];

/** The JSON Schema of one request field, as the service accepts it (validate.ts). */
export function fieldSchema(f: FieldDef, inQuery = false): Schema {
  const s: Schema = { description: f.description };
  switch (f.type) {
    case 'string':
      s.type = 'string';
      s.maxLength = f.maxLength ?? MAX_STRING;
      if (f.enum) s.enum = f.enum;
      if (f.format === 'email') s.format = 'email';
      if (f.format === 'decimal') s.pattern = '^\\s*\\d{1,9}(\\.\\d{1,2})?\\s*$';
      if (f.format === 'username') s.pattern = '^[0-9a-fA-F]{30}$';
      if (f.format === 'hash_id') s.pattern = '^[0-9a-fA-F]{40}$';
      s.pattern ??= NO_NUL;
      break;
    case 'integer':
      s.type = 'integer';
      if (f.min !== undefined) s.minimum = f.min;
      if (f.max !== undefined) s.maximum = f.max;
      break;
    case 'number':
      s.type = 'number';
      break;
    case 'boolean':
      // wire.md: true/"true"/"True" alike (the Ruby client sends strings).
      s.anyOf = [{ type: 'boolean' }, { enum: BOOLEAN_TEXT }, { enum: [0, 1] }];
      break;
    case 'date':
      s.type = 'string';
      s.maxLength = 40;
      s.examples = ['2030-12-31 23:59:59', '2030-12-31', '2030-12-31T23:59:59Z'];
      s.description = `${f.description} (YYYY-MM-DD, YYYY-MM-DD HH:MM[:SS] or ISO 8601; UTC unless a zone is given)`;
      break;
    case 'array<string>': {
      const items = { type: 'string', maxLength: MAX_STRING, pattern: NO_NUL };
      if (inQuery) Object.assign(s, { type: 'array', items, maxItems: MAX_ARRAY });
      else s.anyOf = [{ type: 'array', items, maxItems: MAX_ARRAY }, { ...items, description: 'one value, as a list of one' }];
      break;
    }
    case 'array<integer>':
      Object.assign(s, { type: 'array', items: { type: 'integer' }, maxItems: MAX_ARRAY });
      break;
    case 'address':
      s.$ref = 'Address';
      break;
    case 'object':
      Object.assign(s, { type: 'object', maxProperties: 50, additionalProperties: { type: ['string', 'null'], maxLength: 200, pattern: NO_NUL } });
      break;
  }
  return s;
}

/** The `request` payload of an endpoint: its fields, absent and null alike, nothing else. */
export function payloadSchema(ep: Endpoint): Schema {
  const properties: Record<string, Schema> = {};
  for (const f of ep.fields) properties[f.name] = f.required ? fieldSchema(f) : { anyOf: [fieldSchema(f), { type: 'null' }] };
  for (const name of ep.ignored ?? []) properties[name] = { description: 'sent by a reference client; ignored' };
  return {
    type: 'object',
    properties,
    required: ep.fields.filter((f) => f.required).map((f) => f.name),
    additionalProperties: false,
  };
}

/** The success body of an endpoint: the envelope plus the table's response members. */
export function successSchema(ep: Endpoint): Schema {
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  for (const [key, schema] of Object.entries(ep.response.body)) {
    const name = key.replace(/\?$/, '');
    properties[name] = schema;
    if (!key.endsWith('?')) required.push(name);
  }
  const own: Schema = { type: 'object', required, properties };
  return ep.response.raw ? own : { allOf: [{ $ref: 'Envelope' }, own] };
}

/** Components name of an endpoint's payload schema: `book.search.request`. */
export function requestSchemaName(ep: Endpoint): string {
  return `${ep.name}.request`;
}

function security(ep: Endpoint): Array<Record<string, string[]>> {
  if (ep.auth === 'none' || ep.auth === 'public') return [];
  const partner: Array<Record<string, string[]>> = [
    { CryptoAuth: [], ApiUser: [] },
    { SharedKeyAuth: [], ApiUser: [] },
  ];
  return ep.auth === 'access' || ep.token ? [...partner, { OperatorToken: [] }, { OperatorBearer: [] }] : partner;
}

function operation(ep: Endpoint, method: 'GET' | 'POST', alias: number): Record<string, unknown> {
  const parameters: Schema[] = [];
  const path = alias ? ep.aliases![alias - 1] : ep.path;
  for (const m of path.matchAll(/\{(\w+)\}/g)) {
    const p = PATH_PARAMS[m[1]];
    parameters.push({ name: p.name, in: 'path', required: true, description: p.description, schema: fieldSchema(p) });
  }
  const op: Record<string, unknown> = {
    operationId: `${ep.name}${alias ? `.alias${alias}` : ''}.${method.toLowerCase()}`,
    summary: ep.summary,
    tags: [ep.name.split('.')[0]],
    'x-endpoint': ep.name,
  };
  if (ep.scope) op.description = `Needs the scope \`${ep.scope}\`.${ep.token ? ' The operator token may call it too.' : ''}`;
  const payload = { $ref: requestSchemaName(ep) };
  if (method === 'GET' && ep.fields.length) {
    if (ep.host !== 'store') {
      parameters.push({
        name: 'request',
        in: 'query',
        required: false,
        description: 'the whole payload as a JSON text (then the fields below are not read); a CryptoAuth signature may cover it',
        content: { 'application/json': { schema: payload } },
      });
    }
    for (const f of ep.fields) {
      const array = f.type.startsWith('array');
      parameters.push({
        name: f.name,
        in: 'query',
        required: !!f.required,
        description: f.description + (array ? ' (comma-separated)' : ''),
        schema: fieldSchema(f, true),
        ...(array ? { style: 'form', explode: false } : {}),
      });
    }
  }
  if (parameters.length) op.parameters = parameters;
  if (method === 'POST') {
    const anyRequired = ep.fields.some((f) => f.required);
    // Without `request`, a form carries the fields themselves (interface.md 4.2), read as a query's
    // are: on reads and endpoints that take GET only (a write's payload is the signed `request`).
    const flat = takesPlainFields(ep) && ep.fields.length > 0 && ep.fields.every((f) => f.type !== 'address' && f.type !== 'object');
    const formFields: Schema = {
      type: 'object',
      description: 'the fields as form fields (lists comma-separated); a CryptoAuth signature then covers the username',
      properties: Object.fromEntries(ep.fields.map((f) => [f.name, fieldSchema(f, true)])),
      required: ep.fields.filter((f) => f.required).map((f) => f.name),
    };
    op.requestBody = {
      required: anyRequired,
      description:
        'wire.md: one form field `request` holding the JSON text of the payload (what a CryptoAuth signature covers), ' +
        'or a JSON body {"request": {...}}' + (flat ? ', or the fields themselves as form fields.' : '.'),
      content: {
        'application/x-www-form-urlencoded': {
          schema: {
            anyOf: [
              {
                type: 'object',
                properties: { request: { type: 'string', contentMediaType: 'application/json', contentSchema: payload } },
                required: ['request'],
              },
              ...(flat ? [formFields] : []),
            ],
          },
        },
        'application/json': {
          schema: { type: 'object', properties: { request: payload }, ...(anyRequired ? { required: ['request'] } : {}) },
        },
      },
    };
  }
  const error = {
    description: 'Error: the JSON error body' + (ep.auth === 'access' ? ', or XML when the Accept header prefers application/xml' : ''),
    content: {
      'application/json': { schema: { $ref: 'Error' } },
      ...(ep.auth === 'access' ? { 'application/xml': { schema: { $ref: 'XmlError' } } } : {}),
    },
  };
  const success: Record<string, unknown> = {
    description: ep.response.status === 302 ? 'Redirect to the pre-filled cart' : 'Success',
    content: { 'application/json': { schema: successSchema(ep) } },
  };
  if (ep.response.headers) {
    success.headers = Object.fromEntries(ep.response.headers.map((h) => [h, { schema: { type: 'string' }, required: true }]));
  }
  op.responses = { [String(ep.response.status)]: success, '4XX': error, '5XX': error };
  op.security = security(ep);
  return op;
}

const SECURITY_SCHEMES = {
  ApiUser: {
    type: 'apiKey',
    in: 'header',
    name: 'api-user',
    description: 'The caller\'s username (30 hex characters), also sent as `user`. Header names are case-insensitive; `_` and `-` are alike.',
  },
  CryptoAuth: {
    type: 'apiKey',
    in: 'header',
    name: 'signature',
    description:
      'wire.md: `authorization: CryptoAuth` (or no authorization header at all) and `signature`: RSASSA-PKCS1-v1_5 with ' +
      'SHA-256 over the UTF-8 bytes of the exact `request` field value of a request with a body, or of the username ' +
      'for a request without one (every GET), as standard base64 with padding. The signature binds neither the ' +
      'method, the path nor a time: a captured signed request can be replayed.',
  },
  SharedKeyAuth: {
    type: 'apiKey',
    in: 'header',
    name: 'api-key',
    description: 'wire.md: `authorization: SharedKeyAuth` and the account\'s shared key in plain text in `api-key`.',
  },
  OperatorToken: {
    type: 'apiKey',
    in: 'header',
    name: 'api-key',
    description:
      'decisions.md: the operator-issued token of the access-control API, sent as a shared key ' +
      '(`authorization: SharedKeyAuth`, `api-key: <token>`), with or without `api-user`.',
  },
  OperatorBearer: { type: 'http', scheme: 'bearer', description: 'The operator token as `authorization: Bearer <token>` (or `Token <token>`).' },
};

/** The whole document. `serverUrl`: the base URL to name under `servers` (the sandbox passes its own). */
export function openApiDocument(serverUrl = 'http://127.0.0.1:8710'): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const ep of ENDPOINTS) {
    [ep.path, ...(ep.aliases ?? [])].forEach((path, alias) => {
      const item: Record<string, unknown> = (paths[path] ??= {});
      if (ep.host === 'store') {
        item.servers = [{ url: serverUrl, description: 'the store (price comparison) base URL; a profile may set it apart from the API' }];
      }
      for (const m of ep.methods) item[m.toLowerCase()] = operation(ep, m, alias);
    });
  }
  return resolveRefs({
    openapi: '3.1.0',
    info: {
      title: 'Digital book distribution service',
      version: '1.0.3',
      summary: 'The partner API, the access-control API and the price comparison endpoints, as the bookdist sandbox serves them.',
      description:
        'Generated from the endpoint table of bookdist (src/spec/endpoints.ts), the same table that drives the CLI, ' +
        'the sandbox router and GET /v1/describe/. Every path is also served without its final slash. Every ' +
        'response carries `test_mode`; errors have one JSON body (components.schemas.Error), and the access-control ' +
        'API answers XML instead when asked with Accept.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: [{ url: serverUrl }],
    paths,
    components: {
      schemas: { ...SCHEMAS, ...Object.fromEntries(ENDPOINTS.map((ep) => [requestSchemaName(ep), payloadSchema(ep)])) },
      securitySchemes: SECURITY_SCHEMES,
    },
  });
}
