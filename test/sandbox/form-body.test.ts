// A form body that is only the field `request` (what every client sends) is read without
// URLSearchParams, and must give exactly what URLSearchParams gives: `+` a space, then
// percent-decoding, a stray `%` kept, bytes that are not UTF-8 replaced.
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseBody } from '../../src/sandbox/http/http.js';

const FORM = 'application/x-www-form-urlencoded';

/** What URLSearchParams reads of the body (the general path). */
function expected(body: string): { requestText?: string; form?: string[][]; refused?: true } {
  const params = new URLSearchParams(body);
  const values = params.getAll('request');
  if (values.length > 1) return { refused: true };
  if (values.length === 1) return { requestText: values[0] };
  return { form: [...params] };
}

function got(body: string): { requestText?: string; form?: string[][]; refused?: true } {
  let r;
  try {
    r = parseBody(Buffer.from(body, 'utf8'), FORM);
  } catch {
    return { refused: true };
  }
  return r.form ? { form: [...r.form] } : { requestText: r.requestText };
}

afterEach(() => vi.restoreAllMocks());

describe('a form body of the one field request', () => {
  it('reads as URLSearchParams reads it, whatever the value holds', () => {
    const bodies = [
      'request=',
      'request=%7B%22a%22%3A1%7D',
      'request={"a":1,"b":"x y"}',
      'request=a+b%2Bc',
      'request=%',
      'request=%zz',
      'request=%E0%A4%A',
      'request=%FF%FE',
      'request=%ED%A0%80',
      'request=%EF%BB%BFbom',
      'request=%C3%A9t%C3%A9+%F0%9F%93%9A',
      'request=été 📚',
      'request==',
      'request=a=b',
      'request=%00',
      'request=\n',
      'request=a&request=b',
      'request=a&limit=2',
      'requestx=a',
      'Request=a',
      'reques%74=a',
    ];
    for (const body of bodies) expect(got(body), body).toEqual(expected(body));
    const piece = fc.constantFrom(
      '%',
      '+',
      '=',
      '&',
      '%2',
      '%25',
      '%2B',
      '%C3',
      '%A9',
      '%FF',
      ' ',
      'é',
      '📚',
      'a',
      '"',
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(piece, fc.string({ unit: 'grapheme' })), { maxLength: 12 }), (parts) => {
        const body = 'request=' + parts.join('');
        expect(got(body), body).toEqual(expected(body));
      }),
      { numRuns: 1500 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (s) => {
        const body = new URLSearchParams({ request: s }).toString();
        expect(got(body), body).toEqual({ requestText: s });
      }),
      { numRuns: 500 },
    );
  });

  it('is read without URLSearchParams', () => {
    const body = new URLSearchParams({ request: '{"username":"a b+c"}' }).toString();
    const spy = vi.spyOn(globalThis, 'URLSearchParams');
    expect(got(body)).toEqual({
      requestText: '{"username":"a b+c"}',
    });
    expect(spy).not.toHaveBeenCalled();
  });
});
