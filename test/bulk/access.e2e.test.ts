// access allow/revoke --from-csv with bad rows mixed in and 429s on; results, resume; single forms.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, statSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestSandbox, WELL_KNOWN, type TestSandbox } from '../helpers/sandbox.js';
import { cliFor, type Cli } from './_support.js';
import { fullDisk } from './_fs.js';
import { run as runInProcess } from '../helpers/run.js';

const U1 = WELL_KNOWN.user.username;
const U2 = WELL_KNOWN.user2.username;
const B1 = WELL_KNOWN.readme.hash_id;
const B2 = WELL_KNOWN.limitedPricing.hash_id;
const B3 = WELL_KNOWN.otherPublisher.hash_id;

const ndjson = (text: string) =>
  text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

describe('access in bulk', () => {
  let sb: TestSandbox;
  let cli: Cli;
  let dir: string;
  beforeAll(async () => {
    // 429s, which the client's one retry policy always retries; a 503 or a reset on these writes
    // (not idempotent by the interface) is not repeated blindly: the row fails, --resume sends it.
    sb = await startTestSandbox({ faults: { rate: 0.2, kinds: ['429'] } });
    cli = cliFor(sb);
    dir = mkdtempSync(join(tmpdir(), 'bookdist-access-'));
  });
  afterAll(async () => {
    await sb.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('allow --from-csv: one result per row, bad rows reported, the rest granted; exit 6; resume re-sends only what has no final result', async () => {
    const csv = join(dir, 'grants.csv');
    writeFileSync(
      csv,
      [
        'hash_id,username,price,expiration_date,email,send_email',
        `${B1},${U1},12.01,,,`,
        `${B2},${U1},"3.5",2099-12-31,ops@example.com,true`,
        `${B2},${U2},twelve,,,`, // bad price
        `nothex,${U2},1,,,`, // bad hash id
        `${B1},${'0'.repeat(30)},1,,,`, // unknown user: failed
        `${B3},${U2},0,,,no`,
        `${B1},${U2},1.00,,not-an-email,`, // bad e-mail
        `${B1},${U1},12.01,,,`, // same as row 2: one of the two is "already"
      ].join('\n') + '\n',
    );
    const results = join(dir, 'grants.results.ndjson');
    const r = await cli([
      'access',
      'allow',
      '--from-csv',
      csv,
      '--results',
      results,
      '--concurrency',
      '1',
      '--retries',
      '6',
    ]);
    expect(r.code, r.stderr).toBe(6);
    const rows = ndjson(readFileSync(results, 'utf8'));
    expect(rows).toHaveLength(8);
    const status = Object.fromEntries(rows.map((x) => [x.row, x.status]));
    expect(status).toEqual({
      2: 'ok',
      3: 'ok',
      4: 'invalid',
      5: 'invalid',
      6: 'failed',
      7: 'ok',
      8: 'invalid',
      9: 'already',
    });
    expect(Object.keys(rows[0])).toEqual(['row', 'status', 'message', 'hash_id', 'username']);
    expect(rows.find((x) => x.row === 6).message).toBe('User not found');
    expect(rows.find((x) => x.row === 9).message).toMatch(/^The user already has access to this book/);
    expect(r.stderr).toMatch(/8 rows: 3 ok, 1 already had access, 3 invalid, 1 failed/);
    expect(r.stderr).toMatch(/--resume/);
    // The grant with send_email went out by e-mail.
    expect((await sb.control.outbox()).some((m) => m.kind === 'access.allow')).toBe(true);

    // Resume: rows with a final result are skipped; the failed row is sent again (and fails again).
    const again = await cli(['access', 'allow', '--from-csv', csv, '--results', results, '--resume', '--retries', '6']);
    expect(again.code, again.stderr).toBe(6);
    const after = ndjson(readFileSync(results, 'utf8'));
    expect(after).toHaveLength(9);
    expect(after[8]).toMatchObject({ row: 6, status: 'failed' });
    expect(again.stderr).toMatch(/7 done in an earlier run/);
  });

  it('a full disk mid-batch (ENOSPC through the injected fs seam): exit 1 with the resume command; --resume finishes every row exactly once', async () => {
    const csv = join(dir, 'crash.csv');
    writeFileSync(csv, ['hash_id,username,price', `${B3},${U1},5`, `${B2},${U2},6`, `${B1},${U2},7`].join('\n') + '\n');
    const results = join(dir, 'crash.results.csv');
    // The disk fills up after the header and part of the batch's rows: the batch is torn.
    const r = await runInProcess(['access', 'allow', '--from-csv', csv, '--results', results, '--retries', '6'], {
      env: { ...sb.env, XDG_STATE_HOME: join(dir, 'state') },
      fs: fullDisk(results, 60),
    });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/writing \S+crash\.results\.csv failed: ENOSPC/);
    expect(r.stderr).toMatch(/--results \S+crash\.results\.csv --retries 6 --resume\n/);
    const again = await cli(['access', 'allow', '--from-csv', csv, '--results', results, '--resume', '--retries', '6']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/cut \d+ byte\(s\) after the last complete batch/);
    const lines = readFileSync(results, 'utf8').trim().split('\n');
    expect(lines[0]).toBe('row,status,message,hash_id,username');
    const final = lines.slice(1).map((l) => l.split(','));
    expect(final.map((f) => f[0]).sort()).toEqual(['2', '3', '4']);
    // The torn batch's rows had been granted: sent again, they are reported as such, not as failures.
    expect(final.filter((f) => f[1] === 'already')).toHaveLength(3);
    expect(statSync(results).mode & 0o777).toBe(0o600);
    // The job finished: --resume again does nothing and exits 0 (a CI step may always add it).
    const text = readFileSync(results, 'utf8');
    const noop = await cli(['access', 'allow', '--from-csv', csv, '--results', results, '--resume', '--retries', '6']);
    expect(noop.code, noop.stderr).toBe(0);
    expect(noop.stderr).toMatch(/the job finished, nothing was sent/);
    expect(readFileSync(results, 'utf8')).toBe(text);
  });

  it('revoke --from-csv needs --yes in scripts, then revokes; a user without access is "already"', async () => {
    const csv = join(dir, 'revoke.csv');
    writeFileSync(
      csv,
      ['hash_id,username', `${B1},${U1}`, `${B3},${U2}`, `${B2},${U2}`, `${B1},bad`].join('\n') + '\n',
    );
    const no = await cli(['access', 'revoke', '--from-csv', csv]);
    expect(no.code).toBe(2);
    const r = await cli(['access', 'revoke', '--from-csv', csv, '--yes', '-o', 'ndjson', '--retries', '6']);
    expect(r.code, r.stderr).toBe(6);
    const by = Object.fromEntries(ndjson(r.stdout).map((x) => [x.row, x]));
    expect(by[2].status).toBe('ok');
    expect(by[3].status).toBe('ok');
    expect(by[4].status).toBe('ok');
    expect(by[5].status).toBe('invalid');
    const again = await cli(['access', 'revoke', '--from-csv', csv, '--yes', '-o', 'csv', '--retries', '6']);
    expect(again.stdout.split('\n').filter((l) => l.includes(',already,'))).toHaveLength(3);
  });

  it('usage errors: a header without the required columns, flags mixed with --from-csv', async () => {
    const csv = join(dir, 'nohead.csv');
    writeFileSync(csv, `hash_id,price\n${B1},1\n`);
    const r = await cli(['access', 'allow', '--from-csv', csv]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/lacks the column username/);
    expect((await cli(['access', 'allow', '--from-csv', csv, '--price', '1'])).code).toBe(2);
    expect((await cli(['access', 'allow', '--hash-id', B1, '--username', U1])).code).toBe(2);
  });
});
