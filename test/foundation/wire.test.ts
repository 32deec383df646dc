import { createPrivateKey, createVerify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  authHeaders,
  fillPath,
  formBody,
  loadRsaPrivateKey,
  pythonJson,
  quotePlus,
  redact,
  redactHeaders,
  REDACTED,
  redactRequestText,
} from '../../src/api/wire.js';
import { curlLine } from '../../src/api/curl.js';
import { ecKeyPem, rsaKeys } from './helpers.js';

const keys = rsaKeys();
const verify = (message: string, signature: string) =>
  createVerify('RSA-SHA256').update(Buffer.from(message, 'utf8')).verify(keys.publicKey, signature, 'base64');

describe('request text (Python json.dumps style)', () => {
  it('uses ", " and ": " separators, keeps null, leaves out undefined', () => {
    expect(pythonJson({ force: true, urgent: false, label: null, skip: undefined, n: 3, a: [1, 'x'] })).toBe(
      '{"force": true, "urgent": false, "label": null, "n": 3, "a": [1, "x"]}',
    );
  });
  it('escapes non-ASCII as \\uXXXX and control characters', () => {
    expect(pythonJson({ t: 'Café "q" \\ \n€😀' })).toBe('{"t": "Caf\\u00e9 \\"q\\" \\\\ \\n\\u20ac\\ud83d\\ude00"}');
  });
  it('form-encodes the one `request` field like quote_plus', () => {
    expect(formBody('{"force": true, "urgent": false}')).toBe(
      'request=%7B%22force%22%3A+true%2C+%22urgent%22%3A+false%7D',
    );
    expect(quotePlus('a-b_c.d~e f/é')).toBe('a-b_c.d~e+f%2F%C3%A9');
  });
});

describe('path segments', () => {
  it('percent-encodes each value as one segment and keeps the trailing slash', () => {
    expect(fillPath('/v1/user/email/{email}/', { email: 'a/b?c#d@example.com' })).toBe(
      '/v1/user/email/a%2Fb%3Fc%23d%40example.com/',
    );
    expect(fillPath('/v1/book/isbn/{isbn}/pricing/', { isbn: '9780321558237' })).toBe(
      '/v1/book/isbn/9780321558237/pricing/',
    );
  });
  it('refuses a missing parameter', () => {
    expect(() => fillPath('/v1/book/{hash_id}/', {})).toThrow(/hash_id/);
  });
});

describe('CryptoAuth', () => {
  for (const format of ['pkcs1', 'pkcs8'] as const) {
    it(`signs the username for a request without body (${format})`, () => {
      const key = loadRsaPrivateKey(keys[format]);
      const h = authHeaders({ kind: 'crypto', username: '0d72df20f23558620646fb3ea030f5', key }, undefined);
      expect(Object.keys(h)).toEqual(['signature', 'api-user', 'user', 'version', 'authorization']);
      expect(h).toMatchObject({
        'api-user': '0d72df20f23558620646fb3ea030f5',
        user: '0d72df20f23558620646fb3ea030f5',
        version: 'v1',
        authorization: 'CryptoAuth',
      });
      expect(h.signature).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
      expect(h.signature).toHaveLength(344);
      expect(verify('0d72df20f23558620646fb3ea030f5', h.signature)).toBe(true);
    });
    it(`signs the exact request text of a POST (${format})`, () => {
      const key = loadRsaPrivateKey(keys[format]);
      const text = pythonJson({ username: 'u', hash_id: 'h', note: 'é' });
      const h = authHeaders({ kind: 'crypto', username: 'u', key }, text);
      expect(verify(text, h.signature)).toBe(true);
      expect(verify(pythonJson({ username: 'u', hash_id: 'h', note: 'x' }), h.signature)).toBe(false);
    });
  }
  it('rejects a key that is not an RSA private key', () => {
    expect(() => loadRsaPrivateKey(ecKeyPem())).toThrow(/not an RSA private key/);
    expect(() => loadRsaPrivateKey('not a key')).toThrow(/not a PEM private key/);
    expect(() => loadRsaPrivateKey(keys.publicKey)).toThrow(/PEM private key/);
    // A key file's bytes are read as PEM only: the same RSA key in DER is refused, as a Buffer too.
    const der = createPrivateKey(keys.pkcs8).export({ format: 'der', type: 'pkcs8' });
    expect(() => loadRsaPrivateKey(der)).toThrow(/not a PEM private key/);
    expect(loadRsaPrivateKey(Buffer.from(keys.pkcs8)).asymmetricKeyType).toBe('rsa');
  });
});

describe('SharedKeyAuth and the access token', () => {
  it('sends the shared key as api-key with no signature', () => {
    const h = authHeaders({ kind: 'shared', username: 'u1', sharedKey: 'sk-secret' }, '{}');
    expect(h).toEqual({
      'api-user': 'u1',
      user: 'u1',
      version: 'v1',
      authorization: 'SharedKeyAuth',
      'api-key': 'sk-secret',
    });
  });
  it('sends the access-control token as a shared key', () => {
    expect(authHeaders({ kind: 'token', token: 'tok', username: 'u1' }, '{}')).toEqual({
      version: 'v1',
      authorization: 'SharedKeyAuth',
      'api-key': 'tok',
      'api-user': 'u1',
      user: 'u1',
    });
  });
  it('sends nothing without credentials', () => {
    expect(authHeaders({ kind: 'none' }, undefined)).toEqual({});
  });
});

describe('redaction', () => {
  it('redacts secret headers and payload fields, deeply', () => {
    expect(redactHeaders({ signature: 's', 'api-key': 'k', API_KEY: 'k2', user: 'u' })).toEqual({
      signature: REDACTED,
      'api-key': REDACTED,
      API_KEY: REDACTED,
      user: 'u',
    });
    expect(redact({ a: { passwd: 'p', list: [{ token: 't' }] }, passwd_confirm: null })).toEqual({
      a: { passwd: REDACTED, list: [{ token: REDACTED }] },
      passwd_confirm: null,
    });
  });
});

describe('request text: every value and character the encoder meets', () => {
  it('undefined alone or in a list is null; a non-finite number or a value JSON has no form for is refused', () => {
    expect(pythonJson(undefined)).toBe('null');
    expect(pythonJson([undefined, null])).toBe('[null, null]');
    expect(() => pythonJson({ n: Number.NaN })).toThrow('non-finite number in request payload');
    expect(() => pythonJson(Number.POSITIVE_INFINITY)).toThrow(TypeError);
    expect(() => pythonJson(1n)).toThrow('cannot encode bigint in a request payload');
    expect(() => pythonJson({ f: () => 1 })).toThrow('cannot encode function in a request payload');
  });
  it('escapes each control character as Python does: short forms where it has them, \\u00XX otherwise', () => {
    expect(pythonJson('\r\t\b\f')).toBe('"\\r\\t\\b\\f"');
    expect(pythonJson('\u0001\u001f\u007f')).toBe('"\\u0001\\u001f\\u007f"');
    expect(pythonJson(' ~}')).toBe('" ~}"');
  });
  it('quote_plus writes each byte below 0x10 with two hex digits', () => {
    expect(quotePlus('\n\u0001')).toBe('%0A%01');
  });
});

describe('path segments and keys: the refusals', () => {
  it('an empty path parameter is as missing as an absent one', () => {
    expect(() => fillPath('/v1/book/{hash_id}/', { hash_id: '' })).toThrow('missing path parameter hash_id');
    expect(fillPath('/v1/purchase/{id}/', { id: 0 })).toBe('/v1/purchase/0/');
  });
  it('a key of another type names its type', () => {
    expect(() => loadRsaPrivateKey(ecKeyPem())).toThrow('is a ec key, not an RSA private key');
  });
  it('the access token without a username sends no user headers at all', () => {
    expect(Object.keys(authHeaders({ kind: 'token', token: 'tok' }, undefined))).toEqual([
      'version',
      'authorization',
      'api-key',
    ]);
  });
});

describe('redaction: each secret name, codes and generated passwords cut', () => {
  it('every secret header, whatever its case', () => {
    const h = {
      signature: 1,
      'api-key': 2,
      api_key: 3,
      'Authorization-Token': 4,
      Cookie: 5,
      authorization: 'CryptoAuth',
    };
    const out = redactHeaders(Object.fromEntries(Object.entries(h).map(([k, v]) => [k, String(v)])));
    expect(out).toEqual({
      signature: REDACTED,
      'api-key': REDACTED,
      api_key: REDACTED,
      'Authorization-Token': REDACTED,
      Cookie: REDACTED,
      authorization: 'CryptoAuth',
    });
  });
  it('every secret field of a payload', () => {
    const names = [
      'passwd',
      'passwd_confirm',
      'password',
      'shared_key',
      'api_key',
      'token',
      'operator_token',
      'private_key',
      'key_pem',
    ];
    const out = redact(Object.fromEntries(names.map((n) => [n, 'secret-value'])));
    expect(out).toEqual(Object.fromEntries(names.map((n) => [n, REDACTED])));
    expect(redact({ Token: 'x', note: 'kept' })).toEqual({ Token: REDACTED, note: 'kept' });
  });
  it('a redemption code is cut to its first characters (at most 4, a third of it) and length; full keeps it', () => {
    expect(redact({ code: 'ABCDEFGHIJKLMN', redemption_code: 'ABCDE' })).toEqual({
      code: 'ABCD…(14 chars)',
      redemption_code: 'A…(5 chars)',
    });
    expect(redact({ code: 'ABCDEFGHIJKLMN' }, true)).toEqual({ code: 'ABCDEFGHIJKLMN' });
    expect(redact({ code: 12345 })).toEqual({ code: 12345 });
  });
  it('a password in an answer is a generated one: cut, or kept with full; in a request it is redacted', () => {
    expect(
      redact({ password: 'abcdefghijkl', generated_password: 'abcdefghijkl', passwd: 'abcdef' }, false, true),
    ).toEqual({
      password: 'abcd…(12 chars)',
      generated_password: 'abcd…(12 chars)',
      passwd: 'ab…(6 chars)',
    });
    expect(redact({ password: 'abcdefghijkl' }, true, true)).toEqual({ password: 'abcdefghijkl' });
    expect(redact({ password: 'abcdefghijkl', generated_password: 'abcdefghijkl' })).toEqual({
      password: REDACTED,
      generated_password: 'abcdefghijkl',
    });
  });
  it('the request text: unchanged when nothing is secret (the bytes signed), else redacted in the same style', () => {
    expect(redactRequestText('{"a":1}')).toBe('{"a":1}');
    expect(redactRequestText('{"code":"ABCDEFGHIJKL","n":1}')).toBe('{"code": "ABCD\\u2026(12 chars)", "n": 1}');
    expect(redactRequestText('{"code":"ABCDEFGHIJKL"}', true)).toBe('{"code":"ABCDEFGHIJKL"}');
    expect(redactRequestText('{"passwd":"p"}', true)).toBe('{"passwd": "[REDACTED]"}');
    expect(redactRequestText('not json')).toBe('[unparsed request]');
    expect(redactRequestText('')).toBe('');
  });
});

describe('the curl line (--dry-run)', () => {
  it('a request without a body has no data; secrets are redacted; content-type and user-agent left to curl', () => {
    expect(
      curlLine({
        method: 'GET',
        url: "https://api.example.test/v1/book/it's/",
        headers: { 'api-key': 'sk', 'content-type': 'x', 'user-agent': 'y', version: 'v1' },
      }),
    ).toBe("curl -X GET 'https://api.example.test/v1/book/it'\\''s/' -H 'api-key: <redacted>' -H 'version: v1'");
    expect(curlLine({ method: 'POST', url: 'https://a.test/', headers: {}, requestText: '{"passwd":"p"}' })).toBe(
      `curl -X POST 'https://a.test/' --data-urlencode 'request={"passwd": "[REDACTED]"}'`,
    );
  });
});
