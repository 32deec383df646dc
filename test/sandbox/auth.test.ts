// Who the sandbox lets in (wire.md, Authentication), asked of authenticate() itself on a seeded
// database in memory: CryptoAuth over the request text or the username, SharedKeyAuth, and the
// operator token of the access API. The same rules end to end (real requests) are in
// conformance.test.ts and refunds-access.test.ts; these run in milliseconds, so that
// `npm run mutate` judges auth.ts by them first (test/mutation/sequencer.ts).
import { createSign } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate, verifySignature } from '../../src/sandbox/auth.js';
import type { Store } from '../../src/sandbox/db/store.js';
import { renewSecrets } from '../../src/sandbox/seed.js';
import { seededMemoryStore } from '../helpers/memory-store.js';

type Headers = Record<string, string>;

interface Account {
  username: string;
  private_key: string;
  public_key: string;
  shared_key: string;
  scopes: string;
}

let store: Store;
let partner: Account;
let limited: Account;
let token: string;

beforeAll(async () => {
  store = await seededMemoryStore();
  partner = store.get<Account>("SELECT * FROM accounts WHERE role = 'partner'")!;
  limited = store.get<Account>("SELECT * FROM accounts WHERE role = 'limited'")!;
  token = store.get<{ token: string }>('SELECT token FROM tokens')!.token;
});
afterAll(() => store.close());

const signed = (a: Account, message: string) => createSign('RSA-SHA256').update(message).sign(a.private_key, 'base64');
/** authenticate() for a partner endpoint (no operator token), the headers as the server reads them (lower case). */
const partnerCall = (h: Record<string, string>, requestText?: string, extra?: string) =>
  authenticate(store, h, requestText, false, extra);
const accessCall = (h: Record<string, string>) => authenticate(store, h, undefined, true);

describe('CryptoAuth', () => {
  it('a signature of the request text lets its account in, with the scopes of the account', () => {
    const text = '{"email":"a@example.com"}';
    const c = partnerCall(
      { authorization: 'CryptoAuth', 'api-user': partner.username, signature: signed(partner, text) },
      text,
    );
    expect(c?.kind).toBe('partner');
    expect(c?.account.username).toBe(partner.username);
    expect(c?.logName).toBe(partner.username);
    expect([...(c?.scopes ?? [])].sort()).toEqual((JSON.parse(partner.scopes) as string[]).sort());
    const l = partnerCall(
      { authorization: 'CryptoAuth', 'api-user': limited.username, signature: signed(limited, text) },
      text,
    );
    expect([...(l?.scopes ?? [])].sort()).toEqual(['book_metadata', 'invite_user']);
  });

  it('a signature of other bytes, another account or no signature is refused', () => {
    const text = '{"email":"a@example.com"}';
    const as = (sig: string | undefined, user = partner.username, t: string | null = text) =>
      partnerCall(
        { authorization: 'CryptoAuth', 'api-user': user, ...(sig === undefined ? {} : { signature: sig }) },
        t ?? undefined,
      );
    expect(as(signed(partner, text + ' '))).toBeUndefined();
    expect(as(signed(limited, text))).toBeUndefined();
    expect(as(signed(partner, text), limited.username)).toBeUndefined();
    expect(as(undefined)).toBeUndefined();
    expect(as('')).toBeUndefined();
    // With a request text, the username alone is not what is signed.
    expect(as(signed(partner, partner.username))).toBeUndefined();
    // A request without a text signs the username.
    expect(as(signed(partner, partner.username), partner.username, null)?.account.username).toBe(partner.username);
    expect(as(signed(partner, text), partner.username, null)).toBeUndefined();
  });

  it("a GET's signature covers the username or its `request` query text", () => {
    const query = '{"page":2}';
    const h = (message: string) => ({
      authorization: 'CryptoAuth',
      'api-user': partner.username,
      signature: signed(partner, message),
    });
    expect(partnerCall(h(partner.username), undefined, query)?.account.username).toBe(partner.username);
    expect(partnerCall(h(query), undefined, query)?.account.username).toBe(partner.username);
    expect(partnerCall(h('{"page":3}'), undefined, query)).toBeUndefined();
  });

  it('without an Authorization header, a signature means CryptoAuth, even beside an api-key', () => {
    const sig = signed(partner, partner.username);
    expect(partnerCall({ 'api-user': partner.username, signature: sig })?.kind).toBe('partner');
    // Both headers: the signature decides, whatever the key says.
    expect(partnerCall({ 'api-user': partner.username, signature: sig, 'api-key': 'wrong' })?.kind).toBe('partner');
    expect(
      partnerCall({
        'api-user': partner.username,
        signature: signed(partner, 'other'),
        'api-key': partner.shared_key,
      }),
    ).toBeUndefined();
  });

  it('the scheme is read in any case, the username from api-user or user, both trimmed', () => {
    const sig = signed(partner, partner.username);
    for (const h of <Headers[]>[
      { authorization: 'cryptoauth', 'api-user': partner.username, signature: sig },
      { authorization: '  CRYPTOAUTH  ', 'api-user': partner.username, signature: sig },
      { authorization: 'CryptoAuth', user: partner.username, signature: sig },
      { authorization: 'CryptoAuth', 'api-user': `  ${partner.username} `, signature: sig },
      { authorization: 'CryptoAuth', 'api-user': partner.username, user: limited.username, signature: sig },
    ])
      expect(partnerCall(h)?.account.username, JSON.stringify(Object.keys(h))).toBe(partner.username);
    expect(partnerCall({ authorization: 'CryptoAuth', signature: sig })).toBeUndefined();
    expect(partnerCall({ authorization: 'CryptoAuth', 'api-user': '  ', signature: sig })).toBeUndefined();
    expect(partnerCall({ authorization: 'CryptoAuth', 'api-user': 'nobody', signature: sig })).toBeUndefined();
  });

  it('a scheme it does not know lets no one in, whatever else is right', () => {
    const sig = signed(partner, partner.username);
    for (const scheme of ['Basic', ' Basic ', 'Digest', 'CryptoAuthX'])
      expect(
        partnerCall({
          authorization: scheme,
          'api-user': partner.username,
          signature: sig,
          'api-key': partner.shared_key,
        }),
        scheme,
      ).toBeUndefined();
  });
});

describe('signatures', () => {
  it('a signature is base64 (or its URL-safe form) of 16 to 2048 characters, spaces around it ignored', () => {
    const sig = signed(partner, 'the message');
    const ok = (s: string) => verifySignature(partner.public_key, 'the message', s);
    expect(ok(sig)).toBe(true);
    expect(ok(`  ${sig}\n`)).toBe(true);
    expect(ok(sig.replaceAll('+', '-').replaceAll('/', '_'))).toBe(true);
    // Bytes that decode to the same signature are refused when the text is not a signature's:
    // a character outside base64, a space inside, padding past 2048 characters.
    expect(ok(`${sig}*`)).toBe(false);
    expect(ok(`${sig.slice(0, 20)} ${sig.slice(20)}`)).toBe(false);
    expect(ok(`*${sig}`)).toBe(false);
    expect(ok(sig + '='.repeat(2048 - sig.length))).toBe(true);
    expect(ok(sig + '='.repeat(2049 - sig.length))).toBe(false);
    expect(ok('')).toBe(false);
  });

  it('a key that is not a key, or a signature of the wrong size, is a refusal, not an error', () => {
    const sig = signed(partner, 'the message');
    expect(verifySignature('not a key', 'the message', sig)).toBe(false);
    expect(verifySignature(partner.public_key, 'the message', 'QUJDREVGR0hJSktMTU5PUA==')).toBe(false);
  });

  it('a remembered signature stands only for the message it was checked with', () => {
    const sig = signed(limited, 'remember me');
    expect(verifySignature(limited.public_key, 'remember me', sig)).toBe(true);
    expect(verifySignature(limited.public_key, 'remember me', sig)).toBe(true);
    expect(verifySignature(limited.public_key, 'remember me!', sig)).toBe(false);
    // A signature that failed is not remembered: it fails again.
    expect(verifySignature(partner.public_key, 'remember me', sig)).toBe(false);
    expect(verifySignature(partner.public_key, 'remember me', sig)).toBe(false);
    // Messages around the size of what is remembered, and more signatures than are remembered.
    for (const n of [4095, 4096, 4097]) {
      const m = 'm'.repeat(n);
      const s = signed(limited, m);
      expect(verifySignature(limited.public_key, m, s)).toBe(true);
      expect(verifySignature(limited.public_key, m, s)).toBe(true);
      expect(verifySignature(limited.public_key, `${m}x`, s)).toBe(false);
    }
  });
});

describe('SharedKeyAuth', () => {
  it("the account's shared key lets it in, with SharedKeyAuth or no scheme", () => {
    for (const h of <Headers[]>[
      { authorization: 'SharedKeyAuth', 'api-user': partner.username, 'api-key': partner.shared_key },
      { authorization: 'sharedkeyauth', user: partner.username, 'api-key': partner.shared_key },
      { 'api-user': partner.username, 'api-key': partner.shared_key },
    ])
      expect(partnerCall(h)?.account.username, JSON.stringify(h.authorization)).toBe(partner.username);
  });

  it('another key, a part of it, a longer one or none is refused', () => {
    const as = (key: string | undefined, user = partner.username) =>
      partnerCall({
        authorization: 'SharedKeyAuth',
        'api-user': user,
        ...(key === undefined ? {} : { 'api-key': key }),
      });
    expect(as(limited.shared_key)).toBeUndefined();
    expect(as(partner.shared_key, limited.username)).toBeUndefined();
    expect(as(partner.shared_key.slice(0, -1))).toBeUndefined();
    expect(as(`${partner.shared_key}0`)).toBeUndefined();
    const last = partner.shared_key.at(-1) === '0' ? '1' : '0';
    expect(as(partner.shared_key.slice(0, -1) + last)).toBeUndefined();
    expect(as(undefined)).toBeUndefined();
    expect(as('')).toBeUndefined();
    // The right key under another scheme, without a signature: refused.
    for (const scheme of ['CryptoAuth', 'Basic'])
      expect(
        partnerCall({ authorization: scheme, 'api-user': partner.username, 'api-key': partner.shared_key }),
        scheme,
      ).toBeUndefined();
    // SharedKeyAuth with a right signature and no key: a shared-key request, refused.
    expect(
      partnerCall({
        authorization: 'SharedKeyAuth',
        'api-user': partner.username,
        signature: signed(partner, partner.username),
      }),
    ).toBeUndefined();
  });
});

describe('the operator token (access API)', () => {
  it('Bearer, Token, or the token as a shared key: the operator, with the access scope', () => {
    for (const h of <Headers[]>[
      { authorization: `Bearer ${token}` },
      { authorization: `bearer   ${token}` },
      { authorization: `Token ${token}` },
      { 'api-key': token },
      { authorization: 'SharedKeyAuth', 'api-key': token },
    ]) {
      const c = accessCall(h);
      expect(c?.kind, JSON.stringify(h)).toBe('token');
      expect(c?.logName).toBe('operator');
      expect(c?.account.username).toBe(partner.username);
      expect(c?.scopes.has('access')).toBe(true);
      for (const s of JSON.parse(partner.scopes) as string[]) expect(c?.scopes.has(s)).toBe(true);
    }
    // The token's caller does not change the account's own.
    const sig = signed(partner, partner.username);
    const own = accessCall({ authorization: 'CryptoAuth', 'api-user': partner.username, signature: sig });
    expect(own?.kind).toBe('partner');
    expect([...(own?.scopes ?? [])].sort()).toEqual((JSON.parse(partner.scopes) as string[]).sort());
  });

  it('is refused where the endpoint does not take it, under another scheme, or wrong', () => {
    expect(partnerCall({ authorization: `Bearer ${token}` })).toBeUndefined();
    expect(partnerCall({ 'api-key': token })).toBeUndefined();
    for (const h of <Headers[]>[
      { authorization: `Basic ${token}` },
      { authorization: `CryptoAuth`, 'api-key': token },
      { authorization: 'Bearer' },
      { authorization: `Bearer ${token}x` },
      { authorization: `Bearer ${token.slice(1)}` },
      { 'api-key': `${token}x` },
    ])
      expect(accessCall(h), JSON.stringify(h)).toBeUndefined();
  });

  it('a wrong token still lets a signed partner in as itself', () => {
    const c = accessCall({
      authorization: 'CryptoAuth',
      'api-user': partner.username,
      signature: signed(partner, partner.username),
      'api-key': 'not-the-token',
    });
    expect(c?.kind).toBe('partner');
    const shared = accessCall({ 'api-user': partner.username, 'api-key': partner.shared_key });
    expect(shared?.kind).toBe('partner');
    expect(shared?.logName).toBe(partner.username);
  });
});

describe('credentials that change', () => {
  it('a renewed shared key or token is refused at once, and the new one let in, within a served turn', async () => {
    const own = await seededMemoryStore();
    try {
      const row = (role: string) => own.get<Account>('SELECT * FROM accounts WHERE role = ?', role)!;
      const p = row('partner');
      const old = own.get<{ token: string }>('SELECT token FROM tokens')!.token;
      const key = (h: Headers, allowToken: boolean) => own.serve(() => authenticate(own, h, undefined, allowToken));
      expect(key({ 'api-user': p.username, 'api-key': p.shared_key }, false)?.kind).toBe('partner');
      expect(key({ authorization: `Bearer ${old}` }, true)?.kind).toBe('token');
      const pair = (a: Account) => ({
        publicKey: a.public_key,
        privateKey: a.private_key,
        sharedKey: `${a.shared_key}0`,
      });
      renewSecrets(own, { partner: pair(p), limited: pair(row('limited')), operatorToken: `${old}0` });
      expect(key({ 'api-user': p.username, 'api-key': p.shared_key }, false)).toBeUndefined();
      expect(key({ 'api-user': p.username, 'api-key': `${p.shared_key}0` }, false)?.kind).toBe('partner');
      expect(key({ authorization: `Bearer ${old}` }, true)).toBeUndefined();
      expect(key({ authorization: `Bearer ${old}0` }, true)?.kind).toBe('token');
      // The account's scopes change: the token's caller has the new ones at once.
      own.tx(() => own.run("UPDATE accounts SET scopes = '[\"book_metadata\"]' WHERE role = 'partner'"));
      expect([...(key({ authorization: `Bearer ${old}0` }, true)?.scopes ?? [])].sort()).toEqual([
        'access',
        'book_metadata',
      ]);
      // The operator's tokens alone withdrawn: the token is refused.
      own.tx(() => own.run('DELETE FROM tokens'));
      expect(key({ authorization: `Bearer ${old}0` }, true)).toBeUndefined();
      // Two accounts one after the other: each its own.
      expect(key({ 'api-user': p.username, 'api-key': `${p.shared_key}0` }, false)?.account.username).toBe(p.username);
      const l = row('limited');
      expect(key({ 'api-user': l.username, 'api-key': l.shared_key }, false)?.account.username).toBe(l.username);
    } finally {
      await own.close();
    }
  });
});
