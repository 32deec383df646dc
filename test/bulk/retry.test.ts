// Job-level retries over real HTTP (a scripted local server): what is retried, how long it waits
// (Retry-After honoured), which repeats are "uncertain", and the final classification.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiClient } from '../../src/api/client.js';
import { bulkExitCode, callWithRetry } from '../../src/bulk/retry.js';

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

function client() {
  return new ApiClient({ baseUrl: url, credentials: { kind: 'none' }, timeout: 5000, retries: 0, sleep: async () => {} });
}

describe('callWithRetry', () => {
  it('retries 503 and 429, waiting as Retry-After says, then returns the answer', async () => {
    script = [{ status: 503, headers: { 'retry-after': '2' } }, { status: 429, headers: { 'retry-after': '1' } }, { status: 200, body: { ok: 1 } }];
    const waits: number[] = [];
    const r = await callWithRetry(client(), 'index', {}, { retries: 3, sleep: async (ms) => void waits.push(ms) });
    expect(r.ok && r.response.body).toEqual({ ok: 1 });
    expect(waits).toEqual([2000, 1000]);
    expect(r.uncertainRetries).toBe(0);
  });

  it('counts a repeat after a dropped connection as uncertain, and sends the same Idempotency-Key each time', async () => {
    seen.length = 0;
    script = ['reset', 'reset', { status: 200, body: { codes: [] } }];
    const api = client();
    const r = await callWithRetry(api, 'codes.generate', { payload: { hash_id: 'h', org: 'o', count: 1 } }, { retries: 3, sleep: async () => {}, headers: { 'idempotency-key': 'job-7' } });
    expect(r.ok).toBe(true);
    expect(r.uncertainRetries).toBe(2);
    expect(seen.map((s) => s.key)).toEqual(['job-7', 'job-7', 'job-7']);
    await api.close();
  });

  it('returns a 4xx answer as it is (the caller decides), without retrying', async () => {
    seen.length = 0;
    script = [{ status: 400, body: { code: 400, error: true, message: 'The user already has access to this book' } }];
    const r = await callWithRetry(client(), 'index', {}, { retries: 3, sleep: async () => {} });
    expect(r.ok && r.response.status).toBe(400);
    expect(seen).toHaveLength(1);
  });

  it('gives up after the retries with an "unavailable" failure; an abort while waiting is reported as interrupted', async () => {
    script = [{ status: 503 }, { status: 503 }];
    const r = await callWithRetry(client(), 'index', {}, { retries: 1, sleep: async () => {} });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.failure).toMatchObject({ kind: 'unavailable', status: 503, exitCode: 7 });

    script = [{ status: 503 }];
    const ac = new AbortController();
    const r2 = await callWithRetry(client(), 'index', {}, {
      retries: 5,
      signal: ac.signal,
      sleep: async () => {
        ac.abort();
        throw new Error('aborted');
      },
    });
    expect(r2.ok === false && r2.interrupted).toBe(true);
  });

  it('bulkExitCode: 0 clean, 7 when everything that failed was unavailability, 6 otherwise', () => {
    expect(bulkExitCode([])).toBe(0);
    expect(bulkExitCode([{ kind: 'unavailable' }, { kind: 'unavailable' }])).toBe(7);
    expect(bulkExitCode([{ kind: 'unavailable' }, { kind: 'error' }])).toBe(6);
    expect(bulkExitCode([], true)).toBe(6);
  });
});
