// The sandbox remembers signatures that verified (a client repeats the same signed bytes): a
// remembered success must never stand in for a different key, message or signature.
import { createSign, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/sandbox/auth.js';

const pair = () =>
  generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });

describe('verified-signature cache', () => {
  it('answers a repeat from memory and everything else by verifying', () => {
    const a = pair();
    const b = pair();
    const sig = createSign('RSA-SHA256').update('partner-user').sign(a.privateKey, 'base64');
    expect(verifySignature(a.publicKey, 'partner-user', sig)).toBe(true);
    expect(verifySignature(a.publicKey, 'partner-user', sig)).toBe(true); // remembered
    expect(verifySignature(a.publicKey, 'partner-usex', sig)).toBe(false); // other message
    expect(verifySignature(b.publicKey, 'partner-user', sig)).toBe(false); // other key
    const flipped = sig[5] === 'A' ? 'B' : 'A';
    expect(verifySignature(a.publicKey, 'partner-user', sig.slice(0, 5) + flipped + sig.slice(6))).toBe(false);
    // A long message (not remembered) still verifies every time.
    const long = 'x'.repeat(10_000);
    const longSig = createSign('RSA-SHA256').update(long).sign(a.privateKey, 'base64');
    expect(verifySignature(a.publicKey, long, longSig)).toBe(true);
    expect(verifySignature(a.publicKey, long + 'y', longSig)).toBe(false);
  });
});
