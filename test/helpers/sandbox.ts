// Start a real sandbox in the test process (127.0.0.1, port 0, fresh database in a temp dir)
// and hand tests its URL, the seeded credentials, the environment a spawned `bin/bookdist`
// needs, and helpers for the sandbox's testing controls (clock, usage, redeem, outbox).
//
// Keep this signature stable: other engineers' e2e tests import it. Add, don't change.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { expect } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox } from '../../src/sandbox/http/server.js';
import { seedCatalogue } from '../../src/sandbox/seed.js';

export { WELL_KNOWN, SEED_IMPORTS, SEED_USERS } from '../../src/sandbox/seed.js';
/** The seeded books (src/sandbox/seed.ts builds them on first use). */
export const SEED_BOOKS = seedCatalogue();

interface TestAccount {
  username: string;
  /** Path of the private key (PEM, 0600). */
  keyFile: string;
  /** The private key PEM itself. Never print it. */
  keyPem: string;
  /** Public key PEM. */
  publicKey: string;
  /** SharedKeyAuth secret. Never print it. */
  sharedKey: string;
}

import type { OutboxMail } from '../../src/sandbox/control.js';

export interface TestSandboxOptions {
  /** Delay before the worker completes a queued book (default 2000 ms). */
  processDelayMs?: number;
  /** Fault injection for client tests. Never applies to /_sandbox/ control routes. */
  faults?: { rate: number; kinds: Array<'503' | '429' | 'reset' | 'drop'>; latencyMs?: number; seed?: number };
  /** Collect the server's request log lines. */
  log?: (line: string) => void;
  /** More Host names the control routes answer (as `sandbox serve --allow-host`). */
  allowHosts?: string[];
  /** The request journal's options, or false for none (as `sandbox serve --journal-size/--redact-codes/--no-journal`). */
  journal?: { size?: number; redactCodes?: boolean } | false;
}

export interface TestSandbox {
  url: string;
  port: number;
  /** The SQLite file of this sandbox (inside a temp dir removed by close()). */
  dbPath: string;
  creds: { partner: TestAccount; limited: TestAccount; operatorToken: string };
  /** The control secret of the /_sandbox/ routes (header X-Sandbox-Secret). Never print it. */
  controlSecret: string;
  /** Environment for a spawned `bin/bookdist` talking to this sandbox as the seeded partner. */
  env: Record<string, string>;
  /**
   * The server's `internal error: <stack>` log lines so far (a 500 "Internal error." answer's cause),
   * to put in a failure message: `expect(r.code, r.stderr + sb.internalErrors.join('\n'))`.
   */
  internalErrors: string[];
  control: {
    /** Move the sandbox clock forward: `15d`, `36h`, `90m`, `30s`, `500ms`, or milliseconds. */
    advanceClock(by: string | number): Promise<{ now: string; offset_ms: number }>;
    /** The sandbox's notion of now (ISO 8601). */
    now(): Promise<string>;
    /** Record pages viewed/printed by a user in a book (counts for the refund rules). */
    usage(args: { username: string; hashId: string; viewed?: number; printed?: number }): Promise<any>;
    /** Redeem a code for a user (counts in the code summary, gives the user access). */
    redeem(code: string, username: string): Promise<any>;
    /** The e-mails the service would have sent, oldest first; optionally only those to `to`. */
    outbox(to?: string): Promise<OutboxMail[]>;
    /** Run the processing worker now, completing every queued book that is due. */
    runWorker(): Promise<any>;
    /** Raw call of a /_sandbox/ control route (with the control secret and a JSON body type). */
    call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: any }>;
  };
  close(): Promise<void>;
}

export async function startTestSandbox(opts: TestSandboxOptions = {}): Promise<TestSandbox> {
  const dir = mkdtempSync(join(tmpdir(), 'bookdist-sandbox-'));
  // Which test started it: the temp-dir guard names it if the directory is ever left behind.
  writeFileSync(
    join(dir, CREATED_BY),
    `${expect.getState().testPath ?? 'unknown file'}: ${expect.getState().currentTestName ?? 'a hook'}\n`,
  );
  try {
    return await startIn(dir, opts);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/** The file in a test sandbox's directory that names the test that started it (temp-guard.ts reads it by the same name). */
const CREATED_BY = '.created-by';

async function startIn(dir: string, opts: TestSandboxOptions): Promise<TestSandbox> {
  const configDir = join(dir, 'config');
  const dbPath = join(dir, 'sandbox.db');
  const internalErrors: string[] = [];
  const server = await startSandbox({
    host: '127.0.0.1',
    port: 0,
    dbPath,
    processDelayMs: opts.processDelayMs ?? 2000,
    faults: opts.faults,
    log: (line) => {
      if (/^(\[[^\]]*\] )?internal error:/.test(line)) internalErrors.push(line);
      opts.log?.(line);
    },
    allowHosts: opts.allowHosts,
    journal: opts.journal,
  });
  const at = await servedAt(server.url, server.controlSecret).catch(async (err: unknown) => {
    await server.close();
    throw err;
  });
  const { url, controlSecret, creds, control } = at;
  const env: Record<string, string> = {
    BOOKDIST_CONFIG_DIR: configDir,
    BOOKDIST_DATA_DIR: join(dir, 'data'),
    // The ledger of the writes sent to this sandbox (issue 34), removed with it.
    BOOKDIST_STATE_DIR: join(dir, 'state'),
    BOOKDIST_BASE_URL: url,
    BOOKDIST_USERNAME: creds.partner.username,
    BOOKDIST_KEY_FILE: creds.partner.keyFile,
    BOOKDIST_TOKEN: creds.operatorToken,
    NO_COLOR: '1',
  };

  let closed = false;
  return {
    url,
    port: server.port,
    dbPath,
    creds,
    controlSecret,
    env,
    internalErrors,
    control,
    async close() {
      if (closed) return;
      closed = true;
      // close() resolves once the store and its checkpointer thread have closed their
      // connections: nothing of the sandbox writes in the directory after it.
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The credentials and control routes of a sandbox (or a workspace) served at `url`. */
async function servedAt(
  url: string,
  controlSecret: string,
): Promise<Pick<TestSandbox, 'url' | 'controlSecret' | 'creds' | 'control'>> {
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
    const res = await fetch(url + path, {
      method,
      headers: {
        'x-sandbox-secret': controlSecret,
        ...(method === 'POST' ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: any;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = { text };
    }
    return { status: res.status, body: parsed };
  };
  const ok = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
    const r = await call(method, path, body);
    if (r.status >= 400) throw new Error(`${method} ${path}: ${r.status} ${r.body?.message ?? ''}`);
    return r.body;
  };

  // The private key never travels over HTTP: read it from its file, as a partner's client would.
  const c = await ok('GET', '/_sandbox/credentials');
  const account = (a: any): TestAccount => ({
    username: a.username,
    keyFile: a.key_file,
    keyPem: readFileSync(a.key_file, 'utf8'),
    publicKey: a.public_key,
    sharedKey: a.shared_key,
  });
  const creds = { partner: account(c.partner), limited: account(c.limited), operatorToken: c.operator_token as string };
  return {
    url,
    controlSecret,
    creds,
    control: {
      advanceClock: (by) => ok('POST', '/_sandbox/clock/advance', { by }),
      now: async () => (await ok('GET', '/_sandbox/clock')).now,
      usage: ({ username, hashId, viewed, printed }) =>
        ok('POST', '/_sandbox/usage', { username, hash_id: hashId, viewed: viewed ?? 0, printed: printed ?? 0 }),
      redeem: (code, username) => ok('POST', '/_sandbox/redeem', { code, username }),
      outbox: async (to) => (await ok('GET', '/_sandbox/outbox' + (to ? `?to=${encodeURIComponent(to)}` : ''))).emails,
      runWorker: () => ok('POST', '/_sandbox/worker/run', {}),
      call,
    },
  };
}

/**
 * A workspace of `sb` (issue 30, item 5) seen as a test sandbox: made from a snapshot of `sb`'s
 * state now (saved as `name`), served on its own port with credentials of its own. close()
 * removes the workspace and the snapshot (not `sb`).
 */
export async function startTestWorkspace(sb: TestSandbox, name: string): Promise<TestSandbox> {
  const ok = async (path: string, body: unknown) => {
    const r = await sb.control.call('POST', path, body);
    if (r.status >= 400) throw new Error(`POST ${path}: ${r.status} ${r.body?.message ?? ''}`);
    return r.body;
  };
  await ok('/_sandbox/snapshots/save', { name });
  const w = (await ok('/_sandbox/workspaces', { name, from: name })).workspace;
  const at = await servedAt(w.url, w.credentials.control_secret);
  let closed = false;
  return {
    ...at,
    port: Number(new URL(w.url).port),
    // A workspace is served by `sb`'s server: its internal errors are logged there, named by it.
    internalErrors: sb.internalErrors,
    dbPath: join(`${sb.dbPath}.workspaces`, `${name}.db`),
    env: {
      ...sb.env,
      BOOKDIST_BASE_URL: w.url,
      BOOKDIST_USERNAME: at.creds.partner.username,
      BOOKDIST_KEY_FILE: at.creds.partner.keyFile,
      BOOKDIST_TOKEN: at.creds.operatorToken,
    },
    async close() {
      if (closed) return;
      closed = true;
      await ok('/_sandbox/workspaces/rm', { name });
      await ok('/_sandbox/snapshots/rm', { name });
    },
  };
}
