// Where bookdist's code cache lives (issue 31), and the checks made before any of it is read:
// V8 code for dist/'s chunks kept between runs, so that from the second run on V8 deserialises the
// functions a command calls instead of parsing and compiling them (src/cache/code-cache.ts loads
// the chunks through it). The launcher (dist/version.js, src/launch.ts) calls openCodeCache()
// before it loads dist/main.js; nothing else in bookdist knows about it.
//
//   $XDG_CACHE_HOME/bookdist/compile-cache/<key>/<chunk>   (else ~/.cache/bookdist/...)
//
// - <key> names bookdist's version and build (the launcher passes both: src/launch.ts), the Node
//   version, architecture and V8 version: a cache made by another bookdist, another build of it
//   or another Node is never read (an upgrade or a rebuild starts a new directory and removes the
//   others, so a directory holds the entries of one build's chunks only);
// - every directory from bookdist/ down is a real directory (never a link), owned by this user,
//   0700; every entry in the key directory is a regular file (a link, a FIFO or a directory there
//   could make a run read something else, or block for ever on a FIFO);
// - anything else — no home directory, a read-only or unreadable directory, something planted —
//   and bookdist runs without the cache: the same code, the same output, only not faster.
//   An entry that is not a regular file is removed, so that the next run can use the cache again.
//
// Only code is cached, never state: the environment, the clock, the terminal, the working
// directory and the signal handlers are all read after start, as without the cache.
// BOOKDIST_COMPILE_CACHE=off and NODE_DISABLE_COMPILE_CACHE turn it off; with NODE_COMPILE_CACHE
// set, Node keeps its own compile cache there, for every module, and bookdist's is off. Removing
// the directory loses nothing.
//
// No import of a Node built-in at the top (see bin/bookdist): they come through
// process.getBuiltinModule when this runs.
import type { Dirent } from 'node:fs';

/** What openCodeCache() found: the directory the cache is kept in, or why there is none. */
export type CompileCacheState = { used: true; dir: string } | { used: false; reason: string };

type Env = Record<string, string | undefined>;

/** Is bookdist's compile cache turned off (`BOOKDIST_COMPILE_CACHE=off`, 0, false or no)? */
function turnedOff(env: Env): boolean {
  return /^(off|0|false|no)$/i.test(env.BOOKDIST_COMPILE_CACHE ?? '');
}

/** $XDG_CACHE_HOME/bookdist/compile-cache, else ~/.cache/bookdist/compile-cache (absolute paths only). */
export function compileCacheRoot(env: Env): string | undefined {
  const base = env.XDG_CACHE_HOME?.startsWith('/')
    ? env.XDG_CACHE_HOME
    : env.HOME?.startsWith('/')
      ? `${env.HOME}/.cache`
      : undefined;
  return base && `${base.replace(/\/+$/, '')}/bookdist/compile-cache`;
}

/** The cache directory's name for this bookdist on this Node: a cache of another never matches. */
export function compileCacheKey(
  version: string,
  versions: NodeJS.ProcessVersions = process.versions,
  arch: string = process.arch,
): string {
  return `${version}-node${versions.node}-${arch}-v8-${versions.v8}`.replace(/[^\w.+-]/g, '_');
}

/** Why `dir` may not hold the cache (a link, not a directory, another user's), or undefined when it may; made 0700. */
function unsafeDir(dir: string): string | undefined {
  const fs = process.getBuiltinModule('node:fs');
  const st = fs.lstatSync(dir);
  if (st.isSymbolicLink()) return `${dir} is a symbolic link`;
  if (!st.isDirectory()) return `${dir} is not a directory`;
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) return `${dir} belongs to another user`;
  if ((st.mode & 0o077) !== 0) fs.chmodSync(dir, 0o700);
  return undefined;
}

/** Create `dir` (0700) when missing; true when this call made it. */
function makeDir(dir: string): boolean {
  try {
    process.getBuiltinModule('node:fs').mkdirSync(dir, { mode: 0o700 });
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
}

/**
 * Entries kept at most: one per file of dist/ a command loads and set of Node flags (NODE_OPTIONS
 * among them), so a few dozen; past this many (flags that vary from run to run, a profile directory
 * in NODE_OPTIONS) they are all removed, and the runs after write again what they use.
 */
export const MAX_ENTRIES = 1000;

/**
 * The entries of the key directory that are not regular files, removed (all of them past
 * MAX_ENTRIES); a description of the first, or undefined.
 */
function strayEntries(keyDir: string): string | undefined {
  const fs = process.getBuiltinModule('node:fs');
  let found: string | undefined;
  const entries = fs.readdirSync(keyDir, { withFileTypes: true });
  for (const entry of entries) {
    if (entry.isFile() && entries.length <= MAX_ENTRIES) continue;
    if (!entry.isFile()) found ??= `${keyDir}/${entry.name} is ${kindOf(entry)}`;
    try {
      fs.rmSync(`${keyDir}/${entry.name}`, { recursive: true, force: true });
    } catch {
      /* left for the next start: the cache is off for this one anyway */
    }
  }
  return found;
}

function kindOf(d: Dirent): string {
  return d.isSymbolicLink()
    ? 'a symbolic link'
    : d.isDirectory()
      ? 'a directory'
      : d.isFIFO()
        ? 'a FIFO'
        : d.isFile()
          ? 'a file'
          : 'not a regular file';
}

/**
 * Remove the caches of other bookdist or Node versions (after an upgrade made a new one), and the
 * one earlier versions kept unchecked beside it (bookdist/node-compile-cache).
 */
function pruneOthers(root: string, key: string): void {
  const fs = process.getBuiltinModule('node:fs');
  for (const d of fs.readdirSync(root, { withFileTypes: true })) {
    if (d.name !== key) fs.rmSync(`${root}/${d.name}`, { recursive: true, force: true });
  }
  fs.rmSync(`${root.slice(0, root.lastIndexOf('/'))}/node-compile-cache`, { recursive: true, force: true });
}

/**
 * The directory of bookdist's code cache for this build and Node, made and checked (above), or
 * why there is none. Never throws: the cache is an optimisation, never a condition.
 */
export function openCodeCache(env: Env, version: string): CompileCacheState {
  if (env.NODE_COMPILE_CACHE)
    return { used: false, reason: 'NODE_COMPILE_CACHE is set: Node keeps its cache there itself' };
  if (env.NODE_DISABLE_COMPILE_CACHE) return { used: false, reason: 'NODE_DISABLE_COMPILE_CACHE is set' };
  if (turnedOff(env)) return { used: false, reason: 'BOOKDIST_COMPILE_CACHE is off' };
  const root = compileCacheRoot(env);
  if (!root) return { used: false, reason: 'no cache directory: neither XDG_CACHE_HOME nor HOME is an absolute path' };
  const key = compileCacheKey(version);
  const dir = `${root}/${key}`;
  try {
    const fs = process.getBuiltinModule('node:fs');
    const bookdist = root.slice(0, root.lastIndexOf('/'));
    // The cache home itself ($XDG_CACHE_HOME, ~/.cache) may be a link (the user's choice); below it, nothing may.
    // Made level by level: Node's recursive mkdir never returns when a parent exists but cannot
    // hold the child (a HOME under /proc answers ENOENT, its parent EEXIST, for ever).
    const missing: string[] = [];
    for (
      let p = bookdist.slice(0, bookdist.lastIndexOf('/'));
      p && !fs.existsSync(p);
      p = p.slice(0, p.lastIndexOf('/'))
    )
      missing.unshift(p);
    for (const p of missing) makeDir(p);
    let fresh = false;
    for (const d of [bookdist, root, dir]) {
      // Made only when missing (a run that finds it pays no failed mkdir).
      fresh = !fs.lstatSync(d, { throwIfNoEntry: false }) && makeDir(d);
      const unsafe = unsafeDir(d);
      if (unsafe) return { used: false, reason: unsafe };
    }
    if (fresh) pruneOthers(root, key);
    const stray = strayEntries(dir);
    if (stray) return { used: false, reason: stray };
    return { used: true, dir };
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    return { used: false, reason: `${err.code ?? 'error'}: ${err.path ?? err.message}` };
  }
}
