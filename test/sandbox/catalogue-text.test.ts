// A description's text (ONIX <Text>, escaped or inline XHTML) as the loader keeps it. plainText
// reads a description as feeds write it in one pass and anything else through its patterns; the
// two must agree, so each case below pins what the patterns give (their output before the
// one-pass reader existed), for both readers' inputs.
import { describe, expect, it } from 'vitest';
import { plainText } from '../../src/sandbox/catalogue/record.js';

describe('plainText: tags out, entities decoded, whitespace collapsed', () => {
  it.each([
    // What the one-pass reader reads itself: tags, named entities of the table, whitespace.
    [
      '<p>A harbour and a tide by the lantern &amp; the ledger.</p>',
      'A harbour and a tide by the lantern & the ledger.',
    ],
    ['<p>First</p><p>second</p>', 'First second'],
    ['Line one<br/>line\ttwo\r\n\r\nthree', 'Line one line two three'],
    ['Tags<i>glue</i>words and <a href="x">links</a>.', 'Tags glue words and links .'],
    ['Caf&eacute; &hellip; &ldquo;quoted&rdquo; &amp;amp;', 'Café … “quoted” &amp;'],
    // A no-break space stays inside and goes at the ends (trim), as before.
    ['  \u00a0Kept\u00a0inside, trimmed at the ends\u00a0 ', 'Kept\u00a0inside, trimmed at the ends'],
    ['', ''],
    // What it leaves to the patterns: comments (a '>' inside one ends no tag), a '<' that opens
    // no tag, an unclosed tag, numeric and unknown entities, an entity without its ';'.
    ['A <!-- note > with a bracket --> comment', 'A comment'],
    ['<b>bold <!-- x --> end', 'bold end'],
    ['<gt<!-- a comment -->kept', '<gtkept'],
    ['An &unknown; entity', 'An &unknown; entity'],
    // A name the table's prototype has is no entity either (it gave "function Object() { [native code] }").
    ['Not &constructor; nor &toString; nor &hasOwnProperty;', 'Not &constructor; nor &toString; nor &hasOwnProperty;'],
    ['I <3 boats > cars', 'I <3 boats > cars'],
    ['<p>1 < 2 and 3 > 2</p>', '1 2'],
    ['An open <em tag never closed', 'An open <em tag never closed'],
    ['Fish &amp chips; &unknown; &#233;t&#xE9;', 'Fish &amp chips; &unknown; été'],
  ])('%j', (html, text) => {
    expect(plainText(html)).toBe(text);
  });
});
