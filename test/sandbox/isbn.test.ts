// ISBN check digits and normalisation (src/sandbox/isbn.ts), on published ISBNs: the sandbox's
// catalogue loads refuse what fails these checks, and its seed and lookups rely on the conversions.
import { describe, expect, it } from 'vitest';
import { isbn13Check, isbnPair, isValidIsbn, normalizeIsbn, toIsbn13 } from '../../src/sandbox/isbn.js';

describe('ISBN check digits', () => {
  it.each([
    ['9780306406157', true],
    ['978-0-306-40615-7', true],
    ['9780306406158', false],
    ['9781614001379', true],
    ['9791032305690', true],
    ['0306406152', true],
    ['0-306-40615-2', true],
    ['0306406153', false],
    ['080442957X', true],
    ['080442957x', true],
    ['0804429570', false],
    ['043942089X', true],
    ['1843560283', true],
    ['030640615', false],
    ['97803064061570', false],
    ['X306406152', false],
    ['', false],
    // Eleven characters that hold a valid ISBN-10 at their start or at their end.
    ['0306406152X', false],
    ['60306406152', false],
    ['abcdefghij', false],
  ])('%j valid: %s', (isbn, valid) => {
    expect(isValidIsbn(isbn)).toBe(valid);
  });

  it('the check digit of an ISBN-13 from its first twelve digits, a zero where the sum is a multiple of ten', () => {
    expect(isbn13Check('978030640615')).toBe('7');
    expect(isbn13Check('978161400137')).toBe('9');
    expect(isbn13Check('978000000001')).toBe('9');
    expect(isbn13Check('978000000002')).toBe('6');
    expect(isbn13Check('978186197271')).toBe('2');
    expect(isbn13Check('978000000000')).toBe('2');
    expect(isbn13Check('979000000000')).toBe('1');
    expect(isbn13Check('978000000004')).toBe('0');
  });

  it('an ISBN-13 and its ISBN-10 from nine digits, X where the ISBN-10 check is ten', () => {
    expect(isbnPair('030640615')).toEqual({ isbn13: '9780306406157', isbn10: '0306406152' });
    expect(isbnPair('080442957')).toEqual({ isbn13: '9780804429573', isbn10: '080442957X' });
    expect(isbnPair('000000000')).toEqual({ isbn13: '9780000000002', isbn10: '0000000000' });
    expect(isbnPair('123456789')).toEqual({ isbn13: '9781234567897', isbn10: '123456789X' });
  });
});

describe('ISBN normalisation', () => {
  it('hyphens and spaces go, a trailing x is upper case', () => {
    expect(normalizeIsbn(' 0-8044-2957-x ')).toBe('080442957X');
    expect(normalizeIsbn('978 0 306\t40615-7')).toBe('9780306406157');
  });

  it('an ISBN-10 becomes its ISBN-13 (978 and a new check digit); anything else stays as normalised', () => {
    expect(toIsbn13('0-306-40615-2')).toBe('9780306406157');
    expect(toIsbn13('080442957x')).toBe('9780804429573');
    expect(toIsbn13('979-10-323-0569-0')).toBe('9791032305690');
    expect(toIsbn13('12345')).toBe('12345');
  });
});
