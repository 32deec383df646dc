// The intent row of every write is durable before its request leaves (issue 34, item 1): a bulk
// job commits its intents in groups, and none of its requests is sent before an fdatasync of the
// ledger that began after its intent was written has ended. node:fs is watched: each fdatasync of
// the ledger file records how far the file reached when it began, and counts only once it ends;
// the stub service reads the ledger at each request and finds the request's intent in that part.
// And they are durable in groups: the job tells the ledger its next items' calls ahead (a window
// of 64, refilled at half), so the fdatasyncs are counted by groups, not by requests.
import * as realFs from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { ok, stubCli, StubRegistry } from '../commands/_stubs.js';
import type { StubRequest } from '../helpers/stub-http.js';

/** How many bytes of each ledger file are known to be on disk (an fdatasync of it has ended). */
const durable = new Map<string, number>();
/** Descriptors of ledger files: fd -> path. */
const ledgerFds = new Map<number, string>();
/** fdatasyncs of a ledger file begun (each is one group of intents made durable, or the end's). */
let syncs = 0;

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const isLedger = (p: unknown) => typeof p === 'string' && p.endsWith('ledger.ndjson');
  const openSync: typeof fs.openSync = (path, ...rest) => {
    const fd = fs.openSync(path, ...rest);
    if (isLedger(path)) ledgerFds.set(fd, String(path));
    return fd;
  };
  const closeSync: typeof fs.closeSync = (fd) => {
    ledgerFds.delete(fd);
    fs.closeSync(fd);
  };
  const reached = (fd: number) => {
    const path = ledgerFds.get(fd);
    if (path) syncs++;
    return path ? { path, size: fs.fstatSync(fd).size } : undefined;
  };
  const settle = (r: { path: string; size: number } | undefined) => {
    if (r && (durable.get(r.path) ?? 0) < r.size) durable.set(r.path, r.size);
  };
  const fdatasyncSync: typeof fs.fdatasyncSync = (fd) => {
    const r = reached(fd);
    fs.fdatasyncSync(fd);
    settle(r);
  };
  const fdatasync = ((fd: number, cb: (e: NodeJS.ErrnoException | null) => void) => {
    const r = reached(fd);
    fs.fdatasync(fd, (e) => {
      if (!e) settle(r);
      cb(e);
    });
  }) as typeof fs.fdatasync;
  const patched = { ...fs, openSync, closeSync, fdatasync, fdatasyncSync };
  return { ...patched, default: patched };
});

/** Is an intent row naming `field` (`"name":"value"`) in the part of the ledger an fdatasync has made durable? */
function intentDurable(ledger: string, field: string): boolean {
  const synced = realFs
    .readFileSync(ledger)
    .subarray(0, durable.get(ledger) ?? 0)
    .toString('utf8');
  return synced.split('\n').some((l) => l.includes('"kind":"intent"') && l.includes(field));
}

const cli = stubCli();
const USER = '6dda08c181e996f3a7b0afe6ae9ead';
const HASH = 'dfdf8b53417b81653644de7e47b7f3122320094d';
const order = (id: number) => ({
  id,
  username: USER,
  is_complete: true,
  item_count: 1,
  items: [
    {
      id: id * 10,
      order: { id },
      book: { hash_id: HASH, title: 'A Winter Atlas' },
      user: { full_name: 'Ada Byron', username: USER },
      expiration_date: '2026-12-25T12:00:00Z',
      is_active: true,
      is_digital: true,
      is_print: false,
      is_refunded: false,
      purchase_date: '2026-11-25T12:00:00Z',
      purchase_price: '3.99',
      quantity: 1,
    },
  ],
  totals: { subtotal: 3.99, taxes: 0, shipping: 0, total: 3.99 },
});

describe('a bulk job sends no request before its intent is durable', () => {
  it('order create --from-csv at concurrency 8: every request finds its intent in the fdatasynced part of the ledger, made durable in groups', async () => {
    syncs = 0;
    // Three batches of 50 orders (ORDERS_PER_BATCH), sent at once.
    const N = 150;
    const ledger = join(cli.dir(), 'state', 'ledger.ndjson');
    const csv = join(cli.dir(), 'orders.csv');
    realFs.writeFileSync(
      csv,
      'order_number,username,pricing_id,order_type,org,billing_full_name,billing_postal_code,billing_country\n' +
        Array.from({ length: N }, (_, i) => `D-${i},${USER},3,TestPlan,acme,Ann Lee,10115,DE\n`).join(''),
    );
    const late: string[] = [];
    let answered = 0;
    const answer = async (req: StubRequest) => {
      const number = String(req.payload?.order_number);
      if (!intentDurable(ledger, `"order_number":"${number}"`)) late.push(number);
      // Answers take a little while, so that intents are written while an fdatasync runs.
      await new Promise((r) => setTimeout(r, 2));
      return ok({ message: 'Order created.', order: order(++answered) });
    };
    const http = new StubRegistry().on('POST', '/v1/order/external/', answer, N);
    const r = await cli(http, [
      'order',
      'create',
      '--from-csv',
      csv,
      '--results',
      join(cli.dir(), 'orders.out'),
      '--concurrency',
      '8',
      '-q',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(http.sent('/v1/order/external/')).toHaveLength(N);
    expect(late, 'requests sent before their intent was fdatasynced').toEqual([]);
    // One group a batch (its 50 intents told at once) and the end's: never one a request or two
    // (one per group of intents written meanwhile was ~0.6 an order, some 90 here).
    expect(syncs, 'fdatasyncs of the ledger').toBeLessThanOrEqual(3 + 1);
    // Each intent is in the file once, and so is each outcome.
    const rows = realFs
      .readFileSync(ledger, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows.filter((x) => x.kind === 'intent')).toHaveLength(N);
    expect(rows.filter((x) => x.kind === 'outcome' && x.status === 'done')).toHaveLength(N);
  });

  it('codes generate, one request a batch, at concurrency 4: every request finds its intent durable, the batches told ahead in groups', async () => {
    syncs = 0;
    const BATCHES = 40;
    const ledger = join(cli.dir(), 'state', 'ledger.ndjson');
    const late: string[] = [];
    let made = 0;
    const answer = async (req: StubRequest) => {
      const key = String(req.headers['idempotency-key']);
      if (!intentDurable(ledger, `"idempotency_key":"${key}"`)) late.push(key);
      await new Promise((r) => setTimeout(r, 2));
      const n = Number(req.payload?.count);
      return ok({
        code: 200,
        codes: Array.from({ length: n }, () => ({ code: `DUR-${++made}`, deactivation_date: null, limit_days: 0 })),
      });
    };
    const http = new StubRegistry().on('POST', '/v1/codes/generate/', answer, BATCHES);
    const r = await cli(http, [
      'codes',
      'generate',
      '--hash-id',
      HASH,
      '--org',
      'acme',
      '--count',
      String(BATCHES * 5),
      '--batch-size',
      '5',
      '--concurrency',
      '4',
      '--out',
      join(cli.dir(), 'codes.csv'),
      '-q',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(http.sent('/v1/codes/generate/')).toHaveLength(BATCHES);
    expect(late, 'requests sent before their intent was fdatasynced').toEqual([]);
    // A window of 64 batches told ahead: one group for 40 batches, and the end's (one group per
    // one or two batches before: some 25 here).
    expect(syncs, 'fdatasyncs of the ledger').toBeLessThanOrEqual(2);
    const rows = realFs
      .readFileSync(ledger, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((x) => x.op === 'codes generate' || x.kind === 'outcome');
    expect(rows.filter((x) => x.kind === 'intent' && x.op === 'codes generate')).toHaveLength(BATCHES);
    expect(rows.filter((x) => x.kind === 'outcome' && x.status === 'failed')).toEqual([]);
  });
});

/** One verb of a row job: its CSV, the endpoint it posts to, what names a row in its intent. */
interface RowVerb {
  verb: string;
  argv: (csv: string) => string[];
  header: string;
  line: (i: number) => string;
  path: string;
  field: (payload: Record<string, unknown>) => string;
  answer: (payload: Record<string, unknown>) => Record<string, unknown>;
}
const u = (i: number) => (i + 1).toString(16).padStart(30, '0');
const ROW_VERBS: RowVerb[] = [
  {
    verb: 'order free',
    argv: (csv) => ['order', 'free', '--from-csv', csv],
    header: 'username,hash_id',
    line: (i) => `${u(i)},${HASH}`,
    path: '/v1/order/free/',
    field: (p) => `"username":"${String(p.username)}"`,
    answer: () => ({ message: 'Free order created.' }),
  },
  {
    verb: 'user create',
    argv: (csv) => ['user', 'create', '--from-csv', csv],
    header: 'email',
    line: (i) => `reader${i}@example.com`,
    path: '/v1/user/',
    field: (p) => `"email":"${String(p.email)}"`,
    answer: (p) => ({ email: p.email, message: 'User created.', username: u(Number(String(p.email).slice(6, -12))) }),
  },
  {
    verb: 'access allow',
    argv: (csv) => ['access', 'allow', '--from-csv', csv],
    header: 'hash_id,username,price',
    line: (i) => `${HASH},${u(i)},1.50`,
    path: '/v1/access/allow/',
    field: (p) => `"username":"${String(p.username)}"`,
    answer: () => ({ message: 'Access granted.' }),
  },
  {
    verb: 'access revoke',
    argv: (csv) => ['access', 'revoke', '--from-csv', csv, '--yes'],
    header: 'hash_id,username',
    line: (i) => `${HASH},${u(i)}`,
    path: '/v1/access/revoke/',
    field: (p) => `"username":"${String(p.username)}"`,
    answer: () => ({ message: 'Access revoked.' }),
  },
  {
    verb: 'access sync',
    argv: (csv) => ['access', 'sync', csv, '--hash-id', HASH, '--price', '1.50', '--yes'],
    header: 'username',
    line: (i) => u(i),
    path: '/v1/access/allow/',
    field: (p) => `"username":"${String(p.username)}"`,
    answer: () => ({ message: 'Access granted.' }),
  },
];

describe('the other row jobs tell their calls ahead too: intents durable in groups, not one or two a request', () => {
  it.each(ROW_VERBS)('$verb, 100 rows from a CSV file', async (v) => {
    syncs = 0;
    const N = 100;
    const dir = realFs.mkdtempSync(join(cli.dir(), 'rows-'));
    const ledger = join(cli.dir(), 'state', 'ledger.ndjson');
    const csv = join(dir, 'in.csv');
    realFs.writeFileSync(csv, [v.header, ...Array.from({ length: N }, (_, i) => v.line(i))].join('\n') + '\n');
    const late: string[] = [];
    const answer = async (req: StubRequest) => {
      const field = v.field(req.payload ?? {});
      if (!intentDurable(ledger, field)) late.push(field);
      await new Promise((r) => setTimeout(r, 1));
      return ok(v.answer(req.payload ?? {}));
    };
    const http = new StubRegistry().on('POST', v.path, answer, N);
    const r = await cli(http, [...v.argv(csv), '--results', join(dir, 'out.csv'), '-q']);
    expect(r.code, r.stderr).toBe(0);
    expect(http.sent(v.path)).toHaveLength(N);
    expect(late, 'requests sent before their intent was fdatasynced').toEqual([]);
    // One batch of 100 rows, told ahead 64 at a time, refilled when 32 are left: two groups and
    // the end's (one or two requests a group before: some 60 to 100).
    expect(syncs, 'fdatasyncs of the ledger').toBeLessThanOrEqual(3);
  });
});

describe('book process tells its books’ calls ahead', () => {
  it('100 books from a file: every request finds its intent durable, made durable in groups', async () => {
    syncs = 0;
    const N = 100;
    const dir = realFs.mkdtempSync(join(cli.dir(), 'books-'));
    const ledger = join(cli.dir(), 'state', 'ledger.ndjson');
    const list = join(dir, 'books.txt');
    const hash = (i: number) => (i + 1).toString(16).padStart(40, 'b');
    realFs.writeFileSync(list, Array.from({ length: N }, (_, i) => hash(i)).join('\n') + '\n');
    const late: string[] = [];
    const answer = async (req: StubRequest) => {
      const h = req.path.split('/')[3];
      if (!intentDurable(ledger, `"hash_id":"${h}"`)) late.push(h);
      await new Promise((r) => setTimeout(r, 1));
      return ok({ message: 'Book queued for processing.' });
    };
    const http = new StubRegistry().on('POST', /^\/v1\/book\/[0-9a-f]{40}\/process\/$/, answer, N);
    const r = await cli(http, [
      'book',
      'process',
      '--from-file',
      list,
      '--results',
      join(dir, 'out.csv'),
      '--concurrency',
      '1',
      '-q',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(http.sent(/\/process\/$/)).toHaveLength(N);
    expect(late, 'requests sent before their intent was fdatasynced').toEqual([]);
    // Batches of 10 books, each batch's calls told at once: one group a batch and the end's (one
    // or two requests a group before: some 50 to 100).
    expect(syncs, 'fdatasyncs of the ledger').toBeLessThanOrEqual(N / 10 + 1);
    const rows = realFs
      .readFileSync(ledger, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((x) => x.op === 'book process');
    expect(rows).toHaveLength(N);
  });
});

describe('codes generate --resume tells the batches it sends again ahead', () => {
  it('whole and partly done batches of an earlier run: each request finds its intent durable, told in groups, none left unsent', async () => {
    const BATCHES = 40;
    const dir = realFs.mkdtempSync(join(cli.dir(), 'resume-'));
    const ledger = join(cli.dir(), 'state', 'ledger.ndjson');
    const out = join(dir, 'codes.csv');
    const argv = [
      'codes',
      'generate',
      '--hash-id',
      HASH,
      '--org',
      'acme',
      '--count',
      String(BATCHES * 5),
      '--batch-size',
      '5',
      '--concurrency',
      '4',
      '--out',
      out,
      '-q',
    ];
    const codes = (key: string, n: number) =>
      ok({
        codes: Array.from({ length: n }, (_, i) => ({ code: `R-${key}-${i}`, deactivation_date: null, limit_days: 0 })),
      });
    const notJson = { status: 200, headers: { 'content-type': 'text/plain' }, text: 'OK' };
    // The first run: even batches get 3 of their 5 codes (the rest, asked for at position 3, gets
    // no answer the interface promises: left to --resume); odd batches after 20 get none.
    const first = new StubRegistry().on(
      'POST',
      '/v1/codes/generate/',
      (req) => {
        const key = String(req.headers['idempotency-key']);
        const n = Number(/-(\d+)(?:-at\d+)?$/.exec(key)![1]);
        if (key.endsWith('-at3') || (n % 2 === 1 && n > 20)) return notJson;
        return codes(key, n % 2 === 0 ? 3 : 5);
      },
      Infinity,
    );
    const r1 = await cli(first, argv);
    expect(r1.code, r1.stderr).toBe(6);

    syncs = 0;
    const late: string[] = [];
    const again = new StubRegistry().on(
      'POST',
      '/v1/codes/generate/',
      async (req) => {
        const key = String(req.headers['idempotency-key']);
        if (!intentDurable(ledger, `"idempotency_key":"${key}"`)) late.push(key);
        await new Promise((r) => setTimeout(r, 2));
        return codes(key, Number(req.payload?.count));
      },
      Infinity,
    );
    const r2 = await cli(again, [...argv, '--resume']);
    expect(r2.code, r2.stderr).toBe(0);
    const sent = again
      .sent('/v1/codes/generate/')
      .map((q) => String(q.headers['idempotency-key']).replace(/^[0-9a-f]+-/, ''));
    // 20 even batches complete their last 2 codes from position 3; 10 odd ones are sent whole.
    expect(sent.filter((k) => k.endsWith('-at3'))).toHaveLength(20);
    expect(sent).toHaveLength(30);
    expect(late, 'requests sent before their intent was fdatasynced').toEqual([]);
    // One window of batches told ahead, and the end's (one group per one or two batches before).
    expect(syncs, 'fdatasyncs of the ledger').toBeLessThanOrEqual(3);
    const rows = realFs
      .readFileSync(ledger, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    // Every call told ahead was made as told: none is closed as not sent.
    expect(rows.filter((x) => x.kind === 'outcome' && x.unsent === true)).toEqual([]);
    expect(realFs.readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(1 + BATCHES * 5);
  });
});
