// `access sync` (issue 34, item 7): the plan from a roster, the ledger's grants and the previous
// roster (pure, src/commands/access/parts/plan.ts), and the command in-process against a sandbox:
// e-mail addresses resolved, --dry-run sending no write, --assume-current, refusals up front.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { grantsOf, planSync, usernamesByEmail } from '../../src/commands/access/parts/plan.js';
import type { Write } from '../../src/ledger/read.js';
import { foldWrites, parseLedger } from '../../src/ledger/read.js';
import { run } from '../helpers/run.js';
import { startTestSandbox, WELL_KNOWN, type TestSandbox } from '../helpers/sandbox.js';

const BOOK = 'a'.repeat(40);
const u = (n: number) => n.toString(16).padStart(30, '0');
let nextId = 1;
function write(op: string, username: string, status: Write['status'], more: Partial<Write> = {}): Write {
  return {
    id: nextId++,
    t: '2026-01-01T00:00:00Z',
    op,
    profile: 'p',
    host: 'h',
    ids: { hash_id: BOOK, username, ...more.ids },
    status,
    recorded: status,
    ...more,
  } as Write;
}
const NOW = new Date('2026-06-01T00:00:00Z');

describe('the plan', () => {
  it('the latest access write of a user decides; "already" answers count, refusals do not, unknown ones stay unsure', () => {
    const writes = [
      write('access allow', u(1), 'done'),
      write('access allow', u(2), 'done'),
      write('access revoke', u(2), 'done'),
      write('access allow', u(3), 'failed', { reason: 'The user already has access to this book' }),
      write('access revoke', u(4), 'failed', { reason: 'Purchase record not found' }),
      write('access allow', u(5), 'failed', { reason: 'User not found' }),
      write('access allow', u(6), 'unknown'),
      write('access allow', u(7), 'done', {
        ids: { hash_id: BOOK, username: u(7), expiration_date: '2026-03-01 00:00:00' },
      }),
      write('access allow', u(8), 'done', { ids: { hash_id: 'b'.repeat(40), username: u(8) } }),
      write('access allow', u(9), 'done', { profile: 'other' }),
      write('access allow', u(10), 'done', { job: 'J' }),
      write('order create', u(11), 'done'),
    ];
    const g = grantsOf(writes, BOOK, 'p', NOW, 'J');
    expect(Object.fromEntries([...g].map(([k, v]) => [k, v.state]))).toEqual({
      [u(1)]: 'has',
      [u(2)]: 'none',
      [u(3)]: 'has',
      [u(4)]: 'none',
      [u(6)]: 'unsure',
      [u(7)]: 'none',
    });
    // Without skipping the job, its writes count.
    expect(grantsOf(writes, BOOK, 'p', NOW).get(u(10))?.state).toBe('has');
  });

  it("allows who is new, revokes who left, leaves the rest; unsure users get the roster's action again; invalid rows stay in the plan", () => {
    const ledger = grantsOf(
      [
        write('access allow', u(1), 'done'),
        write('access allow', u(2), 'done'),
        write('access allow', u(3), 'unknown'),
        write('access allow', u(4), 'unknown'),
      ],
      BOOK,
      'p',
      NOW,
    );
    const plan = planSync(
      [
        { line: 2, username: u(1) },
        { line: 3, username: u(5), email: 'e@example.com' },
        { line: 4, username: u(3) },
        { line: 5, username: u(1) }, // twice: once
        { line: 6, problem: 'no user has the e-mail address x@example.com', email: 'x@example.com' },
      ],
      ledger,
    );
    expect(plan.changes.map((c) => [c.action, c.username, c.line])).toEqual([
      ['allow', u(5), 3],
      ['allow', u(3), 4],
      ['invalid', '', 6],
      ['revoke', u(2), undefined],
      ['revoke', u(4), undefined],
    ]);
    expect(plan).toMatchObject({ unchanged: 1, wanted: 3, known: 2, unsure: 2, assumed: 0 });
  });

  it('--assume-current: users of the previous roster the ledger has no record of count as having access', () => {
    const ledger = grantsOf([write('access revoke', u(3), 'done')], BOOK, 'p', NOW);
    const plan = planSync([{ line: 2, username: u(1) }], ledger, [
      { line: 2, username: u(1) },
      { line: 3, username: u(2) },
      { line: 4, username: u(3) }, // revoked since, by the ledger: not assumed
    ]);
    expect(plan.changes.map((c) => [c.action, c.username])).toEqual([['revoke', u(2)]]);
    expect(plan).toMatchObject({ unchanged: 1, assumed: 2 });
  });

  it('e-mail addresses resolve through the users the ledger saw created under the profile', () => {
    const m = usernamesByEmail(
      [
        write('user create', '', 'done', { ids: { email: 'Ada@Example.com' }, returned: { username: u(1) } }),
        write('user invite', '', 'done', { ids: { email: 'b@example.com' }, returned: { username: u(2) } }),
        write('user create', '', 'failed', { ids: { email: 'c@example.com' } }),
        write('user create', '', 'done', {
          profile: 'other',
          ids: { email: 'd@example.com' },
          returned: { username: u(4) },
        }),
      ],
      'p',
    );
    expect(Object.fromEntries(m)).toEqual({ 'ada@example.com': u(1), 'b@example.com': u(2) });
  });
});

describe('access sync against a sandbox (in-process)', () => {
  let sb: TestSandbox;
  let dir: string;
  const B = WELL_KNOWN.readme.hash_id;
  const cli = (args: string[]) => run(args, { env: { ...sb.env, BOOKDIST_STATE_DIR: join(dir, 'state') }, cwd: dir });
  const lastRequest = async () => (await sb.control.call('GET', '/_sandbox/requests?limit=1')).body.last_id as number;
  const writes = () => foldWrites(parseLedger(readFileSync(join(dir, 'state', 'ledger.ndjson'), 'utf8')).rows);
  const file = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return name;
  };
  beforeAll(async () => {
    sb = await startTestSandbox();
    dir = mkdtempSync(join(tmpdir(), 'bookdist-sync-'));
  });
  afterAll(async () => {
    await sb.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a roster by e-mail: looked up once, then known from the ledger; --dry-run sends no write; the run grants, then revokes who left', async () => {
    const made = await cli(['user', 'create', '--email', 'made.here@example.com', '--json']);
    const madeHere = JSON.parse(made.stdout).username;
    const roster = file(
      'team.csv',
      `email,first_name\nmade.here@example.com,Ada\n${WELL_KNOWN.user.email},Seed\nnobody.at.all@example.com,X\n`,
    );

    const before = await lastRequest();
    const dry = await cli(['access', 'sync', roster, '--hash-id', B, '--dry-run', '--json']);
    expect(dry.code, dry.stderr).toBe(0);
    const plan = JSON.parse(dry.stdout);
    expect(plan.map((c: any) => [c.action, c.username, c.email])).toEqual([
      ['allow', madeHere, 'made.here@example.com'],
      ['allow', WELL_KNOWN.user.username, WELL_KNOWN.user.email],
      ['invalid', null, 'nobody.at.all@example.com'],
    ]);
    expect(dry.stderr).toMatch(/Plan: 2 to allow, 0 to revoke, 0 unchanged, 1 invalid row/);
    expect(dry.stderr).toMatch(/Grants made outside this ledger .* are unknown to it/);
    expect(dry.stderr).toMatch(/give the price of the new grants with --price/);
    // Only the two addresses the ledger does not know were looked up: reads, no write.
    const sent = (await sb.control.call('GET', `/_sandbox/requests?after_id=${before}`)).body.requests;
    expect(sent.map((r: any) => `${r.method} ${r.path}`).sort()).toEqual(
      [
        `GET /v1/user/email/${encodeURIComponent(WELL_KNOWN.user.email)}/`,
        'GET /v1/user/email/nobody.at.all%40example.com/',
      ].sort(),
    );
    expect(writes().filter((w) => w.op.startsWith('access'))).toEqual([]);

    // No price and users to allow: refused before anything is sent.
    const noPrice = await cli(['access', 'sync', roster, '--hash-id', B, '--yes']);
    expect(noPrice.code).toBe(2);
    expect(noPrice.stderr).toMatch(/give the price of their grants with --price/);
    expect(writes().filter((w) => w.op.startsWith('access'))).toEqual([]);

    const r = await cli(['access', 'sync', roster, '--hash-id', B, '--price', '4.00', '--results', 'team.sync.ndjson']);
    expect(r.code, r.stderr).toBe(6); // the unknown address
    const rows = readFileSync(join(dir, 'team.sync.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows.map((x) => [x.row, x.action, x.status])).toEqual([
      [2, 'allow', 'ok'],
      [3, 'allow', 'ok'],
      [4, 'invalid', 'invalid'],
    ]);
    const job = /recorded in the ledger as job ([0-9a-f]+)/.exec(r.stderr)?.[1];
    expect(job).toBeDefined();
    expect(
      writes()
        .filter((w) => w.job === job)
        .map((w) => [w.op, w.ids.username, w.status]),
    ).toEqual([
      ['access allow', madeHere, 'done'],
      ['access allow', WELL_KNOWN.user.username, 'done'],
    ]);

    // The seeded user leaves the roster: one revoke, after confirmation (refused without --yes off a terminal).
    const smaller = file('team2.csv', 'email\nmade.here@example.com\n');
    const unconfirmed = await cli(['access', 'sync', smaller, '--hash-id', B]);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toMatch(/--yes/);
    const again = await cli(['access', 'sync', smaller, '--hash-id', B, '--yes', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/Plan: 0 to allow, 1 to revoke, 1 unchanged/);
    expect(JSON.parse(again.stdout)).toMatchObject([
      { action: 'revoke', status: 'ok', username: WELL_KNOWN.user.username },
    ]);
    const nothing = await cli(['access', 'sync', smaller, '--hash-id', B, '--dry-run', '--json']);
    expect(nothing.stderr).toMatch(/Plan: 0 to allow, 0 to revoke, 1 unchanged/);
    expect(JSON.parse(nothing.stdout)).toEqual([]);
  });

  it('--assume-current revokes users granted outside the ledger; a roster by username; bad rosters refused', async () => {
    const U2 = WELL_KNOWN.user2.username;
    const B2 = WELL_KNOWN.otherPublisher.hash_id;
    // A grant this ledger never saw (--no-ledger).
    expect(
      (await cli(['access', 'allow', '--hash-id', B2, '--username', U2, '--price', '1.00', '--no-ledger'])).code,
    ).toBe(0);
    const now = file('now.csv', `username\n${WELL_KNOWN.user.username}\n`);
    const blind = await cli(['access', 'sync', now, '--hash-id', B2, '--price', '1.00', '--dry-run', '--json']);
    expect(JSON.parse(blind.stdout).map((c: any) => c.action)).toEqual(['allow']);
    const prev = file('before.csv', `username,email\n${U2},\n`);
    const seen = await cli([
      'access',
      'sync',
      now,
      '--hash-id',
      B2,
      '--price',
      '1.00',
      '--assume-current',
      prev,
      '--yes',
      '--json',
    ]);
    expect(seen.code, seen.stderr).toBe(0);
    expect(JSON.parse(seen.stdout).map((c: any) => [c.action, c.username, c.status])).toEqual([
      ['allow', WELL_KNOWN.user.username, 'ok'],
      ['revoke', U2, 'ok'],
    ]);
    expect(seen.stderr).toMatch(/1 more assumed from before\.csv/);

    const noColumn = await cli(['access', 'sync', file('bad.csv', 'name\nAda\n'), '--hash-id', B2, '--dry-run']);
    expect(noColumn.code).toBe(2);
    expect(noColumn.stderr).toMatch(/names neither username nor email/);
    const empty = await cli(['access', 'sync', file('empty.csv', 'username\n'), '--hash-id', B2, '--yes']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/would revoke every grant of the book\. Nothing was sent/);
  });
});
