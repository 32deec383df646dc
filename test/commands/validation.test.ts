// Every validated flag fed bad values: exit 2, a message naming the flag, and nothing sent. The CLI
// is pointed at a recording server (with the sandbox's real credentials, so a request that slipped
// through validation would really be sent and recorded).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, WELL_KNOWN, type TestSandbox } from '../helpers/sandbox.js';
import { cliFor, recorder, type Cli } from './_support.js';

let sb: TestSandbox;
let rec: Awaited<ReturnType<typeof recorder>>;
let cli: Cli;

const U = WELL_KNOWN.user.username;
const H = WELL_KNOWN.readme.hash_id;
const dir = mkdtempSync(join(tmpdir(), 'bookdist-validation-'));
const badJson = join(dir, 'bad.json');
const unknownField = join(dir, 'unknown.json');
const noCountry = join(dir, 'nocountry.json');
writeFileSync(badJson, '{"full_name": ');
writeFileSync(unknownField, JSON.stringify({ full_name: 'A B', postal_code: '1', country: 'US', zip: '1' }));
writeFileSync(noCountry, JSON.stringify({ full_name: 'A B', postal_code: '1' }));

const ORDER = [
  'order',
  'create',
  '--username',
  U,
  '--pricing-id',
  '1',
  '--order-type',
  'TestPlan',
  '--org',
  'harborlane',
];
const BILL = ['--billing-name', 'Ada Byron', '--billing-postal-code', '04101', '--billing-country', 'US'];

/** [what, argv, text the message must contain (the flag)] */
const CASES: Array<[string, string[], string]> = [
  [
    'ISBN-13 check digit',
    ['book', 'get', '--isbn', '978-1-61400-137-2'],
    '--isbn 978-1-61400-137-2: wrong ISBN-13 check digit',
  ],
  [
    'ISBN-10 check digit',
    ['book', 'get', '--isbn', '1-61400-137-4'],
    '--isbn 1-61400-137-4: wrong ISBN-10 check digit',
  ],
  ['ISBN length', ['book', 'get', '--isbn', '12345'], '--isbn 12345: an ISBN has 10 or 13 digits'],
  ['ISBN letters', ['book', 'pricing', '--isbn', '97816140013AB'], '--isbn 97816140013AB'],
  ['hash id shape', ['book', 'get', 'abc123'], '<hash_id> abc123: a book hash id is 40 hexadecimal characters'],
  ['SKU with spaces', ['book', 'get', '--sku', 'HLP 0001'], '--sku HLP 0001'],
  ['search --hash-id', ['book', 'search', '--hash-id', 'xyz'], '--hash-id xyz'],
  ['search --isbn', ['book', 'search', '--isbn', '9781614001372'], '--isbn 9781614001372'],
  ['search --limit 0', ['book', 'search', '--title', 'a', '--limit', '0'], '--limit 0: give a whole number from 1'],
  ['list --limit decimal', ['book', 'list', '--limit', '1.5'], '--limit 1.5'],
  ['list --offset negative', ['book', 'list', '--offset', '-1'], '--offset -1'],
  ['import --limit words', ['import', 'search', '--limit', 'ten'], '--limit ten'],
  ['import --isbn', ['import', 'search', '--isbn', '123'], '--isbn 123'],
  [
    'viewer --username',
    ['book', 'viewer', '--username', 'bob', '--hash-id', H],
    '--username bob: a username is 30 hexadecimal characters',
  ],
  ['viewer --hash-id', ['book', 'viewer', '--username', U, '--hash-id', H.slice(1)], '--hash-id'],
  ['invite --email', ['user', 'invite', '--email', 'not-an-address'], '--email not-an-address: not an e-mail address'],
  ['invite --label', ['user', 'invite', '--email', 'a@example.com', '--label', 'bad label!'], '--label bad label!'],
  ['create --email', ['user', 'create', '--email', 'a@b'], '--email a@b'],
  [
    'create --first-name empty',
    ['user', 'create', '--email', 'a@example.com', '--first-name', ' '],
    '--first-name is empty',
  ],
  ['get --email', ['user', 'get', '--email', '@example.com'], '--email @example.com'],
  ['get <username>', ['user', 'get', 'ABC'], '<username> ABC'],
  ['get both', ['user', 'get', U, '--email', 'a@example.com'], 'Give only one of <username>, --email'],
  ['orders <username>', ['user', 'orders', 'nope'], '<username> nope'],
  ['purchase id words', ['user', 'purchase', U, 'first'], '<purchase_id> first'],
  ['purchase id zero', ['user', 'purchase', U, '0'], '<purchase_id> 0'],
  ['order --username', [...ORDER.map((a) => (a === U ? 'nobody' : a)), ...BILL], '--username nobody'],
  ['order --pricing-id', [...ORDER.map((a) => (a === '1' ? 'x1' : a)), ...BILL], '--pricing-id x1'],
  ['order no --pricing-id', [...ORDER.filter((a, i) => i !== 4 && i !== 5), ...BILL], '--pricing-id'],
  [
    'order --order-number > 20',
    [...ORDER, ...BILL, '--order-number', 'A'.repeat(21)],
    '--order-number AAAAAAAAAAAAAAAAAAAAA: an order number has at most 20 characters',
  ],
  ['billing without name', [...ORDER, '--billing-postal-code', '1', '--billing-country', 'US'], '--billing-name'],
  [
    'billing first name only',
    [...ORDER, '--billing-first-name', 'Ada', '--billing-postal-code', '1', '--billing-country', 'US'],
    '--billing-last-name',
  ],
  [
    'billing without postal code',
    [...ORDER, '--billing-name', 'A B', '--billing-country', 'US'],
    '--billing-postal-code',
  ],
  ['billing without country', [...ORDER, '--billing-name', 'A B', '--billing-postal-code', '1'], '--billing-country'],
  ['billing file not JSON', [...ORDER, '--billing-file', badJson], `--billing-file ${badJson}: not valid JSON`],
  ['billing file missing', [...ORDER, '--billing-file', join(dir, 'none.json')], '--billing-file'],
  ['billing file unknown field', [...ORDER, '--billing-file', unknownField], 'unknown address field "zip"'],
  ['billing file without country', [...ORDER, '--billing-file', noCountry], '--billing-country'],
  ['shipping file not JSON', [...ORDER, ...BILL, '--shipping-file', badJson], '--shipping-file'],
  ['refund --order-id', ['order', 'refund', '--order-id', '0', '--yes'], '--order-id 0'],
  ['refund --item', ['order', 'refund', '--order-id', '1', '--item', 'one', '--yes'], '--item one'],
  [
    'free --expires impossible date',
    ['order', 'free', '--username', U, '--hash-id', H, '--expires', '2030-02-30'],
    '--expires 2030-02-30: not a real date',
  ],
  [
    'free --expires words',
    ['order', 'free', '--username', U, '--hash-id', H, '--expires', 'tomorrow'],
    '--expires tomorrow: give a date as YYYY-MM-DD',
  ],
  [
    'free --expires time',
    ['order', 'free', '--username', U, '--hash-id', H, '--expires', '2030-01-01 25:00:00'],
    '--expires 2030-01-01 25:00:00',
  ],
  [
    'free missing --username',
    ['order', 'free', '--hash-id', H],
    'Give the user with --username (or many free orders with --from-csv FILE).',
  ],
  ['offers --isbn', ['offers', 'get', '--isbn', '978'], '--isbn 978'],
  ['checkout --id', ['offers', 'checkout', '--id', 'abc'], '--id abc'],
  ['checkout no --id', ['offers', 'checkout'], '--id'],
  ['checkout --rejoiner-id', ['offers', 'checkout', '--id', '1', '--rejoiner-id', 'a b'], '--rejoiner-id a b'],
  ['refund needs --yes', ['order', 'refund', '--order-id', '1'], '--yes'],
];

beforeAll(async () => {
  [sb, rec] = await Promise.all([startTestSandbox(), recorder()]);
  cli = cliFor(sb, { BOOKDIST_BASE_URL: rec.url });
});
afterAll(async () => {
  await Promise.all([sb?.close(), rec?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

describe.concurrent('bad input exits 2 naming the flag', () => {
  it.each(CASES)('%s', async (_what, argv, text) => {
    const r = await cli(argv);
    expect(r.stderr).toContain(text);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
  });
});

describe('and sends nothing', () => {
  it('the recording server saw no request', () => {
    expect(rec.requests).toEqual([]);
  });

  it('the recorder does record what is sent (the check above can fail)', async () => {
    const r = await cli(['book', 'get', '--isbn', WELL_KNOWN.readme.isbn13, '--retries', '0']);
    expect(r.code).toBe(1);
    expect(rec.requests.map((q) => q.url)).toEqual([`/v1/book/isbn/${WELL_KNOWN.readme.isbn13}/`]);
    rec.requests.length = 0;
  });

  it('JSON errors on stderr under --json carry exit code 2', async () => {
    const r = await cli(['book', 'get', '--isbn', '12345', '--json']);
    expect(r.code).toBe(2);
    const err = JSON.parse(r.stderr.trim().split('\n').pop()!);
    expect(err.error.exit_code).toBe(2);
    expect(err.error.message).toContain('--isbn 12345');
    expect(rec.requests).toEqual([]);
  });
});
