// Safe settings: `sandbox reset` and `profile remove` ask on a terminal and need --yes off one;
// `profile add` checks the username's form and verifies the credentials with one signed
// GET /profile/ against the real sandbox before storing anything (--no-verify skips it);
// `profile check [NAME]` reports account, scopes and test mode.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../helpers/run.js';
import { startTestSandbox, WELL_KNOWN, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let dir: string;
let n = 0;
beforeAll(async () => {
  sb = await startTestSandbox();
  dir = mkdtempSync(join(tmpdir(), 'bookdist-settings-'));
});
afterAll(async () => {
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A fresh config and data directory (no BOOKDIST_ credentials in the environment). */
function home() {
  const h = join(dir, `h${++n}`);
  return { BOOKDIST_CONFIG_DIR: join(h, 'config'), BOOKDIST_DATA_DIR: join(h, 'data') };
}
const stored = (env: Record<string, string>) =>
  existsSync(join(env.BOOKDIST_CONFIG_DIR, 'config.json'))
    ? JSON.parse(readFileSync(join(env.BOOKDIST_CONFIG_DIR, 'config.json'), 'utf8')).profiles
    : {};

/** main() on a scripted terminal, in the test's directory, without colour. */
const onTerminal = (args: string[], env: Record<string, string>, answers: Array<[RegExp, string]>) =>
  run(args, { env: { NO_COLOR: '1', ...env }, answers, cwd: dir, tty: { columns: 80 } });

const PARTNER = () => ['--username', sb.creds.partner.username, '--key-file', sb.creds.partner.keyFile];

describe('profile add on a terminal', () => {
  it('expands ~ at the key file prompt, lower-cases a username typed in upper case, and its errors name no flag', async () => {
    const env = home();
    const { copyFileSync, mkdirSync } = await import('node:fs');
    const fakeHome = join(dir, `home${++n}`);
    mkdirSync(fakeHome, { recursive: true });
    copyFileSync(sb.creds.partner.keyFile, join(fakeHome, 'partner.pem'));
    const r = await onTerminal(
      ['profile', 'add', '--name', 'p', '--base-url', sb.url, '--store-url', sb.url],
      { ...env, HOME: fakeHome },
      [
        [/Authentication/, '\r'],
        [/Path of the PEM private key/, '~/partner.pem\r'],
        [/Username of the account/, 'zz\r'],
        [/not a username of the service/, '\x15' + sb.creds.partner.username.toUpperCase() + '\r'],
        [/Also store an access-control token/, 'n\r'],
      ],
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.unanswered).toBe(0);
    expect(r.stderr).toContain('"zz" is not a username of the service: 30 hex characters');
    expect(r.stderr).not.toContain('--username');
    expect(stored(env).p).toMatchObject({ baseUrl: sb.url, username: sb.creds.partner.username });
  });
});

describe('profile add verifies before it stores', () => {
  it('a username that is not 30 lowercase hex characters is exit 2, before any request', async () => {
    const env = home();
    for (const bad of [
      'abc',
      sb.creds.partner.username.toUpperCase(),
      sb.creds.partner.username + '0',
      'zz' + sb.creds.partner.username.slice(2),
    ]) {
      const r = await run(
        [
          'profile',
          'add',
          '--name',
          'p',
          '--base-url',
          sb.url,
          '--username',
          bad,
          '--key-file',
          sb.creds.partner.keyFile,
        ],
        { env },
      );
      expect(r.code, bad).toBe(2);
      expect(r.stderr).toMatch(/30 lowercase hex characters/);
    }
    expect(stored(env)).toEqual({});
  });

  it('good credentials: one GET /profile/, then stored; it says what the service answered', async () => {
    const env = home();
    const r = await run(['profile', 'add', '--name', 'p', '--base-url', sb.url, ...PARTNER()], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /Verified: .* accepts the credentials \(account harborlane; scopes .*book_metadata.*; test mode\)/,
    );
    expect(stored(env).p).toMatchObject({ baseUrl: sb.url, username: sb.creds.partner.username });
  });

  it('credentials the service refuses: exit 4, nothing stored, the message names --no-verify', async () => {
    const env = home();
    // The partner's key signing as the limited account: a real signature the service rejects.
    const r = await run(
      [
        'profile',
        'add',
        '--name',
        'p',
        '--base-url',
        sb.url,
        '--username',
        WELL_KNOWN.limited.username,
        '--key-file',
        sb.creds.partner.keyFile,
      ],
      { env },
    );
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/refused the credentials of profile "p" \(HTTP 401/);
    expect(r.stderr).toContain('nothing was saved (add --no-verify');
    expect(stored(env)).toEqual({});
    const shared = await run(
      [
        'profile',
        'add',
        '--name',
        's',
        '--base-url',
        sb.url,
        '--username',
        sb.creds.partner.username,
        '--shared-key-stdin',
      ],
      { env, input: 'not-the-shared-key' },
    );
    expect(shared.code).toBe(4);
    expect(shared.stdout + shared.stderr).not.toContain('not-the-shared-key');
    expect(stored(env)).toEqual({});
  });

  it('a service that cannot be reached: not stored unless --no-verify', async () => {
    const env = home();
    const r = await run(
      ['--retries', '0', 'profile', 'add', '--name', 'p', '--base-url', 'http://127.0.0.1:9', ...PARTNER()],
      { env },
    );
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(
      /Could not check profile "p" with GET \/profile\/ on http:\/\/127\.0\.0\.1:9: .*--no-verify/,
    );
    expect(stored(env)).toEqual({});
    const skip = await run(
      ['profile', 'add', '--name', 'p', '--base-url', 'http://127.0.0.1:9', ...PARTNER(), '--no-verify'],
      { env },
    );
    expect(skip.code, skip.stderr).toBe(0);
    expect(stored(env).p.baseUrl).toBe('http://127.0.0.1:9');
  });
});

describe('profile check', () => {
  it('reports account, scopes and test mode of a stored profile, and of the one in use', async () => {
    const env = home();
    expect(
      (await run(['profile', 'add', '--name', 'p', '--base-url', sb.url, ...PARTNER(), '--use'], { env })).code,
    ).toBe(0);
    const r = await run(['profile', 'check', 'p', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const c = JSON.parse(r.stdout);
    expect(c).toMatchObject({
      profile: 'p',
      base_url: sb.url,
      username: sb.creds.partner.username,
      auth: 'crypto',
      account: 'harborlane',
      test_mode: true,
      verified: true,
    });
    expect(c.scopes).toEqual([...WELL_KNOWN.partner.scopes].sort());
    const current = await run(['profile', 'check', '--json'], { env });
    expect(JSON.parse(current.stdout).profile).toBe('p');
    const card = await onTerminal(['profile', 'check', 'p'], env, []);
    expect(card.code).toBe(0);
    expect(card.stdout).toMatch(
      /✓ Profile p: credentials accepted by http:\/\/127\.0\.0\.1:\d+\n +Account +harborlane \(username [0-9a-f]{30}\)\n +Auth +crypto\n +Scopes +access, book_metadata/,
    );
    expect(card.stdout).toMatch(/Test mode +yes/);
  });

  it('with NAME it checks the profile as stored, not what the environment would override', async () => {
    const env = home();
    expect((await run(['profile', 'add', '--name', 'p', '--base-url', sb.url, ...PARTNER()], { env })).code).toBe(0);
    const r = await run(['profile', 'check', 'p', '--json'], {
      env: { ...env, BOOKDIST_BASE_URL: 'http://127.0.0.1:9', BOOKDIST_USERNAME: WELL_KNOWN.limited.username },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).username).toBe(sb.creds.partner.username);
  });

  it('refused credentials exit 4; an unknown profile exits 3; the built-in sandbox checks out', async () => {
    const env = home();
    const add = await run(
      [
        'profile',
        'add',
        '--name',
        'bad',
        '--base-url',
        sb.url,
        '--username',
        WELL_KNOWN.limited.username,
        '--key-file',
        sb.creds.partner.keyFile,
        '--no-verify',
      ],
      { env },
    );
    expect(add.code).toBe(0);
    const bad = await run(['profile', 'check', 'bad'], { env });
    expect(bad.code).toBe(4);
    expect(bad.stderr).toMatch(/refused the credentials of profile "bad"/);
    const missing = await run(['profile', 'check', 'nope'], { env });
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('Known profiles: bad.');
    const builtin = await run(['profile', 'check', 'sandbox', '--json'], { env });
    expect(builtin.code, builtin.stderr).toBe(0);
    expect(JSON.parse(builtin.stdout)).toMatchObject({
      profile: 'sandbox',
      username: WELL_KNOWN.partner.username,
      verified: true,
      test_mode: true,
    });
  });
});

describe('destructive settings ask first', () => {
  it('profile remove: exit 2 naming --yes off a terminal (still stored); --yes removes', async () => {
    const env = home();
    expect(
      (await run(['profile', 'add', '--name', 'p', '--base-url', sb.url, '--token-stdin'], { env, input: 'tok' })).code,
    ).toBe(0);
    const r = await run(['profile', 'remove', 'p'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--yes/);
    expect(Object.keys(stored(env))).toEqual(['p']);
    const yes = await run(['profile', 'remove', 'p', '--yes'], { env });
    expect(yes.code).toBe(0);
    expect(stored(env)).toEqual({});
  });

  it('profile remove on a terminal: "no" keeps it (exit 0: an answer, not a failure), "yes" removes it', async () => {
    const env = home();
    expect(
      (await run(['profile', 'add', '--name', 'p', '--base-url', sb.url, '--token-stdin'], { env, input: 'tok' })).code,
    ).toBe(0);
    const no = await onTerminal(['profile', 'remove', 'p'], env, [[/Delete profile "p"/, 'n\r']]);
    expect([no.code, no.unanswered]).toEqual([0, 0]);
    expect(no.stderr).toContain('Not removed: profile "p" is unchanged.');
    expect(no.stderr).not.toContain('nothing was sent');
    expect(Object.keys(stored(env))).toEqual(['p']);
    const yes = await onTerminal(['profile', 'rm', 'p'], env, [[/Delete profile "p"/, 'y\r']]);
    expect([yes.code, yes.unanswered]).toEqual([0, 0]);
    expect(stored(env)).toEqual({});
  });

  it('sandbox reset: exit 2 naming --yes off a terminal (database untouched); asks on one; --yes resets', async () => {
    const env = home();
    const creds = async () =>
      JSON.parse((await run(['sandbox', 'credentials', '--json'], { env })).stdout).partner.public_key;
    const before = await creds();
    const r = await run(['sandbox', 'reset'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/confirmation needed; pass --yes/);
    expect(await creds()).toBe(before);
    const no = await onTerminal(['sandbox', 'reset'], env, [[/Delete everything in the sandbox database/, 'n\r']]);
    expect([no.code, no.unanswered]).toEqual([0, 0]);
    expect(no.stderr.replace(/\s+/g, ' ')).toMatch(/Not reset: .* is unchanged\./);
    expect(await creds()).toBe(before);
    const yes = await run(['sandbox', 'reset', '--yes'], { env });
    expect(yes.code, yes.stderr).toBe(0);
    expect(await creds()).not.toBe(before);
  });
});

describe('whoami', () => {
  it('shows the username it signs as and the base URL it calls, beside the profile', async () => {
    const r = await run(['whoami', '-o', 'table'], { env: { ...sb.env, NO_COLOR: '1' }, tty: { columns: 100 } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^Username +${sb.creds.partner.username}$`, 'm'));
    expect(r.stdout).toMatch(new RegExp(`^Base URL +${sb.url.replace(/[.]/g, '\\.')}$`, 'm'));
  });
});
