// The sandbox's own keys decoded from their DER (src/sandbox/keys.ts): the same keys as Node's PEM
// decoder makes, and any key that is not a seeded RSA key in its usual PEM is left to Node.
import { createPrivateKey, createPublicKey, createSign, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { accountPublicKey, seededPrivateKey } from '../../src/sandbox/keys.js';

const pems = (bits: number) =>
  generateKeyPairSync('rsa', {
    modulusLength: bits,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
const jwkOf = (k: KeyObject) => k.export({ format: 'jwk' });
const signed = (k: KeyObject) => createSign('RSA-SHA256').update('partner-user').sign(k, 'base64');

describe('the sandbox keys', () => {
  it('decode to the keys the PEM decoder makes: the same members, the same signatures', () => {
    // Several keys, so that members with and without a leading zero octet (a high first bit) occur.
    for (const bits of [2048, 1024, 1024, 1024, 1024, 1024]) {
      const { publicKey, privateKey } = pems(bits);
      const priv = seededPrivateKey(privateKey);
      expect(priv?.type).toBe('private');
      expect(priv?.asymmetricKeyType).toBe('rsa');
      expect(jwkOf(priv!)).toEqual(jwkOf(createPrivateKey(privateKey)));
      expect(signed(priv!)).toBe(signed(createPrivateKey(privateKey)));
      const pub = accountPublicKey(publicKey);
      expect(pub.type).toBe('public');
      expect(jwkOf(pub)).toEqual(jwkOf(createPublicKey(publicKey)));
      expect(pub.equals(createPublicKey(privateKey))).toBe(true);
    }
  });

  it('with CRLF line ends too', () => {
    const { publicKey, privateKey } = pems(1024);
    const crlf = (s: string) => s.replace(/\n/g, '\r\n');
    expect(jwkOf(seededPrivateKey(crlf(privateKey))!)).toEqual(jwkOf(createPrivateKey(privateKey)));
    expect(jwkOf(accountPublicKey(crlf(publicKey)))).toEqual(jwkOf(createPublicKey(publicKey)));
  });

  it('leave every other key to Node: another type, another layout, another PEM', () => {
    const ec = generateKeyPairSync('ec', {
      namedCurve: 'P-256',
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    expect(seededPrivateKey(ec.privateKey)).toBeUndefined();
    expect(accountPublicKey(ec.publicKey).asymmetricKeyType).toBe('ec');
    const { publicKey, privateKey } = pems(1024);
    const pkcs1 = createPrivateKey(privateKey).export({ type: 'pkcs1', format: 'pem' }) as string;
    expect(seededPrivateKey(pkcs1)).toBeUndefined();
    const pkcs1Public = createPublicKey(publicKey).export({ type: 'pkcs1', format: 'pem' }) as string;
    expect(jwkOf(accountPublicKey(pkcs1Public))).toEqual(jwkOf(createPublicKey(publicKey)));
    // control: the PKCS#8 form of the same key is decoded here
    expect(seededPrivateKey(privateKey)).toBeDefined();
  });

  it('a damaged PEM: the private key is left to Node; the public key decides as Node does', () => {
    const { publicKey, privateKey } = pems(1024);
    const lines = (s: string) => s.trimEnd().split('\n');
    const cut = (s: string) => [...lines(s).slice(0, 4), lines(s).at(-1)].join('\n');
    const garbled = (s: string) => s.replace(/(\n.{10})./, '$1*');
    for (const bad of [cut(privateKey), garbled(privateKey), `${privateKey}more`, privateKey.slice(1)])
      expect(seededPrivateKey(bad)).toBeUndefined();
    const outcome = (make: () => KeyObject) => {
      try {
        return jwkOf(make());
      } catch {
        return 'refused';
      }
    };
    const bad = [cut(publicKey), garbled(publicKey), `${publicKey}more`, publicKey.slice(1), ''];
    expect(bad.map((pem) => outcome(() => accountPublicKey(pem)))).toEqual(
      bad.map((pem) => outcome(() => createPublicKey(pem))),
    );
    // control: Node refuses some and takes some (trailing text)
    expect(new Set(bad.map((pem) => outcome(() => createPublicKey(pem)) === 'refused'))).toEqual(
      new Set([true, false]),
    );
  });
});
