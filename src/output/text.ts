// Text as terminals show it (issue 17): the one display-width function of the tree, cuts on
// grapheme boundaries, word wrapping in display columns, control characters from data made
// visible, and the ASCII fallback for terminals that are not UTF-8.
//
// Widths come from `string-width` (East Asian Width, emoji, combining marks, grapheme clusters
// through Intl.Segmenter). Loading it is a noticeable part of a command's start-up (building the
// segmenter and its Unicode property sets), so it is loaded by `loadText()` only when text that is not
// printable ASCII is about to be laid out: a table, a card, a help page or a notice. Printable
// ASCII, which is most of what the tree prints, is measured by its length without it.

type WidthFn = (s: string) => number;
let stringWidth: WidthFn | undefined;
let segmenter: Intl.Segmenter | undefined;

/** Printable ASCII (and nothing else): one column per character. */
// Stryker disable next-line Regex: accepted, `*` → one character measures ASCII the same through string-width, only loading it (test/output/lazy.test.ts, e2e); the line's other Regex mutants are killed by test/output/text.test.ts
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const SGR = /\x1b\[[0-9;]*m/g;

/** Is the width library needed for this text (anything but printable ASCII and colour codes)? */
function needsText(t: string): boolean {
  // Stryker disable next-line StringLiteral: equivalent, colour codes replaced by any printable ASCII text leave the text printable ASCII
  return !PRINTABLE_ASCII.test(t.replace(SGR, ''));
}

/** Load the width library (its one caller, loadTextFor, asks only while it is not loaded). */
async function loadText(): Promise<void> {
  const mod = await import('string-width');
  stringWidth = mod.default;
}

/** Load the library when any of `texts` needs it (cheap when all are ASCII). */
export async function loadTextFor(texts: Iterable<string>): Promise<void> {
  if (stringWidth) return;
  for (const t of texts) if (needsText(t)) return loadText();
}

/**
 * Columns a terminal uses to show `s` (colour codes take none). Printable ASCII is its length;
 * anything else needs loadText() first: without it (a caller that forgot), each code point
 * that is not a combining mark, a control or a format character counts one column, which is
 * right for our own help texts.
 */
export function textWidth(s: string): number {
  if (PRINTABLE_ASCII.test(s)) return s.length;
  const plain = s.replace(SGR, '');
  if (PRINTABLE_ASCII.test(plain)) return plain.length;
  if (stringWidth) return stringWidth(plain);
  let n = 0;
  for (const ch of plain) if (!/\p{M}|\p{Cc}|\p{Cf}/u.test(ch)) n++;
  return n;
}

/** Grapheme clusters of `s` (what a person sees as one character). */
function graphemes(s: string): string[] {
  if (PRINTABLE_ASCII.test(s)) return s.split('');
  segmenter ??= new Intl.Segmenter();
  return Array.from(segmenter.segment(s), (x) => x.segment);
}

// ---------------------------------------------------------------------------------------------
// ASCII fallback

/**
 * True when the terminal should get ASCII only: BOOKDIST_ASCII=1, or (without BOOKDIST_ASCII=0) a locale that is not
 * UTF-8 (the first of LC_ALL, LC_CTYPE, LANG that is set; none set is the C locale). `…` and
 * block characters are two columns wide in many East Asian terminal set-ups.
 */
export function asciiOnly(env: Record<string, string | undefined>): boolean {
  // BOOKDIST_ASCII=1: ASCII whatever the locale; 0: UTF-8 whatever the locale (man page).
  const flag = env.BOOKDIST_ASCII;
  if (flag === '0') return false;
  if (flag !== undefined && flag !== '') return true;
  // Stryker disable next-line StringLiteral: equivalent, any other text without "utf8" in it is not a UTF-8 locale either
  const locale = env.LC_ALL || env.LC_CTYPE || env.LANG || '';
  return !/utf-?8/i.test(locale);
}

/** The mark of a cut: `…`, or `...` for ASCII terminals. */
export function ellipsisFor(ascii: boolean): string {
  return ascii ? '...' : '…';
}

// ---------------------------------------------------------------------------------------------
// Control characters from data

/**
 * Characters that must never reach a terminal from data: C0 controls, DEL, C1 controls, the
 * bidirectional overrides and isolates, line and paragraph separators, and lone surrogates.
 */

const CONTROL =
  /[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const CONTROL_TEST = /[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]/;

function escapeOne(ch: string): string {
  const c = ch.charCodeAt(0);
  if (ch === '\n') return '\\n';
  if (ch === '\r') return '\\r';
  if (ch === '\t') return '\\t';
  // Stryker disable next-line EqualityOperator: equivalent, 0x100 is no control character
  if (c < 0x100) return '\\x' + c.toString(16).padStart(2, '0');
  // Every control above 0xff (U+2028 on, and the surrogates) has four hex digits.
  return '\\u' + c.toString(16);
}

/** `s` with every control character shown as an escape (`\x1b`, `\u009b`, `\u202e`, `\n`). */
export function escapeControls(s: string): string {
  return CONTROL_TEST.test(s) ? s.replace(CONTROL, escapeOne) : s;
}

/** escapeControls, with line breaks kept when `keepLines`. */
function escapeLines(s: string, keepLines: boolean): string {
  return keepLines ? s.split('\n').map(escapeControls).join('\n') : escapeControls(s);
}

/**
 * The colour codes this tree writes (output/index.ts style(): bold, dim, normal intensity, red,
 * green, yellow, cyan, default colour). Any other SGR (hidden text `ESC[8m`, blink, 256 colours...)
 * never comes from bookdist.
 */
const OWN_SGR = /(\x1b\[(?:1|2|22|31|32|33|36|39)m)/;

/**
 * Like escapeControls, but the colour codes this tree writes stay: for text that we styled around
 * data already escaped. Every other control sequence is escaped, SGR included. Line breaks stay
 * too when `keepLines`.
 */
export function escapeKeepingStyle(s: string, keepLines = false): string {
  if (!CONTROL_TEST.test(s)) return s;
  return s
    .split(OWN_SGR)
    .map((part, i) => (i % 2 ? part : escapeLines(part, keepLines)))
    .join('');
}

/**
 * Does a stream get colour? `--color always|never`; else none with NO_COLOR (non-empty) or
 * TERM=dumb, colour with FORCE_COLOR, else colour on a terminal.
 */
export function colorWanted(
  color: 'auto' | 'always' | 'never',
  env: Record<string, string | undefined>,
  isTTY: boolean | undefined,
): boolean {
  if (color === 'always') return true;
  if (color === 'never') return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.TERM === 'dumb') return false;
  if (env.FORCE_COLOR) return true;
  return Boolean(isTTY);
}

/** Every string in a JSON-like value escaped (for tables and cards; JSON output keeps data as it is). */
export function escapeDeep<T>(v: T, depth = 0): T {
  if (typeof v === 'string') return escapeControls(v) as T;
  if (v === null || typeof v !== 'object' || depth > 64) return v;
  if (Array.isArray(v)) return v.map((x) => escapeDeep(x, depth + 1)) as T;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = escapeDeep(x, depth + 1);
  return out as T;
}

// ---------------------------------------------------------------------------------------------
// Cutting and wrapping in display columns

/**
 * `s` cut to at most `width` columns on a grapheme boundary, ending in `ellipsis` when cut.
 * Colour codes are dropped from a string that is cut.
 */
export function cutToWidth(s: string, width: number, ellipsis = '…'): string {
  if (textWidth(s) <= width) return s;
  const plain = s.replace(SGR, '');
  const room = width - textWidth(ellipsis);
  // Stryker disable next-line EqualityOperator: equivalent, with no room only graphemes of no width would fit before the mark, and they show nothing
  if (room <= 0) return ellipsis.slice(0, Math.max(0, width));
  let out = '';
  let used = 0;
  for (const g of graphemes(plain)) {
    const w = textWidth(g);
    if (used + w > room) break;
    out += g;
    used += w;
  }
  return out.replace(/\s+$/, '') + ellipsis;
}

/** Split a word wider than `width` into pieces of at most `width` columns (grapheme boundaries). */
function breakWord(word: string, width: number): string[] {
  const pieces: string[] = [];
  let cur = '';
  let used = 0;
  for (const g of graphemes(word)) {
    const w = textWidth(g);
    if (used + w > width && cur) {
      pieces.push(cur);
      cur = '';
      used = 0;
    }
    cur += g;
    used += w;
  }
  // Its callers break only words wider than a line: never empty, so there is always a last piece.
  pieces.push(cur);
  return pieces;
}

/**
 * Wrap text to `width` columns at spaces; a word wider than a line (a path, a URL, a long
 * title without spaces) is broken across lines rather than cut. Line breaks in the text stay.
 * Returns the lines (without indentation; `firstWidth` is the room on the first line).
 */
export function wrapToWidth(text: string, width: number, firstWidth = width): string[] {
  const out: string[] = [];
  let limit = Math.max(1, firstWidth);
  for (const para of text.split('\n')) {
    let line = '';
    let used = 0;
    const flush = () => {
      out.push(line);
      // Stryker disable next-line StringLiteral: equivalent, every path after a flush sets the line before it reads it
      line = '';
      used = 0;
      limit = Math.max(1, width);
    };
    for (const word of para.split(' ').filter(Boolean)) {
      const w = textWidth(word);
      if (used && used + 1 + w <= limit) {
        line += ' ' + word;
        used += 1 + w;
        continue;
      }
      if (used) flush();
      // A word that fits is its one piece.
      let pieces = breakWord(word, limit);
      while (pieces.length > 1) {
        line = pieces[0];
        flush();
        pieces = breakWord(pieces.slice(1).join(''), limit);
      }
      line = pieces[0];
      used = textWidth(line);
    }
    flush();
  }
  return out;
}

/** Pad `s` with spaces to `width` display columns. */
export function padToWidth(s: string, width: number): string {
  return s + ' '.repeat(Math.max(0, width - textWidth(s)));
}

/**
 * A notice or warning as stderr shows it: control characters escaped (line breaks stay), and
 * on a terminal each line wrapped at spaces to its width (a long word breaks, never cut). Colour
 * codes stay only when `styled` (stderr gets colour) and only bookdist's own; service text in a
 * notice never drives the terminal, whatever the colour setting (issue 28).
 */
export function formatNotice(
  message: string,
  stream: { isTTY?: boolean; columns?: number },
  prefix = '',
  styled = false,
): string {
  const raw = prefix + message.replace(/\n$/, '');
  const text = styled ? escapeKeepingStyle(raw, true) : escapeLines(raw, true);
  const width = stream.isTTY && stream.columns && stream.columns >= 20 ? stream.columns : 0;
  // An indented line is a command to copy: it wraps with a shell continuation (` \\`), so that
  // what is pasted still runs as one command.
  const wrap = (l: string) =>
    /^ {2}\S/.test(l) && width > 30
      ? // Stryker disable next-line MethodExpression: equivalent, wrapToWidth drops the spaces around words
        wrapToWidth(l.replace(SGR, '').trim(), width - 6, width - 4).map(
          (x, i, all) => (i ? '    ' : '  ') + x + (i < all.length - 1 ? ' \\' : ''),
        )
      : wrapToWidth(l.replace(SGR, ''), width);
  const lines = width ? text.split('\n').flatMap((l) => (textWidth(l) <= width ? [l] : wrap(l))) : [text];
  return lines.join('\n') + '\n';
}

/**
 * An error message as stderr shows it: every control character escaped, colour codes included
 * (line breaks stay; service text and echoed arguments never drive the terminal, and an error is
 * never styled), and any one word longer than `max` characters (a 100 KB argument echoed back)
 * shortened to its start and its length.
 */
export function errorText(message: string): string {
  return escapeLines(clipLongWords(message), true);
}

/** Any one word longer than 200 characters shortened to its start and its length. */
export function clipLongWords(message: string): string {
  return message.replace(/\S{201,}/g, (w) => `${w.slice(0, 200)}… (${w.length} characters)`);
}

/** `1 book`, `3 books` (`words` when the plural is not `word` + s). */
export function plural(n: number, word: string, words = `${word}s`): string {
  return `${grouped(n)} ${n === 1 ? word : words}`;
}

/**
 * `n.toLocaleString('en-US')` for an integer (1,234,567), without ICU: the first number a process
 * formats through ICU builds its whole locale set (about 113 million instructions), which a
 * catalogue load paid for its progress and summary lines. Anything else (a fraction, NaN,
 * Infinity, -0, beyond 2^53) still goes to ICU.
 */
export function grouped(n: number): string {
  if (!Number.isSafeInteger(n) || Object.is(n, -0)) return n.toLocaleString('en-US');
  const digits = String(n < 0 ? -n : n);
  let out = digits.slice(0, digits.length % 3 || 3);
  for (let i = out.length; i < digits.length; i += 3) out += ',' + digits.slice(i, i + 3);
  return n < 0 ? '-' + out : out;
}
