// Check a request's payload against the service's OpenAPI document before it is sent: what
// `bookdist --dry-run` does, so that a partner gets the check that generic OpenAPI tools cannot
// give. Those tools validate an `application/json` body, but the form encoding that the CLI and
// the reference clients send carries the payload as JSON text inside the `request` form field,
// which no generic tool decodes. Here the text is parsed and validated against the very schema
// the document names for that operation (components.schemas["<endpoint>.request"], referenced by
// both encodings), with a JSON Schema 2020-12 validator (ajv). Loaded only by --dry-run.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { endpointFor } from './routes.js';
import { openApiDocument, requestSchemaName } from './openapi.js';

type AddFormats = (ajv: Ajv2020) => Ajv2020;
// ajv-formats is CommonJS: its function is the module itself or its `default`, by how it was loaded.
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  addFormatsModule) as AddFormats;

export interface PayloadCheck {
  /** The endpoint the request goes to. */
  endpoint: string;
  /** Where the schema is in the document: `#/components/schemas/codes.generate.request`. */
  schema: string;
  /** What does not match, one line each; empty when the payload is valid. */
  problems: string[];
}

export { endpointFor };

let ajv: Ajv2020 | undefined;
const validators = new Map<string, ValidateFunction>();

function validator(pointer: string): ValidateFunction {
  let v = validators.get(pointer);
  if (!v) {
    if (!ajv) {
      ajv = new Ajv2020({ strict: false, allErrors: true });
      addFormats(ajv);
      ajv.addSchema(openApiDocument(), 'openapi.json');
    }
    v = ajv.compile({ $ref: `openapi.json${pointer}` });
    validators.set(pointer, v);
  }
  return v;
}

function describe(e: ErrorObject): string {
  const where = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : 'the payload';
  if (e.keyword === 'additionalProperties')
    return `${where}: unknown field "${(e.params as { additionalProperty?: string }).additionalProperty}"`;
  if (e.keyword === 'required')
    return `${where}: missing field "${(e.params as { missingProperty?: string }).missingProperty}"`;
  return `${where}: ${e.message}`;
}

/**
 * Check the `request` text of a POST against the document. Undefined when there is nothing to
 * check (a GET, a path the document does not describe, or a store endpoint, which takes a query).
 */
export function checkPayload(req: {
  method: string;
  path: string;
  host: 'api' | 'store';
  requestText?: string;
}): PayloadCheck | undefined {
  if (req.method !== 'POST' || req.requestText === undefined) return undefined;
  const ep = endpointFor(req.method, req.path, req.host);
  if (!ep || ep.host === 'store') return undefined;
  const schema = `#/components/schemas/${requestSchemaName(ep)}`;
  let payload: unknown;
  try {
    payload = JSON.parse(req.requestText);
  } catch {
    return { endpoint: ep.name, schema, problems: ['the request text is not JSON'] };
  }
  const validate = validator(schema);
  if (validate(payload)) return { endpoint: ep.name, schema, problems: [] };
  // anyOf alternatives (a field or null) explain themselves through their branches' errors.
  const errors = (validate.errors ?? []).filter((e) => e.keyword !== 'anyOf');
  return { endpoint: ep.name, schema, problems: [...new Set(errors.map(describe))].slice(0, 10) };
}
