// `sandbox serve --tls`: a private CA and a server certificate signed by it, generated with
// node:crypto (P-256, ECDSA-SHA256) and kept beside the database, so that a client trusts the one
// CA file (`--ca-file`, NODE_EXTRA_CA_CERTS, curl --cacert) across restarts. The certificate
// names localhost, 127.0.0.1, ::1, the bound address and every --allow-host name; it is made
// again when a name is missing or it is about to expire. The X.509 DER is written here (about a
// hundred lines) rather than by a dependency or the openssl program, which not every machine has.
import {
  createHash,
  createPrivateKey,
  generateKeyPairSync,
  randomBytes,
  sign,
  X509Certificate,
  type KeyObject,
} from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { makeDir } from '../db/make-dir.js';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';

export interface TlsFiles {
  /** The CA certificate to trust (PEM). */
  caFile: string;
  /** The CA's private key (PEM, 0600). */
  caKeyFile: string;
  certFile: string;
  keyFile: string;
  cert: string;
  key: string;
  /** Remove what was made for a :memory: database (a temp directory). */
  cleanup(): void;
}

// --- DER -------------------------------------------------------------------------------------

function len(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}
const tlv = (tag: number, ...content: Buffer[]): Buffer => {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), len(body.length), body]);
};
const seq = (...c: Buffer[]) => tlv(0x30, ...c);
const set = (...c: Buffer[]) => tlv(0x31, ...c);
const octets = (b: Buffer) => tlv(0x04, b);
const bits = (b: Buffer) => tlv(0x03, Buffer.from([0]), b);
const bool = (v: boolean) => tlv(0x01, Buffer.from([v ? 0xff : 0]));
const utf8 = (s: string) => tlv(0x0c, Buffer.from(s, 'utf8'));
function integer(b: Buffer): Buffer {
  let i = 0;
  while (i < b.length - 1 && b[i] === 0) i++;
  const v = b.subarray(i);
  return tlv(0x02, v[0] & 0x80 ? Buffer.concat([Buffer.from([0]), v]) : v);
}
function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const out = [a * 40 + b];
  for (const n of rest) {
    const parts: number[] = [n & 0x7f];
    for (let v = Math.floor(n / 128); v > 0; v = Math.floor(v / 128)) parts.unshift((v & 0x7f) | 0x80);
    out.push(...parts);
  }
  return tlv(0x06, Buffer.from(out));
}
function time(d: Date): Buffer {
  const s = d.toISOString().replace(/[-:T]/g, '').slice(0, 14) + 'Z'; // YYYYMMDDHHMMSSZ
  return d.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(s.slice(2))) : tlv(0x18, Buffer.from(s));
}
const name = (cn: string) =>
  seq(set(seq(oid('2.5.4.3'), utf8(cn))), set(seq(oid('2.5.4.10'), utf8('bookdist sandbox'))));
const extension = (id: string, critical: boolean, value: Buffer) =>
  seq(oid(id), ...(critical ? [bool(true)] : []), octets(value));
const ECDSA_SHA256 = seq(oid('1.2.840.10045.4.3.2'));

function ipBytes(ip: string): Buffer {
  if (isIP(ip) === 4) return Buffer.from(ip.split('.').map(Number));
  const [head, tail = ''] = ip.split('::');
  const h = head ? head.split(':') : [];
  const t = ip.includes('::') && tail ? tail.split(':') : [];
  const groups = ip.includes('::') ? [...h, ...Array(8 - h.length - t.length).fill('0'), ...t] : h;
  return Buffer.from(groups.flatMap((g) => [(parseInt(g, 16) >> 8) & 0xff, parseInt(g, 16) & 0xff]));
}

/** When a certificate is valid: from `from` to `to`. */
export interface Validity {
  from: Date;
  to: Date;
}

/** From an hour ago (clocks differ a little) for `days` days. */
function forDays(days: number): Validity {
  const now = Date.now();
  return { from: new Date(now - 3_600_000), to: new Date(now + days * 86_400_000) };
}

function certificate(o: {
  subject: string;
  issuer: string;
  publicKey: KeyObject;
  issuerKey: KeyObject;
  issuerPublicKey: KeyObject;
  validity: Validity;
  ca: boolean;
  names?: string[];
}): string {
  const spki = o.publicKey.export({ type: 'spki', format: 'der' });
  const keyId = (k: KeyObject) =>
    createHash('sha1')
      .update(k.export({ type: 'spki', format: 'der' }).subarray(-65))
      .digest();
  const exts = [
    extension('2.5.29.19', true, o.ca ? seq(bool(true)) : seq()),
    // keyUsage: keyCertSign + cRLSign for the CA, digitalSignature for the server.
    extension('2.5.29.15', true, o.ca ? tlv(0x03, Buffer.from([1, 0x06])) : tlv(0x03, Buffer.from([7, 0x80]))),
    extension('2.5.29.14', false, octets(keyId(o.publicKey))),
    extension('2.5.29.35', false, seq(tlv(0x80, keyId(o.issuerPublicKey)))),
  ];
  if (!o.ca) {
    exts.push(extension('2.5.29.37', false, seq(oid('1.3.6.1.5.5.7.3.1'))));
    const alt = (o.names ?? []).map((n) => (isIP(n) ? tlv(0x87, ipBytes(n)) : tlv(0x82, Buffer.from(n, 'ascii'))));
    exts.push(extension('2.5.29.17', false, seq(...alt)));
  }
  const tbs = seq(
    tlv(0xa0, integer(Buffer.from([2]))),
    integer(Buffer.concat([Buffer.from([0x40]), randomBytes(15)])),
    ECDSA_SHA256,
    name(o.issuer),
    seq(time(o.validity.from), time(o.validity.to)),
    name(o.subject),
    spki,
    tlv(0xa3, seq(...exts)),
  );
  const der = seq(tbs, ECDSA_SHA256, bits(sign('sha256', tbs, o.issuerKey)));
  return `-----BEGIN CERTIFICATE-----\n${der.toString('base64').replace(/.{1,64}/g, '$&\n')}-----END CERTIFICATE-----\n`;
}

// --- files -----------------------------------------------------------------------------------

function writePrivate(path: string, text: string, mode = 0o600): void {
  const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(tmp, text, { mode, flag: 'wx' });
  chmodSync(tmp, mode);
  renameSync(tmp, path);
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** Does this server certificate still serve: signed by `ca`, valid for a day more, naming every name? */
function serves(certPem: string | undefined, caPem: string, names: string[]): boolean {
  if (!certPem) return false;
  try {
    const cert = new X509Certificate(certPem);
    const ca = new X509Certificate(caPem);
    if (!cert.verify(ca.publicKey) || Date.parse(cert.validTo) < Date.now() + 86_400_000) return false;
    return names.every((n) => (isIP(n) ? cert.checkIP(n) !== undefined : cert.checkHost(n) !== undefined));
  } catch {
    return false;
  }
}

/** Where `sandbox serve --tls` keeps the CA certificate of a database (undefined for :memory:). */
export function tlsCaPath(dbPath: string): string | undefined {
  if (dbPath === ':memory:') return undefined;
  return join(dirname(dbPath), `${basename(dbPath).replace(/\.(db|sqlite3?)$/i, '')}-tls-ca.pem`);
}

/**
 * The CA and server certificate for a sandbox database: `<base>-tls-ca.pem` (trust this one),
 * `<base>-tls-ca-key.pem`, `<base>-tls-cert.pem` and `<base>-tls-key.pem` beside it (a temp
 * directory for :memory:, removed by cleanup()). Private keys are 0600.
 */
export function ensureTlsFiles(dbPath: string, names: string[]): TlsFiles {
  let dir: string;
  let base: string;
  let cleanup = () => {};
  if (dbPath === ':memory:') {
    dir = mkdtempSync(join(tmpdir(), 'bookdist-sandbox-tls-'));
    base = 'sandbox';
    cleanup = () => rmSync(dir, { recursive: true, force: true });
  } else {
    dir = dirname(dbPath);
    base = basename(dbPath).replace(/\.(db|sqlite3?)$/i, '');
    // The first `sandbox serve --tls` of a fresh install runs before the database makes its folder.
    makeDir(dir);
  }
  const caFile = join(dir, `${base}-tls-ca.pem`);
  const caKeyFile = join(dir, `${base}-tls-ca-key.pem`);
  const certFile = join(dir, `${base}-tls-cert.pem`);
  const keyFile = join(dir, `${base}-tls-key.pem`);
  const wanted = [
    ...new Set(
      names.map((n) => n.toLowerCase().replace(/^\[|\]$/g, '')).filter((n) => n && n !== '0.0.0.0' && n !== '::'),
    ),
  ];

  let caPem = read(caFile);
  let caKeyPem = read(caKeyFile);
  let caKey: KeyObject | undefined;
  try {
    if (caPem && caKeyPem) {
      caKey = createPrivateKey(caKeyPem);
      if (Date.parse(new X509Certificate(caPem).validTo) < Date.now() + 86_400_000) caKey = undefined;
    }
  } catch {
    caKey = undefined;
  }
  if (!caPem || !caKey) {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    caKey = pair.privateKey;
    caKeyPem = caKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    caPem = certificate({
      subject: 'bookdist sandbox CA',
      issuer: 'bookdist sandbox CA',
      publicKey: pair.publicKey,
      issuerKey: caKey,
      issuerPublicKey: pair.publicKey,
      validity: forDays(3650),
      ca: true,
    });
    writePrivate(caKeyFile, caKeyPem);
    writePrivate(caFile, caPem, 0o644);
  }
  let cert = read(certFile);
  let key = read(keyFile);
  if (!key || !serves(cert, caPem, wanted)) {
    ({ cert, key } = serverCertificate({ cert: caPem, key: caKey }, wanted, forDays(397)));
    writePrivate(keyFile, key);
    writePrivate(certFile, cert, 0o644);
  }
  return { caFile, caKeyFile, certFile, keyFile, cert: cert!, key, cleanup };
}

/**
 * A server certificate (and its new key, PEM) for `names`, signed by the CA `ca`, valid as
 * `validity` says: the sandbox's own, and in tests one that has expired.
 */
export function serverCertificate(
  ca: { cert: string; key: KeyObject | string },
  names: string[],
  validity: Validity,
): { cert: string; key: string } {
  const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const cert = certificate({
    subject: names.find((n) => !isIP(n)) ?? 'localhost',
    issuer: 'bookdist sandbox CA',
    publicKey: pair.publicKey,
    issuerKey: typeof ca.key === 'string' ? createPrivateKey(ca.key) : ca.key,
    issuerPublicKey: new X509Certificate(ca.cert).publicKey,
    validity,
    ca: false,
    names,
  });
  return { cert, key: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string };
}
