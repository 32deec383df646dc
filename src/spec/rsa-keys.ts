// RSA keys decoded without OpenSSL's PEM decoders: the partner's private key the CLI signs with
// (a key file, PKCS#8 or PKCS#1 PEM, or the sandbox's seeded one) and the sandbox's account public
// keys (SPKI PEM). The first key a process decodes from PEM or from PKCS#8/SPKI DER sets up
// OpenSSL's decoder machinery, about 2.7M instructions (3.5M a private key, 2.7M a public one,
// callgrind, Node 24.21.0); a public key from PKCS#1 DER takes 10K, a private key from its JWK
// 0.8M. Both are read here, in JS, from the PEM's DER (issue 31). Anything else (another key type,
// another layout, an encrypted or malformed PEM) is handed to Node as it is, which decides as before.
// Here, in spec/, as the one place the client and the sandbox share (design.md, Layout).
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';

/** An AlgorithmIdentifier of rsaEncryption (1.2.840.113549.1.1.1, NULL parameters), in hex. */
const RSA_ENCRYPTION = '300d06092a864886f70d0101010500';

/** The DER inside a PEM block labelled `label`, or undefined when `pem` is not one such block alone. */
function pemBody(pem: string, label: string): Buffer | undefined {
  const head = `-----BEGIN ${label}-----`;
  const foot = `-----END ${label}-----`;
  const end = pem.indexOf(foot);
  const body = pem.slice(head.length, end);
  if (!pem.startsWith(head) || end < 0 || pem.slice(end + foot.length).trim() || /[^A-Za-z0-9+/=\s]/.test(body))
    return undefined;
  return Buffer.from(body, 'base64');
}

/** A DER element: its tag, and where its contents start and end. */
type Element = [tag: number, start: number, end: number];

/**
 * The elements (definite lengths) that fill der[start, end) exactly, or undefined. With `tag`,
 * der[start, end) must be one element of that tag, and its contents are read.
 */
function items(der: Buffer, start: number, end: number, tag?: number): Element[] | undefined {
  const out: Element[] = [];
  for (let at = start; at < end; ) {
    if (at + 2 > end) return undefined;
    let len = der[at + 1];
    let from = at + 2;
    if (len > 0x80 && len < 0x84) {
      const n = len - 0x80;
      len = 0;
      for (let i = 0; i < n; i++) len = len * 256 + der[from++];
    } else if (len >= 0x80) return undefined;
    if (!(from + len <= end)) return undefined; // NaN too: a length past the end
    out.push([der[at], from, (at = from + len)]);
  }
  if (tag === undefined) return out;
  const [one] = out;
  return out.length === 1 && one[0] === tag ? items(der, one[1], one[2]) : undefined;
}

/** The PKCS#1 RSAPublicKey inside an SPKI PEM of an RSA key, else undefined. */
function pkcs1PublicKey(pem: string): Buffer | undefined {
  const der = pemBody(pem, 'PUBLIC KEY');
  const spki = der && items(der, 0, der.length, 0x30);
  if (!der || spki?.length !== 2 || der.toString('hex', spki[0][1] - 2, spki[0][2]) !== RSA_ENCRYPTION)
    return undefined;
  // A BIT STRING with no unused bits, holding the key's SEQUENCE.
  const [tag, start, end] = spki[1];
  if (tag !== 0x03 || der[start] !== 0 || !items(der, start + 1, end, 0x30)) return undefined;
  return der.subarray(start + 1, end);
}

/** The JWK of a two-prime RSA private key in a PKCS#8 or PKCS#1 PEM, else undefined. */
function privateJwk(pem: string): Record<string, string> | undefined {
  const pkcs1 = pemBody(pem, 'RSA PRIVATE KEY');
  if (pkcs1) return rsaJwk(pkcs1, 0, pkcs1.length);
  const der = pemBody(pem, 'PRIVATE KEY');
  const p8 = der && items(der, 0, der.length, 0x30);
  // Version 0, rsaEncryption, an OCTET STRING holding the RSAPrivateKey; no attributes.
  if (
    !der ||
    p8?.length !== 3 ||
    !version0(der, p8[0]) ||
    der.toString('hex', p8[1][1] - 2, p8[1][2]) !== RSA_ENCRYPTION
  )
    return undefined;
  return p8[2][0] === 0x04 ? rsaJwk(der, p8[2][1], p8[2][2]) : undefined;
}

/** Is `e` the INTEGER 0 (a version)? */
const version0 = (der: Buffer, e: Element) => der.toString('hex', e[1] - 2, e[2]) === '020100';

/** The JWK of the RSAPrivateKey that fills der[start, end), else undefined. */
function rsaJwk(der: Buffer, start: number, end: number): Record<string, string> | undefined {
  const rsa = items(der, start, end, 0x30);
  // RSAPrivateKey: version 0 (two primes), then n, e, d, p, q, dp, dq, qi: positive INTEGERs.
  if (rsa?.length !== 9 || !version0(der, rsa[0])) return undefined;
  const jwk: Record<string, string> = { kty: 'RSA' };
  for (const [i, name] of ['n', 'e', 'd', 'p', 'q', 'dp', 'dq', 'qi'].entries()) {
    const [tag, first, last] = rsa[i + 1];
    let at = first;
    if (tag !== 0x02 || at === last || der[at] & 0x80) return undefined;
    while (at < last - 1 && der[at] === 0) at++; // JWK: no leading zero octets
    jwk[name] = der.toString('base64url', at, last);
  }
  return jwk;
}

/** The public key of an account (its PEM): from its PKCS#1 DER when it is an RSA key in SPKI PEM. */
export function accountPublicKey(pem: string): KeyObject {
  const der = pkcs1PublicKey(pem);
  if (der) {
    try {
      return createPublicKey({ key: der, format: 'der', type: 'pkcs1' });
    } catch {
      /* Node decides from the PEM, below */
    }
  }
  return createPublicKey(pem);
}

/**
 * An RSA private key from its PEM, through its JWK when it is a two-prime RSA key in PKCS#8 or
 * PKCS#1 PEM; undefined otherwise (the caller decodes the PEM as Node does).
 */
export function rsaPrivateKey(pem: string): KeyObject | undefined {
  const jwk = privateJwk(pem);
  if (!jwk) return undefined;
  try {
    return createPrivateKey({ key: jwk, format: 'jwk' });
  } catch {
    return undefined;
  }
}
