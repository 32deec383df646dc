// Exit codes mean one thing (issue 9, item 4), for every command that talks to the service,
// against a sandbox over HTTP: 0 also for an idempotent repeat (said on stderr); 1 a business
// rule refusal with the service's message; 3 every not-found; 4 only refused credentials or
// scopes; 5 a conflict with state this request did not create; 7 unavailable; 2 for credentials
// bookdist could not load or send (nothing sent); 8 a certificate problem; 9 a proxy problem.
import type { Command } from 'commander';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/program.js';
import { commandPath } from '../../src/output/model.js';
import { exitCodeForStatus } from '../../src/api/errors.js';
import { startTestSandbox, WELL_KNOWN, type TestSandbox } from '../helpers/sandbox.js';
import { cliFor, json, limitedEnv, uniqueEmail, type Cli } from '../commands/_support.js';
import { runnerFor } from '../helpers/run.js';

let sb: TestSandbox;
let cli: Cli;
let spawned: Cli;
const readme = WELL_KNOWN.readme;
const H = readme.hash_id;
const MISSING_HASH = 'f'.repeat(40);
const MISSING_USER = '0'.repeat(30);
/** A roster file for `access sync` in the sandbox's own directory (removed with it). */
const roster = (text: string) => {
  const file = join(dirname(sb.dbPath), `roster-${Math.random().toString(36).slice(2)}.csv`);
  writeFileSync(file, text);
  return file;
};
const MISSING_ISBN = '9780000000002';
const billing = ['--billing-name', 'Ada Byron', '--billing-postal-code', '04101', '--billing-country', 'US'];
const orderArgs = (user: string, ...extra: string[]) => [
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
  ...billing,
  ...extra,
];

async function ok(args: string[], env?: Record<string, string>): Promise<any> {
  const r = await cli([...args, '--json'], { env });
  if (r.code !== 0) throw new Error(`${args.join(' ')}: exit ${r.code}\n${r.stderr}`);
  return json(r);
}
const newUser = async () => (await ok(['user', 'create', '--email', uniqueEmail('exit')])).username as string;

/** Environments whose credentials the service refuses. */
let badKey: Record<string, string>;
let badToken: Record<string, string>;
let limited: Record<string, string>;

interface Case {
  /** The command path this case covers. */
  command: string;
  why: string;
  args: () => Promise<string[]> | string[];
  env?: () => Record<string, string>;
  code: number;
  stderr?: RegExp;
}

let state: { user: string; granted: string; email: string };

const CASES: Case[] = [
  {
    command: 'status',
    why: 'service unreachable',
    args: () => ['status', '--retries', '0', '--base-url', 'http://127.0.0.1:9'],
    code: 7,
  },
  {
    command: 'whoami',
    why: 'bad key',
    args: () => ['whoami'],
    env: () => badKey,
    code: 4,
    stderr: /Authentication failed/,
  },
  {
    command: 'whoami',
    why: 'key file missing (nothing sent)',
    args: () => ['whoami'],
    env: () => ({ ...badKey, BOOKDIST_KEY_FILE: '/nonexistent/key.pem' }),
    code: 2,
    stderr: /key file \/nonexistent\/key\.pem \(from environment variable BOOKDIST_KEY_FILE\): no such file/,
  },
  {
    command: 'whoami',
    why: 'a key without a username (nothing sent)',
    args: () => ['whoami'],
    env: () => ({ ...badKey, BOOKDIST_USERNAME: '' }),
    code: 2,
    stderr: /no username: set BOOKDIST_USERNAME/,
  },
  {
    command: 'whoami',
    why: 'no credentials against a base URL (nothing sent)',
    args: () => ['whoami'],
    env: () => ({
      BOOKDIST_BASE_URL: sb.url,
      BOOKDIST_USERNAME: '',
      BOOKDIST_KEY_FILE: '',
      BOOKDIST_SHARED_KEY: '',
      BOOKDIST_TOKEN: '',
    }),
    code: 2,
    stderr: /BOOKDIST_USERNAME.*BOOKDIST_KEY_FILE.*BOOKDIST_SHARED_KEY.*profile add/,
  },
  {
    command: 'status',
    why: 'the proxy refuses connections',
    args: () => ['status', '--base-url', sb.url.replace('127.0.0.1', 'bookdist.test')],
    env: () => ({ HTTP_PROXY: 'http://someone:pa55@127.0.0.1:9' }),
    code: 9,
    stderr: /Proxy problem: the proxy http:\/\/127\.0\.0\.1:9 /,
  },
  {
    command: 'status',
    why: 'no TLS where https was asked (a certificate problem, not retried)',
    args: () => ['status', '--base-url', sb.url.replace('http:', 'https:')],
    code: 8,
    stderr: /Certificate problem.*--ca-file/,
  },
  { command: 'describe', why: 'no such endpoint', args: () => ['describe', '--endpoint', 'nope.nope'], code: 3 },
  { command: 'api', why: 'raw not-found', args: () => ['api', 'GET', `/v1/book/isbn/${MISSING_ISBN}/`], code: 3 },
  {
    command: 'api',
    why: 'raw missing scope',
    args: () => ['api', 'GET', '/v1/codes/summary/'],
    env: () => limited,
    code: 4,
  },
  { command: 'book get', why: 'no such book', args: () => ['book', 'get', '--isbn', MISSING_ISBN], code: 3 },
  { command: 'book get', why: 'bad key', args: () => ['book', 'get', H], env: () => badKey, code: 4 },
  { command: 'book pricing', why: 'no such book', args: () => ['book', 'pricing', '--isbn', MISSING_ISBN], code: 3 },
  {
    command: 'book search',
    why: 'bad key',
    args: () => ['book', 'search', '--title', 'a'],
    env: () => badKey,
    code: 4,
  },
  { command: 'book list', why: 'bad key', args: () => ['book', 'list'], env: () => badKey, code: 4 },
  {
    command: 'book viewer',
    why: 'no purchase',
    args: () => ['book', 'viewer', '--username', state.user, '--hash-id', WELL_KNOWN.limitedPricing.hash_id],
    code: 3,
  },
  {
    command: 'book viewer',
    why: 'not authorized for the book',
    args: () => ['book', 'viewer', '--username', state.user, '--hash-id', WELL_KNOWN.foreignPublisher.hash_id],
    code: 4,
    stderr: /Not Authorized for Book/,
  },
  { command: 'book process', why: 'no such book', args: () => ['book', 'process', MISSING_HASH], code: 3 },
  {
    command: 'book process',
    why: 'missing scope',
    args: () => ['book', 'process', WELL_KNOWN.foreignPublisher.hash_id],
    env: () => limited,
    code: 4,
    stderr: /Missing scope: process/,
  },
  {
    command: 'user invite',
    why: 'e-mail already registered',
    args: () => ['user', 'invite', '--email', state.email],
    code: 5,
    stderr: /already exists/,
  },
  {
    command: 'user create',
    why: 'e-mail already registered',
    args: () => ['user', 'create', '--email', state.email],
    code: 5,
  },
  {
    command: 'user create',
    why: 'missing scope',
    args: () => ['user', 'create', '--email', uniqueEmail('lim')],
    env: () => limited,
    code: 4,
  },
  { command: 'user get', why: 'no such user', args: () => ['user', 'get', MISSING_USER], code: 3 },
  {
    command: 'user get',
    why: 'no such e-mail',
    args: () => ['user', 'get', '--email', 'nobody.here@example.com'],
    code: 3,
  },
  { command: 'user orders', why: 'no such user', args: () => ['user', 'orders', MISSING_USER], code: 3 },
  {
    command: 'user purchase',
    why: 'no such purchase',
    args: () => ['user', 'purchase', state.user, '999999'],
    code: 3,
    stderr: /Purchase not found/,
  },
  {
    command: 'order create',
    why: 'unsupported order type (business rule)',
    args: () => [...orderArgs(state.user).map((a) => (a === 'TestPlan' ? 'POSPlan' : a))],
    code: 1,
    stderr: /POSPlan is not currently supported/,
  },
  { command: 'order create', why: 'missing scope', args: () => orderArgs(state.user), env: () => limited, code: 4 },
  {
    command: 'order refund',
    why: 'no such order',
    args: () => ['order', 'refund', '--order-id', '999999', '--yes'],
    code: 3,
  },
  {
    command: 'order free',
    why: 'no such user',
    args: () => ['order', 'free', '--username', MISSING_USER, '--hash-id', H],
    code: 3,
  },
  {
    command: 'codes generate',
    why: 'not authorized for the book',
    args: () => ['codes', 'generate', '--hash-id', WELL_KNOWN.foreignPublisher.hash_id, '--org', 'x', '--count', '1'],
    code: 4,
  },
  {
    command: 'codes generate',
    why: 'no such book',
    args: () => ['codes', 'generate', '--hash-id', MISSING_HASH, '--org', 'x', '--count', '1'],
    code: 3,
  },
  {
    command: 'codes summary',
    why: 'missing scope',
    args: () => ['codes', 'summary'],
    env: () => limited,
    code: 4,
    stderr: /Missing scope: codes/,
  },
  {
    command: 'import search',
    why: 'missing scope',
    args: () => ['import', 'search', '--title', 'a'],
    env: () => limited,
    code: 4,
  },
  {
    command: 'access allow',
    why: 'access already granted',
    args: () => ['access', 'allow', '--hash-id', H, '--username', state.granted, '--price', '1.00'],
    code: 5,
    stderr: /already has access/,
  },
  {
    command: 'access allow',
    why: 'no such user',
    args: () => ['access', 'allow', '--hash-id', H, '--username', MISSING_USER, '--price', '1.00'],
    code: 3,
    stderr: /User not found/,
  },
  {
    command: 'access allow',
    why: 'bad token',
    args: () => ['access', 'allow', '--hash-id', H, '--username', state.user, '--price', '1.00'],
    env: () => badToken,
    code: 4,
  },
  // A roster naming a user the service does not know: the change fails, the job exits 6 (partial failure).
  {
    command: 'access sync',
    why: 'no such user',
    args: () => [
      'access',
      'sync',
      roster(`username\n${MISSING_USER}\n`),
      '--hash-id',
      WELL_KNOWN.otherPublisher.hash_id,
      '--price',
      '1.00',
    ],
    code: 6,
    stderr: /User not found/,
  },
  {
    command: 'access revoke',
    why: 'no access to revoke',
    args: () => ['access', 'revoke', '--hash-id', H, '--username', state.user, '--yes'],
    code: 3,
    stderr: /Purchase record not found/,
  },
  {
    command: 'offers get',
    why: 'no such book',
    args: () => ['offers', 'get', '--isbn', MISSING_ISBN],
    code: 3,
    stderr: /does not exist/,
  },
  {
    command: 'offers get',
    why: 'book sold by code only (business rule)',
    args: () => ['offers', 'get', '--isbn', WELL_KNOWN.codeDistribution.isbn13],
    code: 1,
    stderr: /not available/,
  },
  { command: 'offers checkout', why: 'unknown price id', args: () => ['offers', 'checkout', '--id', '99999'], code: 1 },
];

/**
 * Commands that never reach the service's API (local settings, the local sandbox, shells, docs,
 * the ledger: `ledger reconcile` reads and re-sends, and reports each answer as a settlement, not
 * an exit code; test/ledger/record.test.ts covers it).
 */
const LOCAL = /^(profile|sandbox|completion|help|__reference|ledger)\b/;

beforeAll(async () => {
  sb = await startTestSandbox();
  // Most runs in-process (the real main() over HTTP); the repeats and refusals below also run as
  // the real bin/bookdist.
  cli = runnerFor({ ...sb.env, COLUMNS: '200' });
  spawned = cliFor(sb, { COLUMNS: '200' });
  badKey = { ...sb.env, BOOKDIST_KEY_FILE: sb.creds.limited.keyFile };
  badToken = { ...sb.env, BOOKDIST_TOKEN: 'not-the-token' };
  limited = limitedEnv(sb);
  const email = uniqueEmail('taken');
  const granted = (await ok(['user', 'create', '--email', email])).username;
  await ok(['access', 'allow', '--hash-id', H, '--username', granted, '--price', '1.00']);
  state = { user: await newUser(), granted, email };
});
afterAll(async () => {
  await sb?.close();
});

describe('every command that talks to the service has its failure answers mapped', () => {
  it('the cases cover every such command of the tree', () => {
    const leaves: string[] = [];
    const walk = (c: Command) => c.commands.forEach((s) => (s.commands.length ? walk(s) : leaves.push(commandPath(s))));
    walk(buildProgram());
    const covered = new Set(CASES.map((c) => c.command));
    expect(leaves.filter((p) => !LOCAL.test(p) && !covered.has(p))).toEqual([]);
  });

  it.concurrent.each(CASES.map((c) => [`${c.command}: ${c.why} → ${c.code}`, c] as const))('%s', async (_n, c) => {
    const r = await cli(await c.args(), { env: c.env?.() });
    expect(r.code, r.stderr).toBe(c.code);
    if (c.stderr) expect(r.stderr).toMatch(c.stderr);
    expect(r.stderr).not.toMatch(/unexpected error|at .*\.js:\d+/);
  });
});

describe('idempotent repeats exit 0 and say so on stderr', () => {
  it('order create with an order number used before returns the existing order', async () => {
    const number = `W-${Date.now().toString(36)}`.slice(0, 20);
    const first = await cli([...orderArgs(state.user), '--order-number', number, '--json']);
    expect(first.code, first.stderr).toBe(0);
    const again = await spawned([...orderArgs(state.user), '--order-number', number, '--json']);
    expect(again.code).toBe(0);
    expect(json(again).order.id).toBe(json(first).order.id);
    expect(again.stderr).toMatch(/used before: nothing new was created/);
  });
  it('a refund already done: exit 0, noted on stderr', async () => {
    const user = await newUser();
    const order = (await ok(orderArgs(user))).order;
    const first = await cli(['order', 'refund', '--order-id', String(order.id), '--yes']);
    expect(first.code, first.stderr).toBe(0);
    const again = await cli(['order', 'refund', '--order-id', String(order.id), '--yes']);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/already refunded/);
  });
});

describe('business rule refusals are 1 with the service message (not 4)', () => {
  const refusal = async (usage: { viewed?: number; printed?: number } | undefined, advance?: string) => {
    const user = await newUser();
    const order = (await ok(orderArgs(user))).order;
    if (usage) await sb.control.usage({ username: user, hashId: H, ...usage });
    if (advance) await sb.control.advanceClock(advance);
    return spawned(['order', 'refund', '--order-id', String(order.id), '--yes']);
  };
  it('viewed share over 10%', async () => {
    const r = await refusal({ viewed: readme.num_pages });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/cannot be refunded/);
  });
  it('a printed page', async () => {
    const r = await refusal({ printed: 1 });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/cannot be refunded/);
  });
  it('outside the refund window (last: it moves the clock)', async () => {
    const r = await refusal(undefined, '31d');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/cannot be refunded/);
  });
});

describe('the mapping of service answers', () => {
  it.each([
    [404, { message: 'Book not found' }, 3],
    [400, { message: 'The requested book does not exist' }, 3],
    [401, { message: 'Authentication failed' }, 4],
    [403, { message: 'Authentication failed' }, 4],
    [403, { message: 'Missing scope: refunds' }, 4],
    [401, { message: 'Not Authorized for Book' }, 4],
    [403, { message: 'Item 7 cannot be refunded: more than 10% of the book was viewed.' }, 1],
    [403, { message: 'outside the refund window' }, 1],
    [400, { message: 'User with email address already exists', conflict: true }, 5],
    [400, { message: 'The user already has access to this book' }, 5],
    [400, { message: 'The requested book is not available' }, 1],
    [429, {}, 7],
    [503, {}, 7],
    [500, {}, 1],
  ])('%i %j → %i', (status, body, code) => {
    expect(exitCodeForStatus(status, body)).toBe(code);
  });
});
