// Every write is recorded (issue 34): each write command leaves an intent and an outcome row with
// the identifiers sent and returned, never a secret; the ledger can be turned off three ways; an
// answer that is not the interface's is never "done"; `ledger reconcile` settles lost answers
// against a sandbox that drops them (fault `drop`: carried out, answer lost; `reset`: never read).
import { readFileSync, existsSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, WELL_KNOWN, type TestSandbox } from '../helpers/sandbox.js';
import { cliFor, json, uniqueEmail, type Cli } from '../commands/_support.js';
import { foldWrites, parseLedger, type Write } from '../../src/ledger/read.js';
import { run } from '../helpers/run.js';
import { json as jsonAnswer, StubRegistry } from '../helpers/stub-http.js';

type Faults = { rate: number; kinds: Array<'503' | '429' | 'reset' | 'drop'> };
let sb: TestSandbox;
let cli: Cli;
const faults: Faults = { rate: 0, kinds: ['drop'] };
const readme = WELL_KNOWN.readme;
const billing = ['--billing-name', 'Ada Byron', '--billing-postal-code', '04101', '--billing-country', 'US'];

beforeAll(async () => {
  // The fault object is read at each request: a test sets rate to 1 around the write it wants lost.
  sb = await startTestSandbox({ faults });
  cli = cliFor(sb, { COLUMNS: '80' });
});
afterAll(async () => {
  await sb?.close();
});

const ledgerFile = () => join(sb.env.BOOKDIST_STATE_DIR, 'ledger.ndjson');
const ledgerText = () => (existsSync(ledgerFile()) ? readFileSync(ledgerFile(), 'utf8') : '');
function writes(): Write[] {
  const p = parseLedger(ledgerText());
  expect(p.broken).toBeUndefined();
  return foldWrites(p.rows);
}
const last = () => writes().at(-1)!;

async function newUser(): Promise<string> {
  const r = await cli(['user', 'create', '--email', uniqueEmail('ledger'), '--json']);
  expect(r.code).toBe(0);
  return json(r).username;
}

/** Run `args` with the sandbox dropping (or resetting) every answer. */
async function lost(args: string[], kind: 'drop' | 'reset' = 'drop') {
  faults.kinds = [kind];
  faults.rate = 1;
  try {
    return await cli([...args, '--retries', '0']);
  } finally {
    faults.rate = 0;
  }
}

describe('each write command records its intent and outcome', () => {
  it('user create and invite: the e-mail sent, the username returned; the password never', async () => {
    const email = uniqueEmail('rec');
    const r = await cli(['user', 'create', '--email', email, '--password-stdin', '--json'], {
      input: 'Sekrit-pw-4242\n',
    });
    expect(r.code).toBe(0);
    const w = last();
    expect(w).toMatchObject({ op: 'user create', status: 'done', http: 200, ids: { email } });
    expect(w.returned).toEqual({ username: json(r).username });
    const gen = await cli(['user', 'create', '--email', uniqueEmail('rec'), '--json']);
    const generated = json(gen).passwd;
    expect(generated).toBeTruthy();
    const inv = await cli(['user', 'invite', '--email', uniqueEmail('rec'), '--json']);
    expect(last()).toMatchObject({ op: 'user invite', status: 'done', returned: { username: json(inv).username } });
    const text = ledgerText();
    expect(text).not.toContain('Sekrit-pw-4242');
    expect(text).not.toContain(generated);
  });

  it('order create, free, refund: the order number, user and pricing sent; order and purchase ids returned', async () => {
    const user = await newUser();
    const number = `L${Date.now().toString(36)}`.slice(0, 20);
    const c = await cli([
      'order',
      'create',
      '--username',
      user,
      '--pricing-id',
      String(readme.pricing[0].id),
      '--order-type',
      'TestPlan',
      '--org',
      'harborlane',
      '--order-number',
      number,
      ...billing,
      '--json',
    ]);
    expect(c.code).toBe(0);
    const order = json(c).order;
    const w = last();
    expect(w).toMatchObject({
      op: 'order create',
      status: 'done',
      ids: { username: user, order_number: number, org: 'harborlane', digital_pricing: [readme.pricing[0].id] },
    });
    expect(w.returned).toMatchObject({
      order_id: order.id,
      purchase_ids: order.items.map((i: { id: number }) => i.id),
    });
    const f = await cli([
      'order',
      'free',
      '--username',
      user,
      '--hash-id',
      WELL_KNOWN.otherPublisher.hash_id,
      '--json',
    ]);
    expect(f.code).toBe(0);
    expect(last()).toMatchObject({
      op: 'order free',
      status: 'done',
      ids: { username: user, hash_id: WELL_KNOWN.otherPublisher.hash_id },
      returned: { order_id: json(f).order.id },
    });
    const r = await cli(['order', 'refund', '--order-id', String(order.id), '--yes', '--json']);
    expect(r.code).toBe(0);
    expect(last()).toMatchObject({
      op: 'order refund',
      status: 'done',
      ids: { order_id: order.id },
      returned: { refunded: order.items.map((i: { id: number }) => i.id) },
    });
  });

  it('codes generate: one row per batch with its count and a digest, never a code', async () => {
    const r = await cli([
      'codes',
      'generate',
      '--hash-id',
      readme.hash_id,
      '--org',
      'harborlane',
      '--count',
      '1500',
      '-o',
      'csv',
    ]);
    expect(r.code).toBe(0);
    const codes = r.stdout
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(',')[0]);
    expect(codes).toHaveLength(1500);
    const batches = writes()
      .filter((x) => x.op === 'codes generate')
      .slice(-2);
    expect(batches.map((b) => [b.ids.count, b.returned?.codes, b.status])).toEqual([
      [1000, 1000, 'done'],
      [500, 500, 'done'],
    ]);
    expect(batches[0].job).toMatch(/^[0-9a-f]{16}$/);
    expect(batches[1].job).toBe(batches[0].job);
    expect(batches[0].idempotency_key).toBe(`${batches[0].job}-1`);
    // The digest of each batch is the SHA-256 of its codes joined by line ends (a file of them
    // can be matched); the batches may reach stdout in either order.
    const sha = (xs: string[]) => createHash('sha256').update(xs.join('\n')).digest('hex');
    const digests = batches.map((b) => b.returned?.codes_sha256);
    expect([
      [sha(codes.slice(0, 1000)), sha(codes.slice(1000))],
      [sha(codes.slice(500)), sha(codes.slice(0, 500))],
    ]).toContainEqual(digests);
    const text = ledgerText();
    for (const code of codes) expect(text).not.toContain(code);
  });

  it('access allow and revoke, book process, and `api` with a write method', async () => {
    const user = await newUser();
    const book = WELL_KNOWN.otherPublisher.hash_id;
    expect((await cli(['access', 'allow', '--hash-id', book, '--username', user, '--price', '4.99'])).code).toBe(0);
    expect(last()).toMatchObject({
      op: 'access allow',
      status: 'done',
      ids: { hash_id: book, username: user, price: '4.99' },
    });
    expect((await cli(['access', 'revoke', '--hash-id', book, '--username', user, '--yes'])).code).toBe(0);
    expect(last()).toMatchObject({ op: 'access revoke', status: 'done', ids: { hash_id: book, username: user } });
    // A second revoke is refused by the service: failed, with its message.
    expect((await cli(['access', 'revoke', '--hash-id', book, '--username', user, '--yes'])).code).not.toBe(0);
    expect(last()).toMatchObject({ op: 'access revoke', status: 'failed' });
    expect(last().reason).toBeTruthy();
    expect((await cli(['book', 'process', WELL_KNOWN.unprocessed.hash_id])).code).toBe(0);
    expect(last()).toMatchObject({
      op: 'book process',
      status: 'done',
      ids: { hash_id: WELL_KNOWN.unprocessed.hash_id },
    });
    const a = await cli([
      'api',
      'POST',
      '/v1/order/free/',
      '-f',
      `username=${user}`,
      '-f',
      `hash_id=${readme.hash_id}`,
    ]);
    expect(a.code).toBe(0);
    expect(last()).toMatchObject({
      op: 'order free',
      status: 'done',
      ids: { username: user, hash_id: readme.hash_id },
    });
    // A read sent as POST is not a write.
    const before = writes().length;
    expect((await cli(['api', 'POST', '/v1/book/search/', '-f', 'title=Ledger'])).code).toBe(0);
    expect(writes().length).toBe(before);
  });

  it('no key, shared key, token or signature of the test account is in the ledger', () => {
    const text = ledgerText();
    expect(text.length).toBeGreaterThan(0);
    const key = sb.creds.partner.keyPem.split('\n').filter((l) => l && !l.startsWith('-----'));
    for (const secret of [...key, sb.creds.partner.sharedKey, sb.creds.operatorToken])
      expect(text).not.toContain(secret);
    expect(text).not.toMatch(/signature|authorization|passwd/i);
  });
});

describe('turning the ledger off', () => {
  it('--no-ledger, BOOKDIST_LEDGER=off and a profile with --no-ledger record nothing; --dry-run neither', async () => {
    const n = writes().length;
    expect((await cli(['--no-ledger', 'user', 'create', '--email', uniqueEmail('off')])).code).toBe(0);
    expect(
      (await cli(['user', 'create', '--email', uniqueEmail('off')], { env: { BOOKDIST_LEDGER: 'off' } })).code,
    ).toBe(0);
    expect((await cli(['--dry-run', 'user', 'create', '--email', uniqueEmail('off')])).code).toBe(0);
    const add = await cli(
      [
        'profile',
        'add',
        '--name',
        'quiet',
        '--base-url',
        sb.url,
        '--username',
        sb.creds.partner.username,
        '--key-file',
        sb.creds.partner.keyFile,
        '--no-ledger',
        '--no-verify',
      ],
      {
        env: { BOOKDIST_BASE_URL: undefined, BOOKDIST_USERNAME: undefined, BOOKDIST_KEY_FILE: undefined },
      },
    );
    expect(add.code).toBe(0);
    const viaProfile = await cli(['--profile', 'quiet', 'user', 'create', '--email', uniqueEmail('off')], {
      env: { BOOKDIST_BASE_URL: undefined, BOOKDIST_USERNAME: undefined, BOOKDIST_KEY_FILE: undefined },
    });
    expect(viaProfile.code).toBe(0);
    expect(writes().length).toBe(n);
    // And on again by default.
    expect((await cli(['user', 'create', '--email', uniqueEmail('on')])).code).toBe(0);
    expect(writes().length).toBe(n + 1);
  });
});

describe('an answer that is not the interface\'s is never "done"', () => {
  it('an HTML 200 to access allow is recorded as unknown', async () => {
    const reg = new StubRegistry().on('POST', '/v1/access/allow/', {
      status: 200,
      headers: { 'content-type': 'text/html' },
      text: '<html><body>Sign in to the network</body></html>',
    });
    const state = join(sb.env.BOOKDIST_STATE_DIR, 'stub');
    const env = {
      BOOKDIST_BASE_URL: 'https://api.example.test',
      BOOKDIST_USERNAME: 'b73395ba21c439433901092a0b7ef0',
      BOOKDIST_SHARED_KEY: 'shh',
      BOOKDIST_TOKEN: 'tok',
      BOOKDIST_STATE_DIR: state,
      BOOKDIST_CONFIG_DIR: join(state, 'cfg'),
    };
    await run(
      [
        'access',
        'allow',
        '--hash-id',
        readme.hash_id,
        '--username',
        'b73395ba21c439433901092a0b7ef0',
        '--price',
        '1.00',
      ],
      { env, http: reg },
    );
    const ws = foldWrites(parseLedger(readFileSync(join(state, 'ledger.ndjson'), 'utf8')).rows);
    expect(ws).toHaveLength(1);
    expect(ws[0]).toMatchObject({ op: 'access allow', status: 'unknown', http: 200 });
    expect(ws[0].reason).toMatch(/not the interface's/);
    reg.verify?.();
  });

  it('a 3xx to order free is recorded as unknown, a 4xx as failed', async () => {
    const reg = new StubRegistry()
      .on('POST', '/v1/order/free/', { status: 301, headers: { location: 'https://elsewhere.example/' }, text: '' })
      .on('POST', '/v1/order/free/', jsonAnswer(404, { code: 404, error: true, message: 'User not found.' }));
    const state = join(sb.env.BOOKDIST_STATE_DIR, 'stub3');
    const env = {
      BOOKDIST_BASE_URL: 'https://api.example.test',
      BOOKDIST_USERNAME: 'b73395ba21c439433901092a0b7ef0',
      BOOKDIST_SHARED_KEY: 'shh',
      BOOKDIST_STATE_DIR: state,
      BOOKDIST_CONFIG_DIR: join(state, 'cfg'),
    };
    const args = ['order', 'free', '--username', 'b73395ba21c439433901092a0b7ef0', '--hash-id', readme.hash_id];
    await run(args, { env, http: reg });
    await run(args, { env, http: reg });
    const ws = foldWrites(parseLedger(readFileSync(join(state, 'ledger.ndjson'), 'utf8')).rows);
    expect(ws.map((w) => [w.status, w.http])).toEqual([
      ['unknown', 301],
      ['failed', 404],
    ]);
    expect(ws[1].reason).toBe('User not found.');
  });
});

describe('a batch of codes answered with another number of codes is not "done"', () => {
  const codes = (n: number, from: number) =>
    jsonAnswer(200, {
      code: 200,
      success: true,
      codes: Array.from({ length: n }, (_, i) => ({
        code: `SHRT-${from + i}`,
        deactivation_date: null,
        limit_days: 0,
      })),
    });
  it('a short answer and a long one are recorded as unknown with the count that came back; the completion as done', async () => {
    // 5 asked: 3 come back; the verb asks for the 2 missing (a write of its own): 4 come back,
    // 2 are written and 2 rescued. A second job of 2 gets what it asked.
    const reg = new StubRegistry()
      .on('POST', '/v1/codes/generate/', codes(3, 0))
      .on('POST', '/v1/codes/generate/', codes(4, 3))
      .on('POST', '/v1/codes/generate/', codes(2, 7));
    const state = join(sb.env.BOOKDIST_STATE_DIR, 'stub-short');
    const env = {
      BOOKDIST_BASE_URL: 'https://api.example.test',
      BOOKDIST_USERNAME: 'b73395ba21c439433901092a0b7ef0',
      BOOKDIST_SHARED_KEY: 'shh',
      BOOKDIST_STATE_DIR: state,
      BOOKDIST_CONFIG_DIR: join(state, 'cfg'),
    };
    const args = ['codes', 'generate', '--hash-id', readme.hash_id, '--org', 'acme', '-o', 'ndjson', '-q'];
    const first = await run([...args, '--count', '5'], { env, http: reg });
    expect(first.stdout.trim().split('\n')).toHaveLength(5);
    expect((await run([...args, '--count', '2'], { env, http: reg })).code).toBe(0);
    reg.verify();
    const ws = foldWrites(parseLedger(readFileSync(join(state, 'ledger.ndjson'), 'utf8')).rows);
    expect(ws.map((w) => [w.ids.count, w.status, w.returned?.codes])).toEqual([
      [5, 'unknown', 3],
      [2, 'unknown', 4],
      [2, 'done', 2],
    ]);
    expect(ws[0].reason).toMatch(/returned 3 code\(s\) for 5 asked/);
    expect(ws[1].reason).toMatch(/returned 4 code\(s\) for 2 asked/);
    expect(ws[2].reason).toBeUndefined();
  });
});

describe('ledger reconcile settles lost answers', () => {
  it('an order with an order_number whose answer was dropped after commit is confirmed, without a second order', async () => {
    const user = await newUser();
    const number = `R${Date.now().toString(36)}`.slice(0, 20);
    const r = await lost([
      'order',
      'create',
      '--username',
      user,
      '--pricing-id',
      String(readme.pricing[0].id),
      '--order-type',
      'TestPlan',
      '--org',
      'harborlane',
      '--order-number',
      number,
      ...billing,
    ]);
    // An order with a number is retried as idempotent; with --retries 0 the lost answer ends it (exit 7).
    expect(r.code).toBe(7);
    const w = last();
    expect(w).toMatchObject({ op: 'order create', status: 'unknown' });
    expect(r.stderr).toContain('outcome is unknown');
    expect(r.stderr).toContain(`write ${w.id} in the ledger`);
    expect(r.stderr).toContain('bookdist ledger reconcile');
    const rec = await cli(['ledger', 'reconcile', '--json']);
    const rows = json(rec);
    expect(rows.find((x: { id: number }) => x.id === w.id)).toMatchObject({ result: 'confirmed' });
    const orders = json(await cli(['user', 'orders', user, '--json']));
    expect(orders.count).toBe(1);
    expect(writes().find((x) => x.id === w.id)).toMatchObject({ status: 'done', settled: 'confirmed' });
    // Settled once: a second run has nothing more to do for it.
    const again = json(await cli(['ledger', 'reconcile', '--json']));
    expect(again.find((x: { id: number }) => x.id === w.id)).toBeUndefined();
  });

  it('an order whose request never arrived is applied now, exactly once', async () => {
    const user = await newUser();
    const number = `N${Date.now().toString(36)}`.slice(0, 20);
    const r = await lost(
      [
        'order',
        'create',
        '--username',
        user,
        '--pricing-id',
        String(readme.pricing[0].id),
        '--order-type',
        'TestPlan',
        '--org',
        'harborlane',
        '--order-number',
        number,
        ...billing,
      ],
      'reset',
    );
    expect(r.code).toBe(7);
    const w = last();
    expect(w.status).toBe('unknown');
    const rows = json(await cli(['ledger', 'reconcile', '--json']));
    expect(rows.find((x: { id: number }) => x.id === w.id)).toMatchObject({ result: 'applied now' });
    // Its re-send is a write of its own, recorded as reconcile's.
    expect(writes().filter((x) => x.id > w.id && x.op === 'order create')).toMatchObject([
      { job: 'reconcile', status: 'done' },
    ]);
    expect(json(await cli(['user', 'orders', user, '--json'])).count).toBe(1);
    await cli(['ledger', 'reconcile', '--json']);
    expect(json(await cli(['user', 'orders', user, '--json'])).count).toBe(1);
  });

  it('access allow: dropped after commit is confirmed; never arrived is applied now; revoke likewise', async () => {
    const book = WELL_KNOWN.otherPublisher.hash_id;
    const u1 = await newUser();
    const u2 = await newUser();
    await lost(['access', 'allow', '--hash-id', book, '--username', u1, '--price', '2.00']);
    const a1 = last().id;
    await lost(['access', 'allow', '--hash-id', book, '--username', u2, '--price', '2.00'], 'reset');
    const a2 = last().id;
    const rows = json(await cli(['ledger', 'reconcile', '--json']));
    expect(rows.find((x: { id: number }) => x.id === a1)).toMatchObject({ result: 'confirmed' });
    expect(rows.find((x: { id: number }) => x.id === a2)).toMatchObject({ result: 'applied now' });
    await lost(['access', 'revoke', '--hash-id', book, '--username', u1, '--yes']);
    const r1 = last().id;
    await lost(['access', 'revoke', '--hash-id', book, '--username', u2, '--yes'], 'reset');
    const r2 = last().id;
    const rows2 = json(await cli(['ledger', 'reconcile', '--json']));
    expect(rows2.find((x: { id: number }) => x.id === r1)).toMatchObject({ result: 'confirmed' });
    expect(rows2.find((x: { id: number }) => x.id === r2)).toMatchObject({ result: 'applied now' });
    // Done now: --all does not check them (only a write could), and says so rather than "would send nothing".
    const all = json(await cli(['ledger', 'reconcile', '--all', '--dry-run', '--json']));
    expect(all.find((x: { id: number }) => x.id === a1)).toMatchObject({
      result: 'not checked',
      how: expect.stringMatching(/^only a write could check it/),
    });
  });

  it('a user create by e-mail: confirmed when it landed, not applied when it did not', async () => {
    const e1 = uniqueEmail('rc');
    const e2 = uniqueEmail('rc');
    await lost(['user', 'create', '--email', e1]);
    const w1 = last().id;
    await lost(['user', 'create', '--email', e2], 'reset');
    const w2 = last().id;
    const rec = await cli(['ledger', 'reconcile', '--json']);
    const rows = json(rec);
    expect(rows.find((x: { id: number }) => x.id === w1)).toMatchObject({ result: 'confirmed' });
    expect(rows.find((x: { id: number }) => x.id === w2)).toMatchObject({ result: 'not applied' });
  });

  it('a code batch without an honoured key cannot be settled: exit 6 naming why; --dry-run sends nothing', async () => {
    const r = await lost([
      'api',
      'POST',
      '/v1/codes/generate/',
      '-f',
      `hash_id=${readme.hash_id}`,
      '-f',
      'org=harborlane',
      '-F',
      'count=5',
    ]);
    expect(r.code).toBe(1);
    const w = last();
    expect(w).toMatchObject({ op: 'codes generate', status: 'unknown' });
    const dry = await cli(['ledger', 'reconcile', '--dry-run', '--json']);
    expect(dry.code).toBe(0);
    expect(json(dry).find((x: { id: number }) => x.id === w.id)).toMatchObject({
      result: 'cannot settle',
      how: expect.stringMatching(/codes summary/),
    });
    const rec = await cli(['ledger', 'reconcile', '--json']);
    expect(rec.code).toBe(6);
    expect(json(rec).find((x: { id: number }) => x.id === w.id)).toMatchObject({ result: 'cannot settle' });
    expect(json(rec).find((x: { id: number }) => x.id === w.id).how).toMatch(/codes summary/);
  });
});

describe('a keyed batch of codes', () => {
  it('whose answer was dropped is settled by its Idempotency-Key where the service honours keys: the batch exists once', async () => {
    const env = { BOOKDIST_IDEMPOTENCY_KEYS: '1' };
    faults.kinds = ['drop'];
    faults.rate = 1;
    let r;
    try {
      r = await cli(
        ['codes', 'generate', '--hash-id', readme.hash_id, '--org', 'keyed', '--count', '7', '--retries', '0', '-q'],
        { env },
      );
    } finally {
      faults.rate = 0;
    }
    expect(r.code).not.toBe(0);
    const w = last();
    expect(w).toMatchObject({ op: 'codes generate', status: 'unknown', ids: { count: 7, org: 'keyed' } });
    expect(w.idempotency_key).toBeTruthy();
    const before = json(await cli(['codes', 'summary', '--json'])).codes_generated;
    const rec = await cli(['ledger', 'reconcile', '--json'], { env });
    expect(json(rec).find((x: { id: number }) => x.id === w.id)).toMatchObject({ result: 'confirmed' });
    // The re-send with the key made nothing new.
    expect(json(await cli(['codes', 'summary', '--json'])).codes_generated).toBe(before);
    expect(writes().find((x) => x.id === w.id)?.returned).toMatchObject({ codes: 7 });
  });
});

describe('ledger list, show, export', () => {
  it('filters by op, status, user and book, fits 80 columns, and shows one write', async () => {
    const all = writes();
    const l = await cli(['ledger', 'list', '--op', 'order create', '--json']);
    expect(l.code).toBe(0);
    const rows = json(l);
    expect(rows.length).toBe(all.filter((w) => w.op === 'order create').length);
    expect(rows.every((x: { op: string }) => x.op === 'order create')).toBe(true);
    const failed = json(await cli(['ledger', 'list', '--status', 'failed', '--json']));
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.every((x: { status: string }) => x.status === 'failed')).toBe(true);
    const book = json(await cli(['ledger', 'list', '--book', WELL_KNOWN.otherPublisher.hash_id, '--json']));
    expect(book.length).toBeGreaterThan(0);
    expect(book.every((x: { hash_id: string }) => x.hash_id === WELL_KNOWN.otherPublisher.hash_id)).toBe(true);
    const table = await run(['ledger', 'list'], { env: sb.env, tty: { columns: 80 } });
    for (const line of table.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    const bad = await cli(['ledger', 'list', '--since', 'yesterday']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--since yesterday: give a date/);
    const show = await cli(['ledger', 'show', String(all[0].id), '--json']);
    expect(json(show)).toMatchObject({ id: all[0].id, op: all[0].op });
    expect((await cli(['ledger', 'show', '999999'])).code).toBe(3);
  });

  it('exports CSV and JSON of an org', async () => {
    const csv = await cli(['ledger', 'export', '--org', 'harborlane', '--format', 'csv']);
    expect(csv.code).toBe(0);
    const lines = csv.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^id,time,profile,host,op,status/);
    const js = json(await cli(['ledger', 'export', '--org', 'harborlane', '--format', 'json']));
    expect(js.length).toBe(lines.length - 1);
    expect(js.every((x: { org: string }) => x.org === 'harborlane')).toBe(true);
  });
});
