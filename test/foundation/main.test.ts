// The whole CLI in-process: main() with fake IO streams (terminals or pipes).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/main.js';
import { ecKeyPem, fakeIO, json, rsaKeys, startRecorder, tempDir } from './helpers.js';
import { run as runCommand } from '../helpers/run.js';

const keys = rsaKeys();
const USER = '0d72df20f23558620646fb3ea030f5';
const t = tempDir();
const cfg = join(t.dir, 'config');
const pkcs1 = t.file('partner-pkcs1.pem', keys.pkcs1);
const ec = t.file('ec.pem', ecKeyPem());
afterAll(() => t.cleanup());

async function run(
  args: string[],
  opts: { env?: Record<string, string>; tty?: boolean; columns?: number; input?: string } = {},
) {
  const f = fakeIO({
    env: { BOOKDIST_CONFIG_DIR: cfg, NO_COLOR: '1', ...opts.env },
    tty: opts.tty,
    columns: opts.columns,
    input: opts.input,
  });
  const code = await main(args, { io: f.io, signals: false });
  return { code, stdout: f.stdout.text(), stderr: f.stderr.text() };
}

describe('usage errors and help', () => {
  it('an unknown option exits 2 with the usage line', async () => {
    const r = await run(['profile', 'list', '--nope']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "bookdist: unknown option '--nope'\nUsage: bookdist profile list [options]\nRun `bookdist profile list --help` for details.\n",
    );
    expect(r.stdout).toBe('');
  });
  it('a missing argument names it, with the usage line', async () => {
    const r = await run(['profile', 'use']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("missing required argument 'name'");
    expect(r.stderr).toContain('Usage: bookdist profile use [options] <name>');
  });
  it('under --json a usage error is one JSON object on stderr, usage line included', async () => {
    const r = await run(['--json', 'profile', 'use', 'a', 'b']);
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    const e = JSON.parse(lines[0]).error;
    expect(e).toMatchObject({ status: null, exit_code: 2 });
    expect(e.message).toMatch(/^too many arguments for 'use'.*\nUsage: bookdist profile use \[options\] <name>/s);
  });
  it('an invalid choice of a global option exits 2', async () => {
    const r = await run(['-o', 'yaml', 'profile', 'list']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/option '-o, --output <format>' argument 'yaml' is invalid/);
  });
  it('a group without a verb shows its help and exits 2', async () => {
    const r = await run(['profile']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Usage: bookdist profile [options] [command]');
  });
  it('--help and --version exit 0 on stdout; bare bookdist shows help', async () => {
    const h = await run(['--help']);
    expect([h.code, h.stderr]).toEqual([0, '']);
    expect(h.stdout).toContain('Usage: bookdist [options] [command]');
    expect(h.stdout).toContain('bookdist help exit-codes');
    const v = await run(['--version']);
    expect(v.code).toBe(0);
    expect(v.stdout).toMatch(/^\d+\.\d+\.\d+/);
    const bare = await run([]);
    expect(bare.code).toBe(0);
    expect(bare.stdout).toContain('Usage: bookdist');
  });
  it('`bookdist help exit-codes` documents every exit code', async () => {
    const r = await run(['help', 'exit-codes']);
    expect(r.code).toBe(0);
    for (const code of [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 129, 130, 143])
      expect(r.stdout).toMatch(new RegExp(`^\\s+${code}  \\S`, 'm'));
  });
  it('a bad --timeout or --retries is a usage error', async () => {
    expect((await run(['--timeout', 'soon', 'status'])).code).toBe(2);
    const r = await run(['--retries', '-1', 'status']);
    expect(r.code).toBe(2);
  });
});

describe('profile add / list / show / use / remove', () => {
  it('in scripts, a missing flag fails at once naming it', async () => {
    let r = await run([
      'profile',
      'add',
      '--base-url',
      'https://api.example.com',
      '--username',
      USER,
      '--key-file',
      pkcs1,
    ]);
    expect([r.code, r.stderr]).toEqual([2, 'bookdist: Missing --name: the name of the profile to add.\n']);
    r = await run(['profile', 'add', '--name', 'x', '--username', USER, '--key-file', pkcs1]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Missing --base-url');
    r = await run(['profile', 'add', '--name', 'x', '--base-url', 'https://api.example.com', '--key-file', pkcs1]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Missing --username');
    r = await run(['profile', 'add', '--name', 'x', '--base-url', 'https://api.example.com']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--key-file <pem>, --shared-key-stdin or --token-stdin');
    r = await run(['profile', 'add', '--name', 'sandbox', '--base-url', 'https://api.example.com', '--token-stdin'], {
      input: 't',
    });
    expect(r.code).toBe(2);
    expect(existsSync(join(cfg, 'config.json'))).toBe(false);
  });

  it('a key that is missing or not RSA is exit 2 (nothing refused it: it is invalid input) and nothing is stored', async () => {
    let r = await run([
      'profile',
      'add',
      '--name',
      'x',
      '--base-url',
      'https://api.example.com',
      '--username',
      USER,
      '--key-file',
      ec,
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/The key file .*ec\.pem \(from --key-file\) is a ec key, not an RSA private key/);
    r = await run([
      'profile',
      'add',
      '--name',
      'x',
      '--base-url',
      'https://api.example.com',
      '--username',
      USER,
      '--key-file',
      join(t.dir, 'missing.pem'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Cannot read the key file .*missing\.pem \(from --key-file\): no such file/);
    expect(existsSync(join(cfg, 'config.json'))).toBe(false);
  });

  it('stores a key profile: the key is copied 0600 into the config dir', async () => {
    const r = await run([
      'profile',
      'add',
      '--name',
      'prod',
      '--base-url',
      'https://api.example.com/',
      '--username',
      USER,
      '--key-file',
      pkcs1,
      '--json',
      '--no-verify',
    ]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      name: 'prod',
      base_url: 'https://api.example.com',
      username: USER,
      auth: 'crypto',
      current: false,
    });
    const copy = join(cfg, 'keys', 'prod.pem');
    expect(out.key_file).toBe(copy);
    expect(readFileSync(copy, 'utf8')).toBe(keys.pkcs1);
    expect(statSync(copy).mode & 0o777).toBe(0o600);
    expect(statSync(join(cfg, 'config.json')).mode & 0o777).toBe(0o600);
    expect(statSync(cfg).mode & 0o777).toBe(0o700);
    expect(r.stderr).toContain('Saved profile "prod"');
    const again = await run([
      'profile',
      'add',
      '--name',
      'prod',
      '--base-url',
      'https://api.example.com',
      '--username',
      USER,
      '--key-file',
      pkcs1,
    ]);
    expect(again.code).toBe(5);
    expect(again.stderr).toContain('--force');
  });

  it('secrets come from stdin and never show', async () => {
    const r = await run(
      [
        'profile',
        'add',
        '--name',
        'ci',
        '--base-url',
        'https://ci.example.com',
        '--username',
        USER,
        '--shared-key-stdin',
        '--use',
        '--no-verify',
      ],
      {
        input: 'shared-secret-xyz\n',
      },
    );
    expect(r.code).toBe(0);
    expect(r.stdout + r.stderr).not.toContain('shared-secret-xyz');
    const ops = await run(
      ['profile', 'add', '--name', 'ops', '--base-url', 'https://ops.example.com', '--token-stdin'],
      { input: 'operator-token-abc' },
    );
    expect(ops.code).toBe(0);
    const empty = await run(
      ['profile', 'add', '--name', 'e', '--base-url', 'https://ops.example.com', '--token-stdin'],
      { input: '' },
    );
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('--token-stdin: stdin was empty');
  });

  it('list marks the current profile (TSV when piped, JSON on request)', async () => {
    const r = await run(['profile', 'list']);
    expect(r.code).toBe(0);
    const [head, ...rows] = r.stdout.trim().split('\n');
    expect(head.split('\t')).toEqual(['current', 'name', 'base_url', 'username', 'auth']);
    expect(rows.map((l) => l.split('\t').slice(0, 2))).toEqual([
      ['false', 'sandbox'],
      ['true', 'ci'],
      ['false', 'ops'],
      ['false', 'prod'],
    ]);
    const j = JSON.parse((await run(['profile', 'list', '--json'])).stdout);
    expect(j.map((p: any) => [p.name, p.current, p.auth])).toEqual([
      ['sandbox', false, 'crypto'],
      ['ci', true, 'shared'],
      ['ops', false, 'token'],
      ['prod', false, 'crypto'],
    ]);
    expect(JSON.stringify(j)).not.toMatch(/shared-secret-xyz|operator-token-abc/);
  });

  it('list is a table fitted to an 80-column terminal; at 60 each profile is a card (URLs and usernames are never cut)', async () => {
    const r = await run(['profile', 'list'], { tty: true, columns: 80 });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    // The tree's one table style: no borders, UPPERCASE headers.
    expect(lines[0]).toMatch(/^ +NAME +BASE URL +USERNAME +AUTH$/);
    expect(lines.find((l) => / ci /.test(l))).toMatch(/^\* +ci /);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(80);
    const narrow = await run(['profile', 'list'], { tty: true, columns: 60 });
    for (const l of narrow.stdout.trimEnd().split('\n')) expect(l.length).toBeLessThanOrEqual(60);
    expect(narrow.stdout).toContain('BASE URL  https://ci.example.com');
    expect(narrow.stdout).toContain(USER);
  });

  it('show gives each value with its source, secrets redacted', async () => {
    const r = await run(['profile', 'show', '--json'], { env: { BOOKDIST_USERNAME: 'envuser' } });
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s).toMatchObject({
      builtin: false,
      profile: { value: 'ci', source: 'current profile (bookdist profile use)' },
      base_url: { value: 'https://ci.example.com', source: 'profile ci' },
      store_url: { value: 'https://ci.example.com', source: 'default (base URL)' },
      username: { value: 'envuser', source: 'env BOOKDIST_USERNAME' },
      key_file: { value: null, source: null },
      shared_key: { value: '[REDACTED]', source: 'profile ci' },
      token: { value: null, source: null },
      config_dir: { value: cfg, source: 'env BOOKDIST_CONFIG_DIR' },
    });
    const flag = JSON.parse(
      (await run(['profile', 'show', '--profile', 'ops', '--base-url', 'http://flag.example', '--json'])).stdout,
    );
    expect(flag.profile).toEqual({ value: 'ops', source: 'flag --profile' });
    expect(flag.base_url).toEqual({ value: 'http://flag.example', source: 'flag --base-url' });
    expect(flag.token).toEqual({ value: '[REDACTED]', source: 'profile ops' });
    const table = await run(['profile', 'show', 'prod'], { tty: true, columns: 120 });
    expect(table.stdout).toMatch(/^key_file +\S*keys\/prod\.pem +profile prod$/m);
    expect(table.stdout + flag + JSON.stringify(s)).not.toMatch(/shared-secret-xyz|operator-token-abc/);
  });

  it('show says when the built-in sandbox profile is in use', async () => {
    const r = await run(['profile', 'show', '--json'], { env: { BOOKDIST_CONFIG_DIR: join(t.dir, 'empty') } });
    const s = JSON.parse(r.stdout);
    expect(s.builtin).toBe(true);
    expect(s.profile).toEqual({ value: 'sandbox (built-in local sandbox)', source: 'default' });
    expect(s.base_url.source).toBe('built-in sandbox profile');
  });

  it('on a terminal, add asks for what the flags do not give (secrets hidden)', async () => {
    // A scripted terminal: answer each question when the prompt shows it.
    const script: Array<[RegExp, string]> = [
      [/Profile name/, 'term\r'],
      [/Store \(price comparison\) URL/, '\r'],
      [/Authentication/, '\x1b[B\r'], // second choice: shared key
      [/Shared key/, 'typed-shared-secret\r'],
      [/Username of the account/, USER + '\r'],
      [/Also store an access-control token\?/, 'n\r'],
    ];
    const {
      code,
      stdout: out,
      stderr: shown,
      unanswered,
    } = await runCommand(['profile', 'add', '--base-url', 'https://term.example.com', '--no-verify'], {
      tty: { columns: 80 },
      env: { BOOKDIST_CONFIG_DIR: cfg, NO_COLOR: '1' },
      answers: script,
    });
    expect(code).toBe(0);
    expect(unanswered).toBe(0);
    expect(shown + out).not.toContain('typed-shared-secret');
    const s = JSON.parse((await run(['profile', 'show', 'term', '--json'])).stdout);
    expect(s.base_url).toEqual({ value: 'https://term.example.com', source: 'profile term' });
    expect(s.username.value).toBe(USER);
    expect(s.shared_key).toEqual({ value: '[REDACTED]', source: 'profile term' });
    expect(JSON.parse(readFileSync(join(cfg, 'config.json'), 'utf8')).profiles.term.sharedKey).toBe(
      'typed-shared-secret',
    );
    expect((await run(['profile', 'remove', 'term', '--yes'])).code).toBe(0);
  });

  it('use switches the current profile; remove deletes it and its key copy', async () => {
    expect((await run(['profile', 'use', 'prod'])).code).toBe(0);
    expect(JSON.parse((await run(['profile', 'show', '--json'])).stdout).profile.value).toBe('prod');
    expect((await run(['profile', 'use', 'nope'])).code).toBe(3);
    const rm = await run(['profile', 'remove', 'prod', '--yes']);
    expect(rm.code).toBe(0);
    expect(rm.stderr).toContain('Removed profile "prod" and its key copy. The built-in sandbox profile is now in use.');
    expect(existsSync(join(cfg, 'keys', 'prod.pem'))).toBe(false);
    expect(JSON.parse((await run(['profile', 'list', '--json'])).stdout).map((p: any) => p.name)).toEqual([
      'sandbox',
      'ci',
      'ops',
    ]);
    expect((await run(['profile', 'remove', 'prod', '--yes'])).code).toBe(3);
    expect((await run(['profile', 'remove', 'sandbox'])).code).toBe(2);
    expect((await run(['profile', 'use', 'sandbox'])).code).toBe(0);
  });
});

describe('commands through the whole stack (in-process)', () => {
  let srv: Awaited<ReturnType<typeof startRecorder>>;
  beforeAll(async () => {
    srv = await startRecorder((q, res) => {
      if (q.url === '/profile/')
        return json(res, 200, {
          code: 200,
          success: true,
          test_mode: true,
          profile: { nickname: 'Partner', city: 'Lyon', country: 'FR' },
          scopes: ['book_metadata', 'codes'],
        });
      return json(res, 404, { code: 404, error: true, message: 'Not found' });
    });
  });
  afterAll(() => srv.close());
  const env = () => ({ BOOKDIST_BASE_URL: srv.url, BOOKDIST_USERNAME: USER, BOOKDIST_KEY_FILE: pkcs1 });

  it('whoami on a terminal: a card on stdout, TEST MODE on stderr', async () => {
    const r = await run(['whoami'], { env: env(), tty: true, columns: 80 });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Scopes +book_metadata, codes/);
    expect(r.stdout).toMatch(/Test mode +yes/);
    expect(r.stderr).toBe('TEST MODE\n');
    const q = await run(['whoami', '-q', '--json', '--fields', 'scopes'], { env: env() });
    expect(q.stdout).toBe('{"scopes":["book_metadata","codes"]}\n');
    expect(q.stderr).toBe('');
  });
  it('an API error is reported once, with its exit code; JSON on stderr under --json', async () => {
    const r = await run(['api', 'GET', '/v1/nothing/'], { env: env() });
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({ code: 404 });
    const d = await run(['describe', '--json'], { env: { ...env() } });
    srv.respond((_q, res) => json(res, 401, { code: 401, error: true, message: 'Authentication failed' }));
    const a = await run(['whoami', '--json'], { env: env() });
    expect(a.code).toBe(4);
    expect(a.stdout).toBe('');
    const e = JSON.parse(a.stderr).error;
    expect(e.status).toBe(401);
    expect(e.exit_code).toBe(4);
    expect(e.message).toMatch(
      /^Authentication failed \(check the profile's username and key: `bookdist profile show`\) \(HTTP 401, GET \/profile\/\)$/,
    );
    expect(d.code).toBe(3);
  });
  it("a profile's credentials are only sent to its own base URL", async () => {
    srv.respond((_q, res) => json(res, 200, { code: 200, success: true, test_mode: false, profile: {}, scopes: [] }));
    const dir = join(t.dir, 'guard');
    const add = await run(
      ['profile', 'add', '--name', 'own', '--base-url', srv.url, '--username', USER, '--key-file', pkcs1],
      { env: { BOOKDIST_CONFIG_DIR: dir } },
    );
    expect(add.code).toBe(0);
    const before = srv.requests.length;
    const r = await run(['whoami', '--profile', 'own', '--base-url', 'http://127.0.0.1:9'], {
      env: { BOOKDIST_CONFIG_DIR: dir },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `Refusing to send profile "own"'s credentials to http://127.0.0.1:9 (from --base-url; the profile's base URL is ${srv.url})`,
    );
    expect(srv.requests.length).toBe(before);
    const ok = await run(['whoami', '--profile', 'own', '--base-url', srv.url + '/', '--json'], {
      env: { BOOKDIST_CONFIG_DIR: dir },
    });
    expect(ok.code).toBe(0);
    expect(srv.requests.at(-1)!.headers.authorization).toBe('CryptoAuth');
  });

  it('a key that is not RSA, or missing, is exit 2 (usage: nothing refused it) before any request', async () => {
    const before = srv.requests.length;
    const r = await run(['whoami'], { env: { ...env(), BOOKDIST_KEY_FILE: ec } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/is a ec key, not an RSA private key/);
    const m = await run(['whoami'], { env: { ...env(), BOOKDIST_KEY_FILE: join(t.dir, 'gone.pem') } });
    expect(m.code).toBe(2);
    expect(m.stderr).toMatch(
      /Cannot read the key file .*gone\.pem \(from environment variable BOOKDIST_KEY_FILE\): no such file/,
    );
    expect(srv.requests.length).toBe(before);
  });
});
