// The records of a response, as the command's output spec finds them, and the `--fields` checked
// against them; records as cards and columns read them.
import type { Context } from '../context.js';
import { usageError } from '../errors.js';
import { fieldPaths, nearestFields, selectFields, unmatchedFields } from './format.js';
import { ENVELOPE_KEYS, type OutputSpec } from './model.js';

/** A record of the service's JSON as cards and columns read it: any member may be missing, or of any JSON type. */
export type Rec = Record<string, unknown>;

/** `v` as a record, or an empty one when it is not an object (cards read members of what may be absent). */
export function recOf(v: unknown): Rec {
  return v !== null && typeof v === 'object' ? (v as Rec) : {};
}

/** `v` as a list of records (each element through recOf), or an empty list when it is not an array. */
export function recsOf(v: unknown): Rec[] {
  return Array.isArray(v) ? v.map(recOf) : [];
}

export function specOf(ctx: Context): OutputSpec {
  return ctx.output ?? { kind: 'record', record: 'record' };
}

function lessEnvelope(body: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) if (!(ENVELOPE_KEYS as readonly string[]).includes(k)) out[k] = v;
  return out;
}

function at(body: unknown, path: string): unknown {
  if (path === '.') return body;
  let cur = body;
  for (const p of path.split('.')) cur = cur == null ? undefined : (cur as Record<string, unknown>)[p];
  return cur;
}

/** The service's `message` in a response, if it has one. */
export function messageIn(body: unknown): unknown {
  return (body as { message?: unknown } | null | undefined)?.message;
}

/** The records of a response: the rows, or the one record (none when the response lacks it). */
export function recordsOf(spec: OutputSpec, body: unknown): unknown[] {
  let found: unknown;
  if (spec.at === undefined) found = spec.kind === 'rows' ? body : lessEnvelope(body);
  else {
    for (const p of Array.isArray(spec.at) ? spec.at : [spec.at]) {
      found = at(body, p);
      if (found !== undefined) break;
    }
  }
  if (spec.kind === 'rows') return Array.isArray(found) ? found : [];
  return found && typeof found === 'object' ? [found] : [];
}

/** A --fields value in a message: as given, at most about 200 characters of it. */
function quoteField(s: string): string {
  return s.length > 200 ? `${s.slice(0, 200)}… (${s.length} characters)` : s;
}

/** Check `--fields` against the records: a path that matches nothing is a usage error naming the fields. */
export function checkFields(ctx: Context, records: unknown[], record?: string): void {
  const fields = ctx.globals.fields;
  if (!fields || records.length === 0) return;
  const missing = unmatchedFields(records, fields);
  if (!missing.length) return;
  const what = record ?? specOf(ctx).record ?? 'record';
  const paths = fieldPaths(records);
  const near = [...new Set(missing.flatMap((m) => nearestFields(m, paths)))];
  throw usageError(
    `--fields ${quoteField(missing.join(','))}: no such field in ${/^[aeiou]/i.test(what) ? 'an' : 'a'} ${what} (paths are relative to the ${what}). ` +
      (near.length ? `Did you mean ${near.join(' or ')}? ` : '') +
      `Fields: ${paths.join(', ') || '(none)'}.`,
    { unknown_fields: missing, fields: paths, ...(near.length ? { suggestions: near } : {}) },
  );
}

/** What `--json` prints for a whole response: the response, or the records once --fields is given. */
export function jsonDocument(ctx: Context, body: unknown, records: unknown[]): unknown {
  const fields = ctx.globals.fields;
  if (!fields) return body;
  const spec = specOf(ctx);
  if (spec.kind === 'rows') return records.map((r) => selectFields(r, fields));
  return records.length ? selectFields(records[0], fields) : {};
}
