// Display width before the width library is loaded (issue 32, the `text` mutation group). The
// library (string-width) is loaded only for text that is not printable ASCII (start-up time); a
// caller that measures other text without loading it gets the fallback: one column for each code
// point that is not a combining mark, a control or a format character. Each test takes a fresh
// copy of src/output/text.ts, so that no other test's loading is seen.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type * as TextModule from '../../src/output/text.js';

let text: typeof TextModule;
beforeEach(async () => {
  vi.resetModules();
  text = await import('../../src/output/text.js');
});

describe('display width without the width library', () => {
  it('one column a code point, none for combining marks, controls (C0 and C1) and format characters', () => {
    expect(text.textWidth('Cafe\u0301')).toBe(4);
    expect(text.textWidth('a\u0085b\u0007')).toBe(2);
    expect(text.textWidth('a\u200bb\u202e')).toBe(2);
    expect(text.textWidth('\u001b[31mé\u001b[39m')).toBe(1);
    // Wide text counts one column a code point here: right for our own help texts only.
    expect(text.textWidth('吾輩')).toBe(2);
  });
});

describe('the width library is loaded for text that needs it, and only then', () => {
  it('printable ASCII, with or without colour codes, does not load it', async () => {
    await text.loadTextFor(['plain', '\u001b[1mbold\u001b[22m', '']);
    expect(text.textWidth('吾輩')).toBe(2); // still the fallback
  });

  it('any text that is not printable ASCII loads it, wherever it is among the texts', async () => {
    await text.loadTextFor(['plain', 'x', '吾輩']);
    expect(text.textWidth('吾輩')).toBe(4);
  });

  it('a colour code alone is no reason to load it, but text inside one is', async () => {
    await text.loadTextFor(['\u001b[2m吾\u001b[22m']);
    expect(text.textWidth('吾輩')).toBe(4);
  });
});
