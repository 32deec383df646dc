// Start a sandbox for the bench (and for manual runs): bundles src/sandbox/http/server.ts with esbuild
// (a devDependency, already installed) into a temp file, imports it, and starts it on port 0
// with a fresh database. `node bench/sandbox.mjs` serves until Ctrl-C and prints the environment.
import { build } from 'esbuild';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The directories this process made and has not removed yet: its exit removes them (see the end). */
const made = new Set();

/**
 * Remove a sandbox's folder, again until it is gone. SQLite deletes a database's -wal and -shm
 * files when its last connection closes, which may happen in another thread (the journal's
 * writer, the checkpointer) while the sandbox closes: an entry gone between rmSync's listing and
 * its unlink ends rmSync early and silently (`force` ignores ENOENT), with the entries after it
 * left behind (server.mjs, state/: a folder left in /tmp by each full bench).
 */
function removeDir(dir) {
  for (let i = 0; i < 20 && existsSync(dir); i++) rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
}

export async function startBenchSandbox(opts = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'bookdist-bench-'));
  made.add(dir);
  try {
    return await startIn(dir, opts);
  } catch (e) {
    // A sandbox that could not start (node:sqlite missing under Node 20, a build error) leaves nothing.
    removeDir(dir);
    made.delete(dir);
    throw e;
  }
}

async function startIn(dir, opts) {
  await build({
    absWorkingDir: root,
    entryPoints: ['src/sandbox/http/server.ts', 'src/sandbox/http/tls.ts'],
    outdir: dir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    logLevel: 'warning',
    banner: {
      js: "import { createRequire as __bdCreateRequire } from 'node:module'; const require = __bdCreateRequire(import.meta.url);",
    },
  });
  const { startSandbox } = await import(pathToFileURL(join(dir, 'server.mjs')).href);
  // opts.tls: HTTPS with a certificate of the sandbox's own CA (as `sandbox serve --tls`).
  const tls = opts.tls
    ? (await import(pathToFileURL(join(dir, 'tls.mjs')).href)).ensureTlsFiles(join(dir, 'sandbox.db'), [
        'localhost',
        '127.0.0.1',
      ])
    : undefined;
  const server = await startSandbox({
    host: '127.0.0.1',
    port: 0,
    dbPath: join(dir, 'sandbox.db'),
    processDelayMs: opts.processDelayMs ?? 200,
    faults: opts.faults,
    tls,
    journal: opts.journal,
  });
  // A database grown far past the seed (the throughput bench): rows added through a second
  // connection before anyone is told the sandbox serves.
  if (opts.grow) (await import('./grow-db.mjs')).growSandboxDb(join(dir, 'sandbox.db'), opts.grow);
  const creds = server.credentials;
  const env = {
    BOOKDIST_CONFIG_DIR: join(dir, 'config'),
    BOOKDIST_DATA_DIR: join(dir, 'data'),
    // The ledger of the bench's writes goes with the sandbox, not into the real ~/.local/state.
    BOOKDIST_STATE_DIR: join(dir, 'state'),
    BOOKDIST_BASE_URL: server.url,
    BOOKDIST_USERNAME: creds.partner.username,
    BOOKDIST_KEY_FILE: creds.partner.key_file,
    BOOKDIST_TOKEN: creds.operator_token,
    ...(tls ? { BOOKDIST_CA_FILE: tls.caFile } : {}),
    NO_COLOR: '1',
  };
  return {
    url: server.url,
    dir,
    creds,
    env,
    async close() {
      await server.close();
      removeDir(dir);
      made.delete(dir);
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  // However this process ends, its files go with it, also when it is stopped while it starts (a
  // bench's Ctrl-C reaches every process of the group) or when the bench that started it is gone:
  // a bench that exits or is killed (`timeout`, an exception) before it stops its sandboxes left
  // them serving for ever, orphans of init, each with its /tmp/bookdist-bench-* directory, removed
  // by nobody once they were killed (SIGKILL runs no handler).
  process.on('exit', () => {
    for (const dir of made) removeDir(dir);
  });
  let sb;
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await sb?.close().catch(() => undefined);
    process.exit(0);
  };
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => void stop());
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) void stop();
  }, 500).unref();
  const faults = process.env.FAULT_RATE
    ? { rate: Number(process.env.FAULT_RATE), kinds: (process.env.FAULT_KINDS ?? '503,429,reset').split(',') }
    : undefined;
  const grow = process.env.BENCH_GROW ? JSON.parse(process.env.BENCH_GROW) : undefined;
  sb = await startBenchSandbox({
    faults,
    grow,
    tls: process.env.BENCH_TLS === '1',
    // BENCH_JOURNAL=off: no journal; BENCH_JOURNAL_OPTIONS: the journal's options as JSON (an experiment's).
    journal:
      process.env.BENCH_JOURNAL === 'off'
        ? false
        : process.env.BENCH_JOURNAL_OPTIONS
          ? JSON.parse(process.env.BENCH_JOURNAL_OPTIONS)
          : undefined,
  });
  for (const [k, v] of Object.entries(sb.env)) process.stdout.write(`export ${k}=${v}\n`);
  process.stdout.write(`# serving at ${sb.url}; Ctrl-C to stop\n`);
}
