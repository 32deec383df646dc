// The OpenAPI 3.1 document of the service, generated from the endpoint table (src/spec/endpoints.ts)
// and the resource schemas (src/spec/schemas.ts): served by the sandbox at GET /openapi.json and
// printed by `bookdist sandbox openapi`. Its structure comes from the table; its prose (what each
// operation does, authentication, what only the sandbox does) from src/spec/openapi-text.ts.
import { endpoints, PATH_PARAMS, takesPlainFields, type Endpoint } from './endpoints.js';
import { fieldSchema, payloadSchema, successSchema } from './openapi-fields.js';
import type { Schema } from './json-schema.js';
import { SCHEMAS } from './schemas.js';
import {
  CONTACT,
  IDEMPOTENCY_KEY_DESCRIPTION,
  IDEMPOTENCY_KEY_ENDPOINTS,
  INFO_DESCRIPTION,
  JSON_BODY_DESCRIPTION,
  NO_SLASH_DESCRIPTION,
  OPERATION_DESCRIPTIONS,
  REQUEST_BODY_DESCRIPTION,
  REQUEST_QUERY_DESCRIPTION,
  SANDBOX_ONLY,
  TAGS,
  tagOf,
} from './openapi-text.js';

const COMPONENT = '#/components/schemas/';

/** `{ $ref: 'Book' }` → `{ $ref: '#/components/schemas/Book' }`, deeply. */
function resolveRefs<T>(v: T): T {
  if (Array.isArray(v)) return v.map(resolveRefs) as T;
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v))
      out[k] = k === '$ref' && typeof x === 'string' && !x.startsWith('#') ? COMPONENT + x : resolveRefs(x);
    return out as T;
  }
  return v;
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

/** The operation at `path` (the endpoint's path or an alias); `noSlash`: that path without its final slash. */
function operation(ep: Endpoint, method: 'GET' | 'POST', alias: number, noSlash = false): Record<string, unknown> {
  const path = alias ? ep.aliases![alias - 1] : ep.path;
  const text = OPERATION_DESCRIPTIONS[ep.name];
  if (!text) throw new Error(`openapi-text.ts has no description of the endpoint ${ep.name}`);
  const needs = ep.scope
    ? ` Needs the scope \`${ep.scope}\`${ep.token ? '; the operator token may call it too' : ''}.`
    : '';
  const op: Record<string, unknown> = {
    operationId: `${ep.name}${alias ? `.alias${alias}` : ''}${noSlash ? '.noslash' : ''}.${method.toLowerCase()}`,
    summary: ep.summary + (noSlash ? ' (path without the final slash)' : ''),
    description: (noSlash ? NO_SLASH_DESCRIPTION(path) + ' ' : '') + text + needs,
    tags: [tagOf(ep.name)],
    'x-endpoint': ep.name,
    ...(noSlash ? { [SANDBOX_ONLY]: true } : {}),
  };
  const parameters = [
    ...pathParameters(path),
    ...(method === 'GET' ? queryParameters(ep) : []),
    ...(method === 'POST' && IDEMPOTENCY_KEY_ENDPOINTS.has(ep.name) ? [idempotencyKeyParameter()] : []),
  ];
  if (parameters.length) op.parameters = parameters;
  if (method === 'POST') op.requestBody = requestBody(ep);
  op.responses = responses(ep);
  op.security = security(ep);
  return op;
}

function pathParameters(path: string): Schema[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => {
    const p = PATH_PARAMS[m[1]];
    return { name: p.name, in: 'path', required: true, description: p.description, schema: fieldSchema(p) };
  });
}

/** A GET's query: the fields, and outside the store the whole payload as `?request=<JSON>`. */
function queryParameters(ep: Endpoint): Schema[] {
  if (!ep.fields.length) return [];
  const parameters: Schema[] = [];
  // Outside the store, the whole payload may come as `?request=<JSON>` instead of the fields,
  // so no field is a required parameter there (its requirement is the payload schema's).
  const requestForm = ep.host !== 'store';
  if (requestForm) {
    usedPayloads.add(requestSchemaName(ep));
    parameters.push({
      name: 'request',
      in: 'query',
      required: false,
      description: REQUEST_QUERY_DESCRIPTION,
      content: { 'application/json': { schema: { $ref: requestSchemaName(ep) } } },
      [SANDBOX_ONLY]: true,
    });
  }
  for (const f of ep.fields) {
    const array = f.type.startsWith('array');
    const required = !!f.required && !requestForm;
    parameters.push({
      name: f.name,
      in: 'query',
      required,
      description:
        f.description +
        (array ? ' (comma-separated)' : '') +
        (f.required && !required ? '; required unless `request` is given' : ''),
      schema: fieldSchema(f, true),
      ...(array ? { style: 'form', explode: false } : {}),
    });
  }
  return parameters;
}

function idempotencyKeyParameter(): Schema {
  return {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description: IDEMPOTENCY_KEY_DESCRIPTION,
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
    example: 'job-3cb05071cd88111f-batch-1',
    [SANDBOX_ONLY]: true,
  };
}

/** A POST's body: the signed `request` field (or, where allowed, the fields themselves), or JSON in the sandbox. */
function requestBody(ep: Endpoint): Record<string, unknown> {
  const payload = { $ref: requestSchemaName(ep) };
  const anyRequired = ep.fields.some((f) => f.required);
  // Without `request`, a form carries the fields themselves (interface.md 4.2), read as a query's
  // are: on reads and endpoints that take GET only (a write's payload is the signed `request`).
  const flat =
    takesPlainFields(ep) && ep.fields.length > 0 && ep.fields.every((f) => f.type !== 'address' && f.type !== 'object');
  const formFields: Schema = {
    type: 'object',
    description: 'the fields as form fields (lists comma-separated); a CryptoAuth signature then covers the username',
    properties: Object.fromEntries(ep.fields.map((f) => [f.name, fieldSchema(f, true)])),
    required: ep.fields.filter((f) => f.required).map((f) => f.name),
  };
  usedPayloads.add(requestSchemaName(ep));
  const requestField: Schema = {
    type: 'object',
    properties: {
      request: {
        type: 'string',
        description: 'the payload as JSON text',
        contentMediaType: 'application/json',
        contentSchema: payload,
      },
    },
    required: ['request'],
  };
  return {
    required: anyRequired,
    description:
      REQUEST_BODY_DESCRIPTION +
      (flat ? " This operation also takes the fields themselves as form fields, read as a query's are." : '') +
      ' The sandbox also takes a JSON body (`application/json`, sandbox only).',
    content: {
      'application/x-www-form-urlencoded': { schema: flat ? { anyOf: [requestField, formFields] } : requestField },
      'application/json': {
        schema: {
          type: 'object',
          description: JSON_BODY_DESCRIPTION,
          properties: { request: payload },
          ...(anyRequired ? { required: ['request'] } : {}),
        },
        [SANDBOX_ONLY]: true,
      },
    },
  };
}

/** The success answer (its status, body and headers) and the error bodies. */
function responses(ep: Endpoint): Record<string, unknown> {
  const error = {
    description:
      'Error: the JSON error body' +
      (ep.auth === 'access' ? ", or the XML error body when the request's Accept prefers application/xml" : ''),
    content: {
      'application/json': { schema: { $ref: 'Error' } },
      ...(ep.auth === 'access' ? { 'application/xml': { schema: { $ref: 'XmlError' } } } : {}),
    },
  };
  const success: Record<string, unknown> = {
    description:
      ep.response.status === 302
        ? "Redirect to the pre-filled cart: its URL is in `location`. Do not follow it blindly: hand the URL to the buyer's browser."
        : 'Success',
    content: { 'application/json': { schema: successSchema(ep) } },
  };
  if (ep.response.headers) {
    success.headers = Object.fromEntries(
      ep.response.headers.map((h) => [h, { schema: { type: 'string' }, required: true }]),
    );
  }
  return { [String(ep.response.status)]: success, '4XX': error, '5XX': error };
}

const SECURITY_SCHEMES = {
  ApiUser: {
    type: 'apiKey',
    in: 'header',
    name: 'api-user',
    description:
      "The caller's username (30 hexadecimal characters), sent with every partner request in `api-user` and again in " +
      '`user`, beside `version: v1`. Header names are case-insensitive; `_` and `-` in them are alike.',
  },
  CryptoAuth: {
    type: 'apiKey',
    in: 'header',
    name: 'signature',
    description:
      '`authorization: CryptoAuth` (or no `authorization` header at all) and `signature`: RSASSA-PKCS1-v1_5 with SHA-256, ' +
      "with the account's RSA private key, over the UTF-8 bytes of the exact `request` field value of a request with a " +
      'body (every POST; with a JSON body, the exact text of its `request` member), or of the username for a request ' +
      'without one (every GET), as standard base64 with padding and no line breaks. Declared as an API key because no ' +
      "OpenAPI scheme describes a signature: a client computes the value itself (the document's description, under " +
      'Authentication, gives the bytes). The signature binds neither the method, the path nor a time: a captured signed ' +
      'request can be replayed. A JSON body must reach the service byte for byte as signed.',
  },
  SharedKeyAuth: {
    type: 'apiKey',
    in: 'header',
    name: 'api-key',
    description:
      "`authorization: SharedKeyAuth` and the account's shared key in plain text in `api-key`. Nothing is signed.",
  },
  OperatorToken: {
    type: 'apiKey',
    in: 'header',
    name: 'api-key',
    description:
      'The token the service operator issues for the access-control API, sent as a shared key ' +
      '(`authorization: SharedKeyAuth`, `api-key: <token>`), with or without `api-user`.',
  },
  OperatorBearer: {
    type: 'http',
    scheme: 'bearer',
    description: 'The operator token as `authorization: Bearer <token>` (or `Token <token>`).',
  },
};

/** The `components/schemas/<endpoint>.request` that the operations being built refer to. */
let usedPayloads = new Set<string>();

/** A partner's own deployment: its base URL is theirs to fill in. */
const DEPLOYMENT_SERVER = {
  url: 'https://{host}',
  description: 'A deployment of the service: the host name (and port, if any) that the service operator gives you.',
  variables: {
    host: { default: 'books.operator.invalid', description: 'host name and optional port of the deployment' },
  },
};

/** The document's members that the endpoint table promises (`openapi`), and the rest. */
type OpenApiDocument = {
  openapi: '3.1.0';
  info: Record<string, unknown>;
  paths: Record<string, unknown>;
  [member: string]: unknown;
};

/** The whole document. `serverUrl`: the base URL to name under `servers` (the sandbox passes its own). */
export function openApiDocument(serverUrl = 'http://127.0.0.1:8710'): OpenApiDocument {
  const paths: Record<string, Record<string, unknown>> = {};
  const bare: Record<string, Record<string, unknown>> = {};
  usedPayloads = new Set();
  for (const ep of endpoints()) {
    [ep.path, ...(ep.aliases ?? [])].forEach((path, alias) => {
      const item: Record<string, unknown> = (paths[path] ??= {});
      if (ep.host === 'store') {
        item.servers = [
          { url: serverUrl, description: 'The sandbox, which is its own store.' },
          {
            ...DEPLOYMENT_SERVER,
            description: 'The store (price comparison) of a deployment, which may live apart from the API.',
          },
        ];
      }
      for (const m of ep.methods) item[m.toLowerCase()] = operation(ep, m, alias);
      // The sandbox answers a path without its final slash too: listed after every path with it.
      if (path !== '/' && path.endsWith('/')) {
        const noSlash: Record<string, unknown> = (bare[path.slice(0, -1)] ??= {});
        for (const m of ep.methods) noSlash[m.toLowerCase()] = operation(ep, m, alias, true);
      }
    });
  }
  Object.assign(paths, bare);
  return resolveRefs({
    openapi: '3.1.0',
    info: {
      title: 'Digital book distribution service',
      version: '1.0.3',
      summary:
        'The partner API, the access-control API and the price comparison endpoints, as the bookdist sandbox serves them.',
      description: INFO_DESCRIPTION,
      contact: CONTACT,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    // No jsonSchemaDialect: its default is the OAS 3.1 dialect already, and Stoplight's parser
    // (Prism, Spectral) copies a stated dialect into every schema as `$schema`, which its
    // validator does not know: Prism then validated no body at all.
    servers: [{ url: serverUrl, description: 'The bookdist sandbox that served this document.' }, DEPLOYMENT_SERVER],
    tags: TAGS.map(({ name, description }) => ({ name, description })),
    paths,
    components: {
      schemas: {
        ...SCHEMAS,
        ...Object.fromEntries(
          endpoints()
            .filter((ep) => usedPayloads.has(requestSchemaName(ep)))
            .map((ep) => [requestSchemaName(ep), payloadSchema(ep)]),
        ),
      },
      securitySchemes: SECURITY_SCHEMES,
    },
  });
}
