// The real main() in this process, against a sandbox over real HTTP: the same code path as
// bin/bookdist (argument parsing, config from the environment, the HTTP client, exit codes) at a
// fraction of the cost of a process per run, for tests that make hundreds of runs.
import { PassThrough, Writable } from 'node:stream';
import { main } from '../../src/main.js';
import type { Cli } from '../commands/_support.js';

export function inProcess(env: Record<string, string | undefined>): Cli {
  return async (args, opts = {}) => {
    let stdout = '';
    let stderr = '';
    const sink = (f: (s: string) => void) => new Writable({ write: (chunk, _e, cb) => (f(String(chunk)), cb()) });
    const stdin = new PassThrough();
    stdin.end(opts.input ?? '');
    const code = await main(args, {
      io: { stdin, stdout: sink((x) => (stdout += x)), stderr: sink((x) => (stderr += x)), env: { ...env, ...opts.env }, cwd: process.cwd() },
      signals: false,
    });
    return { code, signal: null, stdout, stderr };
  };
}
