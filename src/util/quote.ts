// Quoting values in error messages, for every layer (a leaf: no imports).

/** A value quoted for an error message: JSON-quoted, at most about 200 characters of it. */
export function quoteValue(value: unknown, max = 200): string {
  const s = String(value);
  const quoted = JSON.stringify(s.length > max ? s.slice(0, max) : s);
  return s.length > max ? `${quoted.slice(0, -1)}…" (${s.length} characters)` : quoted;
}

/** `s` cut to `n` characters, with an ellipsis when it was longer. */
export function truncate(s: string, n: number): string {
  return s.length > n ? s.slice(0, n) + '…' : s;
}

/** `s` as one shell word: as it is when it needs no quoting, else in single quotes. */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
