// The ledger's file (src/ledger/store.ts, read.ts): the chain of hashes, torn tails, the lock,
// private permissions, and links refused.
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { build } from 'esbuild';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LedgerStore, sha256, GENESIS } from '../../src/ledger/store.js';
import { foldWrites, parseLedger } from '../../src/ledger/read.js';
import { run } from '../helpers/run.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bookdist-ledger-store-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const intent = (op: string, ids: Record<string, unknown> = {}) => ({
  t: new Date().toISOString(),
  kind: 'intent' as const,
  op,
  profile: 'p',
  host: 'h',
  ids,
});

describe('ledger store', () => {
  it('numbers rows and chains each to the SHA-256 of the line before it', () => {
    const store = new LedgerStore(join(dir, 'state'));
    const [a] = store.append([intent('order create')], true);
    const [b, c] = store.append(
      [{ t: new Date().toISOString(), kind: 'outcome', of: a, status: 'done' }, intent('user create')],
      false,
    );
    expect([a, b, c]).toEqual([1, 2, 3]);
    const lines = readFileSync(store.path, 'utf8').trimEnd().split('\n');
    expect(JSON.parse(lines[0]).prev).toBe(GENESIS);
    expect(JSON.parse(lines[1]).prev).toBe(sha256(lines[0]));
    expect(JSON.parse(lines[2]).prev).toBe(sha256(lines[1]));
    const parsed = parseLedger(readFileSync(store.path, 'utf8'));
    expect(parsed.broken).toBeUndefined();
    const writes = foldWrites(parsed.rows);
    expect(writes.map((w) => [w.id, w.op, w.status])).toEqual([
      [1, 'order create', 'done'],
      [3, 'user create', 'unknown'],
    ]);
  });

  it('writes each row as JSON.stringify({ n, prev, ...row }) would, whatever its fields and characters', () => {
    const store = new LedgerStore(join(dir, 'state'));
    const rows = [
      { ...intent('order create', { order_number: 'É-"1"\n', digital_pricing: [1, 2.5] }), gone: undefined },
      { t: 'x', kind: 'outcome' as const, of: 1, status: 'done', reason: '😀 \u0001 \u2028 \ud800' },
      { t: 'y', kind: 'settled' as const, ids: { nested: { deep: [null, true, 'a'] } } },
    ];
    // Twice: the second append reuses the buffer of the first, with a shorter text.
    store.append(rows, false);
    store.append(rows.slice(1, 2), false);
    const lines = readFileSync(store.path, 'utf8').trimEnd().split('\n');
    let prev = GENESIS;
    [...rows, rows[1]].forEach((row, i) => {
      expect(lines[i]).toBe(JSON.stringify({ n: i + 1, prev, ...row }));
      prev = sha256(lines[i]);
    });
    expect(lines).toHaveLength(4);
  });

  it('is a 0600 file in a 0700 directory, and a looser file is tightened', () => {
    const store = new LedgerStore(join(dir, 'state'));
    store.append([intent('api')], true);
    expect(statSync(join(dir, 'state')).mode & 0o777).toBe(0o700);
    expect(statSync(store.path).mode & 0o777).toBe(0o600);
    chmodSync(store.path, 0o644);
    store.append([intent('api')], true);
    expect(statSync(store.path).mode & 0o777).toBe(0o600);
    // The lock is gone after each append.
    expect(existsSync(join(dir, 'state', 'ledger.lock'))).toBe(false);
  });

  it('refuses a planted link as the file or as the directory, writing nothing through it', () => {
    const target = join(dir, 'elsewhere');
    writeFileSync(target, '');
    mkdirSync(join(dir, 'state'), { mode: 0o700 });
    symlinkSync(target, join(dir, 'state', 'ledger.ndjson'));
    const store = new LedgerStore(join(dir, 'state'));
    expect(() => store.append([intent('api')], true)).toThrow(/symbolic link/);
    expect(readFileSync(target, 'utf8')).toBe('');
    mkdirSync(join(dir, 'real'));
    symlinkSync(join(dir, 'real'), join(dir, 'linked'));
    expect(() => new LedgerStore(join(dir, 'linked')).append([intent('api')], true)).toThrow(/symbolic link/);
    expect(existsSync(join(dir, 'real', 'ledger.ndjson'))).toBe(false);
  });

  it('drops a torn last line (a writer killed mid-write) before appending, keeping the chain whole', () => {
    const store = new LedgerStore(join(dir, 'state'));
    store.append([intent('api'), intent('api')], true);
    writeFileSync(store.path, readFileSync(store.path, 'utf8') + '{"n":3,"prev":"ab', { flag: 'w' });
    expect(parseLedger(readFileSync(store.path, 'utf8')).torn).toBe(true);
    const [r] = store.append([intent('order free')], true);
    expect(r).toBe(3);
    const parsed = parseLedger(readFileSync(store.path, 'utf8'));
    expect(parsed.broken).toBeUndefined();
    expect(parsed.torn).toBe(false);
    expect(parsed.rows).toHaveLength(3);
  });

  it('names the first row that breaks the chain: a changed row, a removed row', () => {
    const store = new LedgerStore(join(dir, 'state'));
    store.append([intent('a'), intent('b'), intent('c'), intent('d')], true);
    const lines = readFileSync(store.path, 'utf8').trimEnd().split('\n');
    const changed = [...lines];
    changed[1] = changed[1].replace('"op":"b"', '"op":"x"');
    const b1 = parseLedger(changed.join('\n') + '\n').broken;
    expect(b1).toMatchObject({ line: 3, n: 3 });
    expect(b1!.why).toMatch(/row 2 was changed/);
    const removed = [lines[0], lines[2], lines[3]];
    expect(parseLedger(removed.join('\n') + '\n').broken).toMatchObject({ line: 2, n: 3 });
  });

  it('processes appending bursts at once: every row whole, present once, chained', async () => {
    // The store as a child process runs it (bundled from src/), and a writer that appends bursts of
    // rows like a bulk job's recorder, sometimes durable ones (a terminal command).
    const bundle = join(dir, 'store.mjs');
    await build({
      entryPoints: [join(import.meta.dirname, '../../src/ledger/store.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: bundle,
      logLevel: 'error',
    });
    const writer = join(dir, 'writer.mjs');
    writeFileSync(
      writer,
      `import { LedgerStore } from ${JSON.stringify(bundle)};
const [state, tag, bursts] = process.argv.slice(2);
const store = new LedgerStore(state);
const row = (b, i) => ({ t: new Date().toISOString(), kind: 'intent', op: 'x', ids: { tag, b, i, pad: 'p'.repeat((b * 7 + i) % 300) } });
for (let b = 0; b < Number(bursts); b++) {
  const single = b % 5 === 4;
  for (let i = 0; i < 6; i++) {
    store.append(i % 2 ? [row(b, i)] : [row(b, i), row(b, i + 100)], single);
    await new Promise((r) => (i % 3 ? setImmediate(r) : setTimeout(r, 1)));
  }
  await new Promise((r) => setTimeout(r, b % 3));
}
store.close();
`,
    );
    const state = join(dir, 'state');
    const tags = ['a', 'b', 'c'];
    const bursts = 40;
    const codes = await Promise.all(
      tags.map(
        (tag) =>
          new Promise<{ code: number | null; err: string }>((resolve) => {
            const child = spawn(process.execPath, [writer, state, tag, String(bursts)], {
              stdio: ['ignore', 'ignore', 'pipe'],
            });
            let err = '';
            child.stderr.on('data', (d) => (err += d));
            child.on('exit', (code) => resolve({ code, err }));
          }),
      ),
    );
    expect(codes).toEqual(tags.map(() => ({ code: 0, err: '' })));
    const parsed = parseLedger(readFileSync(join(state, 'ledger.ndjson'), 'utf8'));
    expect(parsed.broken).toBeUndefined();
    expect(parsed.torn).toBe(false);
    // 9 rows a burst (3 appends of two, 3 of one) in every burst of every writer, each once, numbered 1..N.
    const total = tags.length * bursts * 9;
    expect(parsed.rows.map((r) => r.n)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    const seen = new Set(parsed.rows.map((r) => JSON.stringify(r.ids)));
    expect(seen.size).toBe(total);
    expect(existsSync(join(state, 'ledger.lock'))).toBe(false);
  });

  it('an append holds the lock only while it writes: none is left after it, and no exit hook', () => {
    const before = process.listenerCount('exit');
    const stores = [0, 1, 2].map(() => new LedgerStore(join(dir, 'state')));
    for (const store of stores) {
      store.append([intent('order create')], false);
      expect(existsSync(join(dir, 'state', 'ledger.lock'))).toBe(false);
      store.append([intent('order create')], true);
      expect(existsSync(join(dir, 'state', 'ledger.lock'))).toBe(false);
    }
    expect(process.listenerCount('exit')).toBe(before);
    for (const store of stores) store.close();
    expect(parseLedger(readFileSync(join(dir, 'state', 'ledger.ndjson'), 'utf8')).rows).toHaveLength(6);
  });

  it('breaks a lock left by a killed process and goes on', async () => {
    const state = join(dir, 'state');
    mkdirSync(state, { mode: 0o700 });
    // A pid that is surely dead: a child that has exited.
    const child = spawn(process.execPath, ['-e', '0']);
    const pid = child.pid!;
    await new Promise((r) => child.on('exit', r));
    writeFileSync(join(state, 'ledger.lock'), String(pid), { mode: 0o600 });
    const store = new LedgerStore(state);
    const [r] = store.append([intent('api')], true);
    expect(r).toBe(1);
    expect(existsSync(join(state, 'ledger.lock'))).toBe(false);
  });
});

describe('ledger verify (command)', () => {
  it('exits 0 on a whole chain and 1 naming the first broken row', async () => {
    const state = join(dir, 'state');
    const store = new LedgerStore(state);
    store.append(
      [
        intent('order create', { order_number: 'A-1' }),
        intent('order create', { order_number: 'A-2' }),
        intent('user create'),
      ],
      true,
    );
    const env = { BOOKDIST_STATE_DIR: state };
    const ok = await run(['ledger', 'verify', '--json'], { env });
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ whole: true, rows: 3 });
    writeFileSync(store.path, readFileSync(store.path, 'utf8').replace('A-1', 'A-9'));
    const bad = await run(['ledger', 'verify', '--json'], { env });
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout)).toMatchObject({ whole: false, broken_row: 2, broken_line: 2 });
    const table = await run(['ledger', 'verify', '-o', 'table'], { env });
    expect(table.stdout).toMatch(/broken at row 2 \(line 2\)/);
    expect(lstatSync(store.path).isFile()).toBe(true);
  });
});

describe('ledger prune (command)', () => {
  it('removes the writes before the date with their outcomes, keeps the rest chained after a prune row, and keeps their ids', async () => {
    const state = join(dir, 'state');
    const store = new LedgerStore(state);
    const old = '2026-01-05T10:00:00.000Z';
    const [a] = store.append([{ ...intent('order create', { order_number: 'OLD' }), t: old }], true);
    store.append([{ t: old, kind: 'outcome', of: a, status: 'done' }], false);
    const [b] = store.append([intent('order create', { order_number: 'NEW' })], true);
    store.append([{ t: new Date().toISOString(), kind: 'outcome', of: b, status: 'done' }], false);
    const env = { BOOKDIST_STATE_DIR: state };
    expect((await run(['ledger', 'prune', '--before', '2026-02-01'], { env })).code).toBe(2); // needs --yes off a terminal
    const r = await run(['ledger', 'prune', '--before', '2026-02-01', '--yes', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ removed: 2 });
    const parsed = parseLedger(readFileSync(store.path, 'utf8'));
    expect(parsed.broken).toBeUndefined();
    expect(parsed.rows[0]).toMatchObject({ kind: 'prune', removed: 2 });
    expect(foldWrites(parsed.rows).map((w) => [w.id, w.ids.order_number, w.status])).toEqual([[b, 'NEW', 'done']]);
    expect(statSync(store.path).mode & 0o777).toBe(0o600);
    // Appending goes on after the rewrite, with ids above the kept ones.
    const [c] = store.append([intent('api')], true);
    expect(c).toBe(b + 2);
    expect((await run(['ledger', 'verify'], { env })).code).toBe(0);
  });
});
