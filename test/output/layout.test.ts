// The text module's layout rules, each read directly (issue 32: the `text` mutation group): when a
// terminal gets ASCII only or colour, wrapping and cutting in display columns, notices and errors
// as stderr shows them, the escaping of data for tables and cards, and the flat columns of
// `--fields`. Commands reach these through main(); here each edge is checked on its own.
import { beforeAll, describe, expect, it } from 'vitest';
import { columnsOf, csvCell, fieldColumns, fieldPaths } from '../../src/output/format.js';
import {
  asciiOnly,
  colorWanted,
  cutToWidth,
  ellipsisFor,
  errorText,
  escapeDeep,
  formatNotice,
  loadTextFor,
  padToWidth,
  plural,
  textWidth,
  wrapToWidth,
} from '../../src/output/text.js';

beforeAll(async () => {
  await loadTextFor(['吾輩']);
});

describe('what the terminal gets', () => {
  it('ASCII only: BOOKDIST_ASCII first, else the first locale variable that is set, UTF-8 or not', () => {
    expect(asciiOnly({})).toBe(true); // the C locale
    expect(asciiOnly({ LANG: 'en_US.UTF-8' })).toBe(false);
    expect(asciiOnly({ LANG: 'de_DE.utf8' })).toBe(false);
    expect(asciiOnly({ LANG: 'en_US.ISO-8859-1' })).toBe(true);
    expect(asciiOnly({ LC_ALL: 'C', LANG: 'en_US.UTF-8' })).toBe(true);
    expect(asciiOnly({ LC_CTYPE: 'ja_JP.UTF-8', LANG: 'C' })).toBe(false);
    expect(asciiOnly({ LC_ALL: '', LC_CTYPE: '', LANG: 'fr_FR.UTF-8' })).toBe(false);
    expect(asciiOnly({ BOOKDIST_ASCII: '1', LANG: 'en_US.UTF-8' })).toBe(true);
    expect(asciiOnly({ BOOKDIST_ASCII: '0', LANG: 'C' })).toBe(false);
    expect(asciiOnly({ BOOKDIST_ASCII: '', LANG: 'en_US.UTF-8' })).toBe(false);
    expect(asciiOnly({ BOOKDIST_ASCII: '', LANG: 'C' })).toBe(true);
    expect([ellipsisFor(true), ellipsisFor(false)]).toEqual(['...', '…']);
  });

  it('colour: --color always and never win; else NO_COLOR (set, not empty), TERM=dumb, FORCE_COLOR, the terminal', () => {
    expect(colorWanted('always', { NO_COLOR: '1', TERM: 'dumb' }, false)).toBe(true);
    expect(colorWanted('never', { FORCE_COLOR: '1' }, true)).toBe(false);
    expect(colorWanted('auto', { NO_COLOR: '1' }, true)).toBe(false);
    expect(colorWanted('auto', { NO_COLOR: '' }, true)).toBe(true);
    expect(colorWanted('auto', { TERM: 'dumb', FORCE_COLOR: '1' }, true)).toBe(false);
    expect(colorWanted('auto', { TERM: 'xterm' }, true)).toBe(true);
    expect(colorWanted('auto', { FORCE_COLOR: '1' }, false)).toBe(true);
    expect(colorWanted('auto', { FORCE_COLOR: '' }, false)).toBe(false);
    expect(colorWanted('auto', {}, undefined)).toBe(false);
  });
});

describe('display columns', () => {
  it('wraps at spaces, a line filled exactly staying one line; line breaks and empty lines stay', () => {
    expect(wrapToWidth('the quick brown fox', 10)).toEqual(['the quick', 'brown fox']);
    expect(wrapToWidth('aaaa bbbbb', 10)).toEqual(['aaaa bbbbb']);
    expect(wrapToWidth('aaaa bbbbbb', 10)).toEqual(['aaaa', 'bbbbbb']);
    expect(wrapToWidth('a  b', 10)).toEqual(['a b']);
    expect(wrapToWidth('one\n\ntwo', 10)).toEqual(['one', '', 'two']);
    expect(wrapToWidth('', 10)).toEqual(['']);
  });

  it('the first line has its own room; a word wider than a line breaks across lines, wide text by columns', () => {
    expect(wrapToWidth('aa bb cc dd', 5, 2)).toEqual(['aa', 'bb cc', 'dd']);
    expect(wrapToWidth('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
    expect(wrapToWidth('hi abcdefgh', 4)).toEqual(['hi', 'abcd', 'efgh']);
    expect(wrapToWidth('abcdefgh xy', 4)).toEqual(['abcd', 'efgh', 'xy']);
    expect(wrapToWidth('吾輩は猫である', 5)).toEqual(['吾輩', 'は猫', 'であ', 'る']);
    expect(wrapToWidth('ab', 0)).toEqual(['a', 'b']);
  });

  it('pads to a width in columns, never cutting; cuts to a width with the mark, trailing space dropped', () => {
    expect(padToWidth('吾', 4)).toBe('吾  ');
    expect(padToWidth('abc', 3)).toBe('abc');
    expect(padToWidth('toolong', 3)).toBe('toolong');
    expect(cutToWidth('abcd', 4)).toBe('abcd');
    expect(cutToWidth('abcde', 4)).toBe('abc…');
    expect(cutToWidth('ab cd', 4)).toBe('ab…');
    expect(cutToWidth('ab   cdef', 6)).toBe('ab…');
    expect(cutToWidth('abcdef', 1)).toBe('…');
    expect(cutToWidth('abcdef', 0)).toBe('');
    expect(cutToWidth('abcdef', 2, '...')).toBe('..');
    expect(cutToWidth('吾輩は猫', 6)).toBe('吾輩…');
    expect(textWidth('吾輩…')).toBe(5);
  });
});

describe('notices and errors on stderr', () => {
  it('not on a terminal: controls escaped, line breaks kept, one trailing newline, nothing wrapped', () => {
    const long = 'word '.repeat(40).trim();
    expect(formatNotice(`Done\u001b[2J\nnext line\n`, { isTTY: false, columns: 40 }, 'bookdist: ')).toBe(
      'bookdist: Done\\x1b[2J\nnext line\n',
    );
    expect(formatNotice(long, { isTTY: false, columns: 40 })).toBe(`${long}\n`);
    expect(formatNotice(long, { isTTY: true, columns: 19 })).toBe(`${long}\n`);
  });

  it('on a terminal each line wraps to its width; a line that fits stays', () => {
    const text = formatNotice('The generated password is shown once and never stored anywhere.', {
      isTTY: true,
      columns: 20,
    });
    expect(text).toBe('The generated\npassword is shown\nonce and never\nstored anywhere.\n');
    expect(formatNotice('short\n  indented', { isTTY: true, columns: 20 })).toBe('short\n  indented\n');
  });

  it('only an indented line is a command; a line exactly as wide as the terminal stays whole', () => {
    // Two spaces inside a sentence do not make it a command: it wraps as text, without continuations.
    const sentence = 'Nothing was sent.  Check the profile named in the message before sending again.';
    const wrapped = formatNotice(sentence, { isTTY: true, columns: 40 }).trimEnd().split('\n');
    expect(wrapped.length).toBeGreaterThan(1);
    for (const l of wrapped) expect(l).not.toMatch(/\\$/);
    const exact = `  bookdist ${'x'.repeat(29)}`;
    expect(textWidth(exact)).toBe(40);
    expect(formatNotice(exact, { isTTY: true, columns: 40 })).toBe(`${exact}\n`);
  });

  it('an indented command wraps with a shell continuation, so that it still pastes as one command', () => {
    const command = '  bookdist codes generate --book-id 123 --count 50000 --out codes.csv --resume';
    const lines = formatNotice(`Run again:\n${command}`, { isTTY: true, columns: 40 }).trimEnd().split('\n');
    expect(lines[0]).toBe('Run again:');
    const cmd = lines.slice(1);
    expect(cmd.length).toBeGreaterThan(1);
    for (const l of cmd) expect(textWidth(l)).toBeLessThanOrEqual(40);
    expect(cmd[0]).toMatch(/^ {2}bookdist /);
    for (const l of cmd.slice(1)) expect(l).toMatch(/^ {4}\S/);
    for (const l of cmd.slice(0, -1)) expect(l).toMatch(/\S \\$/);
    expect(cmd.at(-1)).not.toMatch(/\\$/);
    expect(cmd.map((l) => l.replace(/ \\$/, '').trim()).join(' ')).toBe(command.trim());
    // At 30 columns or less it wraps as text.
    const narrow = formatNotice(command, { isTTY: true, columns: 30 }).trimEnd().split('\n');
    expect(narrow.every((l) => !l.endsWith('\\'))).toBe(true);
  });

  it("bookdist's own colour stays only when styled; any other sequence is escaped either way", () => {
    const message = '\u001b[1mTitle\u001b[22m \u001b[8mhidden';
    expect(formatNotice(message, { isTTY: false }, '', true)).toBe('\u001b[1mTitle\u001b[22m \\x1b[8mhidden\n');
    expect(formatNotice(message, { isTTY: false })).toBe('\\x1b[1mTitle\\x1b[22m \\x1b[8mhidden\n');
  });

  it('a styled notice keeps its line breaks, and a wrapped command drops its colour codes', () => {
    expect(formatNotice('first\nsecond', { isTTY: false }, '', true)).toBe('first\nsecond\n');
    const command = '  \u001b[1mbookdist codes generate --book-id 123 --count 50000 --out codes.csv\u001b[22m';
    const lines = formatNotice(command, { isTTY: true, columns: 40 }, '', true).trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.join('\n')).not.toContain('\u001b');
    expect(lines[0]).toMatch(/^ {2}bookdist /);
  });

  it('a styled line that is not a command drops its colour codes when wrapped, and keeps them when it fits', () => {
    const message = '\u001b[1mThe generated password is shown once\u001b[22m';
    expect(formatNotice(message, { isTTY: true, columns: 20 }, '', true)).toBe(
      'The generated\npassword is shown\nonce\n',
    );
    expect(formatNotice(message, { isTTY: true, columns: 40 }, '', true)).toBe(`${message}\n`);
  });

  it('an error: controls escaped with line breaks kept; a word over 200 characters shortened to its start and length', () => {
    expect(errorText('bad\u001b[31m value\nsecond')).toBe('bad\\x1b[31m value\nsecond');
    expect(errorText('x'.repeat(200))).toBe('x'.repeat(200));
    expect(errorText(`--isbn ${'9'.repeat(201)} is not valid`)).toBe(
      `--isbn ${'9'.repeat(200)}… (201 characters) is not valid`,
    );
  });

  it('counts with their noun: one, many (thousands grouped), an irregular plural', () => {
    expect(plural(1, 'book')).toBe('1 book');
    expect(plural(0, 'book')).toBe('0 books');
    expect(plural(12345, 'book')).toBe('12,345 books');
    expect(plural(2, 'copy', 'copies')).toBe('2 copies');
  });
});

describe('data for tables and cards', () => {
  it('every string of a record is escaped, at every depth, lists included; other values stay', () => {
    const record = { title: 'A\u001b[2J', n: 3, none: null, ok: true, items: [{ note: 'x\u009by' }, 'plain', 7] };
    expect(escapeDeep(record)).toEqual({
      title: 'A\\x1b[2J',
      n: 3,
      none: null,
      ok: true,
      items: [{ note: 'x\\x9by' }, 'plain', 7],
    });
    let deep: unknown = '\u0007';
    for (let i = 0; i < 65; i++) deep = [deep];
    let inner = escapeDeep(deep);
    for (let i = 0; i < 65; i++) inner = (inner as unknown[])[0];
    expect(inner).toBe('\\x07');
  });

  it('nesting deeper than 64 levels is left as it is, so that no depth of data overflows the stack', () => {
    // (Tables and cards escape each cell's text again as they draw it: table.ts, cleanCell and the card's values.)
    let list: unknown = '\u0007';
    let record: unknown = '\u0007';
    for (let i = 0; i < 20_000; i++) {
      list = [list];
      record = { x: record };
    }
    let a = escapeDeep(list);
    let r = escapeDeep(record);
    for (let i = 0; i < 20_000; i++) {
      a = (a as unknown[])[0];
      r = (r as { x: unknown }).x;
    }
    expect([a, r]).toEqual(['\u0007', '\u0007']);
  });

  it('--fields naming an object expands to its leaves across the records; the same column once', () => {
    const records = [{ id: 1, status: { is_active: true, n: 1 } }, { status: { extra: 2 } }, { status: null }];
    expect(fieldColumns(records, ['status', 'id', 'id'])).toEqual([
      'status.is_active',
      'status.n',
      'status.extra',
      'id',
    ]);
    expect(fieldColumns([{ status: null }, { status: 'x' }], ['status'])).toEqual(['status']);
  });

  it('columns: those given, else every key in the order first seen', () => {
    expect(
      columnsOf([
        { a: 1, b: 2 },
        { c: 3, a: 4 },
      ]),
    ).toEqual(['a', 'b', 'c']);
    expect(columnsOf([{ a: 1 }], ['b', 'a'])).toEqual(['b', 'a']);
    expect(columnsOf([{ a: 1 }], [])).toEqual(['a']);
  });

  it('the field paths of records for an error message: leaves, lists and the paths inside a list of objects', () => {
    expect(fieldPaths([{ a: { b: 1 }, items: [{ id: 1 }, { id: 2, note: 'n' }], tags: ['x'], empty: {} }])).toEqual([
      'a.b',
      'items',
      'items.id',
      'items.note',
      'tags',
      'empty',
    ]);
    expect(fieldPaths([...Array.from({ length: 50 }, () => ({ a: 1 })), { late: 1 }])).toEqual(['a']);
  });

  it('CSV quotes a value with a space at either end (a spreadsheet would drop it)', () => {
    expect(csvCell(' lead')).toBe('" lead"');
    expect(csvCell('trail ')).toBe('"trail "');
    expect(csvCell('in side')).toBe('in side');
    expect(csvCell(null)).toBe('');
    expect(csvCell({ a: 1 })).toBe('"{""a"":1}"');
  });
});
