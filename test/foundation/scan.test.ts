// src/util/scan.ts stands in for regular expressions on the request path (issue 31): each of its
// checks must say what its expression says, for any string, the awkward characters included.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkBaseUrl } from '../../src/config/check.js';
import { checkDuration, plainDuration } from '../../src/util/duration.js';
import {
  compactIsbn,
  hasControlOrSpace,
  hasLineTerminator,
  isIsbn10Digits,
  isIsbn13Digits,
  placeholders,
  trimTrailingSlashes,
} from '../../src/util/scan.js';

/** Every character `\s` takes, the controls, DEL, the edges of Latin-1 and a surrogate pair's halves. */
const AWKWARD = [
  ...'\t\n\v\f\r \u0000\u001f\u007f\u0080\u009f\u00a0\u00ff\u0100\u1680\u2000\u2005\u200a\u200b\u2028\u2029\u202f\u205f\u3000\ufeff\ud83d\ude00',
];
/** Strings of the characters a check looks at, ordinary ones and the awkward ones. */
const text = (ordinary: string) => fc.string({ unit: fc.constantFrom(...ordinary, ...AWKWARD), maxLength: 24 });
const anything = fc.oneof(fc.string({ unit: 'binary', maxLength: 24 }), text('aZ09-_/:?#{}X.'));

/** The matches of a global expression as [start, end) pairs. */
const matchesOf = (re: RegExp, s: string): Array<[number, number]> =>
  [...s.matchAll(re)].map((m) => [m.index, m.index + m[0].length]);

describe('src/util/scan.ts says what the expressions it replaces say', () => {
  it('trimTrailingSlashes is replace(/\\/+$/, "")', () => {
    fc.assert(fc.property(fc.oneof(anything, text('a/')), (s) => trimTrailingSlashes(s) === s.replace(/\/+$/, '')));
    expect(trimTrailingSlashes('https://h/api//')).toBe('https://h/api');
    expect(trimTrailingSlashes('///')).toBe('');
  });

  it('hasControlOrSpace is /[\\u0000-\\u001f\\u007f\\s]/', () => {
    fc.assert(fc.property(anything, (s) => hasControlOrSpace(s) === /[\u0000-\u001f\u007f\s]/.test(s)));
    for (const c of AWKWARD)
      expect(hasControlOrSpace(`a${c}b`), JSON.stringify(c)).toBe(/[\u0000-\u001f\u007f\s]/.test(c));
    // Every character of the Basic Multilingual Plane, one at a time.
    for (let c = 0; c <= 0xffff; c++) {
      const s = String.fromCharCode(c);
      if (hasControlOrSpace(s) !== /[\u0000-\u001f\u007f\s]/.test(s)) expect.fail(`U+${c.toString(16)}`);
    }
  });

  it('hasLineTerminator is what `.` does not match', () => {
    fc.assert(fc.property(anything, (s) => hasLineTerminator(s) === !/^.*$/.test(s)));
  });

  it('compactIsbn is replace(/[\\s-]/g, "").toUpperCase()', () => {
    fc.assert(
      fc.property(
        fc.oneof(anything, text('0123456789xX- ')),
        (s) => compactIsbn(s) === s.replace(/[\s-]/g, '').toUpperCase(),
      ),
    );
    expect(compactIsbn('978-1-61400-137-9')).toBe('9781614001379');
    expect(compactIsbn('1-61400-137-x')).toBe('161400137X');
  });

  it('isIsbn13Digits and isIsbn10Digits are /^\\d{13}$/ and /^\\d{9}[\\dX]$/', () => {
    const digits = fc.oneof(
      anything,
      text('0123456789X'),
      fc.stringMatching(/^\d{9}[\dX]$/),
      fc.stringMatching(/^\d{13}$/),
    );
    fc.assert(fc.property(digits, (s) => isIsbn13Digits(s) === /^\d{13}$/.test(s)));
    fc.assert(fc.property(digits, (s) => isIsbn10Digits(s) === /^\d{9}[\dX]$/.test(s)));
    expect(isIsbn10Digits('161400137X')).toBe(true);
    expect(isIsbn10Digits('16140013X7')).toBe(false);
    expect(isIsbn13Digits('9781614001379\n')).toBe(false);
  });

  it('placeholders are the matches of /\\{(\\w+)\\}/g, or of /\\{[a-z_]+\\}/g', () => {
    const templates = fc.oneof(
      anything,
      text('{}{}ab_Z9/-'),
      fc.string({ unit: fc.constantFrom('{', '}', 'a', 'Z', '-'), maxLength: 12 }),
    );
    fc.assert(fc.property(templates, (t) => void expect(placeholders(t)).toEqual(matchesOf(/\{(\w+)\}/g, t))));
    fc.assert(fc.property(templates, (t) => void expect(placeholders(t, true)).toEqual(matchesOf(/\{[a-z_]+\}/g, t))));
    expect(placeholders('/v1/book/{hash_id}/x/{N1}/')).toEqual([
      [9, 18],
      [21, 25],
    ]);
    expect(placeholders('{ab{cd}', true)).toEqual([[3, 7]]);
    expect(placeholders('a{}b{x}')).toEqual([[4, 7]]);
  });
});

describe('durations written plainly are read without the expression', () => {
  const re = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)?\s*$/i;

  it('plainDuration, when it answers, answers as /^\\s*(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h|d|w)?\\s*$/i', () => {
    const durations = fc.oneof(
      anything,
      text('0123456789.msMShdwWx'),
      fc.stringMatching(/^\d{1,4}(\.\d{1,3})?(ms|s|m|h|d|w|MS|Ms|S|H|D|W)?$/),
    );
    fc.assert(
      fc.property(durations, (s) => {
        const plain = plainDuration(s);
        const m = re.exec(s);
        if (plain) expect(plain, s).toEqual([m?.[0], m?.[1], m?.[2]]);
        // Written without white space or characters beyond ASCII, a duration never needs the expression.
        else if (m && !/[\s\u0080-\uffff]/.test(s)) expect.fail(s);
      }),
    );
    expect(plainDuration('30s')).toEqual(['30s', '30', 's']);
    expect(plainDuration('1.5H')).toEqual(['1.5H', '1.5', 'H']);
    expect(plainDuration('250')).toEqual(['250', '250', undefined]);
    for (const s of ['', ' 30s', '30 s', '1.', '.5s', '5sm', '5\u017f', '30s ', 'ms', '5__proto__'])
      expect(plainDuration(s), s).toBe(null);
  });

  it('checkDuration reads every duration as the expression alone did', () => {
    const reference = (s: string) => {
      const m = re.exec(s);
      if (!m) return undefined;
      const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
      const v = Number(m[1]) * units[(m[2] ?? 's').toLowerCase()];
      return Number.isFinite(v) ? Math.round(v) : undefined;
    };
    const limits = { maxMs: Number.MAX_VALUE, max: 'any', minMs: 0 };
    fc.assert(
      fc.property(fc.oneof(anything, text('0123456789.msMShdwW ')), (s) => {
        const got = checkDuration('--timeout', s, limits);
        expect('ms' in got ? got.ms : undefined, s).toBe(reference(s));
      }),
    );
  });
});

describe("checkBaseUrl's empty port, by string search", () => {
  it('is refused exactly where /^[a-z][a-z0-9+.-]*:\\/\\/[^/?#]*:(?=[/?#]|$)/i finds one', () => {
    const part = (chars: string) => fc.string({ unit: fc.constantFrom(...chars), maxLength: 10 });
    const urls = fc
      .tuple(
        fc.constantFrom('http', 'https', 'HTTPS'),
        fc.constantFrom('://', ':/', ':'),
        part('ab1.:[]@'),
        part('/?#a:'),
      )
      .map((p) => p.join(''));
    fc.assert(
      fc.property(urls, (url) => {
        let message = '';
        try {
          checkBaseUrl(url, '--base-url');
        } catch (e) {
          message = (e as Error).message;
        }
        const parsed = URL.canParse(url) && new URL(url).hostname !== '';
        const expected = parsed && /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*:(?=[/?#]|$)/i.test(url);
        expect(message.includes('has an empty port'), url).toBe(expected);
      }),
    );
  });
});
