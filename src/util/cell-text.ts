// The text of a value as a cell or a line shows it: shared by the output (src/output/format.ts)
// and the ledger's one-line subjects (src/ledger/read.ts), which may not import the output.

/** The text of a value in a cell or a line: a scalar as itself, an object or array as its JSON (never "[object Object]"), nothing for null and undefined. */
export function cellText(v: unknown): string {
  switch (typeof v) {
    // Stryker disable next-line StringLiteral: equivalent, a boolean's JSON is its String too
    case 'boolean':
    case 'string':
    case 'number':
    case 'bigint':
      return String(v);
    case 'undefined':
    case 'function':
    case 'symbol':
      return '';
    default:
      return v === null ? '' : JSON.stringify(v);
  }
}
