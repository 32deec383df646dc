// Intents told ahead (a bulk job's next items, WriteHook.ahead): recorded together before their
// requests, each taken by its request's `before` (no second intent), and one whose request was
// never made (the job stopped first) is closed as `unsent` when the command ends, hidden from
// `ledger list` unless asked for, so that `ledger reconcile` never re-sends what the job never sent.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Recorder } from '../../src/ledger/recorder.js';
import { LedgerStore } from '../../src/ledger/store.js';
import { foldWrites, parseLedger } from '../../src/ledger/read.js';
import type { WriteRequest, WriteTicket } from '../../src/api/write-hook.js';
import { run } from '../helpers/run.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bookdist-ledger-ahead-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const order = (n: string): WriteRequest => ({
  endpoint: 'order.external',
  method: 'POST',
  path: '/v1/order/external/',
  payload: { order_number: n, username: 'ada', digital_pricing: [3], order_type: 'TestPlan', org: 'acme' },
  headers: {},
});
const done = (id: number) => ({
  status: 'done' as const,
  http: 200,
  body: { order: { id, items: [{ id: id * 10 }] } },
});

describe('intents told ahead', () => {
  it('are taken by their requests once each; those never sent are closed as unsent, hidden from ledger list', async () => {
    const store = new LedgerStore(join(dir, 'state'));
    const rec = new Recorder(store, { profile: 'p', host: 'h', job: () => 'job-1' });
    rec.ahead([order('A-1'), order('A-2'), order('A-3')]);
    const first = await rec.before(order('A-1'));
    first!.after(done(1));
    // A request that was not told ahead gets an intent of its own.
    const other = await rec.before(order('B-1'));
    other!.after(done(2));
    rec.flush(true);

    const parsed = parseLedger(readFileSync(store.path, 'utf8'));
    expect(parsed.broken).toBeUndefined();
    expect(parsed.rows.filter((r) => r.kind === 'intent')).toHaveLength(4);
    const writes = foldWrites(parsed.rows);
    const of = (n: string) => writes.find((w) => w.ids.order_number === n)!;
    expect(of('A-1')).toMatchObject({ id: Number(first!.id), status: 'done', job: 'job-1' });
    expect(of('B-1')).toMatchObject({ id: Number(other!.id), status: 'done' });
    for (const n of ['A-2', 'A-3'])
      expect(of(n)).toMatchObject({ status: 'unsent', reason: 'not sent: the job stopped before this request' });
    // An older reader, which knows no `unsent`, sees them failed (it never re-sends a failed write).
    const outcomes = parsed.rows.filter((r) => r.kind === 'outcome' && r.unsent === true);
    expect(outcomes.map((r) => r.status)).toEqual(['failed', 'failed']);

    // `ledger list` hides them and says how many; --status unsent lists them; reconcile leaves them.
    const env = { BOOKDIST_STATE_DIR: join(dir, 'state') };
    const list = await run(['ledger', 'list', '--json'], { env });
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout).map((w: { order_number: string }) => w.order_number)).toEqual(['A-1', 'B-1']);
    expect(list.stderr).toMatch(/2 unsent write\(s\) left out: .*`--status unsent` selects them/);
    const unsent = await run(['ledger', 'list', '--status', 'unsent', '--json'], { env });
    expect(JSON.parse(unsent.stdout).map((w: { order_number: string }) => w.order_number)).toEqual(['A-2', 'A-3']);
    expect(unsent.stderr).toBe('');
    // `ledger export` is the report of what was done: the unsent writes are left out and counted,
    // in JSON, in CSV and to a file; --status unsent selects them.
    const exported = await run(['ledger', 'export', '--format', 'json'], { env });
    expect(exported.code, exported.stderr).toBe(0);
    expect(JSON.parse(exported.stdout).map((w: { order_number: string }) => w.order_number)).toEqual(['A-1', 'B-1']);
    expect(exported.stderr).toMatch(/2 unsent write\(s\) left out: .*`--status unsent` selects them/);
    const csv = await run(['ledger', 'export', '--out', join(dir, 'done.csv')], { env });
    expect(csv.code, csv.stderr).toBe(0);
    const lines = readFileSync(join(dir, 'done.csv'), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines.some((l) => l.includes('unsent'))).toBe(false);
    expect(csv.stderr).toMatch(/2 write\(s\) → .*done\.csv\n.*2 unsent write\(s\) left out/);
    const unsentOnly = await run(['ledger', 'export', '--format', 'json', '--status', 'unsent'], { env });
    expect(JSON.parse(unsentOnly.stdout).map((w: { order_number: string }) => w.order_number)).toEqual(['A-2', 'A-3']);
    expect(unsentOnly.stderr).toBe('');
    const again = await run(['ledger', 'reconcile', '--dry-run', '--json'], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual([]);
  });

  it('once durable, answer their requests at once: no promise a request (a request not told waits for its own)', async () => {
    const store = new LedgerStore(join(dir, 'state'));
    const rec = new Recorder(store, { profile: 'p', host: 'h', job: () => 'job-4' });
    rec.ahead([order('D-1'), order('D-2'), order('D-3')]);
    // The first waits for the group's write and fdatasync; the others are durable with it.
    const first = rec.before(order('D-1'));
    expect(first).toBeInstanceOf(Promise);
    const t1 = await first;
    const t2 = rec.before(order('D-2'));
    expect(t2).not.toBeInstanceOf(Promise);
    expect((t2 as WriteTicket).id).toBe('2');
    const own = rec.before(order('E-1'));
    expect(own).toBeInstanceOf(Promise);
    const t4 = (await own)!;
    expect(t4.id).toBe('4');
    for (const [t, id] of [
      [t1, 1],
      [t2, 2],
      [t4, 4],
    ] as const)
      (t as WriteTicket).after(done(id));
    rec.flush(true);
    const writes = foldWrites(parseLedger(readFileSync(store.path, 'utf8')).rows);
    expect(writes.map((w) => [w.id, w.status])).toEqual([
      [1, 'done'],
      [2, 'done'],
      [3, 'unsent'],
      [4, 'done'],
    ]);
  });

  it('are written when told, not in a later turn of the event loop: their fdatasync starts at once', async () => {
    const store = new LedgerStore(join(dir, 'state'));
    const rec = new Recorder(store, { profile: 'p', host: 'h', job: () => 'job-6' });
    rec.ahead([order('W-1'), order('W-2')]);
    // Nothing awaited yet: the intents are in the file already (their fdatasync under way).
    const rows = parseLedger(readFileSync(store.path, 'utf8')).rows;
    expect(rows.map((r) => [r.kind, r.n])).toEqual([
      ['intent', 1],
      ['intent', 2],
    ]);
    const t = await rec.before(order('W-1'));
    expect(t!.id).toBe('1');
    t!.after(done(1));
    rec.flush(true);
  });

  it('a request told twice is taken twice, in turn', async () => {
    const store = new LedgerStore(join(dir, 'state'));
    const rec = new Recorder(store, { profile: 'p', host: 'h', job: () => 'job-2' });
    rec.ahead([order('C-1'), order('C-1')]);
    const a = await rec.before(order('C-1'));
    const b = await rec.before(order('C-1'));
    expect(a!.id).not.toBe(b!.id);
    a!.after(done(3));
    b!.after(done(4));
    rec.flush(true);
    const writes = foldWrites(parseLedger(readFileSync(store.path, 'utf8')).rows);
    expect(writes.map((w) => w.status)).toEqual(['done', 'done']);
  });

  it('a request is matched only to an intent told for its own path, whatever identifier they share', async () => {
    const store = new LedgerStore(join(dir, 'state'));
    const rec = new Recorder(store, { profile: 'p', host: 'h', job: () => 'job-5' });
    rec.ahead([order('P-1')]);
    // The same order number and values, to another path: not the call told.
    const elsewhere = await rec.before({ ...order('P-1'), path: '/v1/order/external/again/' });
    const own = await rec.before(order('P-1'));
    elsewhere!.after(done(1));
    own!.after(done(2));
    rec.flush(true);
    expect([own!.id, elsewhere!.id]).toEqual(['1', '2']);
    const rows = parseLedger(readFileSync(store.path, 'utf8')).rows;
    expect(rows.filter((r) => r.kind === 'intent')).toHaveLength(2);
    expect(rows.some((r) => r.unsent === true)).toBe(false);
  });

  it('a request is matched by its values, whatever objects hold them, and only by them', async () => {
    const store = new LedgerStore(join(dir, 'state'));
    const rec = new Recorder(store, { profile: 'p', host: 'h', job: () => 'job-3' });
    const told = order('E-1');
    rec.ahead([told, order('E-2'), order('E-3')]);
    // The values told, in a payload object of its own (as the client makes one a request).
    const e1 = await rec.before({ ...told, payload: { ...told.payload } });
    // Equal values in new objects (its list made anew).
    const e2 = await rec.before(order('E-2'));
    // Another value: not the call told, an intent of its own.
    const other = await rec.before({ ...order('E-3'), payload: { ...order('E-3').payload, org: 'other' } });
    const e3 = await rec.before(order('E-3'));
    for (const [t, id] of [
      [e1, 1],
      [e2, 2],
      [other, 4],
      [e3, 5],
    ] as const)
      t!.after(done(id));
    rec.flush(true);
    const writes = foldWrites(parseLedger(readFileSync(store.path, 'utf8')).rows);
    expect(writes.map((w) => [w.id, w.ids.order_number, w.ids.org, w.status])).toEqual([
      [1, 'E-1', 'acme', 'done'],
      [2, 'E-2', 'acme', 'done'],
      [3, 'E-3', 'acme', 'done'],
      [4, 'E-3', 'other', 'done'],
    ]);
    expect([e1!.id, e2!.id, other!.id, e3!.id]).toEqual(['1', '2', '4', '3']);
  });
});

describe("a job's outcomes", () => {
  it('go out with its next group of intents, or a second after the first waiting, not one append each 100 ms', async () => {
    const store = new LedgerStore(join(dir, 'state'));
    const rec = new Recorder(store, { profile: 'p', host: 'h', job: () => 'job-7' });
    const kinds = () => parseLedger(readFileSync(store.path, 'utf8')).rows.map((r) => r.kind);
    rec.ahead([order('T-1'), order('T-2'), order('T-3')]);
    const t1 = await rec.before(order('T-1'));
    const t2 = await rec.before(order('T-2'));
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate'] });
    try {
      t1!.after(done(1));
      vi.advanceTimersByTime(500);
      t2!.after(done(2));
      vi.advanceTimersByTime(499);
      // A codes job tells its batches' calls ahead, so its outcomes went out mostly on this
      // timer: at 100 ms, some 22 appends (a lock cycle each) for 100,000 codes (bench n1).
      expect(kinds()).toEqual(['intent', 'intent', 'intent']);
      vi.advanceTimersByTime(1);
      expect(kinds()).toEqual(['intent', 'intent', 'intent', 'outcome', 'outcome']);
      // A new intent takes the outcomes waiting with it.
      const t3 = rec.before(order('T-3'));
      (await t3)!.after(done(3));
      const t4 = rec.before(order('T-4'));
      vi.advanceTimersByTime(0);
      await t4;
      expect(kinds()).toEqual(['intent', 'intent', 'intent', 'outcome', 'outcome', 'outcome', 'intent']);
    } finally {
      vi.useRealTimers();
      rec.flush(true);
    }
  });
});
