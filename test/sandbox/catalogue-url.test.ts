// `sandbox catalogue load --url`: the file sent to a running sandbox (in this process), which loads
// it; the same summary, refusals, exit codes, --strict and --publisher as a load with --db.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { endLoad, loadPart, startRemoteLoad } from '../../src/sandbox/http/control-catalogue.js';
import { Store } from '../../src/sandbox/db/store.js';
import { ensureSeeded } from '../../src/sandbox/seed.js';
import { startSandbox } from '../../src/sandbox/http/server.js';
import { run } from '../helpers/run.js';
import { isbn13, onixXml } from './_feeds.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

const ONIX = fileURLToPath(new URL('../../docs/samples/catalogue.onix.xml', import.meta.url));

let sb: TestSandbox;
let dir: string;
beforeAll(async () => {
  sb = await startTestSandbox();
  dir = mkdtempSync(join(tmpdir(), 'bookdist-catalogue-url-'));
});
afterAll(async () => {
  await sb?.close();
  rmSync(dir, { recursive: true, force: true });
});

const env = () => ({ ...sb.env, BOOKDIST_SANDBOX_SECRET: sb.controlSecret });

/** A part of the load `id` sent as the CLI sends it (the end of the load when `bytes` is undefined). */
async function part(id: string, bytes: Buffer | undefined): Promise<{ status: number; body: any }> {
  const res = await fetch(`${sb.url}/_sandbox/catalogue/loads/${id}/${bytes ? 'part' : 'end'}`, {
    method: 'POST',
    headers: {
      'x-sandbox-secret': sb.controlSecret,
      'content-type': bytes ? 'application/octet-stream' : 'application/json',
    },
    body: bytes ?? '{}',
  });
  return { status: res.status, body: await res.json() };
}
const load = (...args: string[]) => run(['sandbox', 'catalogue', 'load', ...args, '--url', sb.url], { env: env() });

/** An ONIX file of `n` digital products (about 1 KB each), ISBNs from `from`. */
function onixFile(name: string, n: number, from: number, price = '4.99'): string {
  const path = join(dir, name);
  writeFileSync(path, onixXml(n, from, price));
  return path;
}

describe('sandbox catalogue load --url', () => {
  it('loads the sample into the running sandbox: the same one-line summary as --db, the titles served at once', async () => {
    const r = await load(ONIX);
    expect(r.stderr + `(exit ${r.code})`).toMatch(/\(exit 0\)$/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(
      '(ONIX, 5 records): 3 added, 0 updated, 0 withdrawn, 0 refused, 2 skipped (1 print edition, 1 audio edition).',
    );
    const found = await run(['book', 'search', '--title', 'Tidewater Almanac', '--json'], { env: sb.env });
    expect(JSON.parse(found.stdout).results.map((b: { title: string }) => b.title)).toEqual(['The Tidewater Almanac']);
  });

  it('a file of several parts (over 1 MiB each) is loaded whole, in one transaction; sent again it updates', async () => {
    const big = onixFile('big.xml', 3000, 0);
    expect(readFileSync(big).length).toBeGreaterThan(3 * 1024 * 1024);
    const r = await load(big, '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      format: 'onix',
      records: 3000,
      added: 3000,
      updated: 0,
      refused: 0,
      committed: true,
      publishers_created: ['Remote Press'],
    });
    const again = await load(onixFile('again.xml', 3000, 0, '5.49'), '--json', '--publisher', 'Remote Press');
    expect(JSON.parse(again.stdout)).toMatchObject({ records: 3000, added: 0, updated: 3000 });
    const pricing = await run(['book', 'pricing', '--isbn', isbn13('979177700000'), '--json'], { env: sb.env });
    expect(JSON.parse(pricing.stdout).digital_pricing.map((p: { price: string }) => p.price)).toContain('5.49');
  });

  it('refused records: listed by record and line, exit 6; --strict loads nothing, exit 2; an unreadable file, exit 2', async () => {
    const bad = join(dir, 'bad.csv');
    writeFileSync(bad, 'isbn13,title,price\n9781770100091,Fine,5.00\n9781770100016,Bad,5.00\n');
    const r = await load(bad, '--publisher', 'Tidewater Press');
    expect(r.code).toBe(6);
    expect(r.stderr).toContain('record 2 (line 3) [9781770100016]: ISBN 9781770100016 has a bad check digit');
    expect(r.stderr).toContain('1 added, 0 updated, 0 withdrawn, 1 refused');

    writeFileSync(bad, 'isbn13,title,price\n9781770100107,Fine,5.00\n9781770100016,Bad,5.00\n');
    const strict = await load(bad, '--publisher', 'Tidewater Press', '--strict');
    expect(strict.code).toBe(2);
    expect(strict.stderr).toContain('(CSV, 2 records): 1 added, 0 updated, 0 withdrawn, 1 refused');
    expect(strict.stderr).toContain('With --strict nothing was loaded');
    expect((await run(['book', 'get', '--isbn', '9781770100107'], { env: sb.env })).code).toBe(3);

    const broken = join(dir, 'broken.xml');
    writeFileSync(
      broken,
      readFileSync(onixFile('ok.xml', 2, 5000))
        .toString()
        .replace('</ONIXMessage>', '</ONIX>'),
    );
    const unreadable = await load(broken);
    expect(unreadable.code).toBe(2);
    expect(unreadable.stderr).toMatch(
      /broken\.xml: The file is not well-formed XML \(line \d+, column \d+\): .* Nothing was loaded \(2 records were read before it\)\./,
    );
    expect((await run(['book', 'get', '--isbn', isbn13('979177705000')], { env: sb.env })).code).toBe(3);

    // The sandbox is ready for the next load: nothing was left running.
    expect((await load(onixFile('after.xml', 1, 6000))).code).toBe(0);
  });

  it('a malformed part in the middle of a file of several parts: exit 2, nothing of the parts before it kept, the next load taken', async () => {
    const xml = onixXml(3000, 8000);
    expect(xml.indexOf('url-10500')).toBeGreaterThan(2 * 1024 * 1024);
    const path = join(dir, 'broken-mid.xml');
    writeFileSync(
      path,
      xml.replace('<RecordReference>url-10500</RecordReference>', '<RecordReference>url-10500</Record>'),
    );
    const r = await load(path);
    expect(r.code, r.stderr).toBe(2);
    const m =
      /broken-mid\.xml: The file is not well-formed XML \(line \d+, column \d+\): .* Nothing was loaded \((\d+) records were read before it\)\./.exec(
        r.stderr,
      );
    expect(m, r.stderr).not.toBeNull();
    // The first parts' products were written (in the load's transaction) before the bad one came.
    expect(Number(m![1])).toBeGreaterThan(1000);
    expect((await run(['book', 'get', '--isbn', isbn13('979177708000')], { env: sb.env })).code).toBe(3);
    expect((await load(onixFile('after-mid.xml', 1, 11000))).code).toBe(0);
  });

  it('a CSV with a quote inside an unquoted field: exit 2 naming its line, not an internal error; the next load taken', async () => {
    const quoted = join(dir, 'quoted.csv');
    writeFileSync(quoted, 'isbn13,title,price\n9781770100121,Fine,5.00\n9781770100138,The "Best" Tides,5.00\n');
    const r = await load(quoted, '--publisher', 'Tidewater Press');
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      /^bookdist: .*quoted\.csv: The CSV file cannot be read \(line 3\): a quote inside an unquoted field \(after "The "\); to keep the quote, enclose the whole field in double quotes .* Nothing was loaded/,
    );
    expect((await run(['book', 'get', '--isbn', '9781770100121'], { env: sb.env })).code).toBe(3);
    expect((await load(onixFile('after-quoted.xml', 1, 14000))).code).toBe(0);
  });

  it('two loads at once: the second is refused with exit 5 and told to wait; the first goes on', async () => {
    const first = await sb.control.call('POST', '/_sandbox/catalogue/loads', { format: 'onix' });
    expect(first.status).toBe(200);
    const second = await load(onixFile('second.xml', 1, 12000));
    expect(second.code, second.stderr).toBe(5);
    expect(second.stderr).toContain('A catalogue load is already running on this sandbox; wait for it to end');
    expect(second.stderr).not.toMatch(/at .*\.[jt]s:\d+/);
    expect(await part(first.body.load, Buffer.from(onixXml(1, 12100)))).toMatchObject({ status: 200 });
    expect(await part(first.body.load, undefined)).toMatchObject({ status: 200, body: { added: 1, committed: true } });
    expect((await run(['book', 'get', '--isbn', isbn13('979177712100')], { env: sb.env })).code).toBe(0);
    expect((await run(['book', 'get', '--isbn', isbn13('979177712000')], { env: sb.env })).code).toBe(3);
  });

  it('without the control secret: exit 4 naming where it comes from; nothing was loaded', async () => {
    const r = await run(['sandbox', 'catalogue', 'load', onixFile('secret.xml', 1, 7000), '--url', sb.url], {
      env: { ...sb.env, BOOKDIST_SANDBOX_SECRET: 'wrong' },
    });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('BOOKDIST_SANDBOX_SECRET');
    expect((await run(['book', 'get', '--isbn', isbn13('979177707000')], { env: sb.env })).code).toBe(3);
  });
});

describe('sandbox catalogue load --url when the sandbox no longer has the load', () => {
  it('(rolled back after its idle minute, or the sandbox restarted): exit 3, saying that nothing was loaded and to run it again', async () => {
    // A sandbox that forgot the load between its start and its first part, answering as the real one does.
    const message = 'No catalogue load 0123abcd is running on this sandbox (it ended, failed or was rolled back).';
    const server = createServer((req, res) => {
      req.resume().on('end', () => {
        const [status, body] =
          req.url === '/_sandbox/catalogue/loads'
            ? [200, { code: 200, success: true, load: '0123abcd' }]
            : [404, { code: 404, error: true, message }];
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const r = await run(['sandbox', 'catalogue', 'load', ONIX, '--url', url], { env: env() });
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr).toBe(`bookdist: ${message} Nothing of ${ONIX} was loaded; run the load again.\n`);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('sandbox catalogue load --url to a sandbox that serves --db :memory:', () => {
  it('is refused with exit 5 and a message that says what to do instead; nothing is left running', async () => {
    const mem = await startSandbox({ host: '127.0.0.1', port: 0, dbPath: ':memory:' });
    try {
      const r = await run(['sandbox', 'catalogue', 'load', ONIX, '--url', mem.url], {
        env: { ...sb.env, BOOKDIST_SANDBOX_SECRET: mem.controlSecret },
      });
      expect(r.code, r.stderr).toBe(5);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('This sandbox serves an in-memory database (--db :memory:)');
      expect(r.stderr).toContain('bookdist sandbox serve --db FILE');
      expect(r.stderr).not.toMatch(/at .*\.[jt]s:\d+/);
    } finally {
      await mem.close();
    }
  });
});

// The load registry itself, on a database file of its own, with vitest's fake setTimeout: the
// idle minute passes without being waited for.
describe('a load over --url whose next part does not come', () => {
  let serving: Store;
  let n = 0;
  beforeEach(() => {
    serving = new Store(join(dir, `idle-${++n}.db`));
    ensureSeeded(serving);
  });
  afterEach(() => {
    vi.useRealTimers();
    serving.close();
  });
  const busyTimeout = () => Number(serving.get('PRAGMA busy_timeout')?.timeout);
  const loaded = (from: number) =>
    Number(
      serving.get(
        'SELECT count(*) AS n FROM books WHERE eisbn13 = ?',
        isbn13('9791777' + String(from).padStart(5, '0')),
      )?.n,
    );

  it('is rolled back after a minute: nothing of it kept, its id answers 404, the next load is taken, the busy timeout restored', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const before = busyTimeout();
    const xml = Buffer.from(onixXml(3000, 20000));
    const { load: id } = (await startRemoteLoad(serving, { format: 'onix' })) as { load: string };
    expect(busyTimeout()).toBeLessThan(before);
    const first = await loadPart(serving, id, xml.subarray(0, 1024 * 1024));
    expect(first.records).toBeGreaterThan(500);

    // A second short of the minute, the load still holds the sandbox.
    await vi.advanceTimersByTimeAsync(59_000);
    await expect(startRemoteLoad(serving, { format: 'onix' })).rejects.toMatchObject({
      status: 409,
      message: expect.stringContaining('already running'),
    });
    await vi.advanceTimersByTimeAsync(1_000);
    await vi.waitFor(() => expect(busyTimeout()).toBe(before), { timeout: 10_000 });

    expect(loaded(20000)).toBe(0);
    await expect(loadPart(serving, id, xml.subarray(1024 * 1024, 2 * 1024 * 1024))).rejects.toMatchObject({
      status: 404,
      message: `No catalogue load ${id} is running on this sandbox (it ended, failed or was rolled back).`,
    });
    await expect(endLoad(serving, id)).rejects.toMatchObject({ status: 404 });

    const next = (await startRemoteLoad(serving, { format: 'onix' })) as { load: string };
    await loadPart(serving, next.load, Buffer.from(onixXml(2, 21000)));
    expect(await endLoad(serving, next.load)).toMatchObject({ records: 2, added: 2, committed: true });
    expect(loaded(21000)).toBe(1);
    expect(loaded(20000)).toBe(0);
    expect(busyTimeout()).toBe(before);
  });

  it('two loads started at once: one is taken, the other refused with 409', async () => {
    const [a, b] = await Promise.allSettled([
      startRemoteLoad(serving, { format: 'onix' }),
      startRemoteLoad(serving, { format: 'onix' }),
    ]);
    const taken = [a, b].filter((x) => x.status === 'fulfilled') as Array<PromiseFulfilledResult<{ load: string }>>;
    const refused = [a, b].filter((x) => x.status === 'rejected') as PromiseRejectedResult[];
    expect(taken).toHaveLength(1);
    expect(refused.map((x) => x.reason)).toMatchObject([
      { status: 409, message: expect.stringContaining('already running') },
    ]);
    const id = taken[0].value.load;
    await loadPart(serving, id, Buffer.from(onixXml(1, 22000)));
    expect(await endLoad(serving, id)).toMatchObject({ added: 1, committed: true });
    expect(loaded(22000)).toBe(1);
  });
});
