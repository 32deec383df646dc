// Shared pieces of the verbs' in-process tests through the stub HTTP registry: each verb runs
// through the real main() (parsing, the API client, verified answers, output, exit codes) with a
// StubRegistry as the service, so a test states the request the verb must send and the answer it
// gets, and nothing leaves the process. Each file gets state and cache directories of its own
// (the ledger and the id cache that writes and reads feed), removed after its tests.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { run, stubEnv, type RunOptions, type RunResult } from '../helpers/run.js';
import { json, type StubRegistry, type StubRequest } from '../helpers/stub-http.js';

export { json, StubRegistry } from '../helpers/stub-http.js';

/** A success in the service's envelope. */
export function ok(body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return json(200, { code: 200, success: true, ...body }, headers);
}

/** A refusal in the service's envelope (interface.md: code, error, message). */
export function refusal(status: number, message: string, extra: Record<string, unknown> = {}) {
  return json(status, { code: status, error: true, message, ...extra });
}

/** No waiting between retries; the time is fixed. */
const instant = { now: () => new Date('2026-11-25T12:00:00Z'), sleep: async () => {} };

type StubCli = (http: StubRegistry, args: string[], opts?: Omit<RunOptions, 'http'>) => Promise<RunResult>;

/**
 * A `bookdist` against the given stubs, as a partner with a shared key. A request no stub expected
 * fails the run's test at once; after each test every registry it used is verified, so a stub the
 * verb did not use fails it too.
 */
export function stubCli(): StubCli & { dir(): string } {
  let dir = '';
  const used = new Set<StubRegistry>();
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'bookdist-stubs-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  afterEach((t) => {
    const all = [...used];
    used.clear();
    // A test that failed already says why; its stubs left unused would only repeat it.
    if (t.task.result?.state === 'fail') return;
    for (const http of all) http.verify();
  });
  const cli = async (http: StubRegistry, args: string[], opts: Omit<RunOptions, 'http'> = {}) => {
    used.add(http);
    const r = await run(args, {
      clock: instant,
      ...opts,
      http,
      env: stubEnv({ BOOKDIST_STATE_DIR: join(dir, 'state'), XDG_CACHE_HOME: join(dir, 'cache'), ...opts.env }),
    });
    expect(http.unexpected, `requests no stub expected (exit ${r.code}):\n${r.stderr}`).toEqual([]);
    return r;
  };
  return Object.assign(cli, { dir: () => dir });
}

/** The one request sent to `method path` (fails when there is not exactly one). */
export function sentOnce(http: StubRegistry, method: string, path: string | RegExp): StubRequest {
  const sent = http.sent(path, method);
  expect(sent, `${method} ${String(path)} sent ${sent.length} times`).toHaveLength(1);
  return sent[0]!;
}

/** JSON on stdout, or a failure that shows what was printed. */
export function stdoutJson(r: RunResult): any {
  try {
    return JSON.parse(r.stdout);
  } catch {
    throw new Error(`stdout is not JSON (exit ${r.code}):\n${r.stdout}\nstderr:\n${r.stderr}`);
  }
}
