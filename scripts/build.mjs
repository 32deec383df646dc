// Bundles src/ into dist/ with esbuild. Code splitting keeps start-up lazy: every
// `await import()` of a command, the sandbox or a heavy library becomes its own chunk,
// loaded only by the command that runs it. The bundle is written to a fresh directory and
// swapped into place, so a CLI started during a rebuild never sees a half-written dist/.
import { build } from 'esbuild';
import { readFileSync, renameSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const version = JSON.parse(readFileSync(`${root}/package.json`, 'utf8')).version;
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
    // Some dependencies are CommonJS and call require(); give the ESM bundle one.
    banner: {
      js: "import { createRequire as __bdCreateRequire } from 'node:module'; const require = __bdCreateRequire(import.meta.url);",
    },
    define: { __BOOKDIST_VERSION__: JSON.stringify(version) },
    logLevel: 'warning',
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
