// Stored profiles (conf to write; a plain JSON read of the same file to read). Files 0600 in a 0700 directory; a profile's key is copied into
// <config dir>/keys/<name>.pem (0600) so the profile keeps working when the original moves.
// A change (profile add, remove, use) reads, changes and writes the store under a lock
// (./lock.ts): ten `profile add` at once keep all ten, where each used to write back the store it
// had read. conf writes the file atomically (a temporary file renamed into place), as
// writeKeyCopy does the key copies.
import { chmodSync, existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { CliError, errorCode, ExitCode } from '../errors.js';
import { makeDirSync } from '../util/fs-safe.js';
import { join, resolve, sep } from 'node:path';
import { readBounded, unreadableReason } from '../util/read-bounded.js';

export interface ProfileData {
  baseUrl?: string;
  storeUrl?: string;
  username?: string;
  /** Path of the RSA private key (PEM); `profile add` copies the key into the config dir. */
  keyFile?: string;
  sharedKey?: string;
  token?: string;
  /** A CA bundle (PEM) trusted besides Node's roots, for a service whose certificate a private CA signed. */
  caFile?: string;
  /** The service honours Idempotency-Key: keyed writes may be retried after a lost answer. */
  idempotencyKeys?: boolean;
  /** false: this profile's writes are not recorded in the ledger (`profile add --no-ledger`). */
  ledger?: boolean;
}

export interface StoreShape {
  current?: string;
  profiles: Record<string, ProfileData>;
}

export const CONFIG_FILE = 'config.json';
export const KEYS_DIR = 'keys';

/** A profile name: letters, digits, `-` and `_` (no dots: conf reads dots as paths). */
export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

function ensureDir(dir: string): void {
  makeDirSync(dir);
  try {
    chmodSync(dir, 0o700);
  } catch {
    /* not ours to change (a shared directory): the files in it are still 0600 */
  }
}

async function openStore(dir: string) {
  ensureDir(dir);
  const { default: Conf } = await import('conf');
  const conf = new Conf<StoreShape>({
    cwd: dir,
    configName: 'config',
    projectName: 'bookdist',
    configFileMode: 0o600,
    defaults: { profiles: {} },
  });
  return conf;
}

/**
 * Profiles by name in an object without a prototype: `constructor`, `toString` or `valueOf` are
 * ordinary profile names, never the methods every object inherits (issue 22).
 */
function profileTable<T>(from: Record<string, T> | undefined): Record<string, T> {
  return Object.assign(Object.create(null) as Record<string, T>, from ?? {});
}

export async function readStore(dir: string): Promise<StoreShape> {
  // A plain JSON read of conf's file (same path): conf, ajv and semver load only to write.
  const path = join(dir, CONFIG_FILE);
  let text: string;
  try {
    // Bounded (a size cap, never blocking on a FIFO, never reading a device): it is read on every command.
    text = await readBounded(path);
  } catch (e) {
    if (errorCode(e) === 'ENOENT') return { profiles: profileTable({}) };
    // HOME (or a directory above the config's) is a file: a directory bookdist cannot use.
    if (errorCode(e) === 'ENOTDIR')
      throw new CliError(
        `Cannot read the config file ${path}: a part of that path is a file, not a directory (is HOME a directory?). ` +
          'Set BOOKDIST_CONFIG_DIR to a directory for the profiles, and BOOKDIST_DATA_DIR to one for the sandbox.',
        ExitCode.USAGE,
      );
    const refused = /^E(TOOBIG|DEVICE|ISDIR|NOWRITER|TIMEDOUT)$/.test(errorCode(e) ?? '');
    throw new CliError(
      `Cannot read the config file ${path}: ${unreadableReason(e)}.${refused ? ' It must be the JSON file bookdist writes: remove what is there (or set BOOKDIST_CONFIG_DIR to another directory) and add the profiles again.' : ''}`,
      refused ? ExitCode.USAGE : ExitCode.ERROR,
    );
  }
  let parsed: unknown;
  try {
    parsed = text.trim() ? JSON.parse(text) : {};
  } catch {
    throw new CliError(
      `The config file ${path} is not valid JSON. Fix it, or remove it and add the profiles again (\`bookdist profile add\`).`,
      ExitCode.ERROR,
    );
  }
  const data: { current?: unknown; profiles?: unknown } =
    parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : {};
  const profiles =
    data.profiles && typeof data.profiles === 'object' && !Array.isArray(data.profiles)
      ? (data.profiles as Record<string, ProfileData>)
      : {};
  return { current: typeof data.current === 'string' ? data.current : undefined, profiles: profileTable(profiles) };
}

/**
 * Apply a change to the whole store and write it back (one atomic file write, 0600), holding the
 * store's lock from the read to the write. `change` may throw to refuse (nothing is written).
 */
export async function updateStore(dir: string, change: (store: StoreShape) => void): Promise<StoreShape> {
  ensureDir(dir);
  const { withStoreLock } = await import('./lock.js');
  return withStoreLock(dir, async () => {
    const conf = await openStore(dir);
    const store: StoreShape = {
      current: conf.get('current'),
      profiles: profileTable(structuredClone(conf.get('profiles') ?? {})),
    };
    change(store);
    conf.set('profiles', store.profiles);
    if (store.current) conf.set('current', store.current);
    else conf.delete('current');
    try {
      chmodSync(join(dir, CONFIG_FILE), 0o600);
    } catch {
      /* conf wrote it with the process umask; best effort */
    }
    return store;
  });
}

/** Where `profile add` keeps the copy of a profile's key. */
function keyPathFor(dir: string, name: string): string {
  return join(dir, KEYS_DIR, `${name}.pem`);
}

/** Write a profile's key copy: 0600 in a 0700 directory. Returns its path. */
export function writeKeyCopy(dir: string, name: string, pem: string | Buffer): string {
  ensureDir(dir);
  ensureDir(join(dir, KEYS_DIR));
  const path = keyPathFor(dir, name);
  // Written beside it and renamed into place: a reader never sees half a key.
  const tmp = `${path}.${process.pid}.tmp`;
  rmSync(tmp, { force: true });
  writeFileSync(tmp, pem, { mode: 0o600, flag: 'wx' });
  renameSync(tmp, path);
  return path;
}

/** Delete a key file only if it is one of our copies (inside <dir>/keys/). */
export function removeKeyCopy(dir: string, keyFile: string | undefined): boolean {
  if (!keyFile) return false;
  const keys = resolve(dir, KEYS_DIR) + sep;
  const target = resolve(keyFile);
  if (!target.startsWith(keys) || !existsSync(target)) return false;
  rmSync(target, { force: true });
  return true;
}
