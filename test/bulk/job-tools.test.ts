// What a verb's spec uses to make requests (src/bulk/job/tools.ts), in-process against a client
// that answers from a list: calls told to the ledger ahead (not once the job is stopping), one
// call through the client, a certificate or proxy failure that stops the job at once (and sends
// nothing after it), and the breaker that opens after concurrency+2 unavailable answers in a row.
// Whole jobs are in engine.test.ts; these take milliseconds.
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import type { Context } from '../../src/context.js';
import { ExitCode } from '../../src/errors.js';
import type { Failure } from '../../src/bulk/retry.js';
import type { Rescue } from '../../src/bulk/job/rescue.js';
import { makeTools, type Breaker } from '../../src/bulk/job/tools.js';
import { newJobState, type AheadCall, type JobSpec } from '../../src/bulk/job/types.js';

const QUICK = { timeout: 5_000 };

/** What the client is to do with a call: answer with a status, or throw. */
type Reply = number | { throws: object };

function setup(opts: { replies?: Reply[]; breaker?: boolean; ordered?: boolean; rescue?: boolean } = {}) {
  const interrupt = new AbortController();
  const ctx = { signal: interrupt.signal } as unknown as Context;
  const spec = { verb: 'codes generate', concurrency: 2, ordered: opts.ordered, requestTimeout: 9000 };
  const s = newJobState(spec as unknown as JobSpec<unknown, Record<string, unknown>>, ctx);
  const sent: Array<{ name: string; args: Record<string, unknown> }> = [];
  const announced: unknown[] = [];
  const replies = [...(opts.replies ?? [])];
  const api = {
    announceAhead: (calls: unknown[]) => void announced.push(calls),
    call: async (name: string, args: Record<string, unknown>) => {
      sent.push({ name, args });
      const r = replies.shift() ?? 200;
      if (typeof r === 'object') throw r.throws;
      return { status: r, headers: {}, body: { message: `status ${r}` }, format: 'json', request: {} };
    },
  } as unknown as ApiClient;
  const warned: string[] = [];
  const breaker: Breaker | undefined = opts.breaker ? { consecutive: 0, warn: (l) => void warned.push(l) } : undefined;
  const kept: unknown[] = [];
  const rescue = opts.rescue
    ? ({ keep: async (rows: unknown[]) => void kept.push(rows) } as unknown as Rescue)
    : undefined;
  const tools = makeTools(s, api, () => {}, breaker, rescue);
  return { s, tools, sent, announced, warned, breaker, kept, interrupt };
}

const ahead: AheadCall[] = [
  { name: 'codes.generate', args: { count: 10 }, headers: { 'Idempotency-Key': 'k-1' } } as unknown as AheadCall,
  { name: 'codes.generate', args: { count: 5 } } as unknown as AheadCall,
];

const tlsFailure = { exitCode: ExitCode.TLS, message: 'certificate has expired' };

describe('the calls told to the ledger ahead', QUICK, () => {
  it('each call with its arguments and headers, in one group', () => {
    const { tools, announced } = setup();
    tools.ahead(ahead);
    expect(announced).toEqual([
      [
        { name: 'codes.generate', args: { count: 10, headers: { 'Idempotency-Key': 'k-1' } } },
        { name: 'codes.generate', args: { count: 5, headers: undefined } },
      ],
    ]);
  });

  it('none once the job stops: a fatal failure, an open breaker, an interrupt', () => {
    const a = setup();
    a.s.fatal = { kind: 'error', message: 'x', exitCode: 1 };
    a.tools.ahead(ahead);
    expect(a.announced).toEqual([]);
    const b = setup({ breaker: true });
    b.breaker!.open = { kind: 'unavailable', message: 'down', exitCode: ExitCode.UNAVAILABLE };
    b.tools.ahead(ahead);
    expect(b.announced).toEqual([]);
    const c = setup();
    c.interrupt.abort();
    c.tools.ahead(ahead);
    expect(c.announced).toEqual([]);
  });
});

describe('keep', QUICK, () => {
  it('goes to the rescue file, and is harmless without one', async () => {
    const a = setup({ rescue: true });
    await a.tools.keep([{ code: 'X' }]);
    expect(a.kept).toEqual([[{ code: 'X' }]]);
    await expect(setup().tools.keep([{ code: 'X' }])).resolves.toBeUndefined();
  });
});

describe('one call', QUICK, () => {
  it('goes through the client with its headers and the request timeout; the job has sent something', async () => {
    const { s, tools, sent } = setup();
    const r = await tools.call('codes.generate' as never, { count: 3 } as never, { 'Idempotency-Key': 'k' });
    expect(r.ok).toBe(true);
    expect(sent).toEqual([
      { name: 'codes.generate', args: { count: 3, headers: { 'Idempotency-Key': 'k' }, timeout: 9000 } },
    ]);
    expect(s.sent).toBe(true);
  });

  it('a certificate failure stops the job at once: the first failure kept, the call interrupted, nothing sent after it', async () => {
    const { s, tools, sent } = setup({ replies: [{ throws: tlsFailure }, 200] });
    const r = await tools.call('codes.generate' as never, {} as never);
    expect(r).toEqual({
      ok: false,
      interrupted: true,
      failure: { kind: 'error', message: 'certificate has expired', exitCode: ExitCode.TLS },
    });
    expect(s.fatal).toEqual(r.ok ? undefined : r.failure);
    expect(s.stop.signal.aborted).toBe(true);
    const next = await tools.call('codes.generate' as never, {} as never);
    expect(next).toEqual({ ok: false, failure: s.fatal, interrupted: true });
    expect(sent).toHaveLength(1);
  });

  it('a fatal error that is not a certificate or proxy failure does not stop the calls, and stays the fatal one', async () => {
    const { s, tools, sent } = setup({
      replies: [200, { throws: { exitCode: ExitCode.PROXY, message: 'proxy refused' } }],
    });
    const first: Failure = { kind: 'error', message: 'the output failed', exitCode: 1 };
    s.fatal = first;
    expect((await tools.call('codes.generate' as never, {} as never)).ok).toBe(true);
    const r = await tools.call('codes.generate' as never, {} as never);
    expect(r).toMatchObject({ ok: false, interrupted: true, failure: { exitCode: ExitCode.PROXY } });
    expect(s.fatal).toBe(first);
    expect(sent).toHaveLength(2);
  });

  it('without a breaker every answer is returned as it is', async () => {
    const { tools } = setup({ replies: [503, 503, 503, 503, 503, 200] });
    const rs = [];
    for (let i = 0; i < 6; i++) rs.push(await tools.call('codes.generate' as never, {} as never));
    expect(rs.map((r) => r.ok)).toEqual([false, false, false, false, false, true]);
  });
});

describe('the breaker', QUICK, () => {
  const call = (t: ReturnType<typeof setup>) => t.tools.call('codes.generate' as never, {} as never);

  it('opens after concurrency+2 unavailable answers in a row, says so once, and stops the job', async () => {
    const t = setup({ breaker: true, replies: [503, 503, 503, 503, 503] });
    for (let i = 0; i < 3; i++) await call(t);
    expect(t.breaker!.open).toBeUndefined();
    expect(t.s.stop.signal.aborted).toBe(false);
    await call(t);
    expect(t.breaker!.open).toMatchObject({ kind: 'unavailable', status: 503 });
    expect(t.warned).toEqual([
      'codes generate: the service stayed unavailable for 4 requests in a row (last: status 503); no new requests are started.',
    ]);
    expect(t.s.stop.signal.aborted).toBe(true);
    // What is left fails at once, unsent.
    expect(await call(t)).toEqual({ ok: false, failure: t.breaker!.open });
    expect(t.sent).toHaveLength(4);
    expect(t.warned).toHaveLength(1);
  });

  it('an ordered job (lookups) is not stopped: each line left gets its record, failed at once', async () => {
    const t = setup({ breaker: true, ordered: true, replies: [503, 503, 503, 503] });
    for (let i = 0; i < 4; i++) await call(t);
    expect(t.breaker!.open).toBeDefined();
    expect(t.s.stop.signal.aborted).toBe(false);
  });

  it('an answer in between starts the count again; refusals and interrupted calls do not count', async () => {
    const t = setup({ breaker: true, replies: [503, 503, 503, 200, 503, 503, 503, 409] });
    for (let i = 0; i < 8; i++) await call(t);
    expect(t.breaker!.open).toBeUndefined();
    expect(t.breaker!.consecutive).toBe(0);
    const u = setup({ breaker: true, replies: [503, 503, 503, { throws: new Error('socket hang up') }] });
    for (let i = 0; i < 3; i++) await call(u);
    u.interrupt.abort();
    expect(await call(u)).toMatchObject({ ok: false, interrupted: true });
    expect(u.breaker!.open).toBeUndefined();
  });
});
