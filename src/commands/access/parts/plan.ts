// `access sync`'s plan: who should have access to a book (the roster), who has it as far as the
// ledger knows (its access allow/revoke writes for that book and profile, or the previous roster
// given with --assume-current for users the ledger never saw), and the allows and revokes that
// close the gap. Pure: the command (sync.ts) reads the files and the ledger and looks e-mail
// addresses up; everything decided here is tested in-process (test/commands/access-sync.test.ts).
import type { Write } from '../../../ledger/read.js';

/** What the ledger says of one user's access to the book. */
export type Known = 'has' | 'none' | 'unsure';

/** One change of the plan: a job item (the roster line it comes from, when it does). */
export interface Change {
  action: 'allow' | 'revoke' | 'invalid';
  /** The user (30 hex characters); '' for an invalid roster row. */
  username: string;
  /** The e-mail address the roster gave, when it gave one. */
  email?: string;
  /** The roster's line (allows, invalid rows). */
  line?: number;
  /** Why: the ledger's write it follows from, or what is wrong with the row. */
  why: string;
}

/** A user of a roster, as read: by username, or by e-mail address still to resolve. */
export interface RosterEntry {
  line: number;
  username?: string;
  email?: string;
  /** Why the row cannot be used (no value, a bad one). */
  problem?: string;
}

/** The service's answers to an allow or a revoke that was already so (interface.md, the access state table). */
export const ALREADY_HAS = /already has access/i;
export const HAS_NONE = /purchase record not found/i;

/**
 * Each user's access to `book` under `profile` by the ledger's access writes, the latest deciding:
 * a grant done (or answered "already has access") gives access until its expiration date, a
 * revocation done (or answered "Purchase record not found") takes it; a write whose outcome is
 * still unknown leaves it unsure; a refused one changes nothing. Writes of the job `skipJob` are
 * left out (a resumed sync plans as its first run did).
 */
export function grantsOf(
  writes: Write[],
  book: string,
  profile: string,
  now: Date,
  skipJob?: string,
): Map<string, { state: Known; id: number }> {
  const out = new Map<string, { state: Known; id: number }>();
  for (const w of writes) {
    if ((w.op !== 'access allow' && w.op !== 'access revoke') || w.ids.hash_id !== book || w.profile !== profile)
      continue;
    if (skipJob !== undefined && w.job === skipJob) continue;
    const user = typeof w.ids.username === 'string' ? w.ids.username.toLowerCase() : undefined;
    if (!user) continue;
    const allow = w.op === 'access allow';
    let state: Known | undefined;
    if (w.status === 'unknown') state = 'unsure';
    else if (w.status === 'done') state = allow ? 'has' : 'none';
    else if (allow ? ALREADY_HAS.test(w.reason ?? '') : HAS_NONE.test(w.reason ?? '')) state = allow ? 'has' : 'none';
    if (!state) continue;
    const until = typeof w.ids.expiration_date === 'string' ? Date.parse(w.ids.expiration_date.replace(' ', 'T')) : NaN;
    if (state === 'has' && until <= now.getTime()) state = 'none';
    out.set(user, { state, id: w.id });
  }
  return out;
}

/** E-mail address (lower case) → username, from the users this ledger saw created under `profile`. */
export function usernamesByEmail(writes: Write[], profile: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const w of writes) {
    if ((w.op !== 'user create' && w.op !== 'user invite') || w.profile !== profile || w.status !== 'done') continue;
    const email = w.ids.email;
    const username = w.returned?.username;
    if (typeof email === 'string' && typeof username === 'string') out.set(email.toLowerCase(), username.toLowerCase());
  }
  return out;
}

export interface Plan {
  changes: Change[];
  /** Roster users whose access already is as the roster says. */
  unchanged: number;
  /** Distinct users in the roster. */
  wanted: number;
  /** Users the ledger knows to have access to this book. */
  known: number;
  /** Users whose last access write's outcome the ledger does not know. */
  unsure: number;
  /** Users with access only because the previous roster (--assume-current) says so. */
  assumed: number;
}

/**
 * The changes that make the book's grants the roster: allows in roster order, then revokes by
 * username. `roster` and `previous` hold resolved usernames (lower case); a roster entry without
 * one is an invalid change (nothing is sent for it).
 */
export function planSync(
  roster: RosterEntry[],
  ledger: Map<string, { state: Known; id: number }>,
  previous: RosterEntry[] = [],
): Plan {
  const changes: Change[] = [];
  const wanted = new Set<string>();
  let unchanged = 0;
  for (const r of roster) {
    if (!r.username) {
      changes.push({ action: 'invalid', username: '', email: r.email, line: r.line, why: r.problem ?? 'no username' });
      continue;
    }
    if (wanted.has(r.username)) continue;
    wanted.add(r.username);
    const k = ledger.get(r.username);
    if (k?.state === 'has') unchanged++;
    else if (k?.state === 'unsure')
      changes.push({
        action: 'allow',
        username: r.username,
        email: r.email,
        line: r.line,
        why: `ledger #${k.id}: outcome unknown`,
      });
    else if (k?.state === 'none')
      changes.push({
        action: 'allow',
        username: r.username,
        email: r.email,
        line: r.line,
        why: `revoked (ledger #${k.id})`,
      });
    else if (previous.some((p) => p.username === r.username)) unchanged++;
    else
      changes.push({
        action: 'allow',
        username: r.username,
        email: r.email,
        line: r.line,
        why: 'no grant in the ledger',
      });
  }
  const revokes: Change[] = [];
  let known = 0;
  let unsure = 0;
  for (const [user, k] of ledger) {
    if (k.state === 'has') known++;
    if (k.state === 'unsure') unsure++;
    if (wanted.has(user) || k.state === 'none') continue;
    revokes.push({
      action: 'revoke',
      username: user,
      why: k.state === 'has' ? `granted (ledger #${k.id})` : `ledger #${k.id}: outcome unknown`,
    });
  }
  let assumed = 0;
  const seen = new Set<string>();
  for (const p of previous) {
    if (!p.username || ledger.has(p.username) || seen.has(p.username)) continue;
    seen.add(p.username);
    assumed++;
    if (!wanted.has(p.username))
      revokes.push({ action: 'revoke', username: p.username, email: p.email, why: `previous roster, line ${p.line}` });
  }
  revokes.sort((a, b) => (a.username < b.username ? -1 : a.username > b.username ? 1 : 0));
  return { changes: [...changes, ...revokes], unchanged, wanted: wanted.size, known, unsure, assumed };
}
