// Pure formatting helpers: dotted-path selection, flattening, CSV/TSV escaping.

/** Get a dotted path (`status.is_active`, `identifiers.isbn13`) from a record. */
export function getPath(obj: unknown, path: string): unknown {
  let cur: any = obj;
  for (const part of path.split('.')) {
    if (cur == null || typeof cur !== 'object') return undefined;
    cur = cur[part];
  }
  return cur;
}

/** Keep only the given dotted paths, rebuilding the nesting. */
export function selectFields(obj: unknown, fields: string[]): unknown {
  if (Array.isArray(obj)) return obj.map((o) => selectFields(o, fields));
  if (!obj || typeof obj !== 'object') return obj;
  const out: Record<string, any> = {};
  for (const path of fields) {
    const value = getPath(obj, path);
    if (value === undefined) continue;
    const parts = path.split('.');
    let cur = out;
    for (const p of parts.slice(0, -1)) cur = cur[p] ??= {};
    cur[parts[parts.length - 1]] = value;
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
    out[prefix] = obj.every((v) => v === null || typeof v !== 'object') ? obj.join(';') : JSON.stringify(obj);
    return out;
  }
  const entries = Object.entries(obj as Record<string, unknown>);
  if (entries.length === 0 && prefix) out[prefix] = '';
  for (const [k, v] of entries) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  return out;
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

export function truncateText(s: string, width: number): string {
  if (width <= 1 || s.length <= width) return s;
  return s.slice(0, width - 1) + '…';
}
