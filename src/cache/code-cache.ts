// V8's code cache for bookdist's own chunks (issue 31). dist/ is CommonJS (scripts/build.mjs):
// with the cache on, Node's loader hands each of dist/'s files to load() below, which compiles it
// with vm.Script and the cache entry a previous run left, and runs it as Node's loader would (the
// same wrapper, exports, require, module, __filename and __dirname). At exit, a run that found no
// usable entry for a chunk writes one: script.createCachedData() then holds the functions that
// run compiled, lazily, as they were called, and nothing else (the top level alone, made before
// the run as Node's compile cache makes it, left every function to be compiled again; the whole
// chunk compiled eagerly made entries twice the size, half of them functions a command never
// calls). A later command that calls other functions compiles those as it would without a cache.
//
// V8 checks an entry's header (its V8 version and flags, the source's length) but not its payload
// in a release build: 64 bytes flipped aborted Node (exit 133). So every entry carries a CRC-32 of
// its own, checked before V8 sees it, and one that fails (truncated, corrupt, not ours) is not
// given to V8: the chunk is compiled as without a cache and its entry written again at exit. An
// entry V8 refuses (another source: a build whose key matched by mistake) is written again too.
// The directory (one per bookdist build and Node: src/cache/compile-cache.ts) is checked before
// this is installed; each entry is opened without following a link and read only when it is a
// regular file, and written to a new temporary file (0600, never through a link) renamed into
// place, so that a run reading it at the same time sees the old entry or the new one. A write that
// fails (a read-only directory) is dropped: the cache is an optimisation, never a condition.
//
// The write is done at exit, after the command's output: a first run, or one after an upgrade,
// pays it (about the time of compiling the chunks it loaded); a warm run reads and writes nothing else.
// No import of a Node built-in at the top (see bin/bookdist): they come through process.getBuiltinModule.

/** What Node's CommonJS loader gives a file's loader (the parts used here). */
type NodeModule = { exports: unknown; require(id: string): unknown };
type Loader = (module: NodeModule, filename: string) => void;
type Crc = (data: Uint8Array) => number;

/** "BDV8", little-endian: the first word of every entry, then the CRC-32 and length of what follows the header. */
const MAGIC = 0x38564442;
/** MAGIC, CRC-32, the body's length, the commands' length; then the commands (each ended by a newline), then V8's data. */
const HEADER = 16;

/** An entry: V8's code cache of a chunk, and the commands whose runs made it (their functions are in it). */
export type Entry = { data: Uint8Array; commands: string[] };

/** An entry's bytes: the header, then the commands, then V8's data. */
export function pack(entry: Entry, crc32: Crc): Buffer {
  const commands = Buffer.from(entry.commands.map((c) => `${c}\n`).join(''));
  const out = Buffer.allocUnsafe(HEADER + commands.length + entry.data.length);
  out.writeUInt32LE(MAGIC, 0);
  out.writeUInt32LE(out.length - HEADER, 8);
  out.writeUInt32LE(commands.length, 12);
  out.set(commands, HEADER);
  out.set(entry.data, HEADER + commands.length);
  out.writeUInt32LE(crc32(out.subarray(HEADER)), 4);
  return out;
}

/** The entry in these bytes, or why there is none (V8 is then given nothing). */
export function unpack(bytes: Buffer, crc32: Crc): Entry | string {
  if (bytes.length < HEADER || bytes.readUInt32LE(0) !== MAGIC) return 'not an entry of this cache';
  if (bytes.length !== HEADER + bytes.readUInt32LE(8)) return 'truncated';
  const body = bytes.subarray(HEADER);
  const n = bytes.readUInt32LE(12);
  if (n > body.length || crc32(body) !== bytes.readUInt32LE(4)) return 'corrupt (its checksum does not match)';
  return { commands: n ? body.toString('latin1', 0, n - 1).split('\n') : [], data: body.subarray(n) };
}

/** The bytes of the regular file at `path` (never through a link, never blocking on a FIFO), or why not. */
function readEntry(path: string): Buffer | string {
  const fs = process.getBuiltinModule('node:fs');
  const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = fs.constants;
  let fd: number;
  try {
    fd = fs.openSync(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? 'none yet' : `unreadable (${code})`;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return 'not a regular file';
    const bytes = Buffer.allocUnsafe(st.size);
    let at = 0;
    for (let n; at < bytes.length && (n = fs.readSync(fd, bytes, at, bytes.length - at, at)) > 0; ) at += n;
    return at === bytes.length ? bytes : 'truncated';
  } catch (e) {
    return `unreadable (${(e as NodeJS.ErrnoException).code})`;
  } finally {
    fs.closeSync(fd);
  }
}

/** Write `bytes` to `path`: a new temporary file beside it (0600, never a link), renamed into place. */
export function writeEntry(path: string, bytes: Uint8Array): void {
  const fs = process.getBuiltinModule('node:fs');
  const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;
  const tmp = `${path}.${process.pid}-${Math.random().toString(36).slice(2, 10)}.tmp`;
  const fd = fs.openSync(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
  try {
    try {
      for (let at = 0; at < bytes.length; ) at += fs.writeSync(fd, bytes, at);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, path);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
}

/** The CRC-32 Node computes (node:zlib, taken when the first entry is checked or written). */
const crc32: Crc = (data) => process.getBuiltinModule('node:zlib').crc32(data);

/** The V8 flags of this process (its own, and NODE_OPTIONS'), as a short name: V8 refuses an entry made under other flags. */
function flagsTag(): string {
  let h = 0x811c9dc5;
  for (const c of `${process.execArgv.join(' ')}\n${process.env.NODE_OPTIONS ?? ''}`)
    h = Math.imul(h ^ c.charCodeAt(0), 0x01000193);
  return (h >>> 0).toString(36);
}

/**
 * Load dist/'s files (every path under `dist`) through V8's code cache kept in `dir`. `command`
 * names what this run does (its first words, src/launch.ts): an entry that holds no run of it is
 * written again at exit, with this run's functions added to those it held, so that the functions
 * of every command that loads a chunk come to be in its entry, each written once. `debug` hears
 * what happens to each entry. Other files load as before.
 */
export function startCodeCache(dir: string, dist: string, command: string, debug?: (line: string) => void): void {
  const Module = process.getBuiltinModule('node:module') as unknown as {
    _extensions: Record<string, Loader>;
    wrap(source: string): string;
  };
  const vm = process.getBuiltinModule('node:vm');
  const fs = process.getBuiltinModule('node:fs');
  const original = Module._extensions['.js'];
  const tag = flagsTag();
  const toWrite: { script: import('node:vm').Script; path: string; name: string; commands: string[] }[] = [];
  Module._extensions['.js'] = function load(this: unknown, module: NodeModule, filename: string) {
    if (!filename.startsWith(dist)) return original.call(this, module, filename);
    const source = fs.readFileSync(filename, 'utf8');
    const name = filename.slice(dist.length).replaceAll('/', '_');
    const path = `${dir}/${tag}-${name}`;
    const read = readEntry(path);
    const entry = typeof read === 'string' ? read : unpack(read, crc32);
    const cachedData = typeof entry === 'string' ? undefined : entry.data;
    const script = new vm.Script(Module.wrap(source), { filename, cachedData });
    const unused = typeof entry === 'string' ? entry : script.cachedDataRejected ? 'refused by V8' : '';
    if (unused) toWrite.push({ script, path, name, commands: [command] });
    else if (typeof entry !== 'string' && !entry.commands.includes(command))
      toWrite.push({ script, path, name, commands: [...entry.commands, command] });
    debug?.(`${name}: ${unused ? `no entry used: ${unused}` : `entry accepted (${cachedData!.length} bytes)`}`);
    const dirname = filename.slice(0, filename.lastIndexOf('/'));
    const fn = script.runInThisContext() as (...args: unknown[]) => void;
    fn.call(module.exports, module.exports, (id: string) => module.require(id), module, filename, dirname);
  };
  process.on('exit', () => {
    for (const { script, path, name, commands } of toWrite) {
      try {
        const data = script.createCachedData();
        writeEntry(path, pack({ data, commands }, crc32));
        debug?.(`${name}: entry written (${data.length} bytes, for ${commands.map((c) => `'${c}'`).join(', ')})`);
      } catch (e) {
        debug?.(`${name}: entry not written (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
      }
    }
  });
}
