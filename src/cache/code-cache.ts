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
// in a release build: 64 bytes flipped aborted Node (exit 133). So every entry carries a checksum
// of its own (makeSum below), checked before V8 sees it, and one that fails (truncated, corrupt,
// not ours) is not given to V8: the chunk is compiled as without a cache and its entry written again at exit. An
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
import { withCodeCacheVariant } from './cache-variant.js';

/** What Node's CommonJS loader gives a file's loader (the parts used here). */
type NodeModule = { exports: unknown; require(id: string): unknown };
type Loader = (module: NodeModule, filename: string) => void;
type Sum = (data: Uint8Array) => bigint;

/** "BDVA", little-endian: the first word of every entry (BDV9 before the checksum took four lanes). */
const MAGIC = 0x41564442;
/** MAGIC, the body's length, the commands' length, the body's checksum (64 bits); then the body: the commands (each ended by a newline), then V8's data. */
const HEADER = 20;

/** An entry: V8's code cache of a chunk, and the commands whose runs made it (their functions are in it). */
export type Entry = { data: Uint8Array; commands: string[] };

/** An entry's bytes: the header, then the commands, then V8's data. */
export function pack(entry: Entry, sum: Sum): Buffer {
  const commands = Buffer.from(entry.commands.map((c) => `${c}\n`).join(''));
  const out = Buffer.allocUnsafe(HEADER + commands.length + entry.data.length);
  out.writeUInt32LE(MAGIC, 0);
  out.writeUInt32LE(out.length - HEADER, 4);
  out.writeUInt32LE(commands.length, 8);
  out.set(commands, HEADER);
  out.set(entry.data, HEADER + commands.length);
  out.writeBigUInt64LE(sum(out.subarray(HEADER)), 12);
  return out;
}

/** The entry in these bytes, or why there is none (V8 is then given nothing). */
export function unpack(bytes: Buffer, sum: Sum): Entry | string {
  if (bytes.length < HEADER || bytes.readUInt32LE(0) !== MAGIC) return 'not an entry of this cache';
  if (bytes.length !== HEADER + bytes.readUInt32LE(4)) return 'truncated';
  const body = bytes.subarray(HEADER);
  const n = bytes.readUInt32LE(8);
  if (n > body.length || sum(body) !== bytes.readBigUInt64LE(12)) return 'corrupt (its checksum does not match)';
  return { commands: n ? body.toString('latin1', 0, n - 1).split('\n') : [], data: body.subarray(n) };
}

// The checksum: over 64-bit words, in WebAssembly, in four lanes (word k goes to lane k mod 4),
// each step FNV-1a's (xor the word, multiply by an odd number) and a right xorshift (which carries
// the high bits down, where a multiply leaves them: without it, bit 63 flipped in two words of a
// lane cancelled out); then the lanes folded in order, each xored in and multiplied. Each step is
// a bijection of its lane, and the fold of each lane, so any one word changed changes the sum; a
// random corruption of more goes unseen about once in 2^64. Node's zlib.crc32 cost a request 6M
// instructions, 5M of them loading node:zlib; the loop in JavaScript 13M (it runs before V8
// compiles it); one lane 1.2M for 440 KB, the entries of a request, and four lanes (a quarter of
// the loop's own steps a word, and four multiplies in flight) 0.6M (callgrind, nproc 2). The
// module, as WebAssembly text (FNV_WASM is its bytes):
//   (module (memory (export "m") 1)
//     (func (export "h") (param $end i32) (result i64) (local $i i32) (local $a $b $c $d i64)
//       (local.set $a (i64.const 0xcbf29ce484222325)) (local.set $b (i64.const 0x84222325cbf29ce4))
//       (local.set $c (i64.const 0x9e3779b97f4a7c15)) (local.set $d (i64.const 0xc2b2ae3d27d4eb4f))
//       (block (loop
//         (br_if 1 (i32.ge_u (local.get $i) (local.get $end)))
//         ;; for each lane $x at byte offset o, in order: $a 0, $b 8, $c 16, $d 24
//         (local.set $x (i64.xor
//           (local.tee $x (i64.mul (i64.xor (local.get $x) (i64.load offset=o (local.get $i))) (i64.const 0x100000001b3)))
//           (i64.shr_u (local.get $x) (i64.const 29))))
//         (local.set $i (i32.add (local.get $i) (i32.const 32)))
//         (br 0)))
//       (i64.mul (i64.xor (i64.mul (i64.xor (i64.mul (i64.xor (local.get $a) (local.get $b)) (i64.const 0x100000001b3))
//                                           (local.get $c)) (i64.const 0x100000001b3))
//                         (local.get $d)) (i64.const 0x100000001b3))))
// `$end` is a multiple of 32: the data is followed by zeros up to it (the length is mixed in after).
const FNV_WASM =
  'AGFzbQEAAAABBgFgAX8BfgMCAQAFAwEAAQcJAgFtAgABaAAACtwBAdkBAgF/BH5CpcaIocicp/lLIQJC5LnK39zkiJGEfyEDQpX4qfqXt96bnn8hBELP1tO+0ser2UIhBQJAA0AgASAATw0BIAIgASkDAIVCs4OAgIAgfiICIAJCHYiFIQIgAyABKQMIhUKzg4CAgCB+IgMgA0IdiIUhAyAEIAEpAxCFQrODgICAIH4iBCAEQh2IhSEEIAUgASkDGIVCs4OAgIAgfiIFIAVCHYiFIQUgAUEgaiEBDAALCyACIAOFQrODgICAIH4gBIVCs4OAgIAgfiAFhUKzg4CAgCB+Cw==';

/** The parts of WebAssembly used here (the project's TypeScript libraries declare none of it). */
type Wasm = {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (
    module: object,
  ) => {
    exports: { m: { buffer: ArrayBuffer; grow(pages: number): number }; h: (end: number) => bigint };
  };
};

/** The checksum of `data` (its length mixed in), computed by FNV_WASM; throws without WebAssembly. */
export function makeSum(): Sum {
  const wasm = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;
  const { m, h } = new wasm.Instance(new wasm.Module(Buffer.from(FNV_WASM, 'base64'))).exports;
  return (data) => {
    const end = (data.length + 31) & ~31;
    const more = Math.ceil(end / 65536) - m.buffer.byteLength / 65536;
    if (more > 0) m.grow(more);
    const memory = new Uint8Array(m.buffer);
    memory.set(data);
    memory.fill(0, data.length, end);
    return BigInt.asUintN(64, h(end) ^ BigInt(data.length));
  };
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
    // (An entry is the size of its chunk's code, a few hundred KB: a file far larger is not read.)
    if (st.size > 64 << 20) return 'too large';
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

/** The V8 flags of this process (its own, and NODE_OPTIONS'), as a short name: V8 refuses an entry made under other flags. */
function flagsTag(): string {
  let h = 0x811c9dc5;
  for (const c of `${process.execArgv.join(' ')}\n${process.env.NODE_OPTIONS ?? ''}`)
    h = Math.imul(h ^ c.charCodeAt(0), 0x01000193);
  return (h >>> 0).toString(36);
}

/**
 * Load dist/'s files (every path under `dist`) through V8's code cache kept in `dir`. `command`
 * names what this run does (its first words, src/launch.ts, and at exit the run's kind,
 * ./cache-variant.ts: embedded or not): an entry that holds no run of it is
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
  // Node maps stack traces through source maps (--enable-source-maps) only for what it compiles itself.
  if (process.sourceMapsEnabled) return void debug?.('off: source maps are on (--enable-source-maps)');
  const tag = flagsTag();
  let sum: Sum;
  try {
    sum = makeSum();
  } catch {
    // (Node run with --jitless has no WebAssembly: no cache then.)
    debug?.('off: no WebAssembly for the checksum');
    return;
  }
  // Every file loaded through the cache, and the commands its entry held (none when no entry was
  // used): which to write is decided at exit, when the run's kind is known (./cache-variant.ts).
  const loaded: { script: import('node:vm').Script; path: string; name: string; had?: string[] }[] = [];
  Module._extensions['.js'] = function load(this: unknown, module: NodeModule, filename: string) {
    if (!filename.startsWith(dist)) return original.call(this, module, filename);
    const source = fs.readFileSync(filename, 'utf8');
    const name = filename.slice(dist.length).replaceAll('/', '_');
    const path = `${dir}/${tag}-${name}`;
    const read = readEntry(path);
    const entry = typeof read === 'string' ? read : unpack(read, sum);
    const cachedData = typeof entry === 'string' ? undefined : entry.data;
    const script = new vm.Script(Module.wrap(source), { filename, cachedData });
    const unused = typeof entry === 'string' ? entry : script.cachedDataRejected ? 'refused by V8' : '';
    loaded.push({ script, path, name, had: unused || typeof entry === 'string' ? undefined : entry.commands });
    debug?.(`${name}: ${unused ? `no entry used: ${unused}` : `entry accepted (${cachedData!.length} bytes)`}`);
    const dirname = filename.slice(0, filename.lastIndexOf('/'));
    const fn = script.runInThisContext() as (...args: unknown[]) => void;
    fn.call(module.exports, module.exports, (id: string) => module.require(id), module, filename, dirname);
  };
  process.on('exit', () => {
    const run = withCodeCacheVariant(command);
    for (const { script, path, name, had } of loaded) {
      if (had?.includes(run)) continue;
      const commands = had ? [...had, run] : [run];
      try {
        const data = script.createCachedData();
        writeEntry(path, pack({ data, commands }, sum));
        debug?.(`${name}: entry written (${data.length} bytes, for ${commands.map((c) => `'${c}'`).join(', ')})`);
      } catch (e) {
        debug?.(`${name}: entry not written (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
      }
    }
  });
}
