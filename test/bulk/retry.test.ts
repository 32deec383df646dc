// A bulk job's request over real HTTP (a scripted local server): the client's retry policy applies
// once (the job never repeats what the client already retried: requests are counted), and what
// still fails is classified for the job.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiClient } from '../../src/api/client.js';
import { callOnce } from '../../src/bulk/retry.js';
import { bulkExitCode } from '../../src/bulk/job/summary.js';

type Step = { status: number; headers?: Record<string, string>; body?: unknown } | 'reset';

let server: Server;
let url: string;
let script: Step[] = [];
const seen: Array<{ method: string; key?: string }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', key: req.headers['idempotency-key'] as string | undefined });
    req.resume();
    const step = script.shift() ?? { status: 200, body: { code: 200, success: true } };
    if (step === 'reset') return void req.socket.destroy();
    res.writeHead(step.status, { 'content-type': 'application/json', ...step.headers });
    res.end(JSON.stringify(step.body ?? { code: step.status }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

function client(retries = 0, waits: number[] = [], idempotencyKeys = false) {
  return new ApiClient({
    baseUrl: url,
    credentials: { kind: 'none' },
    timeout: 5000,
    retries,
    idempotencyKeys,
    sleep: async (ms: number) => void waits.push(ms),
  });
}

describe('callOnce', () => {
  it('a 429 with --retries 3 is sent 4 times, not 16: the client retries, the job does not', async () => {
    seen.length = 0;
    script = Array.from({ length: 20 }, () => ({ status: 429, headers: { 'retry-after': '1' } }));
    const waits: number[] = [];
    const r = await callOnce(client(3, waits), 'index', {});
    expect(seen).toHaveLength(4);
    expect(waits).toEqual([1000, 1000, 1000]);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.failure).toMatchObject({ kind: 'unavailable', status: 429, exitCode: 7 });
    script = [];
  });

  it('a 503 on a read is retried by the client, Retry-After honoured, then the answer is returned', async () => {
    seen.length = 0;
    script = [
      { status: 503, headers: { 'retry-after': '2' } },
      { status: 200, body: { success: true, api: { host: 'h' } } },
    ];
    const waits: number[] = [];
    const r = await callOnce(client(3, waits), 'index', {});
    expect(r.ok && r.response.body).toEqual({ success: true, api: { host: 'h' } });
    expect(seen).toHaveLength(2);
    expect(waits).toEqual([2000]);
  });

  it('a write with an Idempotency-Key, to a service that honours keys, is repeated after a dropped connection with the same key', async () => {
    seen.length = 0;
    script = ['reset', 'reset', { status: 200, body: { codes: [] } }];
    const api = client(3, [], true);
    const r = await callOnce(
      api,
      'codes.generate',
      { payload: { hash_id: 'h', org: 'o', count: 1 } },
      { headers: { 'idempotency-key': 'job-7' } },
    );
    expect(r.ok).toBe(true);
    expect(seen.map((x) => x.key)).toEqual(['job-7', 'job-7', 'job-7']);
    await api.close();
  });

  it('returns a 4xx answer as it is (the caller decides), sent once', async () => {
    seen.length = 0;
    script = [{ status: 400, body: { code: 400, error: true, message: 'The user already has access to this book' } }];
    const r = await callOnce(client(3), 'index', {});
    expect(r.ok && r.response.status).toBe(400);
    expect(seen).toHaveLength(1);
  });

  it('gives up with an "unavailable" failure after the client\'s retries (2 requests for --retries 1)', async () => {
    seen.length = 0;
    script = [{ status: 503 }, { status: 503 }];
    const r = await callOnce(client(1), 'index', {});
    expect(seen).toHaveLength(2);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.failure).toMatchObject({ kind: 'unavailable', status: 503, exitCode: 7 });
  });

  it('bulkExitCode: 0 clean, 7 when everything that failed was unavailability, 6 otherwise', () => {
    expect(bulkExitCode([])).toBe(0);
    expect(bulkExitCode([{ kind: 'unavailable' }, { kind: 'unavailable' }])).toBe(7);
    expect(bulkExitCode([{ kind: 'unavailable' }, { kind: 'error' }])).toBe(6);
    expect(bulkExitCode([], true)).toBe(6);
  });
});
