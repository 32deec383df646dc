import { createVerify } from 'node:crypto';
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
} from '../../src/api/wire.js';
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
