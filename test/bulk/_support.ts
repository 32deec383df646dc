// Shared pieces of the bulk e2e tests: the CLI bound to a sandbox, the code summary, reading code
// files, and a probe of whether the service honours Idempotency-Key on code generation.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { BIN, type CliResult } from '../helpers/cli.js';
import { run } from '../helpers/run.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { authHeaders, formBody, loadRsaPrivateKey, pythonJson } from '../../src/api/wire.js';

export type Cli = (
  args: string[],
  opts?: { input?: string; timeoutMs?: number; cwd?: string; env?: Record<string, string> },
) => Promise<CliResult>;

/**
 * The sandbox honours Idempotency-Key, which a job is told as a partner's profile would say it
 * (BOOKDIST_IDEMPOTENCY_KEYS=1): the client's one retry policy then repeats a batch whose answer
 * was lost with the batch's key, which the exactness tests rely on.
 */
const KEYS_HONOURED = { BOOKDIST_IDEMPOTENCY_KEYS: '1' };

/** `bookdist` against the sandbox, in-process (spawnCli below runs a process, for kills and locks). */
export function cliFor(sb: TestSandbox): Cli {
  return (args, opts = {}) =>
    run(args, { env: { ...sb.env, ...KEYS_HONOURED, ...opts.env }, input: opts.input, cwd: opts.cwd });
}

export async function codesGenerated(cli: Cli): Promise<number> {
  const r = await cli(['codes', 'summary', '--json']);
  if (r.code !== 0) throw new Error(`codes summary failed: ${r.stderr}`);
  return JSON.parse(r.stdout).codes_generated;
}

/** The codes column of a CSV code file (header checked). */
export function csvCodes(path: string): string[] {
  const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean);
  if (lines[0] !== 'code,deactivation_date,limit_days,hash_id,batch') throw new Error(`unexpected header: ${lines[0]}`);
  return lines.slice(1).map((l) => l.split(',')[0]);
}

/** Codes lost by a run, as the CLI reports them ("codes generated but not delivered: N"). */
export function undeliveredReported(stderr: string): number {
  const m = /codes generated but not delivered: (\d+)/.exec(stderr);
  return m ? Number(m[1]) : 0;
}

/**
 * Does the service answer a repeated code generation with the same Idempotency-Key with the same
 * codes? (The specification has no such key; the CLI sends one, and relies on it only to make
 * resuming after kill -9 exact.) Two signed requests, straight over HTTP. Costs up to two codes.
 */
export async function honoursIdempotencyKey(sb: TestSandbox, hashId: string): Promise<boolean> {
  const idem = `probe-${process.pid}-${Date.now()}`;
  const send = () =>
    signedPost(sb, '/v1/codes/generate/', { hash_id: hashId, org: 'probe', count: 1 }, { 'idempotency-key': idem });
  const a = (await send()).body;
  const b = (await send()).body;
  return a.codes?.[0]?.code !== undefined && a.codes[0].code === b.codes?.[0]?.code;
}

/** One POST signed as the seeded partner, form-encoded as the reference clients send it. */
export async function signedPost(
  sb: TestSandbox,
  path: string,
  payload: Record<string, unknown>,
  extra: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  const key = loadRsaPrivateKey(sb.creds.partner.keyPem);
  const text = pythonJson(payload);
  const headers = {
    ...authHeaders({ kind: 'crypto', username: sb.creds.partner.username, key }, text),
    'content-type': 'application/x-www-form-urlencoded',
    ...extra,
  };
  const res = await fetch(sb.url + path, { method: 'POST', headers, body: formBody(text) });
  return { status: res.status, body: (await res.json()) as any };
}

/** Spawn bin/bookdist in the background (for kill and lock tests). */
export function spawnCli(
  sb: TestSandbox,
  args: string[],
  env: Record<string, string> = {},
  opts: { input?: string; cwd?: string } = {},
) {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      TMPDIR: process.env.TMPDIR,
      ...sb.env,
      ...KEYS_HONOURED,
      ...env,
    } as NodeJS.ProcessEnv,
    stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    cwd: opts.cwd,
  });
  if (opts.input !== undefined) child.stdin!.end(opts.input);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d) => (stderr += d));
  child.stdout!.resume();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((res) =>
    child.on('close', (code, signal) => res({ code, signal, stderr })),
  );
  return { child, exited };
}

/** Wait until a CSV code file holds at least `min` codes (fails if the run ends first). */
export async function waitForCodes(path: string, min: number, exited: Promise<unknown>): Promise<void> {
  let done = false;
  void exited.then(() => (done = true));
  for (;;) {
    if (existsSync(path) && readFileSync(path, 'utf8').split('\n').length - 2 >= min) return;
    if (done) throw new Error('the run ended before it wrote codes');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Wait until `test` holds (polled every 20 ms); fails when the run ends first or after `ms`. */
export async function waitUntil(test: () => boolean, exited?: Promise<unknown>, ms = 60_000): Promise<void> {
  let done = false;
  void exited?.then(() => (done = true));
  const t0 = Date.now();
  for (;;) {
    if (test()) return;
    if (done) throw new Error('the run ended before the condition held');
    if (Date.now() - t0 > ms) throw new Error(`the condition did not hold within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A stored profile (config.json) in the sandbox's config dir: `conf`, and the package that re-sends signals, are in play. */
export function storeProfile(sb: TestSandbox): void {
  mkdirSync(sb.env.BOOKDIST_CONFIG_DIR, { recursive: true, mode: 0o700 });
  writeFileSync(
    join(sb.env.BOOKDIST_CONFIG_DIR, 'config.json'),
    JSON.stringify({ profiles: { spare: { baseUrl: 'http://127.0.0.1:9' } } }),
    { mode: 0o600 },
  );
}
