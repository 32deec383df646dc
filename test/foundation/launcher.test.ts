// bin/bookdist as a shell runs it: one process (the launcher execs Node), through symlinks as
// npm link and global installs make them, with or without the pinned Node, and signals that
// reach the job itself.
import { spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
  chmodSync,
} from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { tempDir } from './helpers.js';

const root = resolve(BIN, '..', '..');
const PINNED = join(root, 'node_modules', 'node', 'bin', 'node');
const t = tempDir();
const PKG = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
/** engines.node (">=22.22") as the full version the launcher compares with ("22.22.0"). */
const ENGINES_MIN = (() => {
  const m = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(PKG.engines.node)!;
  return [m[1], m[2] ?? '0', m[3] ?? '0'].join('.');
})();
const atLeast = (have: string, min: string) => {
  const a = have.split('.').map(Number);
  const b = min.split('.').map(Number);
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] > b[i];
  return true;
};
afterAll(() => t.cleanup());

/** PATH without the project's node_modules/.bin: the machine's own node (Node 20 here), if any. */
const machinePath = (process.env.PATH ?? '')
  .split(':')
  .filter((p) => p && !p.includes('node_modules'))
  .join(':');

function sh(cmd: string, env: Record<string, string> = {}) {
  return spawnSync('sh', ['-c', cmd], {
    env: { PATH: machinePath, HOME: t.dir, TMPDIR: process.env.TMPDIR, ...env },
    encoding: 'utf8',
  });
}

/** Every process as [pid, ppid, args]. */
function processTable(): Array<[number, number, string]> {
  const r = spawnSync('ps', ['-A', '-o', 'pid=,ppid=,args='], { encoding: 'utf8' });
  return r.stdout
    .split('\n')
    .map((l) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => [Number(m[1]), Number(m[2]), m[3]]);
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((res) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), res(true)));
    s.once('error', () => res(false));
  });
}

/**
 * Start the launcher (not node) in the background with a unique marker in its argv; `viaNode`:
 * as `node bin/bookdist` with the machine's node, in a process group of its own.
 */
function startLauncher(args: string[], env: Record<string, string> = {}, opts: { viaNode?: boolean } = {}) {
  const [cmd, argv] = opts.viaNode ? ['node', [BIN, ...args]] : [BIN, args];
  const child = spawn(cmd, argv, {
    env: {
      PATH: machinePath,
      HOME: t.dir,
      TMPDIR: process.env.TMPDIR,
      BOOKDIST_DATA_DIR: t.dir,
      NO_COLOR: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: opts.viaNode,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) =>
    child.on('close', (code, signal) => res({ code, signal })),
  );
  const until = async (re: RegExp, stream: () => string) => {
    for (let i = 0; i < 600 && !re.test(stream()); i++) await new Promise((r) => setTimeout(r, 50));
    if (!re.test(stream())) throw new Error(`never saw ${re}; stderr: ${stderr}`);
  };
  return { child, exited, out: () => stdout, err: () => stderr, until };
}

describe('bin/bookdist launcher', () => {
  it("runs the pinned Node itself, with the machine's older node first on PATH", () => {
    const r = sh(`"${BIN}" --version`);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    // A node that must not run: the pinned one is preferred.
    const fake = join(t.dir, 'fakebin');
    mkdirSync(fake, { recursive: true });
    writeFileSync(join(fake, 'node'), '#!/bin/sh\necho "wrong node" >&2\nexit 42\n');
    chmodSync(join(fake, 'node'), 0o755);
    const p = sh(`"${BIN}" --version`, { PATH: `${fake}:${machinePath}` });
    expect(p.status, p.stderr).toBe(0);
    expect(p.stderr).toBe('');
  });

  it("keeps its code cache in the user's cache directory (XDG), never in the temp directory", () => {
    const tmp = join(t.dir, 'tmp');
    mkdirSync(tmp, { recursive: true });
    const home = join(t.dir, 'cache-home');
    const r = sh(`"${BIN}" book --help`, { HOME: home, TMPDIR: tmp });
    expect(r.status, r.stderr).toBe(0);
    expect(readdirSync(join(home, '.cache', 'bookdist', 'compile-cache')).length).toBeGreaterThan(0);
    const xdg = join(t.dir, 'xdg-cache');
    expect(sh(`"${BIN}" book --help`, { HOME: home, TMPDIR: tmp, XDG_CACHE_HOME: xdg }).status).toBe(0);
    expect(readdirSync(join(xdg, 'bookdist', 'compile-cache')).length).toBeGreaterThan(0);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('hands over with exec: the pid the shell got is the Node that runs the job, with no child; kill -9 leaves nothing behind', async () => {
    const db = join(t.dir, `marker-${process.pid}-kill.db`);
    const run = startLauncher(['sandbox', 'serve', '--port', '0', '--db', db]);
    await run.until(/^http:\/\/127\.0\.0\.1:\d+/m, run.out);
    const port = Number(/:(\d+)/.exec(run.out())![1]);
    const table = processTable();
    const self = table.find(([pid]) => pid === run.child.pid);
    expect(self, 'the launcher pid is alive').toBeDefined();
    expect(self![2]).toMatch(/node\S* .*dist\/version\.js sandbox serve/);
    expect(table.filter(([, ppid]) => ppid === run.child.pid)).toEqual([]);
    expect(await portOpen(port)).toBe(true);

    process.kill(run.child.pid!, 'SIGKILL');
    expect((await run.exited).signal).toBe('SIGKILL');
    expect(processTable().filter(([, , args]) => args.includes(db))).toEqual([]);
    expect(await portOpen(port)).toBe(false);
  });

  /** A server that accepts and never answers, and a stored profile on it: a request stays in flight. */
  async function hangingService(run: (env: Record<string, string>, inFlight: () => Promise<void>) => Promise<void>) {
    const sockets: any[] = [];
    const server: Server = createServer((s) => void sockets.push(s));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      // A stored profile, as a user has one (it is read as JSON; nothing heavy loads before the request).
      const cfg = join(t.dir, `hang-config-${port}`);
      mkdirSync(cfg, { recursive: true, mode: 0o700 });
      writeFileSync(
        join(cfg, 'config.json'),
        JSON.stringify({
          current: 'hang',
          profiles: { hang: { baseUrl: `http://127.0.0.1:${port}`, username: 'u', sharedKey: 'k' } },
        }),
        { mode: 0o600 },
      );
      await run({ BOOKDIST_CONFIG_DIR: cfg }, async () => {
        for (let i = 0; i < 400 && sockets.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
        expect(sockets.length).toBeGreaterThan(0);
      });
    } finally {
      for (const s of sockets) s.destroy();
      server.close();
    }
  }

  it('one SIGINT to the pid the shell got prints one "Interrupted." and dies of SIGINT (the shell reports 130)', async () => {
    await hangingService(async (env, inFlight) => {
      const run = startLauncher(['whoami', '--timeout', '60s'], env);
      await inFlight();
      process.kill(run.child.pid!, 'SIGINT');
      expect(await run.exited).toEqual({ code: null, signal: 'SIGINT' });
      expect(run.err().match(/Interrupted\./g)).toEqual(['Interrupted.']);
    });
  });

  it('a stop signal sent again as the command ends (timeout -s INT: to the command, then to its group) keeps its graceful exit 0', async () => {
    // `sandbox requests tail` stops on Ctrl-C with exit 0. The same SIGINT again, in a burst over the
    // moment it takes to stop: one lands after the command's handlers went and before the process
    // ended, where the default action used to end it silently by SIGINT (130 in the shell).
    const run = startLauncher(['sandbox', 'requests', 'tail', '--db', join(t.dir, `tail-${process.pid}.db`)]);
    await run.until(/Ctrl-C stops/, run.err);
    let gone = false;
    void run.exited.then(() => (gone = true));
    // Within 120 ms of the first: a repeat that late still counts as the same stop (signals.ts: 250 ms).
    for (const start = Date.now(); !gone && Date.now() - start < 120; ) {
      try {
        process.kill(run.child.pid!, 'SIGINT');
      } catch {
        break; // it ended between the check and the kill
      }
      await new Promise((r) => setTimeout(r, 1));
    }
    expect(await run.exited, run.err()).toEqual({ code: 0, signal: null });
    expect(run.err()).not.toMatch(/Interrupted/);
  });

  // `node bin/bookdist` under a Node older than engines.node re-runs the command under the pinned
  // Node as a child: the parent must end as the child did, by the same signal (not exit 1 for SIGTERM).
  const machineNode =
    spawnSync('node', ['-p', 'process.versions.node'], {
      env: { PATH: machinePath },
      encoding: 'utf8',
    }).stdout?.trim() ?? '';
  it.for([
    ['SIGTERM', 'the parent alone, as kill does'],
    ['SIGINT', "the process group, as a terminal's Ctrl-C does"],
  ] as const)('through an older node: %s sent to %s: the parent ends by that signal', async ([sig], ctx) => {
    if (!machineNode || atLeast(machineNode, ENGINES_MIN))
      ctx.skip(
        `needs a node older than ${ENGINES_MIN} on PATH (the re-run path); this machine's is ${machineNode || 'absent'}`,
      );
    await hangingService(async (env, inFlight) => {
      const run = startLauncher(['whoami', '--timeout', '60s'], env, { viaNode: true });
      await inFlight();
      process.kill(sig === 'SIGINT' ? -run.child.pid! : run.child.pid!, sig);
      expect(await run.exited, run.err()).toEqual({ code: null, signal: sig });
      expect(run.err().match(/Interrupted\./g)).toEqual(['Interrupted.']);
    });
  });

  it('gives a catalogue load a larger young generation than every other command, through sh and through an older node', () => {
    // A hook preloaded into every Node the launcher starts reports the V8 flags it got.
    const hook = join(t.dir, 'exec-argv.mjs');
    writeFileSync(
      hook,
      "process.on('exit', () => process.stderr.write(`\\nEXEC_ARGV=${JSON.stringify(process.execArgv)}\\n`));\n",
    );
    const flagsOf = (cmd: string) => {
      const r = sh(cmd, { NODE_OPTIONS: `--import=${hook}` });
      expect(r.status, r.stderr).toBe(0);
      // Every Node that ran: an older node that re-runs the command under the pinned one got no flags.
      return [...r.stderr.matchAll(/^EXEC_ARGV=(.*)$/gm)].flatMap((m) =>
        (JSON.parse(m[1]) as string[]).filter((a) => /^--m(ax|in)-semi-space-size/.test(a)),
      );
    };
    expect(flagsOf(`"${BIN}" --version`)).toEqual(['--max-semi-space-size=4', '--min-semi-space-size=4']);
    expect(flagsOf(`"${BIN}" book --help`)).toEqual(['--max-semi-space-size=4', '--min-semi-space-size=4']);
    expect(flagsOf(`"${BIN}" sandbox catalogue load --help`)).toEqual([
      '--max-semi-space-size=8',
      '--min-semi-space-size=4',
    ]);
    expect(flagsOf(`"${BIN}" sandbox catalogue --help`)).toEqual([
      '--max-semi-space-size=4',
      '--min-semi-space-size=4',
    ]);
    // Every Node the launcher starts resolves dist/'s modules without following links (issue 31).
    const preserve = (cmd: string) =>
      [...sh(cmd, { NODE_OPTIONS: `--import=${hook}` }).stderr.matchAll(/^EXEC_ARGV=(.*)$/gm)].map((m) =>
        JSON.parse(m[1]).includes('--preserve-symlinks'),
      );
    expect(preserve(`"${BIN}" book --help`)).toEqual([true]);
    if (
      !atLeast(
        spawnSync('node', ['-p', 'process.versions.node'], {
          env: { PATH: machinePath },
          encoding: 'utf8',
        }).stdout.trim(),
        ENGINES_MIN,
      )
    ) {
      expect(flagsOf(`node "${BIN}" sandbox catalogue load --help`)).toEqual([
        '--max-semi-space-size=8',
        '--min-semi-space-size=4',
      ]);
      expect(flagsOf(`node "${BIN}" book --help`)).toEqual(['--max-semi-space-size=4', '--min-semi-space-size=4']);
      expect(preserve(`node "${BIN}" book --help`).sort()).toEqual([false, true]); // the older node, the pinned one
    }
  });

  it('works through npm-style relative symlinks (npm link, global install) and without a pinned Node', () => {
    // A global install: prefix/lib/node_modules/bookdist/{bin,dist} and prefix/bin/bookdist -> ../lib/...
    const prefix = join(t.dir, 'prefix');
    const pkg = join(prefix, 'lib', 'node_modules', 'bookdist');
    mkdirSync(join(pkg, 'bin'), { recursive: true });
    mkdirSync(join(prefix, 'bin'), { recursive: true });
    copyFileSync(BIN, join(pkg, 'bin', 'bookdist'));
    chmodSync(join(pkg, 'bin', 'bookdist'), 0o755);
    symlinkSync(join(root, 'dist'), join(pkg, 'dist'));
    symlinkSync('../lib/node_modules/bookdist/bin/bookdist', join(prefix, 'bin', 'bookdist'));
    // and a second hop, as `npm link` makes (global link -> project)
    symlinkSync(join(prefix, 'bin', 'bookdist'), join(t.dir, 'bd'));
    expect(existsSync(join(pkg, 'node_modules'))).toBe(false);

    // A supported node on PATH (no pinned Node next to this install).
    const nodeDir = join(t.dir, 'node24');
    mkdirSync(nodeDir, { recursive: true });
    symlinkSync(PINNED, join(nodeDir, 'node'));
    for (const cmd of [
      `bookdist --version`,
      `"${join(t.dir, 'bd')}" --version`,
      `cd "${prefix}/bin" && sh bookdist --version`,
    ]) {
      const r = sh(cmd, { PATH: `${nodeDir}:${join(prefix, 'bin')}:${machinePath}` });
      expect(r.status, `${cmd}: ${r.stderr}`).toBe(0);
      expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    }
    const help = sh(`bookdist book get --help`, { PATH: `${nodeDir}:${join(prefix, 'bin')}:${machinePath}` });
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toContain('Usage: bookdist book get');

    // The machine's own node only: it runs when new enough, else one message names the minimum
    // of engines.node and how to run with a newer Node, and exits 2.
    const machine = sh('node -p process.versions.node');
    if (machine.status === 0) {
      const r = sh(`bookdist --version`, { PATH: `${join(prefix, 'bin')}:${machinePath}` });
      if (!atLeast(machine.stdout.trim(), ENGINES_MIN)) {
        expect(r.status).toBe(2);
        expect(r.stderr).toBe(
          `bookdist: Node ${machine.stdout.trim()} is too old: bookdist ${PKG.version} needs Node ${ENGINES_MIN} or newer ` +
            `(engines.node in its package.json). Install a newer Node, or run bookdist with Node 24 from npm: npx -p node@24 bookdist --version\n`,
        );
      } else {
        expect(r.status, r.stderr).toBe(0);
      }
    }
  });
});
