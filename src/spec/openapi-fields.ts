// The JSON Schemas of the OpenAPI document (openapi.ts) that come from the endpoint table's fields:
// one request field as the service accepts it (validate.ts), an endpoint's `request` payload, and
// its success body.
import type { Endpoint, FieldDef } from './endpoints.js';
import type { Schema } from './json-schema.js';

const MAX_STRING = 1000;
const MAX_ARRAY = 1000;

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
      else
        s.anyOf = [
          { type: 'array', items, maxItems: MAX_ARRAY },
          { ...items, description: 'one value, as a list of one' },
        ];
      break;
    }
    case 'array<integer>':
      Object.assign(s, { type: 'array', items: { type: 'integer' }, maxItems: MAX_ARRAY });
      break;
    case 'address':
      s.$ref = 'Address';
      break;
    case 'object':
      Object.assign(s, {
        type: 'object',
        maxProperties: 50,
        additionalProperties: { type: ['string', 'null'], maxLength: 200, pattern: NO_NUL },
      });
      break;
  }
  return s;
}

/** The `request` payload of an endpoint: its fields, absent and null alike, nothing else. */
export function payloadSchema(ep: Endpoint): Schema {
  const properties: Record<string, Schema> = {};
  for (const f of ep.fields)
    properties[f.name] = f.required ? fieldSchema(f) : { anyOf: [fieldSchema(f), { type: 'null' }] };
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
