// Pure formatting helpers: dotted-path selection (through arrays), flattening, CSV/TSV escaping,
// and the checks behind `--fields`.
import { cellText } from '../util/cell-text.js';

// A cell's text is the util's (the ledger shows it too); the verbs take it from here, with the rest.
export { cellText };

const isIndex = (s: string) => /^\d+$/.test(s);
const isPlain = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
/**
 * Does a record have this field of its own? Never a name of JavaScript's object machinery
 * (`constructor`, `__proto__`, `toString`) that every object inherits (issue 22).
 */
const has = (o: Record<string, unknown>, k: string) => Object.prototype.hasOwnProperty.call(o, k);

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
  if (!isPlain(cur) || !has(cur, p)) return undefined;
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
  if (!isPlain(obj) || !has(obj, p)) return undefined;
  const inner = pick(obj[p], rest);
  if (inner === undefined) return undefined;
  const out: Record<string, unknown> = {};
  // Stryker disable next-line BooleanLiteral: equivalent, the record is only read, and merge copies it with a spread (own, writable properties)
  Object.defineProperty(out, p, { value: inner, enumerable: true, writable: true, configurable: true });
  return out;
}

function merge(a: unknown, b: unknown): unknown {
  if (isPlain(a) && isPlain(b)) {
    const out: Record<string, unknown> = { ...a };
    for (const [k, v] of Object.entries(b)) {
      Object.defineProperty(out, k, {
        value: has(out, k) ? merge(out[k], v) : v,
        enumerable: true,
        // Stryker disable next-line BooleanLiteral: equivalent, the record is only read, and the next merge copies it with a spread
        writable: true,
        // Stryker disable next-line BooleanLiteral: equivalent, as writable
        configurable: true,
      });
    }
    return out;
  }
  // Stryker disable next-line LogicalOperator,ConditionalExpression: accepted, only a list picked whole and by index in one --fields (`items,items.0`) merges a list with a record, and neither result means more than the other; two paths through one list give lists of one length
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

/** Flatten nested objects into dotted keys; lists become one cell each (flatCell). */
export function flatten(obj: unknown, prefix = '', out: Record<string, unknown> = {}): Record<string, unknown> {
  if (obj === null || typeof obj !== 'object') {
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

/**
 * One value as a flat cell of TSV/CSV (and tables), the same in every command (README, "Lists in
 * TSV and CSV"): a list of values joins with `;` (`101;102`); an object is `key=value` pairs
 * joined with `,`, nested keys dotted (`id=1,price=14.99,book.title=Salt`); a list of objects
 * is those joined with `;`. Inside a value of an object, `\`, `;`, `,` and `=` are escaped with
 * a backslash, and a list inside an object is its JSON text, so the cell reads back exactly.
 */
export function flatCell(v: unknown): unknown {
  if (Array.isArray(v))
    return v.every((x) => x === null || typeof x !== 'object') ? v.join(';') : v.map(objectCell).join(';');
  if (isPlain(v)) return objectCell(v);
  return v;
}

const escapePart = (s: string) => s.replace(/[\\;,=]/g, (c) => '\\' + c);

function objectCell(o: unknown): string {
  if (!isPlain(o)) return escapePart(cellText(o));
  const pairs: string[] = [];
  const visit = (x: Record<string, unknown>, prefix: string) => {
    for (const [k, val] of Object.entries(x)) {
      const key = prefix ? `${prefix}.${k}` : k;
      if (isPlain(val) && Object.keys(val).length) visit(val, key);
      else pairs.push(`${escapePart(key)}=${escapePart(cellText(val))}`);
    }
  };
  visit(o, '');
  return pairs.join(',');
}

/** Read back a cell of a list of objects (the inverse of flatCell for them): values as text. */
export function parseObjectCell(cell: string): Array<Record<string, string>> {
  const out: Array<Record<string, string>> = [];
  let entry: Record<string, string> = {};
  // Stryker disable next-line StringLiteral: equivalent, a key is read only after an `=` has set it
  let key = '';
  let cur = '';
  let inKey = true;
  const endPair = () => {
    if (!inKey) entry[key] = cur;
    else if (cur !== '') entry[cur] = '';
    cur = '';
    inKey = true;
  };
  for (let i = 0; i < cell.length; i++) {
    const c = cell[i];
    if (c === '\\' && i + 1 < cell.length) cur += cell[++i];
    else if (c === '=' && inKey) {
      key = cur;
      cur = '';
      inKey = false;
    } else if (c === ',') endPair();
    else if (c === ';') {
      endPair();
      out.push(entry);
      entry = {};
    } else cur += c;
  }
  if (cell !== '') {
    endPair();
    out.push(entry);
  }
  return out;
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

export function csvCell(v: unknown): string {
  const s = cellText(v);
  return /[",\r\n]/.test(s) || /^\s|\s$/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** TSV escapes backslash, tab, newline and carriage return (as `\\`, `\t`, `\n`, `\r`). */
export function tsvCell(v: unknown): string {
  return cellText(v).replace(/[\\\t\n\r]/g, (c) =>
    c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r',
  );
}

/** Columns for a set of flattened rows: the given ones, else the union of keys in first-seen order. */
export function columnsOf(rows: Array<Record<string, unknown>>, fields?: string[]): string[] {
  if (fields?.length) return fields;
  const seen = new Set<string>();
  for (const r of rows) for (const k of Object.keys(r)) seen.add(k);
  return [...seen];
}

/** Edit distance of two short strings, a swap of neighbours counting one (for did-you-mean). */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    // Stryker disable next-line ConditionalExpression: equivalent, only the first row and column are read before being computed
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      // A swap of neighbours (in the first row or column, a[-1] or b[-1] is undefined: no swap).
      if (a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/**
 * The field paths nearest to a mistyped one (did-you-mean): by edit distance of the whole path
 * or of its last part, at most a third of its length away, best first.
 */
export function nearestFields(wrong: string, paths: string[], max = 3): string[] {
  if (wrong.length > 64) return [];
  const w = wrong.toLowerCase();
  const scored = paths
    .map((p) => {
      const lower = p.toLowerCase();
      const last = lower.split('.').pop()!;
      const score = Math.min(
        distance(w, lower),
        distance(w, last) + 0.5,
        lower.endsWith('.' + w) || lower.startsWith(w + '.') ? 0.5 : Infinity,
      );
      return { p, score };
    })
    .filter((x) => x.score <= Math.max(1, Math.floor(w.length / 3)) + 0.5)
    .sort((a, b) => a.score - b.score || a.p.length - b.p.length);
  return scored.slice(0, max).map((x) => x.p);
}

/** At most this many `--fields` paths, each of at most this many parts (bounded work, issue 22). */
export const MAX_FIELDS = 200;
export const MAX_FIELD_PARTS = 16;

/** A problem with the --fields list itself (too many paths, too deep, empty parts), or undefined. */
export function fieldsProblem(fields: string[]): string | undefined {
  if (fields.length > MAX_FIELDS) return `--fields: ${fields.length} paths; at most ${MAX_FIELDS}.`;
  for (const f of fields) {
    const parts = f.split('.');
    const shown = f.length > 200 ? `${f.slice(0, 200)}… (${f.length} characters)` : f;
    if (parts.length > MAX_FIELD_PARTS) return `--fields ${shown}: a path of at most ${MAX_FIELD_PARTS} parts.`;
    if (parts.some((p) => p === '')) return `--fields ${shown}: an empty part in a dotted path.`;
  }
  return undefined;
}
