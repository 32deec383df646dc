// ISBN check digits and normalisation.

/** Check digit of the 12 leading digits of an ISBN-13. */
export function isbn13Check(first12: string): string {
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(first12[i]) * (i % 2 === 0 ? 1 : 3);
  return String((10 - (sum % 10)) % 10);
}

/** Check character of the 9 leading digits of an ISBN-10. */
function isbn10Check(first9: string): string {
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += Number(first9[i]) * (10 - i);
  const c = (11 - (sum % 11)) % 11;
  return c === 10 ? 'X' : String(c);
}

/** ISBN-13 (978 + 9 digits + check) and its ISBN-10. */
export function isbnPair(nine: string): { isbn13: string; isbn10: string } {
  const twelve = '978' + nine;
  return { isbn13: twelve + isbn13Check(twelve), isbn10: nine + isbn10Check(nine) };
}

/** Strip hyphens and spaces; upper-case a trailing x. */
export function normalizeIsbn(s: string): string {
  return s.replace(/[\s-]/g, '').toUpperCase();
}

export function isValidIsbn(s: string): boolean {
  const v = normalizeIsbn(s);
  // Stryker disable next-line MethodExpression: equivalent, isbn13Check reads only the first twelve digits
  if (/^\d{13}$/.test(v)) return isbn13Check(v.slice(0, 12)) === v[12];
  // Stryker disable next-line MethodExpression: equivalent, isbn10Check reads only the first nine digits
  if (/^\d{9}[\dX]$/.test(v)) return isbn10Check(v.slice(0, 9)) === v[9];
  return false;
}

/** The ISBN-13 of an ISBN-10 (978 prefix), or the value itself. */
export function toIsbn13(s: string): string {
  const v = normalizeIsbn(s);
  if (/^\d{9}[\dX]$/.test(v)) {
    const twelve = '978' + v.slice(0, 9);
    return twelve + isbn13Check(twelve);
  }
  return v;
}
