// Shared pieces of the command tests: run a command against a test sandbox as the seeded partner
// (or another account), in-process through test/helpers/run.ts (the real main() over real HTTP,
// without a process per run), parse JSON output, and a recording server for checking that
// invalid input never reaches the network.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CliResult } from '../helpers/cli.js';
import { run } from '../helpers/run.js';
import type { TestSandbox } from '../helpers/sandbox.js';

export type Cli = (
  args: string[],
  opts?: { env?: Record<string, string | undefined>; input?: string },
) => Promise<CliResult>;

/** A `bookdist` bound to a sandbox as the seeded partner, run in-process. */
export function cliFor(sb: TestSandbox, extraEnv: Record<string, string | undefined> = {}): Cli {
  return (args, opts = {}) => run(args, { env: { ...sb.env, ...extraEnv, ...opts.env }, input: opts.input });
}

/** Environment of the sandbox's limited account (scopes book_metadata and invite_user only). */
export function limitedEnv(sb: TestSandbox): Record<string, string> {
  return { ...sb.env, BOOKDIST_USERNAME: sb.creds.limited.username, BOOKDIST_KEY_FILE: sb.creds.limited.keyFile };
}

export function json(r: CliResult): any {
  try {
    return JSON.parse(r.stdout);
  } catch {
    throw new Error(`stdout is not JSON (exit ${r.code}):\n${r.stdout}\nstderr:\n${r.stderr}`);
  }
}

let n = 0;
export function uniqueEmail(tag = 'cli'): string {
  return `${tag}.${process.pid}.${Date.now().toString(36)}.${++n}@example.com`;
}

/** An HTTP server that records every request and answers 500: nothing should ever reach it. */
export async function recorder(): Promise<{
  url: string;
  requests: Array<{ method: string; url: string }>;
  close(): Promise<void>;
}> {
  const requests: Array<{ method: string; url: string }> = [];
  const server = createServer((req: IncomingMessage, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '' });
    req.resume();
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end('{"code":500,"error":true,"message":"recorder: no request should arrive here"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
