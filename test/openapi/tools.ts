// The OpenAPI tools partners run, run by the tests as partners would: redocly, spectral, the Prism
// validating proxy, openapi-typescript and tsc, from devDependencies (pinned), on the pinned Node 24
// (Prism needs Node >= 24.18), offline (REDOCLY_TELEMETRY=off). The document they read is the one
// a sandbox serves at /openapi.json, fetched as is.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The pinned Node of devDependencies (what `npm test` runs), else the one running the tests. */
export const NODE = existsSync(join(ROOT, 'node_modules/node/bin/node'))
  ? join(ROOT, 'node_modules/node/bin/node')
  : process.execPath;

const BINS = {
  redocly: '@redocly/cli/bin/cli.js',
  spectral: '@stoplight/spectral-cli/dist/index.js',
  prism: '@stoplight/prism-cli/dist/index.js',
  'openapi-typescript': 'openapi-typescript/bin/cli.js',
  tsc: 'typescript/bin/tsc',
} as const;

export type Tool = keyof typeof BINS;

/** The environment of every tool: nothing from the network, no colour, no telemetry. */
function toolEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TMPDIR: process.env.TMPDIR,
    // Node programs such as redocly enable Node's compile cache, under TMPDIR by default.
    NODE_DISABLE_COMPILE_CACHE: '1',
    NO_COLOR: '1',
    FORCE_COLOR: '0',
    REDOCLY_TELEMETRY: 'off',
    REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
    ...extra,
  };
}

export interface ToolResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runTool(
  tool: Tool,
  args: string[],
  opts: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<ToolResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, [join(ROOT, 'node_modules', BINS[tool]), ...args], {
      cwd: opts.cwd ?? ROOT,
      env: toolEnv(opts.env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A temporary directory, removed by cleanup(). */
export function tempDir(prefix = 'bookdist-openapi-'): {
  path: string;
  file(name: string, text: string): string;
  cleanup(): void;
} {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return {
    path,
    file(name, text) {
      const f = join(path, name);
      writeFileSync(f, text);
      return f;
    },
    cleanup: () => rmSync(path, { recursive: true, force: true }),
  };
}

export interface LintProblem {
  rule: string;
  severity: 'error' | 'warn' | 'info' | 'hint';
  where: string;
  message: string;
}

/** `redocly lint` of a document file, with the repo's redocly.yaml or the bare recommended ruleset. */
export async function redoclyLint(file: string, config: 'repo' | 'recommended'): Promise<LintProblem[]> {
  const dir = tempDir('bookdist-redocly-');
  try {
    // Without --config, redocly reads a redocly.yaml of the working directory: run the bare
    // recommended ruleset from an empty one.
    const args = [
      'lint',
      file,
      '--format=json',
      ...(config === 'repo' ? ['--config', join(ROOT, 'redocly.yaml')] : []),
    ];
    const r = await runTool('redocly', args, { cwd: config === 'repo' ? ROOT : dir.path });
    const json = r.stdout.slice(r.stdout.indexOf('{'));
    let parsed: any;
    try {
      parsed = JSON.parse(json);
    } catch {
      throw new Error(`redocly lint printed no JSON (exit ${r.code}): ${r.stderr.slice(0, 2000)}`);
    }
    return parsed.problems.map((p: any) => ({
      rule: p.ruleId,
      severity: p.severity === 'warn' ? 'warn' : p.severity,
      where: p.location?.[0]?.pointer ?? '',
      message: p.message,
    }));
  } finally {
    dir.cleanup();
  }
}

/** `spectral lint` of a document file with a ruleset (the repo's .spectral.yaml, or spectral:oas alone). */
export async function spectralLint(file: string, ruleset: 'repo' | 'oas'): Promise<LintProblem[]> {
  const dir = tempDir('bookdist-spectral-');
  try {
    const rules =
      ruleset === 'repo' ? join(ROOT, '.spectral.yaml') : dir.file('oas.yaml', 'extends: ["spectral:oas"]\n');
    const out = join(dir.path, 'out.json');
    const r = await runTool(
      'spectral',
      ['lint', file, '--ruleset', rules, '--format', 'json', '--output', out, '--quiet', '--fail-severity', 'error'],
      { cwd: dir.path },
    );
    if (!existsSync(out))
      throw new Error(`spectral lint wrote no report (exit ${r.code}): ${(r.stderr + r.stdout).slice(0, 2000)}`);
    const { readFileSync } = await import('node:fs');
    const text = readFileSync(out, 'utf8').trim();
    const results: any[] = text ? JSON.parse(text) : [];
    const severity = ['error', 'warn', 'info', 'hint'] as const;
    return results.map((x) => ({
      rule: x.code,
      severity: severity[x.severity],
      where: '#/' + x.path.join('/'),
      message: x.message,
    }));
  } finally {
    dir.cleanup();
  }
}

/** Count problems by `severity rule`. */
export function tally(problems: LintProblem[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of problems) out[`${p.severity} ${p.rule}`] = (out[`${p.severity} ${p.rule}`] ?? 0) + 1;
  return out;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface PrismProxy {
  url: string;
  /** Requests Prism received. */
  requests(): number;
  /**
   * Every violation Prism reported: request violations (answered 422), response violations
   * (answered 500 under --errors) and requests it could not route, one log line each.
   */
  violations(): string[];
  /** Everything Prism logged (for failure messages). */
  log(): string;
  /**
   * Wait until Prism has logged everything about the requests answered so far: its log lags its
   * answers, in order, so once a request sent now shows up, every earlier line is there.
   */
  settle(): Promise<void>;
  close(): Promise<void>;
}

/**
 * `prism proxy <docUrl> <upstream> --errors`: Prism validates every request and response against
 * the document and answers an error instead of anything that breaks it.
 */
export async function startPrismProxy(docUrl: string, upstream: string): Promise<PrismProxy> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    NODE,
    [
      join(ROOT, 'node_modules', BINS.prism),
      'proxy',
      docUrl,
      upstream,
      '--errors',
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
    ],
    {
      cwd: ROOT,
      env: toolEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let log = '';
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Prism did not start within 90 s:\n${log.slice(-3000)}`)), 90_000);
    const onData = (d: Buffer) => {
      log += d.toString();
      if (/Prism is listening on/.test(log)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`Prism exited (${code}) before listening:\n${log.slice(-3000)}`));
    });
  });
  const lines = () => log.split('\n');
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => lines().filter((l) => /\[HTTP SERVER\] .* Request received/.test(l)).length,
    violations: () => lines().filter((l) => /Request terminated with error|Violation:/.test(l)),
    log: () => log,
    async settle() {
      const received = () => lines().filter((l) => /\[HTTP SERVER\] .* Request received/.test(l)).length;
      const n = received();
      await (await fetch(`http://127.0.0.1:${port}/openapi.json`)).arrayBuffer();
      const deadline = Date.now() + 30_000;
      while (received() <= n) {
        if (Date.now() > deadline)
          throw new Error(`Prism logged nothing of a request within 30 s:\n${log.slice(-2000)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async close() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
