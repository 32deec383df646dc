// Bundles src/ into dist/ with esbuild. Code splitting keeps start-up lazy: every
// `await import()` of a command, the sandbox or a heavy library becomes its own chunk,
// loaded only by the command that runs it. The bundle is written to a fresh directory and
// swapped into place, so a CLI started during a rebuild never sees a half-written dist/.
import { build } from 'esbuild';
import { readFileSync, renameSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

// Node's built-in modules without a module of their own in the bundle. An ESM import of one
// becomes a small module for that importer alone (esbuild puts it into the importer's chunk) that
// exports just the names the importer takes, from process.getBuiltinModule; a require() in a
// CommonJS dependency stays a require (the banner's, which asks process.getBuiltinModule too).
// Not the plain forms: an ESM import of a builtin runs every getter of its exports (node:fs loads
// its streams, fs/promises and readline), about a tenth of `node -e 0` on every command (issue
// 10); and a CommonJS stand-in imported from ESM is one more chunk per builtin on every command's
// path, and goes through esbuild's __toESM, which describes every property: node:util then loads
// 34 more modules (worker_threads, the streams, parse_args), node:fs its Dir.
const BUILTINS = new Set(builtinModules);
const builtinImports = {
  name: 'builtin-imports',
  setup(b) {
    b.onResolve({ filter: /^[a-z_:/]+$/ }, (args) => {
      const name = args.path.replace(/^node:/, '');
      if (!BUILTINS.has(name) || args.namespace === 'bookdist-builtin') return undefined;
      // A dynamic import() of a builtin stays as it is: it runs only when needed, and its named
      // exports must stay on the namespace it resolves to.
      if (args.kind === 'dynamic-import') return undefined;
      if (args.kind === 'require-call') return { path: `node:${name}`, external: true };
      return {
        path: `${name}?${args.importer}`,
        namespace: 'bookdist-builtin',
        pluginData: { name, importer: args.importer },
      };
    });
    b.onLoad({ filter: /.*/, namespace: 'bookdist-builtin' }, ({ pluginData: { name, importer } }) => ({
      contents: builtinFor(name, importer),
      loader: 'js',
    }));
  },
};

/** What `importer` imports of the builtin `name`: the named bindings, a default, a namespace. */
function importsOf(name, importer) {
  const text = readFileSync(importer, 'utf8');
  const got = { names: new Set(), def: false, ns: false, found: false };
  for (const m of text.matchAll(/^\s*import\s+(?!type\s)([^'";]+?)\s+from\s*(['"])([^'"]+)\2/gm)) {
    if (m[3].replace(/^node:/, '') !== name) continue;
    got.found = true;
    let clause = m[1];
    const braces = /\{([^}]*)\}/.exec(clause);
    if (braces) {
      for (const part of braces[1].split(',').map((p) => p.trim())) {
        if (!part || part.startsWith('type ')) continue;
        const imported = part.split(/\s+as\s+/)[0];
        if (imported === 'default') got.def = true;
        else got.names.add(imported);
      }
      clause = clause.replace(braces[0], '');
    }
    if (/\*\s*as\s/.test(clause)) got.ns = true;
    else if (/[\w$]/.test(clause)) got.def = true;
  }
  return got;
}

/** The module an importer gets for `import ... from 'node:NAME'`. */
function builtinFor(name, importer) {
  const spec = JSON.stringify(`node:${name}`);
  const got = importsOf(name, importer);
  // A namespace import (or a form this does not read) gets the whole module, through require.
  if (got.ns || !got.found) return `module.exports = require(${spec});`;
  const lines = [`const m = process.getBuiltinModule(${spec});`];
  if (got.def) lines.push('export default m;');
  for (const n of got.names) lines.push(`export const ${n} = m.${n};`);
  return lines.join('\n') + '\n';
}

// commander imports node:child_process at the top for executable subcommands, which bookdist does
// not use; loading it costs every command about 0.1x of node -e 0. Give commander a stand-in
// that loads node:child_process on first use.
const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(b) {
    b.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      /[\\/]node_modules[\\/]commander[\\/]/.test(args.importer)
        ? { path: 'lazy-child-process', namespace: 'bookdist-lazy' }
        : undefined,
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
if (!engines)
  throw new Error(`package.json engines.node must read ">=MAJOR.MINOR", not ${JSON.stringify(pkg.engines?.node)}`);
const nodeMin = [engines[1], engines[2] ?? '0', engines[3] ?? '0'].join('.');
const stamp = `${process.pid}-${Date.now()}`;
const next = `dist.new-${stamp}`;
const common = {
  absWorkingDir: root,
  outdir: next,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  sourcemap: 'linked',
  define: { __BOOKDIST_VERSION__: JSON.stringify(version), __BOOKDIST_NODE_MIN__: JSON.stringify(nodeMin) },
  logLevel: 'warning',
};
try {
  // dist/version.js, which the launcher imports before anything else on every run (the Node
  // check, then the compile cache: src/launch.ts), is built on its own: one small file, where an
  // entry of the split build below would be a re-export of the chunk it shares with the tree plus
  // esbuild's runtime chunk (three modules to load on every command's start-up).
  await build({ ...common, entryPoints: { version: 'src/launch.ts' } });
  await build({
    ...common,
    entryPoints: { main: 'src/main.ts' },
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    // Some dependencies are CommonJS and call require(); give the ESM bundle one. Node's own
    // modules (all that the bundle requires) come straight from process.getBuiltinModule; a
    // createRequire is made only for anything else, on first use: every chunk carries this banner,
    // and node:module would load more of Node (its source maps) on every command.
    banner: {
      js: "let __bdRequire; const require = function require(id) { return process.getBuiltinModule(id) ?? (__bdRequire ??= process.getBuiltinModule('node:module').createRequire(import.meta.url))(id); };",
    },
    // The shell completion templates (src/commands/completion/templates/) are bundled as text.
    loader: { '.bash': 'text', '.zsh': 'text', '.fish': 'text' },
    plugins: [lazyChildProcess, builtinImports],
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
