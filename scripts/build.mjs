// Bundles src/ into dist/ with rolldown. Code splitting keeps start-up lazy: every
// `await import()` of a command, the sandbox or a heavy library becomes its own chunk, loaded
// only by the command that runs it; and what every command run needs is one chunk, not forty
// (RUN_ROOTS below). dist/ is CommonJS (output.format below). The bundle is written to a fresh
// directory and swapped into place, so a CLI started during a rebuild never sees a half-written dist/.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import MagicString from 'magic-string';
import { build } from 'rolldown';

const root = fileURLToPath(new URL('..', import.meta.url));

// Node's built-in modules without a module of their own in the bundle. An ESM import of one
// becomes a small module for that importer alone (grouped with its importer, RUN_ROOTS below) that
// exports just the names the importer takes, from process.getBuiltinModule; a require() in a
// CommonJS dependency stays a require (Node's own: dist/ is CommonJS).
// Not the plain forms: an ESM import of a builtin runs every getter of its exports (node:fs loads
// its streams, fs/promises and readline), about a tenth of `node -e 0` on every command (issue
// 10); and a CommonJS stand-in imported from ESM goes through the bundler's interop, which
// describes every property: node:util then loads 34 more modules (worker_threads, the streams,
// parse_args), node:fs its Dir.
const BUILTINS = new Set(builtinModules);
const BUILTIN_PREFIX = '\0bookdist-builtin:';
const builtinImports = {
  name: 'builtin-imports',
  resolveId(source, importer, { kind }) {
    if (!/^[a-z_:/]+$/.test(source)) return null;
    const name = source.replace(/^node:/, '');
    if (!BUILTINS.has(name)) return null;
    // A dynamic import() of a builtin stays as it is: it runs only when needed, and its named
    // exports must stay on the namespace it resolves to. A require() stays a require.
    if (kind === 'dynamic-import' || kind === 'require-call' || !importer || importer.startsWith('\0'))
      return { id: `node:${name}`, external: true };
    return `${BUILTIN_PREFIX}${name}?${importer}`;
  },
  load(id) {
    if (!id.startsWith(BUILTIN_PREFIX)) return null;
    const [name, importer] = id.slice(BUILTIN_PREFIX.length).split(/\?(.*)/s);
    return builtinFor(name, importer);
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

// The builtins Node has loaded by the time bookdist's code runs: taken as they are. Any other
// (node:crypto, node:net, node:dns, ...) costs its loading, so a function of one (a lowercase name,
// not a class) is taken on its first call: a chunk that holds many modules (the run chunk) then
// loads node:crypto only for the commands that hash or sign (`book --help` does not).
const LOADED_AT_START = new Set(['fs', 'path', 'url', 'util', 'events', 'buffer', 'process', 'timers']);

/** The module an importer gets for `import ... from 'node:NAME'`. */
function builtinFor(name, importer) {
  const spec = JSON.stringify(`node:${name}`);
  const got = importsOf(name, importer);
  // A namespace import (or a form this does not read) gets the whole module, through require.
  if (got.ns || !got.found) return `module.exports = require(${spec});`;
  const lazy = (n) => /^[a-z]/.test(n) && typeof process.getBuiltinModule(`node:${name}`)?.[n] === 'function';
  if (!got.def && !LOADED_AT_START.has(name) && got.names.size && [...got.names].every(lazy)) {
    const lines = [`let m;`, `const get = () => (m ??= process.getBuiltinModule(${spec}));`];
    for (const n of got.names) lines.push(`export function ${n}(...args) { return get().${n}(...args); }`);
    return lines.join('\n') + '\n';
  }
  const lines = [`const m = process.getBuiltinModule(${spec});`];
  if (got.def) lines.push('export default m;');
  for (const n of got.names) lines.push(`export const ${n} = m.${n};`);
  return lines.join('\n') + '\n';
}

// commander imports node:child_process at the top for executable subcommands, which bookdist does
// not use; loading it costs every command about 0.1x of node -e 0. Give commander a stand-in
// that loads node:child_process on first use.
const LAZY_CHILD_PROCESS = '\0bookdist-lazy-child-process';
const lazyChildProcess = {
  name: 'lazy-child-process',
  resolveId(source, importer) {
    return /^(node:)?child_process$/.test(source) && /[\\/]node_modules[\\/]commander[\\/]/.test(importer ?? '')
      ? LAZY_CHILD_PROCESS
      : null;
  },
  load(id) {
    if (id !== LAZY_CHILD_PROCESS) return null;
    return (
      'let real;\n' +
      "const load = () => (real ??= require('node:child_process'));\n" +
      'export default new Proxy({}, { get: (_t, key) => load()[key] });\n'
    );
  },
};

// commander's Option tells a variadic option (`<value...>`) by a Unicode property regex, run on
// every option made: V8 builds ICU's ID_Continue set to compile it (about 1% of a request's
// instructions, issue 31), though bookdist declares no variadic option. The same test, with the
// Unicode one asked only of flags that end with `...>` or `...]`.
const VARIADIC_TEST = String.raw`/\p{ID_Continue}\.\.\.[>\]]$/u.test(flags)`;
const cheapVariadicTest = {
  name: 'cheap-variadic-test',
  transform(code, id) {
    if (!/[\\/]node_modules[\\/]commander[\\/]lib[\\/]option\.js$/.test(id)) return null;
    if (!code.includes(VARIADIC_TEST)) throw new Error(`build: commander's option.js no longer has ${VARIADIC_TEST}`);
    const s = new MagicString(code);
    const at = code.indexOf(VARIADIC_TEST);
    s.overwrite(at, at + VARIADIC_TEST.length, String.raw`(/\.\.\.[>\]]$/.test(flags) && ${VARIADIC_TEST})`);
    return { code: s.toString(), map: s.generateMap({ hires: true }) };
  },
};

// What the CommonJS output must not hold: an import() (vm.Script would need a loader for it, and
// Node's ESM loader with it) or import.meta (a syntax error in CommonJS).
const commonJsOnly = {
  name: 'commonjs-only',
  renderChunk(code, chunk) {
    const bad = /\bimport\s*\(|\bimport\.meta\b/.exec(code);
    if (bad) throw new Error(`build: ${chunk.fileName} holds ${bad[0]}: dist/ is CommonJS, loaded through vm.Script`);
    return null;
  },
};

// One chunk for what every command run loads (issue 31): each ESM module costs start-up time of
// its own (about 0.4 ms: resolving, reading, linking), and left to itself the bundler cuts the
// run path into a chunk per set of importers: a request loaded 38 files. RUN_ROOTS and everything
// they import statically go into one chunk `run`: the command run (every command), the connection
// to the service (every command that sends a request), the profile and its paths (every command
// that reads one), the output (every command that prints an answer), argument checks, and the
// verbs' shared helpers (every module directly in src/commands/: declarations, record views, bulk
// flags, the command to run again, paging, confirmations). Not what the root help and --version
// load (main.ts, root-help.ts and their imports: they stay small, and a module of both would pull
// the run chunk into them), and no package but commander (a heavy library stays in its own
// chunk, loaded by the command that uses it: the startup tests). A command group and its verbs
// keep their own chunks.
const RUN_ROOTS = [
  'src/cli/run.ts',
  'src/connect.ts',
  'src/config/resolve.ts',
  'src/output/index.ts',
  'src/validate/index.ts',
  ...readdirSync(`${root}src/commands`)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `src/commands/${f}`),
];
// The embedded sandbox (the built-in profile's server in the CLI's own process) the same way: its
// start path is one chunk `sandbox` (it was fifteen), apart from the run chunk it builds on.
const SANDBOX_ROOTS = ['src/sandbox/embedded.ts'];
const HELP_ROOTS = ['src/main.ts', 'src/root-help.ts'];
// The ledger's writing side (issue 34), loaded by a command's first write: the recorder, its rows,
// the file and its lock, one chunk `ledger` (it was three modules, some 1.5% of a single write's
// instructions; bench/ledger.mjs n3). The ledger commands read the file through the same chunk.
const LEDGER_ROOTS = ['src/ledger/recorder.ts', 'src/ledger/store.ts'];
let groups;
/** Which group chunk a module goes into (`run`, `sandbox` or none), from the module graph. */
function groupOf(id, ctx) {
  groups ??= (() => {
    const closure = (starts) => {
      const seen = new Set();
      const todo = starts.map((s) => `${root}${s}`);
      while (todo.length) {
        const m = todo.pop();
        if (seen.has(m)) continue;
        seen.add(m);
        const info = ctx.getModuleInfo(m);
        if (!info) throw new Error(`build: ${m} is not in the module graph (RUN_ROOTS, SANDBOX_ROOTS, HELP_ROOTS)`);
        todo.push(...info.importedIds.filter((i) => !i.startsWith('node:')));
      }
      return seen;
    };
    const taken = closure(HELP_ROOTS);
    const isPackage = (m) => /[\\/]node_modules[\\/]/.test(m);
    const group = (roots, takesPackage = () => false) => {
      const mods = [...closure(roots)].filter((m) => !taken.has(m) && (!isPackage(m) || takesPackage(m)));
      for (const m of mods) taken.add(m);
      return new Set(mods);
    };
    // No package but commander (a heavy library stays in its own chunk, loaded by the command that uses it).
    const commander = (m) => /[\\/]node_modules[\\/]commander[\\/]/.test(m);
    const run = group(RUN_ROOTS, commander);
    // The ledger's own modules only: one it shares with the bulk jobs (src/util/pid.ts) stays apart.
    const ledger = new Set(
      [...closure(LEDGER_ROOTS)].filter((m) => !taken.has(m) && m.startsWith(`${root}src/ledger/`)),
    );
    return { run, commander: [...run].some(commander), sandbox: group(SANDBOX_ROOTS), ledger };
  })();
  // A builtin's stand-in goes where its importer goes; commander's lazy child_process with commander.
  if (id.startsWith(BUILTIN_PREFIX)) id = id.slice(BUILTIN_PREFIX.length).replace(/^[^?]*\?/, '');
  if (id === LAZY_CHILD_PROCESS) return groups.commander ? 'run' : null;
  return groups.run.has(id) ? 'run' : groups.sandbox.has(id) ? 'sandbox' : groups.ledger.has(id) ? 'ledger' : null;
}

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
  cwd: root,
  platform: 'node',
  transform: {
    target: 'node22',
    define: { __BOOKDIST_VERSION__: JSON.stringify(version), __BOOKDIST_NODE_MIN__: JSON.stringify(nodeMin) },
  },
  logLevel: 'warn',
};
const output = {
  dir: `${root}/${next}`,
  // CommonJS (dist/package.json says so): the launcher loads each chunk through V8's code cache
  // (src/cache/code-cache.ts), which Node's CommonJS loader lets it do and its ESM loader does
  // not, and one request skips Node's ESM loader (about 5M instructions, issue 31). A dynamic
  // import() of a chunk becomes a require() in a promise: a chunk still loads only when its
  // command runs.
  format: 'cjs',
  dynamicImportInCjs: false,
  sourcemap: true,
  entryFileNames: '[name].js',
  // Legal comments stay; the rest of the sources' comments would only make every run read more.
  comments: { legal: true, annotation: false, jsdoc: false },
  // Chunks in ASCII (any other character escaped): V8 keeps a source with one (an ellipsis in a
  // message) as UTF-16, and Node converts the whole source to UTF-8 on every run to check it
  // against its compile cache entry (2% of a request's instructions, for the run chunk).
  charset: 'ascii',
};
try {
  await build({
    ...common,
    input: { main: 'src/main.ts' },
    // The shell completion templates (src/commands/completion/templates/) are bundled as text.
    moduleTypes: { '.bash': 'text', '.zsh': 'text', '.fish': 'text' },
    plugins: [lazyChildProcess, cheapVariadicTest, builtinImports, commonJsOnly],
    // main.js keeps its exports (the launcher calls main()); the run chunk's modules may be
    // imported from it without facades of their own.
    preserveEntrySignatures: 'allow-extension',
    // A dynamic import of a module that is also imported statically stays where it is: expected
    // here (the run chunk's modules are imported both ways), not a problem to report.
    checks: { ineffectiveDynamicImport: false },
    output: {
      ...output,
      chunkFileNames: 'chunks/[name]-[hash].js',
      codeSplitting: {
        groups: [{ name: groupOf, debugName: 'run, sandbox, ledger', includeDependenciesRecursively: false }],
      },
    },
  });
  // dist/version.js, which Node runs before anything else on every run (the Node check, then the
  // code cache: src/launch.ts), is built on its own: one small file, where an entry of the split
  // build above would be a re-export of the chunk it shares with the tree plus the bundler's
  // runtime chunk (three modules to load on every command's start-up). Built after the rest: it
  // carries the build's digest, part of the code cache's key (src/version.ts).
  const digest = createHash('sha256').update(readFileSync(`${root}/${next}/main.js`));
  for (const f of readdirSync(`${root}/${next}/chunks`).sort()) digest.update(`\n${f}`);
  const buildId = digest.digest('hex').slice(0, 12);
  await build({
    ...common,
    transform: {
      ...common.transform,
      define: { ...common.transform.define, __BOOKDIST_BUILD__: JSON.stringify(buildId) },
    },
    input: { version: 'src/launch.ts' },
    plugins: [commonJsOnly],
    output: {
      ...output,
      codeSplitting: false,
      // Run by the shell launcher (bin/bookdist execs Node on it): launch bookdist; required by
      // `node bin/bookdist`, it only exports.
      footer:
        'if (require.main === module) exports.launch(process.argv.slice(2), __dirname + "/", () => require("./main.js"));',
    },
  });
  writeFileSync(`${root}/${next}/package.json`, '{ "type": "commonjs" }\n');
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
