// Ids complete at TAB in real bash, zsh and fish, from the cache that commands fill as they read
// and create (src/cache/ids.ts): with descriptions and word matching in zsh and fish, per profile
// and per account, with no Node process started and no request sent.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { bashComplete, ensureShells, fishComplete, generatedScripts, zshCompleteAll } from './_support.js';

const LIGHTHOUSE = 'cee313141a0ce9a22774b32f87855d677d864cfb';
const NORTHERN_LIGHTS = '9881ae5d6573efe6413188cc1b996aba9c7526ed';
const SALT_AND_CEDAR = 'aed38230e7613bbe87f4962a4294149072ee32a3';
const AVERY = '70172cfe97283c430dcd57f8358d7a';

let dir: string;
let env: Record<string, string>;
let scripts: ReturnType<typeof generatedScripts>;
let sb: TestSandbox;
const serverLog: string[] = [];
let created: string;
let createdOther: string;
let orderId: string;
let secrets: string[];

const cli = async (args: string[], extra: Record<string, string> = {}, input?: string) => {
  const r = await runCli(args, { env: { ...env, ...extra }, input, timeoutMs: 60_000 });
  if (r.code !== 0) throw new Error(`bookdist ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return r;
};

beforeAll(async () => {
  ensureShells();
  scripts = generatedScripts();
  dir = mkdtempSync(join(tmpdir(), 'bookdist-ids-'));
  env = {
    HOME: dir,
    XDG_CACHE_HOME: join(dir, 'cache'),
    XDG_CONFIG_HOME: join(dir, 'config'),
    XDG_DATA_HOME: join(dir, 'data'),
    XDG_STATE_HOME: join(dir, 'state'),
  };
  // The built-in sandbox: one lookup fills the cache with its seeded catalogue and users too.
  await cli(['book', 'get', '--isbn', '978-1-61400-137-9']);
  const user = await cli(['user', 'create', '--email', 'new.reader@example.com', '--json']);
  const made = JSON.parse(user.stdout);
  created = made.username;
  const order = await cli([
    'order',
    'create',
    '--username',
    AVERY,
    '--pricing-id',
    '3',
    '--order-type',
    'TestPlan',
    '--org',
    'harborlane',
    '--billing-name',
    'Ada Byron',
    '--billing-postal-code',
    '04101',
    '--billing-country',
    'US',
    '--json',
  ]);
  orderId = String(JSON.parse(order.stdout).order.id);
  const codes = await cli([
    'codes',
    'generate',
    '--hash-id',
    LIGHTHOUSE,
    '--org',
    'harborlane',
    '--label',
    'harborlane',
    '--count',
    '3',
    '--out',
    join(dir, 'codes.csv'),
  ]);
  expect(codes.code).toBe(0);

  // A served sandbox with two stored profiles, one per account (as two workspaces' accounts are).
  sb = await startTestSandbox({ log: (l) => serverLog.push(l) });
  const add = (name: string, acct: { username: string; keyFile: string }) =>
    cli([
      'profile',
      'add',
      '--name',
      name,
      '--base-url',
      sb.url,
      '--username',
      acct.username,
      '--key-file',
      acct.keyFile,
    ]);
  await add('served', sb.creds.partner);
  await add('limited', sb.creds.limited);
  const other = await cli(['--profile', 'served', 'user', 'create', '--email', 'only.served@example.com', '--json']);
  createdOther = JSON.parse(other.stdout).username;
  await cli(['--profile', 'limited', 'book', 'list']);
  await cli(['--profile', 'served', 'user', 'create', '--email', 'shared.key@example.com'], {
    BOOKDIST_SHARED_KEY: sb.creds.partner.sharedKey,
    BOOKDIST_USERNAME: sb.creds.partner.username,
  });
  const codeLines = readFileSync(join(dir, 'codes.csv'), 'utf8')
    .split('\n')
    .slice(1)
    .filter(Boolean)
    .map((l) => l.split(',')[0]);
  secrets = [
    made.passwd,
    JSON.parse(other.stdout).passwd,
    ...codeLines,
    sb.creds.partner.sharedKey,
    sb.creds.limited.sharedKey,
    sb.creds.operatorToken,
    sb.controlSecret,
    sb.creds.partner.keyPem.split('\n')[1],
  ];
}, 300_000);

afterAll(async () => {
  await sb?.close();
  scripts?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('bash: bare ids', () => {
  const complete = (...words: string[]) => bashComplete(scripts.path('bash'), ['bookdist', ...words], env);

  it('book get <TAB>: the books read last come first (the order, then the lookup), the seeded catalogue with them', () => {
    const got = complete('book', 'get', '');
    expect(got.slice(0, 2)).toEqual([SALT_AND_CEDAR, LIGHTHOUSE]);
    expect(got).toContain(NORTHERN_LIGHTS);
    expect(got.length).toBe(new Set(got).size);
  });
  it('filters by the typed prefix, for options and positional arguments alike', () => {
    expect(complete('book', 'get', 'cee3')).toEqual([LIGHTHOUSE]);
    expect(complete('access', 'allow', '--hash-id', 'cee3')).toEqual([LIGHTHOUSE]);
    expect(complete('book', 'get', '--isbn', '97816140013')).toEqual(expect.arrayContaining(['9781614001379']));
  });
  it("--username after a user create offers the new user (after the order's buyer, read since); --order-id the order", () => {
    expect(complete('book', 'viewer', '--username', '').slice(0, 2)).toEqual([AVERY, created]);
    expect(complete('user', 'get', created.slice(0, 6))).toEqual([created]);
    expect(complete('order', 'refund', '--order-id', '')).toEqual([orderId]);
  });
  it("--org and --label offer what earlier writes named; ledger show the ledger's rows", () => {
    expect(complete('order', 'create', '--org', '')).toEqual(['harborlane']);
    expect(complete('codes', 'generate', '--label', 'harb')).toEqual(['harborlane']);
    const rows = complete('ledger', 'show', '');
    expect(rows.length).toBeGreaterThanOrEqual(3);
    expect(rows.every((r) => /^\d+$/.test(r))).toBe(true);
  });
  it('follows --profile on the line: each profile (account) sees its own ids', () => {
    expect(complete('--profile', 'served', 'user', 'get', '')).toContain(createdOther);
    expect(complete('user', 'get', '')).not.toContain(createdOther);
    expect(complete('--profile=limited', 'user', 'get', '')).not.toContain(createdOther);
    // A profile that never ran has no ids: only the options are offered.
    expect(complete('--profile', 'nosuch', 'book', 'get', '').every((w) => w.startsWith('-'))).toBe(true);
  });
  it('offers at most 100 ids at one TAB, the newest first, each once', () => {
    const ids = join(dir, 'cache', 'bookdist', 'ids');
    mkdirSync(join(ids, 'feedfacefeedface'), { recursive: true });
    writeFileSync(join(ids, 'profiles', 'many'), 'feedfacefeedface\n');
    const line = (i: number) => `${String(i).padStart(40, 'a')}\tbook ${i}\n`;
    writeFileSync(
      join(ids, 'feedfacefeedface', 'book.tsv'),
      Array.from({ length: 150 }, (_, i) => line(i)).join('') + line(3),
    );
    const got = complete('--profile', 'many', 'book', 'get', '');
    expect(got).toHaveLength(100);
    expect(got.slice(0, 3)).toEqual([line(3), line(149), line(148)].map((l) => l.split('\t')[0]));
    expect(new Set(got).size).toBe(100);
  });
  it('follows BOOKDIST_PROFILE', () => {
    expect(
      bashComplete(scripts.path('bash'), ['bookdist', 'user', 'get', ''], { ...env, BOOKDIST_PROFILE: 'served' }),
    ).toContain(createdOther);
  });
});

describe('completion refresh', () => {
  it("puts every book the account controls in its profile's cache, and says how many", async () => {
    // Before: the served profile has read no book (with no id to offer, bash offers the options).
    const before = bashComplete(scripts.path('bash'), ['bookdist', '--profile', 'served', 'book', 'get', ''], env);
    expect(before.every((w) => w.startsWith('-'))).toBe(true);
    const r = await cli(['--profile', 'served', 'completion', 'refresh']);
    const n = Number(/(\d+) books? of profile "served" now complete at TAB/.exec(r.stderr)?.[1]);
    expect(n).toBeGreaterThan(5);
    const after = bashComplete(scripts.path('bash'), ['bookdist', '--profile', 'served', 'book', 'get', ''], env);
    expect(after).toHaveLength(n);
    expect(after).toContain(LIGHTHOUSE);
  });
  it('refuses with the cache off, saying so', async () => {
    const r = await runCli(['completion', 'refresh'], { env: { ...env, BOOKDIST_CACHE: 'off' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cache is off/);
  });
});

describe('zsh: ids with what they stand for', () => {
  const LINES = [
    'bookdist book get light',
    'bookdist book get cee',
    'bookdist user get --email new',
    'bookdist --profile served user get ',
  ];
  let got: string[][];
  beforeAll(() => void (got = zshCompleteAll(scripts.dir, LINES, 'fpath', env)));

  it('a word of the title finds the book (book get light<TAB>)', () => {
    expect(got[0]).toEqual(expect.arrayContaining([LIGHTHOUSE, NORTHERN_LIGHTS]));
    expect(got[0]).toHaveLength(2);
    expect(got[1]).toEqual([LIGHTHOUSE]);
  });
  it('e-mails and the profile on the line', () => {
    expect(got[2]).toEqual(['new.reader@example.com']);
    expect(got[3]).toContain(createdOther);
  });
});

describe('fish: ids with what they stand for', () => {
  const lines = (line: string) => readLines(runFish(line));
  it('shows descriptions and matches their words', () => {
    expect(lines('bookdist book get light')).toEqual(
      expect.arrayContaining([
        `${LIGHTHOUSE}\tThe Lighthouse Keeper's Ledger · Margaret Ellison`,
        expect.stringMatching(new RegExp(`^${NORTHERN_LIGHTS}\\tNorthern Lights`)),
      ]),
    );
    expect(fishComplete(scripts.path('fish'), 'bookdist order refund --order-id ', env)).toEqual([orderId]);
    expect(fishComplete(scripts.path('fish'), 'bookdist --profile served user get ', env)).toContain(createdOther);
  });
});

function runFish(line: string): string {
  const r = spawnSync(
    'fish',
    ['--no-config', '-c', 'source $argv[1]; complete -C $argv[2]', scripts.path('fish'), line],
    { encoding: 'utf8', env: { PATH: process.env.PATH, TERM: 'dumb', ...env } },
  );
  return r.stdout;
}
const readLines = (s: string) => s.split('\n').filter(Boolean);

describe('TAB is cheap and private', () => {
  it('starts no Node process and sends no request', () => {
    // A `node` first on the PATH that leaves a mark if anything runs it.
    const bin = join(dir, 'fakebin');
    mkdirSync(bin, { recursive: true });
    const mark = join(dir, 'node-ran');
    writeFileSync(join(bin, 'node'), `#!/bin/sh\ntouch '${mark}'\n`);
    writeFileSync(join(bin, 'bookdist'), `#!/bin/sh\ntouch '${mark}'\n`);
    chmodSync(join(bin, 'node'), 0o755);
    chmodSync(join(bin, 'bookdist'), 0o755);
    const before = serverLog.length;
    const pathEnv = { ...env, PATH: `${bin}:${process.env.PATH}` };
    expect(
      bashComplete(scripts.path('bash'), ['bookdist', '--profile', 'served', 'user', 'get', ''], pathEnv),
    ).toContain(createdOther);
    expect(fishComplete(scripts.path('fish'), 'bookdist --profile served user get ', pathEnv)).toContain(createdOther);
    expect(zshCompleteAll(scripts.dir, ['bookdist --profile served user get '], 'fpath', pathEnv)[0]).toContain(
      createdOther,
    );
    expect(readdirSync(dir)).not.toContain('node-ran');
    expect(serverLog.length).toBe(before);
  });

  it('the cache holds no password, code, key, token or secret after every kind of command', () => {
    const files = readdirSync(join(dir, 'cache', 'bookdist', 'ids'), { recursive: true, withFileTypes: true }).filter(
      (e) => e.isFile(),
    );
    expect(files.length).toBeGreaterThan(5);
    const text = files.map((e) => readFileSync(join(e.parentPath, e.name), 'utf8')).join('\n');
    expect(secrets.filter(Boolean).length).toBeGreaterThanOrEqual(8);
    for (const s of secrets.filter(Boolean))
      expect(text.includes(s), `a secret in the cache: ${s.slice(0, 4)}…`).toBe(false);
  });
});
