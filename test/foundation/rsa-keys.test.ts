// RSA keys decoded from their DER (src/spec/rsa-keys.ts), the partner's key file the CLI signs with
// (wire.ts's loadRsaPrivateKey) and the sandbox's own keys: the same keys as Node's PEM decoder
// makes, and any key that is not an RSA key in its usual PEM is left to Node.
import { createPrivateKey, createPublicKey, createSign, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadRsaPrivateKey } from '../../src/api/wire.js';
import { accountPublicKey, rsaPrivateKey } from '../../src/spec/rsa-keys.js';

const pems = (bits: number) =>
  generateKeyPairSync('rsa', {
    modulusLength: bits,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
const jwkOf = (k: KeyObject) => k.export({ format: 'jwk' });
const signed = (k: KeyObject) => createSign('RSA-SHA256').update('partner-user').sign(k, 'base64');

describe('RSA keys', () => {
  it('decode to the keys the PEM decoder makes: the same members, the same signatures', () => {
    // Several keys, so that members with and without a leading zero octet (a high first bit) occur.
    for (const bits of [2048, 1024, 1024, 1024, 1024, 1024]) {
      const { publicKey, privateKey } = pems(bits);
      const priv = rsaPrivateKey(privateKey);
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

  it('a PKCS#1 private key (BEGIN RSA PRIVATE KEY) too', () => {
    for (const bits of [2048, 1024, 1024]) {
      const { privateKey } = pems(bits);
      const pkcs1 = createPrivateKey(privateKey).export({ type: 'pkcs1', format: 'pem' }) as string;
      const priv = rsaPrivateKey(pkcs1);
      expect(jwkOf(priv!)).toEqual(jwkOf(createPrivateKey(pkcs1)));
      expect(signed(priv!)).toBe(signed(createPrivateKey(pkcs1)));
    }
  });

  it("the CLI's key file (loadRsaPrivateKey): the same key in either layout, as text or bytes; others refused as before", () => {
    const { privateKey } = pems(1024);
    const pkcs1 = createPrivateKey(privateKey).export({ type: 'pkcs1', format: 'pem' }) as string;
    for (const pem of [privateKey, pkcs1, Buffer.from(pkcs1), `${privateKey}\n\n`])
      expect(jwkOf(loadRsaPrivateKey(pem))).toEqual(jwkOf(createPrivateKey(privateKey)));
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' });
    expect(() => loadRsaPrivateKey(ec as string)).toThrow('is a ec key, not an RSA private key');
    expect(() => loadRsaPrivateKey('-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n')).toThrow(
      'is not a PEM private key',
    );
  });

  it('with CRLF line ends too', () => {
    const { publicKey, privateKey } = pems(1024);
    const crlf = (s: string) => s.replace(/\n/g, '\r\n');
    expect(jwkOf(rsaPrivateKey(crlf(privateKey))!)).toEqual(jwkOf(createPrivateKey(privateKey)));
    expect(jwkOf(accountPublicKey(crlf(publicKey)))).toEqual(jwkOf(createPublicKey(publicKey)));
  });

  it('leave every other key to Node: another type, another layout, another PEM', () => {
    const ec = generateKeyPairSync('ec', {
      namedCurve: 'P-256',
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    expect(rsaPrivateKey(ec.privateKey)).toBeUndefined();
    expect(accountPublicKey(ec.publicKey).asymmetricKeyType).toBe('ec');
    const { publicKey, privateKey } = pems(1024);
    const encrypted = createPrivateKey(privateKey).export({
      type: 'pkcs8',
      format: 'pem',
      cipher: 'aes-128-cbc',
      passphrase: 'x',
    }) as string;
    expect(rsaPrivateKey(encrypted)).toBeUndefined();
    const pkcs1Public = createPublicKey(publicKey).export({ type: 'pkcs1', format: 'pem' }) as string;
    expect(jwkOf(accountPublicKey(pkcs1Public))).toEqual(jwkOf(createPublicKey(publicKey)));
    // control: the PKCS#8 form of the same key is decoded here
    expect(rsaPrivateKey(privateKey)).toBeDefined();
  });

  it('a damaged PEM: the private key is left to Node; the public key decides as Node does', () => {
    const { publicKey, privateKey } = pems(1024);
    const lines = (s: string) => s.trimEnd().split('\n');
    const cut = (s: string) => [...lines(s).slice(0, 4), lines(s).at(-1)].join('\n');
    const garbled = (s: string) => s.replace(/(\n.{10})./, '$1*');
    for (const bad of [cut(privateKey), garbled(privateKey), `${privateKey}more`, privateKey.slice(1)])
      expect(rsaPrivateKey(bad)).toBeUndefined();
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
