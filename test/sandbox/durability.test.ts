// The sandbox in separate processes on one SQLite file: a kill -9 in the middle of a burst of
// writes loses no acknowledged write and leaves no half-written order; two server processes
// racing on the same order_number and grant still give exactly one winner; what another process
// writes (the clock, new keys) is served at once by a server that keeps values in memory.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { loadRsaPrivateKey } from '../../src/api/wire.js';
import { Store } from '../../src/sandbox/db/store.js';
import { credentials } from '../../src/sandbox/control.js';
import { ensureSeeded, reseed, WELL_KNOWN } from '../../src/sandbox/seed.js';
import { BILLING, probe, type Probe } from './_support.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
let dir: string;
let runner: string;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bookdist-durability-'));
  const entry = join(dir, 'entry.ts');
  writeFileSync(
    entry,
    `import { startSandbox } from ${JSON.stringify(join(root, 'src/sandbox/http/server.ts'))};
const s = await startSandbox({ dbPath: process.argv[2], port: 0, processDelayMs: 100 });
process.stdout.write(JSON.stringify({ url: s.url }) + '\\n');
process.on('SIGTERM', () => s.close().then(() => process.exit(0)));`,
  );
  runner = join(dir, 'runner.mjs');
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    outfile: runner,
    logLevel: 'error',
  });
});

afterAll(() => {
  for (const ch of children) ch.kill('SIGKILL');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function startChild(dbPath: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--no-warnings', runner, dbPath], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.add(child);
  child.on('exit', () => children.delete(child));
  const line = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    rl.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`sandbox child exited with ${code}`)));
  });
  return { url: JSON.parse(line).url, child };
}

function partnerClient(url: string, dbPath: string): Probe {
  const store = new Store(dbPath);
  try {
    ensureSeeded(store);
    const c = credentials(store);
    return probe(
      new ApiClient({
        baseUrl: url,
        timeout: 10_000,
        retries: 0,
        credentials: { kind: 'crypto', username: c.partner.username, key: loadRsaPrivateKey(c.partner.private_key) },
      }),
    );
  } finally {
    store.close();
  }
}

describe('durability', () => {
  it('kill -9 during a burst of orders loses no acknowledged order and leaves none half-written', async () => {
    const dbPath = join(dir, 'kill.db');
    const a = await startChild(dbPath);
    const client = partnerClient(a.url, dbPath);
    const acked: Array<{ number: string; id: number }> = [];
    const pricing = [WELL_KNOWN.readme.pricing[0].id, WELL_KNOWN.readme.pricing[1].id];
    let n = 0;
    let killed = false;
    const worker = async () => {
      while (!killed) {
        const number = `K-${++n}`;
        try {
          const r = await client.call('order.external', {
            payload: {
              username: WELL_KNOWN.user.username,
              digital_pricing: pricing,
              billing_address: BILLING,
              order_type: 'TestPlan',
              org: 'o',
              order_number: number,
              send_email: false,
            },
          });
          if (r.status === 200) acked.push({ number, id: r.body.order.id });
        } catch {
          /* the server died under us */
        }
      }
    };
    const workers = Array.from({ length: 8 }, worker);
    // Kill once orders are flowing (a count, not a time: a loaded machine acknowledges fewer per
    // second), while eight requests are in flight.
    for (let waited = 0; acked.length < 20 && waited < 30_000; waited += 20)
      await new Promise((r) => setTimeout(r, 20));
    a.child.kill('SIGKILL');
    killed = true;
    await Promise.all(workers);
    await client.close();
    expect(acked.length).toBeGreaterThan(5);

    const b = await startChild(dbPath);
    const client2 = partnerClient(b.url, dbPath);
    try {
      for (const { number, id } of acked) {
        const r = await client2.call('order.external', {
          payload: {
            username: WELL_KNOWN.user.username,
            digital_pricing: pricing,
            billing_address: BILLING,
            order_type: 'TestPlan',
            org: 'o',
            order_number: number,
            send_email: false,
          },
        });
        expect(r.body.message, number).toBe('Order already exists.');
        expect(r.body.order.id).toBe(id);
      }
      const orders = await client2.call('user.orders', { params: { username: WELL_KNOWN.user.username } });
      expect(orders.body.count).toBeGreaterThanOrEqual(acked.length);
      for (const o of orders.body.results) expect(o.item_count).toBe(2);
      const store = new Store(dbPath);
      expect(store.get('PRAGMA integrity_check')).toEqual({ integrity_check: 'ok' });
      expect(
        store.get(
          'SELECT count(*) AS n FROM orders o WHERE (SELECT count(*) FROM order_items i WHERE i.order_id = o.id) <> 2',
        )!.n,
      ).toBe(0);
      store.close();
    } finally {
      await client2.close();
      b.child.kill('SIGTERM');
    }
  });

  it('two server processes on one database: same order_number and same grant, one winner', async () => {
    const dbPath = join(dir, 'race.db');
    const [a, b] = await Promise.all([startChild(dbPath), startChild(dbPath)]);
    const cl = Array.from({ length: 8 }, (_, i) => partnerClient(i % 2 ? a.url : b.url, dbPath));
    try {
      const results = await Promise.all(
        cl.map((c) =>
          c.call('order.external', {
            payload: {
              username: WELL_KNOWN.user2.username,
              digital_pricing: [1],
              billing_address: BILLING,
              order_type: 'TestPlan',
              org: 'o',
              order_number: 'SAME-1',
              send_email: false,
            },
          }),
        ),
      );
      expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
      expect(results.filter((r) => r.body.message === 'Order created.')).toHaveLength(1);
      expect(new Set(results.map((r) => r.body.order.id)).size).toBe(1);
      const grants = await Promise.all(
        cl.map((c) =>
          c.request({
            method: 'POST',
            path: '/v1/access/allow/',
            payload: { hash_id: WELL_KNOWN.otherPublisher.hash_id, username: WELL_KNOWN.user2.username, price: '2.00' },
          }),
        ),
      );
      expect(grants.filter((r) => r.status === 200)).toHaveLength(1);
      expect(
        grants.filter((r) => r.status === 400 && r.body.message === 'The user already has access to this book'),
      ).toHaveLength(7);
    } finally {
      await Promise.all(cl.map((c) => c.close()));
      a.child.kill('SIGTERM');
      b.child.kill('SIGTERM');
    }
  });

  it('a server serves what another process wrote at once: its kept clock and caller keys are dropped', async () => {
    const dbPath = join(dir, 'shared.db');
    const a = await startChild(dbPath);
    const isbn = WELL_KNOWN.readme.isbn13;
    const expiry = async (c: Probe) => {
      const r = await c.call('book.isbn', { params: { isbn } });
      expect(r.status).toBe(200);
      return (r.body.book.digital_pricing as Array<Record<string, any>>).find((p) => p.is_limited)!
        .calculated_expiration_date as string;
    };
    const before = partnerClient(a.url, dbPath);
    try {
      // Served twice, so the server has its clock and the caller's account in memory.
      const first = await expiry(before);
      expect(await expiry(before)).toBe(first);
      // Another connection moves the clock two days on: the next answer is two days later.
      const other = new Store(dbPath);
      try {
        other.advanceClock(2 * 86_400_000);
      } finally {
        other.close();
      }
      expect(Date.parse(await expiry(before)) - Date.parse(first)).toBe(2 * 86_400_000);

      // Another connection resets the sandbox (new keys): the old key is refused at once and the
      // new one is accepted, though the server had the account with its old key in memory.
      const again = new Store(dbPath);
      try {
        reseed(again);
      } finally {
        again.close();
      }
      expect((await before.call('book.isbn', { params: { isbn } })).status).toBe(401);
      const after = partnerClient(a.url, dbPath);
      try {
        expect((await after.call('book.isbn', { params: { isbn } })).status).toBe(200);
      } finally {
        await after.close();
      }
    } finally {
      await before.close();
      a.child.kill('SIGTERM');
    }
  });
});
