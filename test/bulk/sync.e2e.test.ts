// `access sync` end to end (issue 34, item 7): a 1,000-user roster kept in sync with a book's
// grants (by username: rosters by e-mail are resolved in test/commands/access-sync.test.ts). The first sync is interrupted with SIGINT and resumed (every grant made once);
// a roster with 50 changes plans exactly those 50, and its --dry-run sends nothing at all (the
// sandbox's request journal); the run makes them, after which nothing is left to change.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestSandbox, WELL_KNOWN, type TestSandbox } from '../helpers/sandbox.js';
import { foldWrites, parseLedger } from '../../src/ledger/read.js';
import { cliFor, spawnCli, waitUntil, type Cli } from './_support.js';

const B = WELL_KNOWN.otherPublisher.hash_id;
const ROSTER = 1000;
const email = (i: number) => `member.${i}@example.com`;
const ndjson = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

describe('access sync with a 1,000-user roster', () => {
  let sb: TestSandbox;
  let cli: Cli;
  let dir: string;
  const usernames = new Map<string, string>();
  const csv = (name: string, members: number[]) => {
    const path = join(dir, name);
    writeFileSync(
      path,
      ['username,first_name', ...members.map((i) => `${usernames.get(email(i))},Member ${i}`)].join('\n') + '\n',
    );
    return path;
  };
  const allowIntents = () => {
    const file = join(sb.env.BOOKDIST_STATE_DIR, 'ledger.ndjson');
    if (!existsSync(file)) return 0;
    // Those a stopped job told ahead and never sent (unsent) left nothing at the service.
    return foldWrites(parseLedger(readFileSync(file, 'utf8')).rows).filter(
      (w) => w.op === 'access allow' && w.status !== 'unsent',
    ).length;
  };
  const journal = async (query = '') =>
    (await sb.control.call('GET', `/_sandbox/requests?limit=1${query}`)).body as { total: number; last_id: number };
  const range = (a: number, b: number) => Array.from({ length: b - a }, (_, i) => a + i);

  beforeAll(async () => {
    sb = await startTestSandbox({ journal: { size: 100_000 } });
    cli = cliFor(sb);
    dir = mkdtempSync(join(tmpdir(), 'bookdist-sync-e2e-'));
    // The users, made in one request of the sandbox's fixtures (not the subject here).
    const steps = range(0, ROSTER + 25).map((i) => ({
      name: `m${i}`,
      call: 'user.create',
      payload: { email: email(i) },
    }));
    const made = await sb.control.call('POST', '/_sandbox/fixtures', { fixture: { steps } });
    if (made.status !== 200) throw new Error(JSON.stringify(made.body).slice(0, 500));
    for (const st of made.body.steps) usernames.set(email(Number(st.name.slice(1))), st.result.username);
    expect(usernames.size).toBe(ROSTER + 25);
  });
  afterAll(async () => {
    await sb.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the first sync, interrupted by SIGINT, is completed by --resume: 1,000 grants, each sent once', async () => {
    const roster = csv('team.csv', range(0, ROSTER));
    const results = join(dir, 'team.sync.ndjson');
    const args = [
      'access',
      'sync',
      roster,
      '--hash-id',
      B,
      '--price',
      '2.50',
      '--results',
      results,
      '--concurrency',
      '2',
    ];
    const first = spawnCli(sb, args);
    await waitUntil(() => allowIntents() >= 100, first.exited);
    first.child.kill('SIGINT');
    const stopped = await first.exited;
    expect(stopped, stopped.stderr).toMatchObject({ code: null, signal: 'SIGINT' });
    expect(stopped.stderr).toMatch(/Plan: 1000 to allow, 0 to revoke, 0 unchanged/);
    expect(stopped.stderr).toMatch(/--resume/);
    const sentBefore = allowIntents();
    expect(sentBefore).toBeLessThan(ROSTER);

    const r = await cli([...args, '--resume']);
    expect(r.code, r.stderr).toBe(0);
    const rows = ndjson(results);
    // One result per member, every one a grant made now (none "already": nothing was sent twice).
    expect(rows).toHaveLength(ROSTER);
    expect(new Set(rows.map((x) => x.username)).size).toBe(ROSTER);
    expect(rows.every((x) => x.action === 'allow' && x.status === 'ok')).toBe(true);
    expect(new Set(rows.map((x) => x.username))).toEqual(new Set(range(0, ROSTER).map((i) => usernames.get(email(i)))));
    expect((await journal('&method=POST&path=/v1/access/allow/')).total).toBe(ROSTER);
    expect(allowIntents()).toBe(ROSTER);
  });

  it("a resume after another command changed the book's grants is refused naming that write; --restart plans from the grants as they are, making nothing twice", async () => {
    const R = WELL_KNOWN.readme.hash_id;
    const members = range(0, 60);
    const roster = csv('team3.csv', members);
    const results = join(dir, 'team3.sync.ndjson');
    const args = ['access', 'sync', roster, '--hash-id', R, '--price', '2.50', '--results', results];
    const base = allowIntents();
    const first = spawnCli(sb, [...args, '--concurrency', '1']);
    await waitUntil(() => allowIntents() >= base + 10, first.exited);
    first.child.kill('SIGINT');
    const stopped = await first.exited;
    expect(stopped, stopped.stderr).toMatchObject({ code: null, signal: 'SIGINT' });

    // Meanwhile another command grants member 3 (the sync had: "already has access") and member 1010 (not in the roster).
    for (const i of [3, 1010]) {
      const r = await cli([
        'access',
        'allow',
        '--hash-id',
        R,
        '--username',
        usernames.get(email(i))!,
        '--price',
        '1.00',
      ]);
      expect(r.code === 0 || /already has access/.test(r.stderr), r.stderr).toBe(true);
    }
    const outside = foldWrites(parseLedger(readFileSync(join(sb.env.BOOKDIST_STATE_DIR, 'ledger.ndjson'), 'utf8')).rows)
      .filter((w) => !w.job && w.ids.hash_id === R)
      .map((w) => w.id);
    expect(outside).toHaveLength(2);

    const before = await journal();
    const resumed = await cli([...args, '--resume', '--yes']);
    expect(resumed.code, resumed.stderr).toBe(2);
    expect(resumed.stderr).toMatch(
      /the book's grants in the ledger changed after the job started: 2 access write\(s\)/,
    );
    expect(resumed.stderr).toContain(`ledger #${outside[0]}, #${outside[1]}`);
    expect(resumed.stderr).toMatch(/--restart/);
    expect(resumed.stderr).not.toMatch(/file was edited/);
    expect((await journal('&method=POST')).last_id).toBeLessThanOrEqual(before.last_id);
    const restarted = await cli([...args, '--restart', '--yes']);
    expect(restarted.code, restarted.stderr).toBe(0);
    const rows = ndjson(results);
    // The new plan: the members the first run did not reach, and member 1010 revoked; nobody twice.
    expect(rows.filter((x) => x.action === 'revoke').map((x) => [x.username, x.status])).toEqual([
      [usernames.get(email(1010)), 'ok'],
    ]);
    const allowed = rows.filter((x) => x.action === 'allow');
    expect(allowed.every((x) => x.status === 'ok')).toBe(true);
    const sent = (await sb.control.call('GET', `/_sandbox/requests?after_id=${before.last_id}&limit=1000&method=POST`))
      .body.requests;
    expect(sent).toHaveLength(allowed.length + 1);
    // Every member holds exactly one grant that the ledger saw done.
    const done = foldWrites(parseLedger(readFileSync(join(sb.env.BOOKDIST_STATE_DIR, 'ledger.ndjson'), 'utf8')).rows)
      .filter((w) => w.op === 'access allow' && w.ids.hash_id === R && w.status === 'done')
      .map((w) => w.ids.username);
    expect(done.filter((u) => u !== usernames.get(email(1010))).sort()).toEqual(
      members.map((i) => usernames.get(email(i))).sort(),
    );
  });

  it('a roster with 50 changes: the dry run plans exactly those and sends nothing; the run makes them', async () => {
    // 25 leave (members 100-124), 25 join (members 1000-1024).
    const leave = range(100, 125);
    const join_ = range(ROSTER, ROSTER + 25);
    const roster = csv('team2.csv', [...range(0, ROSTER).filter((i) => !leave.includes(i)), ...join_]);

    const before = await journal();
    const dry = await cli(['access', 'sync', roster, '--hash-id', B, '--price', '2.50', '--dry-run', '-o', 'json']);
    expect(dry.code, dry.stderr).toBe(0);
    const plan = JSON.parse(dry.stdout);
    expect(plan).toHaveLength(50);
    expect(plan.filter((c: any) => c.action === 'allow').map((c: any) => c.username)).toEqual(
      join_.map((i) => usernames.get(email(i))),
    );
    expect(
      plan
        .filter((c: any) => c.action === 'revoke')
        .map((c: any) => c.username)
        .sort(),
    ).toEqual(leave.map((i) => usernames.get(email(i))).sort());
    expect(dry.stderr).toMatch(/Plan: 25 to allow, 25 to revoke, 975 unchanged/);
    // Nothing at all reached the service.
    expect((await journal()).last_id).toBe(before.last_id);

    const results = join(dir, 'team2.sync.ndjson');
    const r = await cli(['access', 'sync', roster, '--hash-id', B, '--price', '2.50', '--results', results, '--yes']);
    expect(r.code, r.stderr).toBe(0);
    const rows = ndjson(results);
    expect(rows).toHaveLength(50);
    expect(rows.every((x) => x.status === 'ok')).toBe(true);
    const sent = (await sb.control.call('GET', `/_sandbox/requests?after_id=${before.last_id}&limit=1000`)).body
      .requests;
    expect(sent.filter((x: any) => x.method === 'POST')).toHaveLength(50);

    // The job is recorded: its 50 writes under its id.
    const job = /recorded in the ledger as job ([0-9a-f]+)/.exec(r.stderr)![1];
    const writes = foldWrites(
      parseLedger(readFileSync(join(sb.env.BOOKDIST_STATE_DIR, 'ledger.ndjson'), 'utf8')).rows,
    ).filter((w) => w.job === job);
    expect(writes.map((w) => `${w.op} ${w.status}`).sort()).toEqual([
      ...Array(25).fill('access allow done'),
      ...Array(25).fill('access revoke done'),
    ]);

    const after = await cli(['access', 'sync', roster, '--hash-id', B, '--dry-run', '-o', 'json']);
    expect(JSON.parse(after.stdout)).toEqual([]);
    expect(after.stderr).toMatch(/Plan: 0 to allow, 0 to revoke, 1000 unchanged/);
  });
});
