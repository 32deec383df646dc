// String checks of a command's request path, by character codes instead of regular expressions
// (a leaf: no imports). V8 compiles a regular expression to bytecode on its first use and to
// machine code on its second, in every run: issue 31 counted 67 such compiles in one `book get`
// (about 1.5% of its instructions), for checks this small. Each function here says which
// expression it stands for, and test/foundation/scan.test.ts holds it to that expression.

/** `s` without its trailing slashes: `s.replace(/\/+$/, '')`. */
export function trimTrailingSlashes(s: string): string {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 0x2f) end--;
  return end === s.length ? s : s.slice(0, end);
}

/** Is `c` (0xa0 or above) a white space character as `\s` means it? */
function isWideSpaceCode(c: number): boolean {
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** Does `s` hold a control character, DEL or white space: `/[\u0000-\u001f\u007f\s]/.test(s)`? */
export function hasControlOrSpace(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // Every control character and ASCII white space is at most 0x20; a function call only beyond ASCII.
    if (c <= 0x20 || c === 0x7f || (c >= 0xa0 && isWideSpaceCode(c))) return true;
  }
  return false;
}

/** Does `s` hold a line terminator (a character `.` does not match: \n, \r, U+2028, U+2029)? */
export function hasLineTerminator(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x0a || c === 0x0d || c === 0x2028 || c === 0x2029) return true;
  }
  return false;
}

/**
 * An ISBN as written, without its spaces and hyphens, upper-cased:
 * `s.replace(/[\s-]/g, '').toUpperCase()`.
 */
export function compactIsbn(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // Anything but printable ASCII: the expression itself (white space beyond ASCII is rare here).
    if (c <= 0x20 || c >= 0x7f) return s.replace(/[\s-]/g, '').toUpperCase();
  }
  return s.replaceAll('-', '').toUpperCase();
}

/** Is `c` a decimal digit's code (`\d`)? */
export function isDigitCode(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** Is `s` `n` decimal digits, the last one possibly `X` when `lastX`? (`/^\d{13}$/`, `/^\d{9}[\dX]$/`) */
function digitsOf(s: string, n: number, lastX: boolean): boolean {
  if (s.length !== n) return false;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (!isDigitCode(c) && !(lastX && i === n - 1 && c === 0x58)) return false;
  }
  return true;
}

/** Thirteen decimal digits: `/^\d{13}$/.test(s)`. */
export function isIsbn13Digits(s: string): boolean {
  return digitsOf(s, 13, false);
}

/** Nine decimal digits and a tenth digit or X: `/^\d{9}[\dX]$/.test(s)`. */
export function isIsbn10Digits(s: string): boolean {
  return digitsOf(s, 10, true);
}

/** Is `c` a word character as `\w` means it ([A-Za-z0-9_])? */
function isWordCode(c: number): boolean {
  return isDigitCode(c) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
}

/** Is `c` in [a-z_]? */
function isLowerOrUnderscore(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || c === 0x5f;
}

/**
 * The `{name}` placeholders of a path template, in order, each as [start, end) in `template`:
 * the matches of `/\{(\w+)\}/g`, or of `/\{[a-z_]+\}/g` when `lowerOnly`.
 */
export function placeholders(template: string, lowerOnly = false): Array<[number, number]> {
  const found: Array<[number, number]> = [];
  const ok = lowerOnly ? isLowerOrUnderscore : isWordCode;
  for (let i = template.indexOf('{'); i >= 0; i = template.indexOf('{', i + 1)) {
    let j = i + 1;
    while (j < template.length && ok(template.charCodeAt(j))) j++;
    if (j > i + 1 && template.charCodeAt(j) === 0x7d) {
      found.push([i, j + 1]);
      i = j;
    }
  }
  return found;
}
