// Payload validation driven by the endpoint table's field definitions: types, required fields,
// unknown fields, sizes. Absent and null are alike; true/"true"/"True" alike for booleans.
import { takesPlainFields, type Endpoint, type FieldDef } from '../spec/endpoints.js';
import { bad } from './errors.js';
import { parseDate } from './util.js';
import { messageOf } from '../errors.js';

const MAX_STRING = 1000;
const MAX_ARRAY = 1000;

const ADDRESS_FIELDS = new Set([
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
]);

// any: a payload's fields are checked against the endpoint table at run time (validatePayload); each handler reads the ones its endpoint declares
export type Payload = Record<string, any>;

/** Parse the raw `request` text into an object. */
export function parseRequestText(text: string | undefined): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    throw bad(`Invalid JSON in "request": ${messageOf(err)}.`);
  }
  if (v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw bad('"request" must be a JSON object.');
  return v as Record<string, unknown>;
}

const BOOL_TRUE = new Set(['true', 'True', 'TRUE', '1']);
const BOOL_FALSE = new Set(['false', 'False', 'FALSE', '0', '']);

/**
 * Check and normalise the payload. `fromQuery`: values came from a query string (all strings),
 * so integers and lists are parsed from text.
 */
export function validatePayload(ep: Endpoint, raw: Record<string, unknown>, fromQuery: boolean): Payload {
  if (fromQuery && !takesPlainFields(ep) && Object.keys(raw).length > 0) {
    throw bad(
      `${ep.path} takes its payload as the form field "request" (a JSON object, which the signature covers), not as form fields.`,
    );
  }
  const { fields, ignored } = fieldsOf(ep);
  const out: Payload = {};
  for (const [name, value] of Object.entries(raw)) {
    const f = fields.get(name);
    if (!f) {
      if (fromQuery) continue;
      if (ignored.has(name)) {
        // Sent by a reference client, always; empty it means nothing, filled it asks for what the sandbox lacks.
        if (value === null || value === undefined || value === '' || (Array.isArray(value) && value.length === 0))
          continue;
        throw bad(`Field "${name}" is not supported by the sandbox; send [] or leave it out.`);
      }
      throw bad(`Unknown field "${name}".`);
    }
    if (value === null || value === undefined) continue;
    out[name] = coerce(f, value, fromQuery);
  }
  for (const f of ep.fields) {
    if (f.required && (out[f.name] === undefined || out[f.name] === '')) throw bad(`Field "${f.name}" is required.`);
  }
  return out;
}

/** An endpoint's fields by name and the fields it ignores, made once per endpoint (not at every request). */
const FIELDS = new WeakMap<Endpoint, { fields: Map<string, FieldDef>; ignored: Set<string> }>();

function fieldsOf(ep: Endpoint): { fields: Map<string, FieldDef>; ignored: Set<string> } {
  let kept = FIELDS.get(ep);
  if (!kept) {
    kept = { fields: new Map(ep.fields.map((f) => [f.name, f])), ignored: new Set(ep.ignored ?? []) };
    FIELDS.set(ep, kept);
  }
  return kept;
}

function coerce(f: FieldDef, v: unknown, fromQuery: boolean): unknown {
  const name = f.name;
  switch (f.type) {
    case 'string': {
      if (typeof v !== 'string') throw bad(`Field "${name}" must be a string.`);
      noNul(name, v);
      const max = f.maxLength ?? MAX_STRING;
      if (v.length > max) throw bad(`Field "${name}" is too long (at most ${max} characters).`);
      return v;
    }
    case 'integer': {
      let n = v;
      if (fromQuery && typeof v === 'string' && /^-?\d{1,15}$/.test(v.trim())) n = Number(v.trim());
      if (typeof n !== 'number' || !Number.isSafeInteger(n)) throw bad(`Field "${name}" must be an integer.`);
      if ((f.min !== undefined && n < f.min) || (f.max !== undefined && n > f.max))
        throw bad(`Field "${name}" must be ${integerRange(f)}.`);
      return n;
    }
    case 'number': {
      if (fromQuery && typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
      if (typeof v !== 'number' || !Number.isFinite(v)) throw bad(`Field "${name}" must be a number.`);
      return v;
    }
    case 'boolean': {
      if (typeof v === 'boolean') return v;
      if (typeof v === 'string' && BOOL_TRUE.has(v.trim())) return true;
      if (typeof v === 'string' && BOOL_FALSE.has(v.trim())) return false;
      if (v === 1 || v === 0) return v === 1;
      throw bad(`Field "${name}" must be a boolean (true or false).`);
    }
    case 'date': {
      if (typeof v !== 'string' || v.length > 40)
        throw bad(`Field "${name}" must be a date such as 2030-12-31 23:59:59.`);
      const ms = parseDate(v);
      if (ms === undefined) throw bad(`Field "${name}" must be a date such as 2030-12-31 23:59:59.`);
      return ms;
    }
    case 'array<string>': {
      let arr: unknown = v;
      if (typeof v === 'string')
        arr = fromQuery
          ? v
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean)
          : [v];
      if (!Array.isArray(arr)) throw bad(`Field "${name}" must be an array of strings.`);
      if (arr.length > MAX_ARRAY) throw bad(`Field "${name}" has too many entries (at most ${MAX_ARRAY}).`);
      for (const s of arr) {
        if (typeof s !== 'string') throw bad(`Field "${name}" must be an array of strings.`);
        noNul(name, s);
        if (s.length > MAX_STRING)
          throw bad(`Field "${name}" has an entry that is too long (at most ${MAX_STRING} characters).`);
      }
      return arr;
    }
    case 'array<integer>': {
      let arr: unknown = v;
      if (fromQuery && typeof v === 'string')
        arr = v.split(',').map((s) => (/^\s*-?\d{1,15}\s*$/.test(s) ? Number(s) : s));
      if (!Array.isArray(arr)) throw bad(`Field "${name}" must be an array of integers.`);
      if (arr.length > MAX_ARRAY) throw bad(`Field "${name}" has too many entries (at most ${MAX_ARRAY}).`);
      for (const n of arr)
        if (typeof n !== 'number' || !Number.isSafeInteger(n))
          throw bad(`Field "${name}" must be an array of integers.`);
      return arr;
    }
    case 'address': {
      if (typeof v !== 'object' || Array.isArray(v))
        throw bad(`Field "${name}" must be an address object (full_name, postal_code, country, ...).`);
      const out: Record<string, string> = {};
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        if (!ADDRESS_FIELDS.has(k)) throw bad(`Unknown field "${name}.${k}".`);
        if (x === null || x === undefined) continue;
        if (typeof x !== 'string') throw bad(`Field "${name}.${k}" must be a string.`);
        noNul(`${name}.${k}`, x);
        if (x.length > 200) throw bad(`Field "${name}.${k}" is too long (at most 200 characters).`);
        out[k] = x;
      }
      return out;
    }
    case 'object': {
      if (typeof v !== 'object' || Array.isArray(v)) throw bad(`Field "${name}" must be an object.`);
      const out: Record<string, string> = {};
      const entries = Object.entries(v as Record<string, unknown>);
      if (entries.length > 50) throw bad(`Field "${name}" has too many members.`);
      for (const [k, x] of entries) {
        if (x === null || x === undefined) continue;
        if (typeof x !== 'string') throw bad(`Field "${name}.${k}" must be a string.`);
        noNul(`${name}.${k}`, x);
        if (x.length > 200) throw bad(`Field "${name}.${k}" is too long (at most 200 characters).`);
        out[k] = x;
      }
      return out;
    }
  }
}

/** `an integer between 1 and 1000`, `a non-negative integer`, ... from the field's bounds. */
function integerRange(f: FieldDef): string {
  if (f.min !== undefined && f.max !== undefined) return `an integer between ${f.min} and ${f.max}`;
  if (f.min === 0) return 'a non-negative integer';
  if (f.min !== undefined) return `an integer of at least ${f.min}`;
  return `an integer of at most ${f.max}`;
}

/**
 * A NUL character is never part of a name, title or address, and SQLite would cut the text at
 * it (a title of "\0..." would match every book): refuse it, naming the field.
 */
function noNul(name: string, v: string): void {
  if (v.includes('\u0000')) throw bad(`Field "${name}" must not contain a NUL character (\\u0000).`);
}

/** `limit` and `offset` of a listing (decisions.md: default 50, max 500, 0 = default). */
export function paging(p: Payload): { limit: number; offset: number } {
  const limit = p.limit ?? 0;
  const offset = p.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 0 || limit > 500)
    throw bad('Field "limit" must be an integer between 0 and 500.');
  if (!Number.isInteger(offset) || offset < 0) throw bad('Field "offset" must be a non-negative integer.');
  return { limit: limit === 0 ? 50 : limit, offset };
}
