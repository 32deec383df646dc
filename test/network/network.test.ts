// The network rules in-process (issues 21 and 22): which route a request takes (NO_PROXY as curl
// reads it), the one retry policy, settings refused before anything is sent (base URLs, header
// values, key files and their permissions), credentials that stay at their own host, what
// --debug shows of codes and passwords, and profile check's diagnosis of the way to the service.
import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parsePins, pinFor, routeFor } from '../../src/api/network.js';
import { json, netError, StubRegistry } from '../helpers/stub-http.js';
import { run, STUB_URL, stubEnv } from '../helpers/run.js';

const dir = mkdtempSync(join(tmpdir(), 'bookdist-network-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const NOW = new Date('2026-11-25T12:00:00Z');
const waits: number[] = [];
const clock = { now: () => NOW, sleep: async (ms: number) => void waits.push(ms) };
const PROFILE = {
  code: 200,
  success: true,
  test_mode: false,
  profile: { nickname: 'Partner' },
  scopes: ['book_metadata'],
};
const USER = 'ab'.repeat(15);

describe('routes: HTTPS_PROXY, HTTP_PROXY and NO_PROXY as curl reads them; loopback never proxied', () => {
  const P = { HTTPS_PROXY: 'http://user:pw@proxy.example:3128', HTTP_PROXY: 'proxy.example:8080' };
  const via = (url: string, env: Record<string, string>) => routeFor(new URL(url), env).shown ?? 'direct';
  it.each([
    ['https://api.example.com', {}, 'direct'],
    ['https://api.example.com', P, 'http://proxy.example:3128'],
    ['http://api.example.com', P, 'http://proxy.example:8080'],
    ['https://api.example.com', { https_proxy: 'http://lower:1', HTTPS_PROXY: 'http://upper:2' }, 'http://lower:1'],
    ['https://api.example.com', { ALL_PROXY: 'http://all:3' }, 'http://all:3'],
    ['https://localhost:8443', P, 'direct'],
    ['https://127.0.0.5', P, 'direct'],
    ['https://[::1]:8443', P, 'direct'],
    ['https://api.example.com', { ...P, NO_PROXY: 'example.com' }, 'direct'],
    ['https://example.com', { ...P, NO_PROXY: '.example.com' }, 'direct'],
    ['https://api.example.com', { ...P, NO_PROXY: '*.example.com' }, 'direct'],
    ['https://badexample.com', { ...P, NO_PROXY: 'example.com' }, 'http://proxy.example:3128'],
    ['https://api.example.com', { ...P, NO_PROXY: '*' }, 'direct'],
    ['https://api.example.com', { ...P, NO_PROXY: 'api.example.com:443' }, 'direct'],
    ['https://api.example.com:8443', { ...P, NO_PROXY: 'api.example.com:443' }, 'http://proxy.example:3128'],
    ['https://10.1.2.3', { ...P, NO_PROXY: '10.0.0.0/8' }, 'direct'],
    ['https://10.1.2.3', { ...P, NO_PROXY: '10.1.2.3' }, 'direct'],
    ['https://11.1.2.3', { ...P, NO_PROXY: '10.0.0.0/8' }, 'http://proxy.example:3128'],
    ['https://[2001:db8::1]', { ...P, NO_PROXY: '2001:db8::/32' }, 'direct'],
    ['https://api.example.com', { ...P, no_proxy: 'other.org, example.com', NO_PROXY: '' }, 'direct'],
  ] as const)('%s with %j: %s', (url, env, want) => {
    expect(via(url, env as Record<string, string>)).toBe(want);
  });
  it('a proxy is shown without its credentials; an https:// or socks proxy is refused by name', () => {
    expect(routeFor(new URL('https://a.example'), P).shown).toBe('http://proxy.example:3128');
    expect(() => routeFor(new URL('https://a.example'), { HTTPS_PROXY: 'socks5://p:1080' })).toThrow(
      /HTTPS_PROXY uses socks5:/,
    );
  });
});

describe('one retry policy', () => {
  const ISBN = '9781614001379';
  const runWith = (http: StubRegistry, args: string[], env: Record<string, string | undefined> = {}) =>
    run(args, { http, env: stubEnv(env), clock });

  it('429 is retried honouring Retry-After; retries + 1 attempts in all', async () => {
    waits.length = 0;
    const http = new StubRegistry().on(
      'GET',
      `/v1/book/isbn/${ISBN}/`,
      json(429, { code: 429, message: 'slow down' }, { 'retry-after': '3' }),
      3,
    );
    const r = await runWith(http, ['book', 'get', '--isbn', ISBN, '--retries', '2']);
    expect(r.code).toBe(7);
    expect(http.requests).toHaveLength(3);
    expect(waits).toEqual([3000, 3000]);
  });

  it('a POST answered 503 is not repeated; a GET answered 502 is', async () => {
    const post = new StubRegistry().on('POST', '/v1/user/', json(503, { code: 503, message: 'down' }));
    expect((await runWith(post, ['user', 'create', '--email', 'a@example.com', '--retries', '3'])).code).toBe(7);
    expect(post.requests).toHaveLength(1);
    const get = new StubRegistry().on('GET', '/profile/', json(502, {}), 1).on('GET', '/profile/', json(200, PROFILE));
    expect((await runWith(get, ['whoami', '--json'])).code).toBe(0);
    get.verify();
  });

  it('a write whose answer was lost is "outcome unknown" (exit 1), sent once; a refused connection is retried (nothing was sent)', async () => {
    const lost = new StubRegistry().on('POST', '/v1/user/', netError('ECONNRESET'));
    const r = await runWith(lost, ['user', 'create', '--email', 'a@example.com']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/the outcome is unknown\. Check whether it took effect/);
    lost.verify();
    const refused = new StubRegistry()
      .on('POST', '/v1/user/', netError('ECONNREFUSED'))
      .on(
        'POST',
        '/v1/user/',
        json(200, { code: 200, success: true, username: USER, email: 'a@example.com', message: 'User created.' }),
      );
    expect((await runWith(refused, ['user', 'create', '--email', 'a@example.com', '--json'])).code).toBe(0);
    refused.verify();
  });

  it('where the service honours Idempotency-Keys, a write that carries no key is still sent once: on 503 (exit 7) and on a lost connection ("outcome unknown")', async () => {
    const honoured = { BOOKDIST_IDEMPOTENCY_KEYS: '1' };
    const busy = new StubRegistry().on('POST', '/v1/user/', json(503, { code: 503, message: 'down' }), Infinity);
    expect((await runWith(busy, ['user', 'create', '--email', 'a@example.com', '--retries', '3'], honoured)).code).toBe(
      7,
    );
    expect(busy.requests).toHaveLength(1);
    expect(busy.requests[0].headers['idempotency-key']).toBeUndefined();
    const lost = new StubRegistry().on('POST', '/v1/order/external/', netError('ECONNRESET'), Infinity);
    const order = [
      'order',
      'create',
      '--username',
      USER,
      '--pricing-id',
      '1',
      '--order-type',
      'TestPlan',
      '--org',
      'x',
      '--billing-name',
      'A B',
      '--billing-postal-code',
      '1',
      '--billing-country',
      'US',
    ];
    const r = await runWith(lost, [...order, '--retries', '3'], honoured);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/the outcome is unknown\. Check whether it took effect/);
    expect(lost.requests).toHaveLength(1);
  });

  it('an order with an order_number is idempotent: its 503 is retried', async () => {
    const http = new StubRegistry()
      .on('POST', '/v1/order/external/', json(503, {}), 1)
      .on(
        'POST',
        '/v1/order/external/',
        json(200, { code: 200, success: true, message: 'Order created.', order: { id: 1, items: [] } }),
      );
    const r = await runWith(http, [
      'order',
      'create',
      '--username',
      USER,
      '--pricing-id',
      '1',
      '--order-type',
      'TestPlan',
      '--org',
      'x',
      '--billing-name',
      'A B',
      '--billing-postal-code',
      '1',
      '--billing-country',
      'US',
      '--order-number',
      'N-1',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    http.verify();
  });
});

describe('settings refused before anything is sent (exit 2, naming the setting and its source)', () => {
  it.each([
    ['file:///etc/passwd', /uses file:/],
    ['javascript:alert(1)', /uses javascript:/],
    ['ftp://files.example.com', /uses ftp:/],
    ['data:text/plain,x', /uses data:/],
    [' http://api.example.com', /spaces or control characters/],
    ['http://api.example.com/?x=1', /has a query/],
    ['http://api.example.com/#frag', /has a fragment/],
    ['http://user:pa55w0rd@api.example.com', /holds a user name or password/],
    ['https://api.example.com:', /\("https:\/\/api\.example\.com:"\) has an empty port/],
    ['https://api.example.com:/v1', /has an empty port/],
    ['http://[::1]:', /has an empty port/],
  ])('--base-url %j', async (url, why) => {
    const http = new StubRegistry();
    const r = await run(['whoami', '--base-url', url], { http, env: stubEnv() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/The base URL from --base-url/);
    expect(r.stderr).toMatch(why);
    expect(r.stderr).not.toContain('pa55w0rd');
    expect(http.requests).toHaveLength(0);
  });

  it.each([
    [['--resolve', 'api.example.com:443'], {}, '--resolve: "api.example.com:443" is not HOST:PORT:ADDRESS'],
    [
      ['--resolve', 'api.example.com:443:203.0.113.7', '--resolve', 'api.example.com:0:10.0.0.1'],
      {},
      '--resolve: "api.example.com:0:10.0.0.1" is not',
    ],
    [
      [],
      { BOOKDIST_RESOLVE: 'api.example.com:443:not-an-ip' },
      'environment variable BOOKDIST_RESOLVE: "api.example.com:443:not-an-ip" is not',
    ],
    [
      [],
      { BOOKDIST_RESOLVE: 'api.example.com:443:2001:db8::7' },
      'an IPv6 address in brackets: api.example.com:443:[2001:db8::7]',
    ],
  ])('--resolve %j %j: exit 2 naming the entry and where it came from, nothing sent', async (flags, env, said) => {
    const http = new StubRegistry();
    const r = await run(['whoami', ...flags], { http, env: { ...stubEnv(), ...env } });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(said);
    expect(http.requests).toHaveLength(0);
  });

  it('--resolve entries as curl writes them: HOST:PORT:ADDR, IPv6 in brackets, several separated by commas; a pin names one host and port', () => {
    const parsed = parsePins('API.Example.com.:443:203.0.113.7, api.example.com:8443:[2001:db8::7]');
    expect(parsed).toEqual({
      pins: [
        { host: 'api.example.com', port: 443, address: '203.0.113.7' },
        { host: 'api.example.com', port: 8443, address: '2001:db8::7' },
      ],
    });
    const pins = 'pins' in parsed ? parsed.pins : [];
    expect(pinFor(pins, 'api.example.com', 443)?.address).toBe('203.0.113.7');
    expect(pinFor(pins, 'API.EXAMPLE.COM', 8443)?.address).toBe('2001:db8::7');
    expect(pinFor(pins, 'api.example.com', 80)).toBeUndefined();
    expect(pinFor(pins, 'www.example.com', 443)).toBeUndefined();
  });

  it('profile add refuses such a URL before storing anything (the password never reaches config.json)', async () => {
    const cfg = join(dir, 'add-cfg');
    const r = await run(
      [
        'profile',
        'add',
        '--name',
        'p',
        '--base-url',
        'https://user:pa55w0rd@api.example.com',
        '--token-stdin',
        '--no-verify',
      ],
      { input: 'tok', env: { BOOKDIST_CONFIG_DIR: cfg } },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /The base URL from --base-url \(https:\/\/api\.example\.com\) holds a user name or password/,
    );
    expect(r.stderr).not.toContain('pa55w0rd');
    expect(existsSync(join(cfg, 'config.json'))).toBe(false);
  });

  it('from the environment, the message names the variable', async () => {
    const r = await run(['whoami'], {
      http: new StubRegistry(),
      env: stubEnv({ BOOKDIST_BASE_URL: 'http://h.example/#x' }),
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('The base URL from environment variable BOOKDIST_BASE_URL');
  });

  it('an empty port from the environment or a stored profile names the variable or the profile; a port or none is fine', async () => {
    const env = await run(['whoami'], {
      http: new StubRegistry(),
      env: stubEnv({ BOOKDIST_STORE_URL: 'https://store.example:' }),
    });
    expect(env.code).toBe(2);
    expect(env.stderr).toContain(
      'The base URL from environment variable BOOKDIST_STORE_URL ("https://store.example:") has an empty port',
    );
    const cfg = join(dir, 'empty-port-cfg');
    mkdirSync(cfg, { recursive: true, mode: 0o700 });
    writeFileSync(
      join(cfg, 'config.json'),
      JSON.stringify({ current: 'prod', profiles: { prod: { baseUrl: 'https://api.example.com:', token: 't' } } }),
      { mode: 0o600 },
    );
    const http = new StubRegistry();
    const stored = await run(['whoami'], {
      http,
      env: { BOOKDIST_CONFIG_DIR: cfg, BOOKDIST_DATA_DIR: join(dir, 'd-empty-port') },
    });
    expect(stored.code).toBe(2);
    expect(stored.stderr).toContain('The base URL from profile "prod" ("https://api.example.com:") has an empty port');
    expect(http.requests).toHaveLength(0);
    const fine = new StubRegistry().on('GET', '/profile/', json(200, PROFILE), 2);
    for (const url of [`${STUB_URL}:80`, 'http://[::1]']) {
      const r = await run(['whoami', '--json'], {
        http: fine,
        env: stubEnv({ BOOKDIST_BASE_URL: url, BOOKDIST_STORE_URL: undefined }),
      });
      expect(r.code, `${url}: ${r.stderr}`).toBe(0);
    }
  });

  it('a username or key with a control character', async () => {
    const u = await run(['whoami'], {
      http: new StubRegistry(),
      env: stubEnv({ BOOKDIST_USERNAME: 'ab\r\nX-Evil: 1' }),
    });
    expect(u.code).toBe(2);
    expect(u.stderr).toMatch(/The username from environment variable BOOKDIST_USERNAME holds a control character/);
    const k = await run(['whoami'], { http: new StubRegistry(), env: stubEnv({ BOOKDIST_SHARED_KEY: 'sec\nret' }) });
    expect(k.code).toBe(2);
    expect(k.stderr).not.toContain('sec');
  });

  it('no credentials at all against a base URL: names BOOKDIST_USERNAME, BOOKDIST_KEY_FILE/BOOKDIST_SHARED_KEY and profile add; public endpoints still work', async () => {
    const http = new StubRegistry().on(
      'GET',
      '/',
      json(200, { code: 200, success: true, api: { current_version: 'v1' } }),
    );
    const env = stubEnv({ BOOKDIST_USERNAME: undefined, BOOKDIST_SHARED_KEY: undefined });
    const r = await run(['whoami'], { http, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /needs credentials and none are set: nothing was sent\. Set BOOKDIST_USERNAME with BOOKDIST_KEY_FILE .* or BOOKDIST_SHARED_KEY, or store them with `bookdist profile add`/,
    );
    expect((await run(['status', '--json'], { http, env })).code).toBe(0);
    http.verify();
  });

  it('credentials given through the environment are never dropped for the embedded sandbox', async () => {
    const r = await run(['whoami'], {
      env: {
        BOOKDIST_CONFIG_DIR: join(dir, 'c0'),
        BOOKDIST_DATA_DIR: join(dir, 'd0'),
        BOOKDIST_KEY_FILE: join(dir, 'nope.pem'),
        BOOKDIST_USERNAME: USER,
      },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `Cannot read the key file ${join(dir, 'nope.pem')} (from environment variable BOOKDIST_KEY_FILE): no such file`,
    );
  });
});

describe('permissions as ssh checks them', () => {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  const keyAt = (name: string, mode: number) => {
    const p = join(dir, name);
    writeFileSync(p, pem);
    chmodSync(p, mode);
    return p;
  };
  const env = (extra: Record<string, string>) =>
    stubEnv({ BOOKDIST_SHARED_KEY: undefined, BOOKDIST_USERNAME: USER, ...extra });

  it('a key others can read: a warning naming the file and the chmod, on every use', async () => {
    const key = keyAt('open.pem', 0o644);
    const http = new StubRegistry().on('GET', '/profile/', json(200, PROFILE), 2);
    for (let i = 0; i < 2; i++) {
      const r = await run(['whoami', '--json'], { http, env: env({ BOOKDIST_KEY_FILE: key }) });
      expect(r.code).toBe(0);
      expect(r.stderr).toContain(
        `warning: the private key ${key} can be read or changed by other users (mode 0644); fix it with \`chmod 600 ${key}\``,
      );
    }
  });

  it('a key others can write is refused (exit 2), nothing sent', async () => {
    const key = keyAt('writable.pem', 0o666);
    const http = new StubRegistry();
    const r = await run(['whoami'], { http, env: env({ BOOKDIST_KEY_FILE: key }) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `can be changed by other users (mode 0666): refused, as ssh does. Fix it with \`chmod 600 ${key}\``,
    );
    expect(http.requests).toHaveLength(0);
  });

  it('a config file and a keys directory open to others get warnings', async () => {
    const cfg = join(dir, 'cfg');
    mkdirSync(join(cfg, 'keys'), { recursive: true });
    writeFileSync(join(cfg, 'config.json'), '{"profiles":{}}');
    chmodSync(join(cfg, 'config.json'), 0o666);
    chmodSync(join(cfg, 'keys'), 0o777);
    const http = new StubRegistry().on('GET', '/profile/', json(200, PROFILE));
    const r = await run(['whoami', '--json'], { http, env: stubEnv({ BOOKDIST_CONFIG_DIR: cfg }) });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      `the config file ${join(cfg, 'config.json')} can be read or changed by other users (mode 0666); fix it with \`chmod 600`,
    );
    expect(r.stderr).toContain(
      `the keys directory ${join(cfg, 'keys')} can be read or changed by other users (mode 0777); fix it with \`chmod 700`,
    );
  });
});

describe('secrets stay where they belong', () => {
  it('a store host of another origin gets no credentials; the base URL does', async () => {
    const http = new StubRegistry().on('GET', /^\/api\/offers\.json/, json(200, { offers: [] }), 2);
    const other = await run(['api', 'GET', '/api/offers.json', '--store'], {
      http,
      env: stubEnv({ BOOKDIST_STORE_URL: 'http://store.elsewhere.test' }),
    });
    expect(other.code, other.stderr).toBe(0);
    const [a] = http.requests;
    expect(a.url.startsWith('http://store.elsewhere.test/')).toBe(true);
    expect(
      Object.keys(a.headers).filter((h) =>
        ['api-key', 'signature', 'api-user', 'user', 'authorization', 'authorization-token'].includes(h),
      ),
    ).toEqual([]);
  });

  it('--debug shows redemption codes and generated passwords cut (first characters and length); BOOKDIST_DEBUG_BODIES=full in full', async () => {
    const code = 'ABCD-EFGH-JKMN';
    const answer = json(200, { code: 200, success: true, codes: [{ code, deactivation_date: null, limit_days: 0 }] });
    const http = new StubRegistry().on('POST', '/v1/codes/generate/', answer, 2);
    const args = [
      'codes',
      'generate',
      '--hash-id',
      'a'.repeat(40),
      '--org',
      'x',
      '--count',
      '1',
      '--debug',
      '-o',
      'ndjson',
    ];
    const cut = await run(args, { http, env: stubEnv() });
    expect(cut.code, cut.stderr).toBe(0);
    expect(cut.stdout).toContain(code);
    expect(cut.stderr).not.toContain(code);
    expect(cut.stderr).toContain('"code":"ABCD…(14 chars)"');
    const full = await run(args, { http, env: stubEnv({ BOOKDIST_DEBUG_BODIES: 'full' }) });
    expect(full.stderr).toContain(code);
    expect(full.stderr).not.toContain('stub-shared-key');
    const pw = new StubRegistry().on(
      'POST',
      '/v1/user/',
      json(200, {
        code: 200,
        success: true,
        username: USER,
        email: 'a@example.com',
        passwd: 'Gen3rated-Pw',
        message: 'User created.',
      }),
    );
    const u = await run(['user', 'create', '--email', 'a@example.com', '--debug', '--json'], {
      http: pw,
      env: stubEnv(),
    });
    expect(u.stdout).toContain('Gen3rated-Pw');
    expect(u.stderr).not.toContain('Gen3rated-Pw');
  });
});

describe('profile check: the way to the service', () => {
  it('the clock difference to the Date header, with what to do when it is off', async () => {
    const late = new Date(NOW.getTime() + 300_000).toUTCString();
    const http = new StubRegistry().on('GET', '/profile/', json(200, PROFILE, { date: late }));
    const r = await run(['profile', 'check', '--json'], { http, env: stubEnv(), clock });
    expect(r.code, r.stderr).toBe(0);
    const n = JSON.parse(r.stdout).network;
    expect(n.clock.offset_seconds).toBe(300);
    expect(n.clock.fix).toMatch(
      /clock is 300 s behind the service's: certificate checks and the expiry times bookdist works out depend on it/,
    );
    expect(n.tls).toBeNull();
    const card = await run(['profile', 'check'], {
      http: new StubRegistry().on('GET', '/profile/', json(200, PROFILE, { date: late })),
      env: stubEnv(),
      clock,
      tty: { columns: 100 },
    });
    expect(card.stdout).toMatch(/Clock +300 s from the service's Date/);
    expect(card.stdout).toMatch(/TLS +none \(http:\/\/\)/);
    expect(STUB_URL.startsWith('http:')).toBe(true);
  });
});

describe('a bulk job stops at the first certificate or proxy failure (exit 8 or 9), with its summary and how to continue', () => {
  const HASH = 'c'.repeat(40);
  const codes = (n: number, from: number) =>
    json(200, {
      code: 200,
      success: true,
      codes: Array.from({ length: n }, (_, i) => ({
        code: `CODE-${from + i}`,
        deactivation_date: null,
        limit_days: 0,
      })),
    });
  const expired = netError('CERT_HAS_EXPIRED', 'certificate has expired');
  const refusedByProxy = () => {
    throw Object.assign(new Error('the proxy answered 407 Proxy Authentication Required'), {
      code: 'BOOKDIST_PROXY_AUTH',
      proxy: 'http://proxy.example:3128',
      proxyStatus: 407,
    });
  };

  it('the command that continues a job keeps its --resolve entries (the same address under the same name)', async () => {
    const out = join(dir, 'pinned-codes.csv');
    const args = [
      'codes',
      'generate',
      '--hash-id',
      HASH,
      '--org',
      'x',
      '--count',
      '20',
      '--batch-size',
      '10',
      '--concurrency',
      '1',
      '--out',
      out,
    ];
    const http = new StubRegistry().on('POST', '/v1/codes/generate/', expired);
    const r = await run(
      [...args, '--resolve', 'api.bookdist.test:80:127.0.0.1', '--resolve', 'api.bookdist.test:443:[::1]'],
      { http, env: stubEnv() },
    );
    expect(r.code, r.stderr).toBe(8);
    expect(r.stderr).toMatch(
      /continue with:\n {2}bookdist codes generate .*--resolve api\.bookdist\.test:80:127\.0\.0\.1 --resolve 'api\.bookdist\.test:443:\[::1\]'.* --resume\n/,
    );
  });

  it('codes generate --out: the batch that met the certificate failure is the last request; exit 8; --resume then generates exactly the rest', async () => {
    const out = join(dir, 'stopped-codes.csv');
    const args = [
      'codes',
      'generate',
      '--hash-id',
      HASH,
      '--org',
      'x',
      '--count',
      '30',
      '--batch-size',
      '10',
      '--concurrency',
      '1',
      '--out',
      out,
    ];
    const http = new StubRegistry()
      .on('POST', '/v1/codes/generate/', codes(10, 0))
      .on('POST', '/v1/codes/generate/', expired);
    const r = await run(args, { http, env: stubEnv() });
    expect(r.code, r.stderr).toBe(8);
    expect(http.requests).toHaveLength(2);
    http.verify();
    expect(r.stderr).toContain(
      'codes generate: Certificate problem: the certificate of api.bookdist.test did not verify: it has expired (CERT_HAS_EXPIRED). Nothing was sent.',
    );
    expect(r.stderr).toContain('Whoever runs api.bookdist.test must renew its certificate');
    expect(r.stderr).toMatch(
      new RegExp(
        `codes generate: 10 of 30 codes generated for ${HASH} in .* → ${out.replace(/[/.]/g, '\\$&')}\\. Once that is fixed, continue with:\\n {2}bookdist codes generate .*--out ${out.replace(/[/.]/g, '\\$&')} --resume\\n`,
      ),
    );
    const resumed = new StubRegistry()
      .on('POST', '/v1/codes/generate/', codes(10, 10))
      .on('POST', '/v1/codes/generate/', codes(10, 20));
    const again = await run([...args, '--resume'], { http: resumed, env: stubEnv() });
    expect(again.code, again.stderr).toBe(0);
    resumed.verify();
    const rows = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(',')[0]);
    expect(new Set(rows).size).toBe(30);
  });

  it('book get --isbn-file to stdout: a proxy refusal is exit 9 after one request, no item written as failed, and the command to run again', async () => {
    const list = join(dir, 'isbns-proxy.txt');
    writeFileSync(list, '9781614001379\n9781614002741\n');
    const ca = join(dir, 'ca-for-hint.pem');
    writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    const http = new StubRegistry().on('POST', '/v1/book/search/', refusedByProxy);
    const r = await run(['book', 'get', '--isbn-file', list, '-o', 'ndjson', '--ca-file', ca], {
      http,
      env: stubEnv(),
    });
    expect(r.code, r.stderr).toBe(9);
    expect(http.requests).toHaveLength(1);
    expect(r.stdout).toBe('');
    // Under -o ndjson the error is reported as JSON, with the exit code.
    const { error } = JSON.parse(r.stderr.trim().split('\n').pop()!);
    expect(error.exit_code).toBe(9);
    expect(error.message).toContain('book get: Proxy problem: the proxy http://proxy.example:3128 for POST');
    expect(error.message).toMatch(
      new RegExp(
        `Once that is fixed, continue with:\n {2}bookdist book get --isbn-file ${list.replace(/[/.]/g, '\\$&')} --ca-file ${ca.replace(/[/.]/g, '\\$&')} --output ndjson$`,
      ),
    );
  });

  it('a row job (user create --from-csv): the rows after the failure are not sent; the summary names what was done', async () => {
    const csv = join(dir, 'users-cert.csv');
    writeFileSync(csv, 'email\na@example.com\nb@example.com\nc@example.com\n');
    const http = new StubRegistry()
      .on(
        'POST',
        '/v1/user/',
        json(200, { code: 200, success: true, username: USER, email: 'a@example.com', message: 'User created.' }),
      )
      .on('POST', '/v1/user/', netError('UNABLE_TO_VERIFY_LEAF_SIGNATURE'));
    const r = await run(
      ['user', 'create', '--from-csv', csv, '--concurrency', '1', '--results', join(dir, 'users-cert.ndjson')],
      { http, env: stubEnv() },
    );
    expect(r.code, r.stderr).toBe(8);
    http.verify();
    expect(http.requests).toHaveLength(2);
    expect(r.stderr).toMatch(/user create: Certificate problem: .*its issuer is not a trusted certificate authority/);
    expect(r.stderr).toMatch(/--results \S+users-cert\.ndjson .*--resume\n/);
  });
});
