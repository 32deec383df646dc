// Bundles src/ into dist/ with esbuild. Code splitting keeps start-up lazy: every
// `await import()` of a command, the sandbox or a heavy library becomes its own chunk,
// loaded only by the command that runs it. The bundle is written to a fresh directory and
// swapped into place, so a CLI started during a rebuild never sees a half-written dist/.
import { build } from 'esbuild';
import { readFileSync, renameSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

// Node's built-in modules through require, not ESM import: importing a builtin as ESM runs every
// getter of its exports (node:fs loads its streams, fs/promises and readline; node:util its
// TextDecoder and worker_threads), about a tenth of `node -e 0` on every command (issue 10).
const BUILTINS = new Set(builtinModules);
const builtinsByRequire = {
  name: 'builtins-by-require',
  setup(b) {
    b.onResolve({ filter: /^[a-z_:/]+$/ }, (args) => {
      const name = args.path.replace(/^node:/, '');
      if (!(BUILTINS.has(name) || BUILTINS.has(args.path)) || name === 'module' || args.namespace === 'bookdist-builtin') return undefined;
      // A dynamic import() of a builtin stays as it is: it runs only when needed, and its named
      // exports must stay on the namespace it resolves to.
      if (args.kind === 'dynamic-import') return undefined;
      return { path: name, namespace: 'bookdist-builtin' };
    });
    b.onLoad({ filter: /.*/, namespace: 'bookdist-builtin' }, (args) => ({
      contents: DESCRIBED_LAZILY.has(args.path)
        ? `module.exports = lazilyDescribed(require(${JSON.stringify('node:' + args.path)}));\n${lazilyDescribed}`
        : `module.exports = require(${JSON.stringify('node:' + args.path)});`,
      loader: 'js',
    }));
  },
};

// An ESM import of a CommonJS module goes through esbuild's __toESM, which reads the descriptor of
// every property. Some of Node's modules load a part of themselves when a lazy property is merely
// described: node:util loads parse_args, diff and worker_threads with the streams (34 modules),
// node:fs its Dir. Such a module is handed over behind a proxy that describes its properties
// without touching them; every read, write and call still reaches the module itself.
const DESCRIBED_LAZILY = new Set(['util', 'fs']);
function lazilyDescribed(real) {
  return new Proxy(
    {},
    {
      get: (_t, key) => real[key],
      set: (_t, key, value) => ((real[key] = value), true),
      has: (_t, key) => key in real,
      ownKeys: () => Reflect.ownKeys(real),
      getOwnPropertyDescriptor: (_t, key) => (Object.hasOwn(real, key) ? { configurable: true, enumerable: true, writable: true, value: undefined } : undefined),
      getPrototypeOf: () => Object.getPrototypeOf(real),
    },
  );
}

// commander imports node:child_process at the top for executable subcommands, which bookdist does
// not use; loading it costs every command about 0.1x of node -e 0. Give commander a stand-in
// that loads node:child_process on first use.
const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(b) {
    b.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      /[\\/]node_modules[\\/]commander[\\/]/.test(args.importer) ? { path: 'lazy-child-process', namespace: 'bookdist-lazy' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'bookdist-lazy' }, () => ({
      contents:
        'let real;\n' +
        "const load = () => (real ??= require('node:child_process'));\n" +
        'export default new Proxy({}, { get: (_t, key) => load()[key] });\n',
      loader: 'js',
    }));
  },
};

const pkg = JSON.parse(readFileSync(`${root}/package.json`, 'utf8'));
const version = pkg.version;
// engines.node is the one place the oldest supported Node is written; the launcher reads it from
// dist/version.js. Only the form `>=MAJOR[.MINOR[.PATCH]]` is understood: anything else is a
// build error rather than a check that silently differs from what npm enforces.
const engines = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(pkg.engines?.node ?? '');
if (!engines) throw new Error(`package.json engines.node must read ">=MAJOR.MINOR", not ${JSON.stringify(pkg.engines?.node)}`);
const nodeMin = [engines[1], engines[2] ?? '0', engines[3] ?? '0'].join('.');
const stamp = `${process.pid}-${Date.now()}`;
const next = `dist.new-${stamp}`;
try {
  await build({
    absWorkingDir: root,
    entryPoints: { main: 'src/main.ts', version: 'src/version.ts' },
    outdir: next,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    sourcemap: 'linked',
    chunkNames: 'chunks/[name]-[hash]',
    // Some dependencies are CommonJS and call require(); give the ESM bundle one. Node's own
    // modules (all that the bundle requires) come straight from process.getBuiltinModule; a
    // createRequire is made only for anything else, on first use: every chunk carries this banner,
    // and node:module would load more of Node (its source maps) on every command.
    banner: {
      js: "let __bdRequire; const require = function require(id) { return process.getBuiltinModule(id) ?? (__bdRequire ??= process.getBuiltinModule('node:module').createRequire(import.meta.url))(id); };",
    },
    define: { __BOOKDIST_VERSION__: JSON.stringify(version), __BOOKDIST_NODE_MIN__: JSON.stringify(nodeMin) },
    // The shell completion templates (src/commands/completion/templates/) are bundled as text.
    loader: { '.bash': 'text', '.zsh': 'text', '.fish': 'text' },
    logLevel: 'warning',
    plugins: [lazyChildProcess, builtinsByRequire],
  });
} catch (err) {
  rmSync(`${root}/${next}`, { recursive: true, force: true });
  process.exitCode = 1;
  throw err;
}
const old = `dist.old-${stamp}`;
try {
  renameSync(`${root}/dist`, `${root}/${old}`);
} catch {}
renameSync(`${root}/${next}`, `${root}/dist`);
rmSync(`${root}/${old}`, { recursive: true, force: true });
