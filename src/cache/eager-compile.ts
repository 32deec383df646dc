// Whole modules in the compile cache (issue 31). Node writes a module's code cache right after it
// compiles the module, before it runs: V8 compiles a function only when it is first called, so the
// cache holds the modules' top levels and every function a command calls is parsed and compiled
// again on every run (a quarter of a request's instructions). While one of bookdist's own chunks
// loads, V8 compiles every function of it at once (--no-lazy), so its cache entry holds them all
// and a warm run deserialises them instead; outside those loads, and for the Node modules a
// chunk's top level takes, V8 is lazy, so Node's own modules (http, crypto...) keep their built-in
// code cache.
//
// Every chunk of dist/ loads through an import() that scripts/build.mjs wraps in the function
// installed here (dist/main.js through bin/bookdist), so every chunk is compiled the same way on
// every run: V8 accepts a cache only when it was made under the same flags, and a chunk compiled
// lazily once would make Node write it again, lazy, for the next eager run to refuse. The one
// exception is the embedded sandbox's chunk (and the chunks that take it at their top level):
// the build leaves their imports plain, so they are compiled lazily on every path (whole, the
// sandbox's 250 KB cost more to read than compiling what an embedded command runs).
// Only with bookdist's compile cache on (src/cache/compile-cache.ts): without a cache, compiling
// every function only costs. Never with a V8 flag of the user's about lazy compilation (`node
// --max-lazy bin/bookdist`): theirs stands.

/** Where the chunks find the loader (a global: they are built apart from the launcher's module). */
export const EAGER_IMPORT = Symbol.for('bookdist.import');

type Importer = <T>(load: () => Promise<T>) => Promise<T>;

/**
 * Install the loader that compiles bookdist's chunks whole; false (nothing installed: chunks load
 * as before) when V8's flags cannot change or the user set a lazy flag of their own.
 */
export function installEagerCompile(
  /** Node's own flags (NODE_OPTIONS cannot carry V8's lazy flags). */
  execArgv: readonly string[] = process.execArgv,
  /** What sets a V8 flag (a seam: an in-process test must not change its own process's flags). */
  setFlag: (flag: string) => void = (flag) => process.getBuiltinModule('node:v8').setFlagsFromString(flag),
): boolean {
  if (execArgv.some((a) => /lazy/.test(a))) return false;
  try {
    setFlag('--lazy');
  } catch {
    return false;
  }
  let depth = 0;
  // A Node module a chunk's top level loads (through process.getBuiltinModule, as the bundle takes
  // all of them) is compiled lazily, with Node's own code cache, also while the chunk loads.
  const getBuiltinModule = process.getBuiltinModule.bind(process);
  const original = Object.getOwnPropertyDescriptor(process, 'getBuiltinModule')!;
  const seen = new Set<string>();
  const lazily = ((id: string) => {
    if (seen.has(id)) return getBuiltinModule(id);
    seen.add(id);
    setFlag('--lazy');
    try {
      return getBuiltinModule(id);
    } finally {
      setFlag('--no-lazy');
    }
  }) as typeof process.getBuiltinModule;
  const eager: Importer = async (load) => {
    // Imports may overlap (Promise.all): V8 is lazy again when the last one has loaded.
    if (depth++ === 0) {
      setFlag('--no-lazy');
      process.getBuiltinModule = lazily;
    }
    try {
      return await load();
    } finally {
      if (--depth === 0) {
        Object.defineProperty(process, 'getBuiltinModule', original);
        setFlag('--lazy');
      }
    }
  };
  (globalThis as Record<symbol, unknown>)[EAGER_IMPORT] = eager;
  return true;
}
