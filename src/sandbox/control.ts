// Testing controls of the sandbox, shared by the /_sandbox/ routes and the `bookdist sandbox`
// commands: credentials, clock, usage, outbox. (Redeeming a code lives in domain/codes.ts.)
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, readFileSync, renameSync, writeFileSync, chmodSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { bookByHash, userByUsername } from './domain/index.js';
import { bad } from './errors.js';
import type { Store } from './db/store.js';
import { accountByRole, firstToken } from './repo/accounts.js';
import { setMetaOnce } from './repo/meta.js';
import { allMail } from './repo/outbox.js';
import { addUsage, countPrinted, countViewed, startUsage, usageReport } from './repo/usage.js';
import { isoTime } from './util.js';

interface AccountCredentials {
  username: string;
  key_file: string;
  public_key: string;
  shared_key: string;
  /** The private key PEM (for in-process tests; `sandbox credentials` does not print it). */
  private_key: string;
}

export interface SandboxCredentials {
  partner: AccountCredentials;
  limited: AccountCredentials;
  operator_token: string;
  /** What the /_sandbox/ control routes require (header X-Sandbox-Secret). */
  control_secret: string;
}

/** The header that carries the control secret to the /_sandbox/ routes. */
export const CONTROL_SECRET_HEADER = 'x-sandbox-secret';

/**
 * The control secret of this database: made on first use, kept in the database (so every
 * process on it agrees, and `sandbox reset` makes a new one).
 */
export function controlSecret(store: Store): string {
  const have = store.meta('control_secret');
  if (have) return have;
  setMetaOnce(store, 'control_secret', randomBytes(24).toString('base64url'));
  return store.meta('control_secret')!;
}

/** Is `given` the control secret of this database? (constant time) */
export function isControlSecret(store: Store, given: string | undefined): boolean {
  if (!given) return false;
  const want = Buffer.from(controlSecret(store));
  const got = Buffer.from(given.trim());
  return got.length === want.length && timingSafeEqual(got, want);
}

const memoryKeyDirs = new WeakMap<Store, string>();

/** Where the private key of an account lives: next to the database (a temp dir for :memory:). */
function keyFilePath(store: Store, role: string): string {
  if (store.path === ':memory:') {
    let dir = memoryKeyDirs.get(store);
    if (!dir) {
      dir = mkdtempSync(join(tmpdir(), 'bookdist-sandbox-keys-'));
      memoryKeyDirs.set(store, dir);
    }
    return join(dir, `${role}-key.pem`);
  }
  const base = basename(store.path).replace(/\.(db|sqlite3?)$/i, '');
  return join(dirname(store.path), `${base}-${role}-key.pem`);
}

/** Remove the temp key dir of a :memory: store. */
export function cleanupKeyFiles(store: Store): void {
  const dir = memoryKeyDirs.get(store);
  if (dir) rmSync(dir, { recursive: true, force: true });
}

/** Write `pem` to `path` (0600) unless it already holds exactly that. */
function ensureKeyFile(path: string, pem: string): void {
  try {
    if (readFileSync(path, 'utf8') === pem) return;
  } catch {
    /* missing */
  }
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(tmp, pem, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}

export function credentials(store: Store): SandboxCredentials {
  const acct = (role: string): AccountCredentials => {
    const a = accountByRole(store, role);
    if (!a) throw new Error(`the sandbox database has no ${role} account (run \`bookdist sandbox reset\`)`);
    const key_file = keyFilePath(store, role);
    ensureKeyFile(key_file, a.private_key);
    return {
      username: a.username,
      key_file,
      public_key: a.public_key,
      shared_key: a.shared_key,
      private_key: a.private_key,
    };
  };
  const token = firstToken(store);
  return {
    partner: acct('partner'),
    limited: acct('limited'),
    operator_token: token ?? '',
    control_secret: controlSecret(store),
  };
}

export function clockInfo(store: Store): { now: string; offset_ms: number } {
  return { now: isoTime(store.now()), offset_ms: store.clockOffset() };
}

export function advanceClock(store: Store, ms: number): { now: string; offset_ms: number } {
  if (!Number.isFinite(ms) || ms < 0) throw bad('The clock only moves forward: give a positive duration such as 15d.');
  if (ms > 100 * 365 * 86_400_000) throw bad('That is more than a century; give a shorter duration.');
  store.advanceClock(ms);
  return clockInfo(store);
}

/** Record pages viewed and printed by a user in a book (counts for the refund rules). */
export function recordUsage(
  store: Store,
  username: string,
  hashId: string,
  viewed: number,
  printed: number,
): Record<string, unknown> {
  for (const [name, n] of [
    ['viewed', viewed],
    ['printed', printed],
  ] as const) {
    if (!Number.isSafeInteger(n) || n < 0 || n > 1_000_000)
      throw bad(`Field "${name}" must be a non-negative integer.`);
  }
  const user = userByUsername(store, username);
  const book = bookByHash(store, hashId);
  const now = store.now();
  return store.tx(() => {
    addUsage(store, user.id, book.id, viewed, printed, now);
    return usageOf(store, user.id, book.id);
  });
}

function usageOf(store: Store, userId: number, bookId: number): Record<string, unknown> {
  const u = usageReport(store, userId, bookId);
  if (!u) return { pages_viewed: 0, pages_printed: 0, first_access: null };
  return {
    username: u.username,
    hash_id: u.hash_id,
    pages_viewed: u.pages_viewed,
    pages_printed: u.pages_printed,
    num_pages: u.num_pages,
    viewed_share: u.pages_viewed / u.num_pages,
    first_access: isoTime(u.first_access_at),
  };
}

/** Record one page view (distinct pages count once) or one printed page from the reader. */
export function readerEvent(store: Store, userId: number, bookId: number, page: number, print: boolean): void {
  const now = store.now();
  store.tx(() => {
    startUsage(store, userId, bookId, now);
    if (print) countPrinted(store, userId, bookId);
    else countViewed(store, userId, bookId, page);
  });
}

export interface OutboxMail {
  id: number;
  to: string[];
  subject: string;
  body: string;
  kind: string;
  created_at: string;
}

export function listOutbox(store: Store, to?: string): OutboxMail[] {
  const rows = allMail(store);
  const want = to?.trim().toLowerCase();
  return rows
    .map((r) => ({
      id: r.id,
      to: JSON.parse(r.recipients) as string[],
      subject: r.subject,
      body: r.body,
      kind: r.kind,
      created_at: isoTime(r.created_at),
    }))
    .filter((m) => !want || m.to.some((t) => t.toLowerCase() === want));
}
