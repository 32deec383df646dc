// Pure formatting helpers: dotted-path selection (through arrays), flattening, CSV/TSV escaping,
// and the checks behind `--fields`.

const isIndex = (s: string) => /^\d+$/.test(s);
const isPlain = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Get a dotted path (`status.is_active`, `identifiers.isbn13`) from a record. Through an array
 * the rest of the path applies to each element (`items.id` → the ids of every item); a numeric
 * part indexes the array (`items.0.id`).
 */
export function getPath(obj: unknown, path: string): unknown {
  return walk(obj, path.split('.'));
}

function walk(cur: unknown, parts: string[]): unknown {
  if (!parts.length) return cur;
  const [p, ...rest] = parts;
  if (Array.isArray(cur)) {
    if (isIndex(p)) return walk(cur[Number(p)], rest);
    const mapped = cur.map((e) => walk(e, parts));
    return mapped.every((v) => v === undefined) ? undefined : mapped.flat();
  }
  if (!isPlain(cur) || !(p in cur)) return undefined;
  return walk(cur[p], rest);
}

/** The part of `obj` that `parts` names, keeping its nesting; undefined when nothing matches. */
function pick(obj: unknown, parts: string[]): unknown {
  if (!parts.length) return obj;
  const [p, ...rest] = parts;
  if (Array.isArray(obj)) {
    if (isIndex(p)) return pick(obj[Number(p)], rest);
    const mapped = obj.map((e) => pick(e, parts));
    return mapped.every((v) => v === undefined) ? undefined : mapped.map((v) => (v === undefined ? {} : v));
  }
  if (!isPlain(obj) || !(p in obj)) return undefined;
  const inner = pick(obj[p], rest);
  return inner === undefined ? undefined : { [p]: inner };
}

function merge(a: unknown, b: unknown): unknown {
  if (isPlain(a) && isPlain(b)) {
    const out: Record<string, unknown> = { ...a };
    for (const [k, v] of Object.entries(b)) out[k] = k in out ? merge(out[k], v) : v;
    return out;
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) return a.map((v, i) => merge(v, b[i]));
  return b;
}

/** Keep only the given dotted paths of one record, rebuilding the nesting (in the order given). */
export function selectFields(obj: unknown, fields: string[]): unknown {
  let out: unknown = {};
  for (const path of fields) {
    const part = pick(obj, path.split('.'));
    if (part !== undefined) out = merge(out, part);
  }
  return out;
}

/** Flatten nested objects into dotted keys; arrays of scalars join with `;`, other arrays become JSON. */
export function flatten(obj: unknown, prefix = '', out: Record<string, unknown> = {}): Record<string, unknown> {
  if (obj === null || obj === undefined || typeof obj !== 'object') {
    if (prefix) out[prefix] = obj;
    return out;
  }
  if (Array.isArray(obj)) {
    out[prefix] = flatCell(obj);
    return out;
  }
  const entries = Object.entries(obj as Record<string, unknown>);
  if (entries.length === 0 && prefix) out[prefix] = '';
  for (const [k, v] of entries) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  return out;
}

/** One value as a flat cell: arrays of scalars join with `;`, objects and other arrays are JSON. */
export function flatCell(v: unknown): unknown {
  if (Array.isArray(v)) return v.every((x) => x === null || typeof x !== 'object') ? v.join(';') : JSON.stringify(v);
  if (isPlain(v)) return JSON.stringify(v);
  return v;
}

/**
 * The flat columns for `--fields` in CSV/TSV/tables: a field naming an object expands to its
 * leaf paths (`status` → `status.is_active`, ...), so every format shows the same data.
 */
export function fieldColumns(records: unknown[], fields: string[]): string[] {
  const cols: string[] = [];
  for (const f of fields) {
    const sample = records.map((r) => getPath(r, f)).find((v) => v !== undefined && v !== null);
    if (isPlain(sample)) {
      const keys = new Set<string>();
      for (const r of records) {
        const v = getPath(r, f);
        if (isPlain(v)) for (const k of Object.keys(flatten(v, f))) keys.add(k);
      }
      cols.push(...keys);
    } else cols.push(f);
  }
  return [...new Set(cols)];
}

/** The value of a flat column of a record (`identifiers.isbn13`, `items.id`). */
export function cellOf(record: unknown, column: string): unknown {
  return flatCell(getPath(record, column));
}

/** Fields of `--fields` that match nothing in any of the records. */
export function unmatchedFields(records: unknown[], fields: string[]): string[] {
  return fields.filter((f) => !records.some((r) => getPath(r, f) !== undefined));
}

/** The field paths a record has, for an error message: leaves, and each array of objects' own paths. */
export function fieldPaths(records: unknown[]): string[] {
  const seen = new Set<string>();
  const visit = (v: unknown, prefix: string) => {
    if (Array.isArray(v)) {
      if (prefix) seen.add(prefix);
      for (const e of v) if (isPlain(e)) visit(e, prefix);
      return;
    }
    if (isPlain(v)) {
      const entries = Object.entries(v);
      if (!entries.length && prefix) seen.add(prefix);
      for (const [k, x] of entries) visit(x, prefix ? `${prefix}.${k}` : k);
      return;
    }
    if (prefix) seen.add(prefix);
  };
  for (const r of records.slice(0, 50)) visit(r, '');
  return [...seen];
}

export function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

export function csvCell(v: unknown): string {
  const s = cellText(v);
  return /[",\r\n]/.test(s) || /^\s|\s$/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function tsvCell(v: unknown): string {
  return cellText(v).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\r?\n/g, '\\n');
}

/** Columns for a set of flattened rows: the given ones, else the union of keys in first-seen order. */
export function columnsOf(rows: Array<Record<string, unknown>>, fields?: string[]): string[] {
  if (fields?.length) return fields;
  const seen = new Set<string>();
  for (const r of rows) for (const k of Object.keys(r)) seen.add(k);
  return [...seen];
}
