// Snapshots (issue 30, item 4) of a running sandbox, through the CLI (--url): saved and loaded
// while requests run (every answer a success; a reader sees all of a state or none of it), and
// diffed table by table.
import {
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startTestSandbox, WELL_KNOWN, type TestSandbox } from '../helpers/sandbox.js';
import { buy, clients, newUser, type Clients } from './_support.js';

let sb: TestSandbox;
let c: Clients;
let env: Record<string, string>;

beforeAll(async () => {
  sb = await startTestSandbox({ processDelayMs: 50 });
  c = clients(sb);
  env = { ...sb.env, BOOKDIST_SANDBOX_SECRET: sb.controlSecret };
});
afterAll(async () => {
  await c?.closeAll();
  await sb?.close();
});

const cli = (...args: string[]) => runCli(['sandbox', 'snapshot', ...args, '--url', sb.url], { env });

/** Read the user's orders until stopped: every answer, each as (status, order count, every order whole). */
function reader(username: string) {
  const seen: Array<{ status: number; count: number; whole: boolean }> = [];
  let stop = false;
  const done = (async () => {
    while (!stop) {
      // A failed call is a read that saw nothing (status 0, which the test's checks refuse); the
      // reader ends there, so a test that fails early leaves no loop behind.
      const r = await c.partner.call('user.orders', { params: { username } }).catch(() => undefined);
      if (!r) {
        seen.push({ status: 0, count: -1, whole: false });
        break;
      }
      const orders = (r.body.results ?? []) as Array<{ item_count: number; items: unknown[] }>;
      seen.push({
        status: r.status,
        count: orders.length,
        whole: orders.every((o) => o.item_count === 1 && o.items.length === 1),
      });
    }
  })();
  return { seen, stop: async () => ((stop = true), await done) };
}

describe('sandbox snapshot on a running sandbox', () => {
  it('save, then load while requests run: each answer sees the old state or the new one, whole; diff names the rows', async () => {
    const username = await newUser(c.partner, 'snapshot');
    const during = reader(username);
    const saved = await cli('save', 'base');
    expect(saved.code, saved.stderr + sb.internalErrors.join('\n')).toBe(0);
    const pricing = WELL_KNOWN.readme.pricing[0].id;
    const orders = [];
    for (let i = 0; i < 3; i++) orders.push(await buy(c.partner, username, [pricing]));

    const diff = await runCli(['sandbox', 'snapshot', 'diff', 'base', '--url', sb.url, '--json'], { env });
    expect(diff.code, diff.stderr).toBe(0);
    const tables = JSON.parse(diff.stdout).tables as Array<{ table: string; added: number; added_ids: number[] }>;
    expect(tables.find((t) => t.table === 'orders')).toMatchObject({ added: 3, added_ids: orders.map((o) => o.id) });
    expect(tables.find((t) => t.table === 'order_items')!.added).toBe(3);

    const loaded = await cli('load', 'base');
    expect(loaded.code, loaded.stderr + sb.internalErrors.join('\n')).toBe(0);
    // A few more reads after the load, then stop.
    const after = during.seen.length;
    while (during.seen.length < after + 3) await new Promise((r) => setTimeout(r, 20));
    await during.stop();

    expect(during.seen.every((s) => s.status === 200)).toBe(true);
    expect(during.seen.every((s) => s.whole && [0, 1, 2, 3].includes(s.count))).toBe(true);
    expect(during.seen.at(-1)!.count).toBe(0);
    // Once the load is seen, no read sees the orders again.
    const firstEmptyAfterOrders = during.seen.findIndex(
      (s, i) => i > 0 && s.count === 0 && during.seen.slice(0, i).some((x) => x.count === 3),
    );
    expect(firstEmptyAfterOrders).toBeGreaterThan(0);
    expect(during.seen.slice(firstEmptyAfterOrders).every((s) => s.count === 0)).toBe(true);

    // The database is the snapshot again, but for the journal of the requests since (its rows,
    // and the answers they share: journal_bodies).
    const again = JSON.parse(
      (await runCli(['sandbox', 'snapshot', 'diff', 'base', '--url', sb.url, '--json'], { env })).stdout,
    ).tables as Array<{ table: string }>;
    expect(again.map((t) => t.table).filter((t) => t !== 'journal' && t !== 'journal_bodies')).toEqual([]);
    expect((await c.partner.call('user.orders', { params: { username } })).body.count).toBe(0);

    const list = await runCli(['sandbox', 'snapshot', 'list', '--url', sb.url, '--json'], { env });
    expect(JSON.parse(list.stdout).snapshots.map((s: { name: string }) => s.name)).toEqual(['base']);
    expect((await cli('rm', 'base')).code).toBe(0);
    const missing = await cli('load', 'base');
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('No snapshot "base" of this database');
  });
});

describe('a snapshot file', () => {
  it('is private (0600) from the start, and a link planted in its place is replaced, never written through', async () => {
    const dir = `${sb.dbPath}.snapshots`;
    const outside = join(mkdtempSync(join(tmpdir(), 'bookdist-snap-link-')), 'target.db');
    try {
      writeFileSync(outside, 'not yours');
      expect((await cli('save', 'private')).code).toBe(0);
      expect(statSync(join(dir, 'private.db')).mode & 0o777).toBe(0o600);
      symlinkSync(outside, join(dir, 'planted.db'));
      const r = await cli('save', 'planted');
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(outside, 'utf8')).toBe('not yours');
      const st = lstatSync(join(dir, 'planted.db'));
      expect(st.isFile()).toBe(true);
      expect(st.mode & 0o777).toBe(0o600);
      // Nothing but the snapshots is left in the directory.
      expect(readdirSync(dir).filter((f) => !f.endsWith('.db'))).toEqual([]);
    } finally {
      rmSync(dirname(outside), { recursive: true, force: true });
      for (const n of ['private', 'planted']) rmSync(join(dir, `${n}.db`), { force: true });
    }
  });
});

describe('sandbox snapshot load --db (a command on the file)', () => {
  const onFile = (dir: string, ...args: string[]) =>
    runCli(['sandbox', ...args, '--db', join(dir, 'sandbox.db')], {
      env: { BOOKDIST_DATA_DIR: join(dir, 'data'), BOOKDIST_CONFIG_DIR: join(dir, 'config') },
    });
  const offset = async (dir: string) => JSON.parse((await onFile(dir, 'clock', 'show', '--json')).stdout).offset_ms;

  it('with nobody else on the file, replaces it by the snapshot (kept private, nothing left beside it)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bookdist-snapshot-load-'));
    try {
      expect((await onFile(dir, 'snapshot', 'save', 'start')).code).toBe(0);
      expect((await onFile(dir, 'clock', 'advance', '2d')).code).toBe(0);
      expect(await offset(dir)).toBe(2 * 86_400_000);
      const loaded = await onFile(dir, 'snapshot', 'load', 'start');
      expect(loaded.code, loaded.stderr).toBe(0);
      expect(await offset(dir)).toBe(0);
      expect(statSync(join(dir, 'sandbox.db')).mode & 0o777).toBe(0o600);
      expect(readdirSync(dir).filter((f) => f.includes('.tmp'))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('with another connection open on the file, loads through the backup: that connection sees the loaded state', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bookdist-snapshot-load-'));
    try {
      expect((await onFile(dir, 'snapshot', 'save', 'start')).code).toBe(0);
      expect((await onFile(dir, 'clock', 'advance', '3d')).code).toBe(0);
      const other = new DatabaseSync(join(dir, 'sandbox.db'));
      try {
        const read = () =>
          (other.prepare("SELECT value FROM meta WHERE key = 'clock_offset_ms'").get() as { value: string } | undefined)
            ?.value;
        expect(read()).toBe(String(3 * 86_400_000));
        const loaded = await onFile(dir, 'snapshot', 'load', 'start');
        expect(loaded.code, loaded.stderr).toBe(0);
        // A file replaced under it would leave this connection on the old one, still 3 days on.
        expect(read() ?? '0').toBe('0');
      } finally {
        other.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
