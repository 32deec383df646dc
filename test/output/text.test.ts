// The text module's own tables, read through what they decide (issue 32): which text is printable
// ASCII (one column a character, no width library), which escape sequences are colour (no
// columns), and which characters are controls that must never reach a terminal from data. These
// are module-level constants, so a change to one is judged by every test of the `text` mutation
// group; these tests judge each directly, in-process and quickly.
import { beforeAll, describe, expect, it } from 'vitest';
import { cutToWidth, escapeControls, escapeKeepingStyle, loadTextFor, textWidth } from '../../src/output/text.js';

beforeAll(async () => {
  await loadTextFor(['吾輩']);
});

describe('display width', () => {
  it('printable ASCII is one column a character; wide and combining text is measured', () => {
    expect(textWidth('')).toBe(0);
    expect(textWidth('Salt & Sea ~ 2024')).toBe(17);
    expect(textWidth('吾輩は猫')).toBe(8);
    expect(textWidth('a吾')).toBe(3);
    expect(textWidth('吾a')).toBe(3);
    expect(textWidth('Cafe\u0301')).toBe(4);
  });

  it('colour codes take no columns, with one parameter or several', () => {
    expect(textWidth('\u001b[31mred\u001b[39m')).toBe(3);
    expect(textWidth('\u001b[1;31mbold red\u001b[0m')).toBe(8);
    expect(textWidth('\u001b[2m吾輩\u001b[22m')).toBe(4);
  });

  it('a cut drops colour codes whole, never part of one', () => {
    expect(cutToWidth('\u001b[31mred text\u001b[39m', 5)).toBe('red…');
    expect(cutToWidth('\u001b[1;31m吾輩は猫\u001b[0m', 5, '...')).toBe('吾...');
    expect(cutToWidth('\u001b[31mred\u001b[39m', 5)).toBe('\u001b[31mred\u001b[39m');
  });
});

describe('control characters from data', () => {
  it('each kind is escaped, the text around it kept', () => {
    expect(escapeControls('a\u001bb')).toBe('a\\x1bb');
    expect(escapeControls('\u001b')).toBe('\\x1b');
    expect(escapeControls('\u009b31m')).toBe('\\x9b31m');
    expect(escapeControls('x\u007fy')).toBe('x\\x7fy');
    expect(escapeControls('line\nbreak\ttab\r')).toBe('line\\nbreak\\ttab\\r');
    expect(escapeControls('\u202eevil\u2066x\u2069')).toBe('\\u202eevil\\u2066x\\u2069');
    expect(escapeControls('para\u2029sep\u2028')).toBe('para\\u2029sep\\u2028');
  });

  it('a surrogate pair (an emoji) stays whole; a lone surrogate of either half is escaped', () => {
    expect(escapeControls('📚 Stories\u0007')).toBe('📚 Stories\\x07');
    expect(escapeControls('\u0007🐈‍⬛')).toBe('\\x07🐈‍⬛');
    expect(escapeControls('x\ud800y')).toBe('x\\ud800y');
    expect(escapeControls('x\udc00y')).toBe('x\\udc00y');
    expect(escapeControls('\ud83d')).toBe('\\ud83d');
    expect(escapeControls('\udcda')).toBe('\\udcda');
    expect(escapeControls('\udcda\ud83d')).toBe('\\udcda\\ud83d');
  });

  it("text without controls is returned as it is; bookdist's own colour stays where asked, any other sequence is escaped", () => {
    expect(escapeControls('Zoë Ångström 吾輩 📚')).toBe('Zoë Ångström 吾輩 📚');
    expect(escapeKeepingStyle('\u001b[1mTitle\u001b[22m \u001b[8mhidden\u001b[0m')).toBe(
      '\u001b[1mTitle\u001b[22m \\x1b[8mhidden\\x1b[0m',
    );
    expect(escapeKeepingStyle('\u001b[8m')).toBe('\\x1b[8m');
  });

  it('line breaks are escaped too unless asked to stay', () => {
    expect(escapeKeepingStyle('\u001b[1ma\nb\u001b[22m')).toBe('\u001b[1ma\\nb\u001b[22m');
    expect(escapeKeepingStyle('\u001b[1ma\nb\u001b[22m', true)).toBe('\u001b[1ma\nb\u001b[22m');
  });
});
