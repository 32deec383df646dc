// Spawn the real bin/bookdist (built into dist/ by `npm test`) and collect what it printed.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/bookdist', import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  /** Written to stdin, then stdin is closed. */
  input?: string;
  cwd?: string;
  timeoutMs?: number;
  /** What runs BIN (default: this Node): Node with flags of its own, or a wrapper that ends by running Node. */
  launch?: string[];
}

/** Run `bookdist ...args` with the given environment (merged over a minimal one). */
export function runCli(args: string[], opts: RunOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const [program, ...before] = opts.launch ?? [process.execPath];
    const child = spawn(program!, [...before, BIN, ...args], {
      cwd: opts.cwd,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        TMPDIR: process.env.TMPDIR,
        NO_COLOR: '1',
        ...opts.env,
      } as NodeJS.ProcessEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}
