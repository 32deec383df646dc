// The completion cache of identifiers: what bookdist has already seen of books, users, orders,
// purchases and prices, kept so that the shells can complete ids at TAB without a request and
// without starting Node (completions/ read these files with awk).
//
// Layout, under $XDG_CACHE_HOME/bookdist/ids/ (else ~/.cache/bookdist/ids/), directories 0700,
// files 0600, never opened through a link:
//
//   <scope>/<kind>.tsv     one entry a line: `<id> TAB <description>`, the newest last; a reader
//                          takes the last line of an id (most recently used first) and ignores
//                          lines it cannot read. At most MAX_PER_KIND ids after each compaction.
//   profiles/<profile>     the <scope> that profile last used, on the first line (all a shell
//                          reads); on the second, a digest of the ids its last run wrote.
//
// A scope is one service and one account: 16 hex characters of SHA-256 over the base URL (for the
// embedded sandbox, its data directory) and the account's username, so profiles of one service
// with other accounts, and workspaces of one sandbox, never see each other's ids.
//
// Nothing here is a secret: only identifiers (hash ids, ISBNs, SKUs, usernames, e-mail addresses,
// order, purchase and price ids) and descriptions made of titles, authors, names, dates and
// amounts. Codes, keys, tokens, passwords and signatures are never read from a body (collect()
// takes named fields only). Removing the directory loses nothing: it is a cache.
import { hash } from 'node:crypto';
import { closeSync, constants, fstatSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { privateDirSync, readTextSync, writeFileAtomicSync } from '../util/fs-safe.js';
import { homeDir } from '../util/home.js';

/** The kinds of ids the cache keeps, one file each. */
export type IdKind =
  | 'book'
  | 'isbn'
  | 'sku'
  | 'user'
  | 'email'
  | 'order'
  | 'purchase'
  | 'price'
  | 'org'
  | 'label'
  | 'ledger';

/** Ids kept per kind (and scope) after a compaction; the newest win. */
const MAX_PER_KIND = 10_000;
/** A kind's file is compacted once it grows past this many bytes (10,000 lines fit well under it). */
const COMPACT_BYTES = 2 * 1024 * 1024;
const MAX_DESCRIPTION = 100;

/** Is the cache off? `BOOKDIST_CACHE=off` (or 0/false/no), or --no-cache. Covers this cache only. */
export function cacheDisabled(env: Record<string, string | undefined>): boolean {
  return /^(off|0|false|no)$/i.test(env.BOOKDIST_CACHE ?? '');
}

/** $XDG_CACHE_HOME/bookdist/ids, else ~/.cache/bookdist/ids (~ is HOME: ../util/home.ts). */
export function idsDir(env: Record<string, string | undefined>): string {
  const base = env.XDG_CACHE_HOME || join(homeDir(env), '.cache');
  return join(base, 'bookdist', 'ids');
}

/** The scope of a service and account (see the top of this file). */
export function scopeOf(service: string, account: string): string {
  return hash('sha256', `${service}\n${account}`).slice(0, 16);
}

/** What clean() changes: a control character, a space that is not ' ', two spaces, a space at either end. */
const UNCLEAN = /[\u0000-\u001f\u007f-\u009f]|[^\S ]| {2}|^ | $/;

/** One line of text: no control characters, no tabs, trimmed to MAX_DESCRIPTION characters. */
function clean(s: string): string {
  // Most descriptions are clean already: one test instead of two replacements and a trim.
  if (s.length <= MAX_DESCRIPTION && !UNCLEAN.test(s)) return s;
  const one = s
    .replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return one.length > MAX_DESCRIPTION ? `${[...one].slice(0, MAX_DESCRIPTION - 1).join('')}…` : one;
}

/** The last `n` entries of `m`, in order. */
function newest(m: Map<string, string>, n: number): Map<string, string> {
  const out = new Map<string, string>();
  let skip = m.size - n;
  for (const [id, d] of m)
    if (skip > 0) skip--;
    else out.set(id, d);
  return out;
}

/** An id as a completion word: printable, no spaces, tabs or quotes (anything else is not kept). */
const ID_WORD = /^[A-Za-z0-9@._+%-]{1,254}$/;

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const idStr = (v: unknown): string | undefined =>
  typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : str(v);
const joined = (...parts: Array<string | undefined>) => parts.filter(Boolean).join(' · ');

/** What a run has seen, by kind: id → description, the latest last. */
export class IdCollector {
  private readonly kinds = new Map<IdKind, Map<string, string>>();

  /** What the run saw, by kind: id → description, the latest last, the newest MAX_PER_KIND of each. */
  get seen(): ReadonlyMap<IdKind, Map<string, string>> {
    for (const [kind, m] of this.kinds) if (m.size > MAX_PER_KIND) this.kinds.set(kind, newest(m, MAX_PER_KIND));
    return this.kinds;
  }

  add(kind: IdKind, id: string | undefined, description = ''): void {
    if (!id || !ID_WORD.test(id)) return;
    let m = this.kinds.get(kind);
    if (!m) this.kinds.set(kind, (m = new Map()));
    const d = clean(description);
    // A richer description seen earlier in the run is not replaced by a poorer one.
    const before = m.get(id);
    m.delete(id);
    m.set(id, d.length >= (before?.length ?? 0) ? d : before!);
    // Cut to the newest in bulk, not the oldest one at a time: V8 finds a Map's first key by
    // walking past the slots its deleted keys left, so dropping one key per add over a long
    // listing was quadratic (`book list --all` of 50,000 books: about 8 adds a book, most of
    // the CLI's CPU). `seen` cuts to the bound, so what is written is the same.
    if (m.size >= 2 * MAX_PER_KIND) this.kinds.set(kind, newest(m, MAX_PER_KIND));
  }

  /** Add what `later` saw after this one's ids (so they count as the more recent). */
  merge(later: IdCollector): this {
    for (const [kind, m] of later.seen) for (const [id, d] of m) this.add(kind, id, d);
    return this;
  }

  get size(): number {
    let n = 0;
    for (const m of this.seen.values()) n += m.size;
    return n;
  }

  /**
   * Take what a write names that no answer returns: its organization and white label (what
   * `order create --org` and `codes generate --label` were given), and its ledger row.
   */
  collectWrite(payload: Record<string, unknown> | undefined, ledger?: { id: string; op: string; at: Date }): void {
    const org = str(payload?.org);
    const label = str(payload?.label);
    this.add('org', org);
    this.add('label', label);
    if (ledger) {
      // A book by the start of its hash id, so that the line keeps its other names.
      const book = str(payload?.hash_id)?.slice(0, 12);
      const names = [payload?.username, payload?.email, book, org, label, payload?.order_id].filter(
        (v) => typeof v === 'string' || typeof v === 'number',
      );
      this.add(
        'ledger',
        ledger.id,
        joined(ledger.op, ledger.at.toISOString().slice(0, 16).replace('T', ' '), names.join(' ')),
      );
    }
  }

  /** Take the ids of a service answer (a parsed JSON body), by shape, at any depth. */
  collect(body: unknown): void {
    this.walk(body, 0, undefined);
  }

  private walk(v: unknown, depth: number, bookTitle: string | undefined): void {
    if (depth > 8) return;
    if (Array.isArray(v)) {
      for (const x of v) this.walk(x, depth + 1, bookTitle);
      return;
    }
    if (!isRec(v)) return;
    const title = this.record(v, bookTitle);
    // for...in, not Object.entries: no array of pairs per object (a parsed body's objects are plain).
    for (const k in v) {
      const x = v[k];
      if (typeof x === 'object' && x !== null) this.walk(x, depth + 1, k === 'digital_pricing' ? title : undefined);
    }
  }

  /**
   * The ids one object names. `bookTitle`: the title of the book whose digital_pricing holds it.
   * Returns the object's own title (a book's), for its prices.
   */
  private record(o: Rec, bookTitle: string | undefined): string | undefined {
    const title = str(o.title);
    const hash = str(o.hash_id);
    if (hash && title && /^[0-9a-f]{40}$/.test(hash)) {
      this.add('book', hash, joined(title, str(o.author)));
      const ids = isRec(o.identifiers) ? o.identifiers : {};
      for (const k of ['isbn13', 'eisbn13', 'isbn10', 'eisbn10', 'parent_isbn']) this.add('isbn', str(ids[k]), title);
      this.add('sku', str(ids.sku), title);
    }
    const username = str(o.username);
    if (username && /^[0-9a-f]{30}$/.test(username)) {
      const name = str(o.full_name) ?? joined(str(o.first_name), str(o.last_name)).replace(' · ', ' ');
      const email = str(o.email);
      this.add('user', username, joined(email, name));
      if (email && email.includes('@')) this.add('email', email, joined(name, username));
    }
    const id = idStr(o.id);
    if (id && Array.isArray(o.items) && isRec(o.totals)) {
      const first = o.items.find(isRec);
      const date = str(first?.purchase_date)?.slice(0, 10);
      const total = o.totals.total;
      const buyer = str(o.username) ?? str(isRec(first?.user) ? first.user.username : undefined);
      this.add(
        'order',
        id,
        joined(date, typeof total === 'number' || typeof total === 'string' ? String(total) : undefined, buyer),
      );
    }
    if (id && str(o.purchase_date) && isRec(o.book)) {
      const who = isRec(o.user) ? str(o.user.username) : undefined;
      this.add('purchase', id, joined(str(o.book.title), who, str(o.purchase_date)?.slice(0, 10)));
    }
    if (id && str(o.price) && str(o.currency) && !o.purchase_date) {
      this.add('price', id, joined(`${str(o.price)} ${str(o.currency)}`, str(o.description), bookTitle));
    }
    // A price offer of the price comparison (interface 2.11): Id is the price id offers checkout takes.
    const offer = idStr(o.Id);
    if (offer && str(o.Price)) {
      const days = typeof o.RentalDays === 'number' && o.RentalDays > 0 ? `${o.RentalDays}-day rental` : undefined;
      this.add('price', offer, joined(str(o.Price), str(o.Condition), days));
    }
    return title;
  }
}

/** Where one scope's files are, and the profile that points at it. */
export interface CacheTarget {
  dir: string;
  scope: string;
  /** The profile to point at the scope ('' for none: settings given by flags or environment). */
  profile: string;
}

/**
 * Append `text` to `file`, unless the file ends with it already (the same ids seen again, as a
 * repeated `book get` sees them: the newest lines would not change, so the file need not grow);
 * the file's size after.
 */
function appendLines(file: string, text: string): number {
  const { O_RDWR, O_APPEND, O_CREAT, O_NOFOLLOW, O_NONBLOCK } = constants;
  const fd = openSync(file, O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK, 0o600);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw Object.assign(new Error(`not a regular file: ${file}`), { code: 'ENOTREG' });
    const bytes = Buffer.from(text);
    if (st.size >= bytes.length) {
      const tail = Buffer.allocUnsafe(bytes.length);
      if (readSync(fd, tail, 0, bytes.length, st.size - bytes.length) === bytes.length && tail.equals(bytes))
        return st.size;
    }
    writeSync(fd, bytes);
    return st.size + bytes.length;
  } finally {
    closeSync(fd);
  }
}

/** Keep the newest line of each id, at most MAX_PER_KIND of them, in their order. */
export function compactLines(text: string, max = MAX_PER_KIND): string {
  const latest = new Map<string, string>();
  for (const line of text.split('\n')) {
    const tab = line.indexOf('\t');
    if (tab <= 0) continue;
    const id = line.slice(0, tab);
    latest.delete(id);
    latest.set(id, line);
  }
  const lines = [...latest.values()];
  return lines.slice(Math.max(0, lines.length - max)).join('\n') + (lines.length ? '\n' : '');
}

/** The text a run appends to each kind's file: one line an id, the newest last. */
function kindTexts(collector: IdCollector): Array<[IdKind, string]> {
  const out: Array<[IdKind, string]> = [];
  for (const [kind, m] of collector.seen) {
    if (!m.size) continue;
    let text = '';
    for (const [id, d] of m) text += `${id}\t${d}\n`;
    out.push([kind, text]);
  }
  return out;
}

/** What the profile's file says after a run that wrote `texts` to `scope` (see the top of this file). */
function profileText(scope: string, texts: Array<[IdKind, string]>): string {
  // One-shot (crypto.hash): a Hash object would load Node's stream classes for it.
  const digest = hash('sha256', texts.map(([kind, text]) => `${kind}\n${text}`).join(''));
  return `${scope}\n${digest.slice(0, 32)}\n`;
}

/**
 * A profile's file (readTextSync: never through a link, never blocking on a FIFO): undefined when
 * missing, unreadable, not a regular file or longer than a profile's file is (then it is replaced:
 * a rename never writes through a link).
 */
function readProfile(path: string): string | undefined {
  try {
    const text = readTextSync(path);
    return text !== undefined && text.length < 128 ? text : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Write the digest line of a profile's file in place, after its scope line (the same length every
 * time: a shell reading the file at the same moment reads the same scope line). The file was
 * pointed at its scope just before; anything else there (a link, a FIFO) is left as it is.
 */
function writeDigest(path: string, text: string): void {
  const { O_WRONLY, O_NOFOLLOW, O_NONBLOCK } = constants;
  const fd = openSync(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return;
    const at = text.indexOf('\n') + 1;
    writeSync(fd, text.slice(at), at);
    if (st.size > text.length) ftruncateSync(fd, text.length);
  } finally {
    closeSync(fd);
  }
}

/**
 * Append what a run saw to its scope's files and point the profile at the scope. Best effort: a
 * cache that cannot be written is skipped (the command's own result matters, not this).
 *
 * A run that sees what the profile's last run saw (a repeated `book get`) writes nothing: the
 * profile's file holds the scope and a digest of the ids its last run wrote, and one read of it
 * tells. The files then end with those lines already, unless another profile of the same scope
 * appended since (the ids are there all the same, only not the most recent), or a kind's file was
 * removed by hand (written again by the next run that sees something else).
 */
export function flush(collector: IdCollector, target: CacheTarget): void {
  try {
    const texts = kindTexts(collector);
    const profiles = join(target.dir, 'profiles');
    const profile = /^[A-Za-z0-9_-]{1,64}$/.test(target.profile) ? join(profiles, target.profile) : undefined;
    const want = profile ? profileText(target.scope, texts) : '';
    const had = profile && readProfile(profile);
    const pointed = had?.startsWith(`${target.scope}\n`) ?? false;
    if (profile && pointed && (texts.length === 0 || had === want)) return;
    privateDirSync(target.dir);
    const scopeDir = join(target.dir, target.scope);
    privateDirSync(scopeDir);
    privateDirSync(profiles);
    // The profile is pointed at its scope first, as it always was, made to survive a crash.
    if (profile && !pointed) writeFileAtomicSync(profile, `${target.scope}\n`);
    for (const [kind, text] of texts) {
      const file = join(scopeDir, `${kind}.tsv`);
      const size = appendLines(file, text);
      if (size > COMPACT_BYTES) writeFileAtomicSync(file, compactLines(readTextSync(file) ?? ''));
    }
    // Then the digest of what is written now (not fsynced: a lost digest only costs the next run its shortcut).
    if (profile && texts.length) writeDigest(profile, want);
  } catch {
    // A read-only or planted cache directory: completion goes without, the command does not fail.
  }
}

/** Every entry of a kind in a scope, newest first (for tests and `completion refresh`'s count). */
export function readEntries(dir: string, scope: string, kind: IdKind): Array<{ id: string; description: string }> {
  const text = readTextSync(join(dir, scope, `${kind}.tsv`)) ?? '';
  return compactLines(text, Number.MAX_SAFE_INTEGER)
    .split('\n')
    .filter(Boolean)
    .reverse()
    .map((l) => ({ id: l.slice(0, l.indexOf('\t')), description: l.slice(l.indexOf('\t') + 1) }));
}
