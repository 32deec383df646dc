// Bundles src/ into dist/ with esbuild. Code splitting keeps start-up lazy: every
// `await import()` of a command, the sandbox or a heavy library becomes its own chunk,
// loaded only by the command that runs it.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
rmSync(`${root}/dist`, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: { main: 'src/main.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  sourcemap: 'linked',
  chunkNames: 'chunks/[name]-[hash]',
  // Some dependencies are CommonJS and call require(); give the ESM bundle one.
  banner: {
    js: "import { createRequire as __bdCreateRequire } from 'node:module'; const require = __bdCreateRequire(import.meta.url);",
  },
  define: { __BOOKDIST_VERSION__: JSON.stringify(JSON.parse((await import('node:fs')).readFileSync(root + '/package.json', 'utf8')).version) },
  logLevel: 'warning',
});
