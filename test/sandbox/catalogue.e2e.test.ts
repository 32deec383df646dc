// `bookdist sandbox catalogue load` end to end: the real CLI loads the shipped samples into the
// database of a running sandbox, and the loaded titles work at once with every command.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInterface } from 'node:readline';
import { BIN, runCli } from '../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { isbn13, onixXml } from './_feeds.js';

const ONIX = fileURLToPath(new URL('../../docs/samples/catalogue.onix.xml', import.meta.url));
const CSV = fileURLToPath(new URL('../../docs/samples/catalogue.csv', import.meta.url));

let sb: TestSandbox;
let dir: string;
beforeAll(async () => {
  sb = await startTestSandbox({ processDelayMs: 50 });
  dir = mkdtempSync(join(tmpdir(), 'bookdist-catalogue-'));
});
afterAll(async () => {
  await sb?.close();
  rmSync(dir, { recursive: true, force: true });
});

const cli = (...args: string[]) => runCli(args, { env: sb.env });
const json = async (...args: string[]) => {
  const r = await cli(...args, '--json');
  expect(r.stderr + `(exit ${r.code})`).toMatch(/\(exit 0\)$/);
  return JSON.parse(r.stdout);
};

describe('sandbox catalogue load', () => {
  it('loads ONIX and CSV with a one-line summary; the titles work with every command', async () => {
    const load = await cli('sandbox', 'catalogue', 'load', ONIX, '--db', sb.dbPath);
    expect(load.code).toBe(0);
    expect(load.stdout).toBe('');
    expect(load.stderr.trim().split('\n')).toHaveLength(1);
    expect(load.stderr).toContain(
      '(ONIX, 5 records): 3 added, 0 updated, 0 withdrawn, 0 refused, 2 skipped (1 print edition, 1 audio edition).',
    );
    const csv = await cli('sandbox', 'catalogue', 'load', CSV, '--db', sb.dbPath, '--json');
    expect(csv.code).toBe(0);
    expect(JSON.parse(csv.stdout)).toMatchObject({ format: 'csv', added: 2, refused: 0, committed: true });

    // Searchable at once, by title, ISBN, print ISBN and SKU.
    const found = await json('book', 'search', '--title', 'Tidewater Almanac');
    expect(found.results.map((b: any) => b.title)).toEqual(['The Tidewater Almanac']);
    const book = found.results[0];
    expect(book.hash_id).toMatch(/^[0-9a-f]{40}$/);
    expect(book.identifiers).toMatchObject({
      eisbn13: '9781770100015',
      isbn13: '9781770200012',
      parent_isbn: '9781770200012',
    });
    expect((await json('book', 'get', '--isbn', '9781770200012')).book.hash_id).toBe(book.hash_id);
    expect((await json('book', 'get', '--sku', 'TWP-E-0001')).book.hash_id).toBe(book.hash_id);
    const pricing = await json('book', 'pricing', '--isbn', '9781770100015');
    const lifetime = pricing.digital_pricing.find((p: any) => p.currency === 'USD' && !p.is_limited);
    expect(lifetime.price).toBe('12.99');

    // A user buys it (order create), reads it (viewer), gets codes and a grant of another title.
    const user = await json('user', 'create', '--email', 'loaded.reader@example.com', '--first-name', 'Lo');
    const order = await json(
      'order',
      'create',
      '--username',
      user.username,
      '--pricing-id',
      String(lifetime.id),
      '--order-type',
      'TestPlan',
      '--org',
      'tidewater',
      '--billing-name',
      'Lo Reader',
      '--billing-postal-code',
      '04101',
      '--billing-country',
      'US',
    );
    expect(order.order.items[0].book.hash_id).toBe(book.hash_id);
    const viewer = await cli('book', 'viewer', '--username', user.username, '--hash-id', book.hash_id);
    expect(viewer.code).toBe(0);
    expect(viewer.stdout).toMatch(/\/reader\/[0-9a-f]{32}\/\s*$/);
    const codes = await json('codes', 'generate', '--hash-id', book.hash_id, '--org', 'tidewater', '--count', '2');
    expect(JSON.stringify(codes)).toMatch(/[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}/);
    const salt = (await json('book', 'get', '--isbn', '9781770100022')).book;
    const allow = await cli(
      'access',
      'allow',
      '--hash-id',
      salt.hash_id,
      '--username',
      user.username,
      '--price',
      '8.49',
    );
    expect(allow.code).toBe(0);
    const offers = await json('offers', 'get', '--isbn', '9781770100015');
    expect(JSON.stringify(offers)).toContain('12.99');
    const processed = await cli('book', 'process', book.hash_id, '--force', '--yes', '--wait', '--interval', '1s');
    expect(processed.code).toBe(0);

    // The feed is sent again with a new price: the book is updated in place, the order survives.
    const updated = join(dir, 'update.xml');
    const { readFileSync } = await import('node:fs');
    writeFileSync(
      updated,
      readFileSync(ONIX, 'utf8').replace('<PriceAmount>12.99</PriceAmount>', '<PriceAmount>10.99</PriceAmount>'),
    );
    const again = await cli('sandbox', 'catalogue', 'load', updated, '--db', sb.dbPath);
    expect(again.stderr).toContain('0 added, 3 updated');
    const after = (await json('book', 'get', book.hash_id)).book;
    expect(after.digital_pricing.map((p: any) => p.price)).toContain('10.99');
    const orders = await json('user', 'orders', user.username);
    expect(orders.results.map((o: any) => o.id)).toContain(order.order.id);
  });

  it('refused records: listed on stderr by record and line, exit 6; --strict loads nothing, exit 2', async () => {
    const bad = join(dir, 'bad.csv');
    writeFileSync(bad, 'isbn13,title,price\n9781770100077,Fine,5.00\n9781770100016,Bad,5.00\n');
    const r = await cli('sandbox', 'catalogue', 'load', bad, '--db', sb.dbPath, '--publisher', 'Tidewater Press');
    expect(r.code).toBe(6);
    expect(r.stderr).toContain('record 2 (line 3) [9781770100016]: ISBN 9781770100016 has a bad check digit');
    expect(r.stderr).toContain('1 added, 0 updated, 0 withdrawn, 1 refused');
    const strictFile = join(dir, 'strict.csv');
    writeFileSync(strictFile, 'isbn13,title,price\n9781770100084,Fine,5.00\n9781770100016,Bad,5.00\n');
    const s = await cli(
      'sandbox',
      'catalogue',
      'load',
      strictFile,
      '--db',
      sb.dbPath,
      '--publisher',
      'Tidewater Press',
      '--strict',
    );
    expect(s.code).toBe(2);
    expect(s.stderr).toContain('With --strict nothing was loaded');
    const none = await cli('book', 'get', '--isbn', '9781770100084');
    expect(none.code).toBe(3);
    const missing = await cli('sandbox', 'catalogue', 'load', join(dir, 'nope.xml'), '--db', sb.dbPath);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no such file');
  });
});

describe('sandbox catalogue load --url against `sandbox serve`', () => {
  it('sends the file to the running sandbox, which loads it: the same summary and exit codes as --db', async () => {
    const db = join(dir, 'served.db');
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      TMPDIR: process.env.TMPDIR,
      NO_COLOR: '1',
      NODE_DISABLE_COMPILE_CACHE: '1',
      BOOKDIST_CONFIG_DIR: join(dir, 'config'),
      BOOKDIST_DATA_DIR: join(dir, 'data'),
    };
    const child = spawn(process.execPath, [BIN, 'sandbox', 'serve', '--port', '0', '--db', db], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout! }).once('line', resolve);
        child.once('exit', (code) => reject(new Error(`serve exited ${code}`)));
      });
      const load = await runCli(['sandbox', 'catalogue', 'load', ONIX, '--url', url, '--db', db], { env });
      expect(load.stderr + `(exit ${load.code})`).toMatch(/\(exit 0\)$/);
      expect(load.stderr.trim().split('\n')).toHaveLength(1);
      expect(load.stderr).toContain(
        '(ONIX, 5 records): 3 added, 0 updated, 0 withdrawn, 0 refused, 2 skipped (1 print edition, 1 audio edition).',
      );
      // Served at once by the sandbox that loaded them.
      const credentials = JSON.parse((await runCli(['sandbox', 'credentials', '--db', db, '--json'], { env })).stdout);
      const asPartner = {
        ...env,
        BOOKDIST_BASE_URL: url,
        BOOKDIST_USERNAME: credentials.partner.username,
        BOOKDIST_KEY_FILE: credentials.partner.key_file,
      };
      const found = await runCli(['book', 'search', '--title', 'Tidewater Almanac', '--json'], { env: asPartner });
      expect(JSON.parse(found.stdout).results.map((b: any) => b.title)).toEqual(['The Tidewater Almanac']);

      const bad = join(dir, 'served-bad.csv');
      writeFileSync(bad, 'isbn13,title,price\n9781770100114,Fine,5.00\n9781770100016,Bad,5.00\n');
      const strict = await runCli(
        ['sandbox', 'catalogue', 'load', bad, '--url', url, '--db', db, '--publisher', 'Tidewater Press', '--strict'],
        { env },
      );
      expect(strict.code).toBe(2);
      expect(strict.stderr).toContain('With --strict nothing was loaded');
      const refused = await runCli(
        ['sandbox', 'catalogue', 'load', bad, '--url', url, '--db', db, '--publisher', 'Tidewater Press'],
        { env },
      );
      expect(refused.code).toBe(6);
      expect(refused.stderr).toContain('record 2 (line 3) [9781770100016]: ISBN 9781770100016 has a bad check digit');
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});

describe('sandbox catalogue load --url, interrupted', () => {
  it('Ctrl-C in the middle: told that nothing was loaded, then death by SIGINT; the sandbox rolled the load back at once', async () => {
    let firstPart!: () => void;
    const partLoaded = new Promise<void>((resolve) => (firstPart = resolve));
    const served = await startTestSandbox({
      log: (line) => /^POST \/_sandbox\/catalogue\/loads\/\w+\/part 200 /.test(line) && firstPart(),
    });
    try {
      const env = { ...served.env, BOOKDIST_SANDBOX_SECRET: served.controlSecret, NODE_DISABLE_COMPILE_CACHE: '1' };
      const big = join(dir, 'interrupted.xml');
      writeFileSync(big, onixXml(8000, 30000));
      const child = spawn(process.execPath, [BIN, 'sandbox', 'catalogue', 'load', big, '--url', served.url], {
        env: { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: process.env.TMPDIR, NO_COLOR: '1', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr!.setEncoding('utf8').on('data', (d) => (stderr += d));
      const exited = new Promise<NodeJS.Signals | null>((resolve) =>
        child.once('close', (_code, signal) => resolve(signal)),
      );
      // The first of its nine parts is in: the load is under way, and far from its end.
      await partLoaded;
      child.kill('SIGINT');
      expect(await exited, stderr).toBe('SIGINT');
      expect(stderr.trim()).toBe(
        'bookdist: Interrupted: nothing of ' + big + ' was loaded (the sandbox rolled the load back).',
      );
      // No idle minute to wait: the sandbox takes the next load at once; nothing of the first is there.
      const next = join(dir, 'after-interrupt.xml');
      writeFileSync(next, onixXml(1, 39000));
      const after = await runCli(['sandbox', 'catalogue', 'load', next, '--url', served.url], { env });
      expect(after.stderr + `(exit ${after.code})`).toMatch(/\(exit 0\)$/);
      expect((await runCli(['book', 'get', '--isbn', isbn13('979177730000')], { env })).code).toBe(3);
    } finally {
      await served.close();
    }
  });
});
