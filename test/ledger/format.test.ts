// The intent row's two forms (rows.ts): one that keeps its payload for a repeat (`resend`) names
// its ids once, in that payload (`"ids_from":"resend"`); rows written before (ids and payload
// both whole) are still on users' disks. Every reader (read.ts: ledger list, show, export,
// reconcile, verify) reads both alike.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Recorder } from '../../src/ledger/recorder.js';
import { GENESIS, LedgerStore, sha256 } from '../../src/ledger/store.js';
import { foldWrites, parseLedger } from '../../src/ledger/read.js';
import type { WriteRequest } from '../../src/api/write-hook.js';
import { run } from '../helpers/run.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bookdist-ledger-format-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const T = '2026-11-20T10:00:00.000Z';
const meta = { profile: 'p', host: 'h', now: () => new Date(T) };
const payloads = {
  order: {
    order_number: 'F-1',
    username: 'ada',
    digital_pricing: [3, 4],
    order_type: 'TestPlan',
    org: 'acme',
    billing_address: { full_name: 'Ada Byron', postal_code: '04101', country: 'US' },
    label: 'spring',
  },
  allow: { username: 'ada', hash_id: 'abc123', price: 0 },
  codes: { hash_id: 'abc123', org: 'acme', count: 50, label: 'spring' },
  user: { email: 'ada@example.com', send_email: false },
};
const requests: WriteRequest[] = [
  { endpoint: 'order.external', method: 'POST', path: '/v1/order/external/', payload: payloads.order, headers: {} },
  { endpoint: 'access.allow', method: 'POST', path: '/v1/access/allow/', payload: payloads.allow, headers: {} },
  {
    endpoint: 'codes.generate',
    method: 'POST',
    path: '/v1/codes/generate/',
    payload: payloads.codes,
    headers: { 'Idempotency-Key': 'k-1' },
  },
  { endpoint: 'user.create', method: 'POST', path: '/v1/user/', payload: payloads.user, headers: {} },
];

/**
 * The same writes as the version before the compact form wrote them: the payload whole, and its
 * ids whole too, in the order of the fields kept (rows.ts, INTENT_FIELDS).
 */
function oldLedger(): string {
  const common = { t: T, kind: 'intent', profile: 'p', host: 'h' };
  const rows: Array<Record<string, unknown>> = [
    {
      ...common,
      op: 'order create',
      ids: {
        username: 'ada',
        order_number: 'F-1',
        org: 'acme',
        label: 'spring',
        digital_pricing: [3, 4],
        order_type: 'TestPlan',
      },
      resend: payloads.order,
      pid: 1,
    },
    {
      ...common,
      op: 'access allow',
      ids: { username: 'ada', hash_id: 'abc123', price: 0 },
      resend: payloads.allow,
      pid: 1,
    },
    {
      ...common,
      op: 'codes generate',
      ids: { hash_id: 'abc123', org: 'acme', label: 'spring', count: 50 },
      idempotency_key: 'k-1',
      resend: payloads.codes,
      pid: 1,
    },
    { ...common, op: 'user create', ids: { email: 'ada@example.com', send_email: false }, pid: 1 },
  ];
  let prev = GENESIS;
  let text = '';
  rows.forEach((r, i) => {
    const line = JSON.stringify({ n: i + 1, prev, ...r });
    prev = sha256(line);
    text += line + '\n';
  });
  return text;
}

async function newLedger(): Promise<string> {
  const store = new LedgerStore(join(dir, 'new'));
  const rec = new Recorder(store, meta);
  for (const req of requests) await rec.before(req);
  rec.flush(true);
  return readFileSync(store.path, 'utf8');
}

describe('an intent that keeps its payload', () => {
  it('names its ids once, in the payload; one without a payload kept names them in ids', async () => {
    const lines = (await newLedger()).trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    const [order, allow, codes, user] = lines.map((l) => JSON.parse(l));
    // Each identifier once in the line: in the payload kept for a repeat.
    expect(lines[0].split('"F-1"')).toHaveLength(2);
    expect(lines[0].split('"ada"')).toHaveLength(2);
    expect(order).toMatchObject({ ids: {}, resend: payloads.order, ids_from: 'resend' });
    expect(allow).toMatchObject({ ids: {}, resend: payloads.allow, ids_from: 'resend' });
    expect(codes).toMatchObject({ ids: {}, resend: payloads.codes, ids_from: 'resend', idempotency_key: 'k-1' });
    expect(user.ids).toEqual(payloads.user);
    expect(user).not.toHaveProperty('ids_from');
    expect(user).not.toHaveProperty('resend');
  });

  it('is read as the older form is: the same writes, ids and payload, in list, show, export and reconcile', async () => {
    const forms = { old: oldLedger(), new: await newLedger() };
    const folded = Object.values(forms).map((text) => {
      const p = parseLedger(text);
      expect(p.broken).toBeUndefined();
      return foldWrites(p.rows).map(({ t: _t, ...w }) => w);
    });
    expect(folded[1]).toEqual(folded[0]);
    expect(Object.entries(folded[1][0].ids)).toEqual(Object.entries(folded[0][0].ids));
    // A repeat sends the payload as it was sent, its fields in their order (a service may compare
    // a repeated Idempotency-Key's request by its JSON, as the sandbox does).
    for (const [i, sent] of [payloads.order, payloads.allow, payloads.codes].entries())
      for (const f of folded) expect(JSON.stringify(f[i].resend)).toBe(JSON.stringify(sent));

    const seen: Record<string, string[]> = {};
    for (const [form, text] of Object.entries(forms)) {
      const state = join(dir, `state-${form}`);
      mkdirSync(state, { mode: 0o700 });
      writeFileSync(join(state, 'ledger.ndjson'), text, { mode: 0o600 });
      const env = { BOOKDIST_STATE_DIR: state, COLUMNS: '80' };
      seen[form] = [];
      for (const args of [
        ['ledger', 'list', '--json'],
        ['ledger', 'list', '--user', 'ada'],
        ['ledger', 'list', '--book', 'abc123', '--json'],
        ['ledger', 'show', '1', '--json'],
        ['ledger', 'show', '3'],
        ['ledger', 'export', '--format', 'csv', '--org', 'acme'],
        ['ledger', 'export', '--format', 'json', '--label', 'spring'],
        ['ledger', 'reconcile', '--dry-run', '--json'],
        ['ledger', 'verify'],
      ]) {
        const r = await run(args, { env });
        expect(r.code, `${form}: ${args.join(' ')}: ${r.stderr}`).toBe(0);
        seen[form].push(r.stdout.replaceAll(state, 'STATE'));
      }
    }
    expect(seen.new).toEqual(seen.old);
    // What they show: the order's number, user and items, the book of the grant, the batch's count.
    const [list, byUser, byBook, show] = seen.old;
    expect(JSON.parse(list)).toHaveLength(4);
    expect(byUser).toMatch(/F-1/);
    expect(JSON.parse(byBook)).toHaveLength(2);
    expect(JSON.parse(show)).toMatchObject({ order_number: 'F-1', username: 'ada', digital_pricing: [3, 4] });
    // Reconcile would send the order again by its number, with the payload as it was sent.
    expect(JSON.parse(seen.old[7]).map((x: { result: string }) => x.result)).toEqual(Array(4).fill('would send'));
    expect(seen.old[7]).toMatch(/order_number F-1/);
  });
});
