// The network partners have (issue 21), end to end: the real bin/bookdist over HTTPS to
// `bookdist sandbox serve --tls` (its own private CA), reached by the host name bookdist.test
// through a real forward proxy (tinyproxy, which scripts/prepare-tests.sh installs), since
// loopback names are never proxied. The machine's /etc/hosts is never edited: tinyproxy runs with
// a hosts file of its own that maps bookdist.test to 127.0.0.1 (a private mount namespace,
// test/helpers/private-hosts.ts), and bookdist, where it connects to bookdist.test itself
// (NO_PROXY), is told the address with BOOKDIST_RESOLVE (curl's --resolve). Requests the sandbox
// received are counted from its log (one line per request); the proxy's use from tinyproxy's log.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:https';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect as netConnect, createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BIN, runCli, type CliResult } from '../helpers/cli.js';
import { WELL_KNOWN } from '../helpers/sandbox.js';
import { ensureTlsFiles, serverCertificate } from '../../src/sandbox/http/tls.js';
import { privateHostsProblem, withHosts, writeHosts } from '../helpers/private-hosts.js';

const HOST = 'bookdist.test';
const PROXY_USER = 'alice';
const PROXY_PASSWORD = 'w0nderland-pw';

let dir: string;
const children: ChildProcess[] = [];
/** Every sandbox port: bookdist.test:PORT resolves to 127.0.0.1 for bookdist (BOOKDIST_RESOLVE). */
const ports: number[] = [];
/** Why these tests cannot run here (no private /etc/hosts for tinyproxy), listed in the run's summary. */
const cannot = privateHostsProblem();

interface Served {
  port: number;
  url: string;
  log: string[];
  /** Log lines of service requests (not /_sandbox/ control routes). */
  requests(): string[];
}

/** Spawn `bookdist sandbox serve --tls` on a free port; resolves when it printed its URL. */
function serve(db: string, extra: string[] = [], tls = true): Promise<Served> {
  const child = spawn(
    process.execPath,
    [
      BIN,
      'sandbox',
      'serve',
      ...(tls ? ['--tls'] : []),
      '--port',
      '0',
      '--db',
      db,
      '--allow-host',
      HOST,
      '--process-delay',
      '300ms',
      ...extra,
    ],
    {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', BOOKDIST_DATA_DIR: join(dir, 'data') },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  const log: string[] = [];
  let partial = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    const lines = (partial + d).split('\n');
    partial = lines.pop()!;
    log.push(...lines);
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.on('exit', (code) => reject(new Error(`sandbox serve exited ${code}: ${log.join('\n')}`)));
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /^https?:\/\/127\.0\.0\.1:(\d+)\n/.exec(out);
      if (!m) return;
      const port = Number(m[1]);
      ports.push(port);
      resolve({
        port,
        url: `${tls ? 'https' : 'http'}://${HOST}:${port}`,
        log,
        requests: () => log.filter((l) => /^(GET|POST) \/(?!_sandbox)/.test(l)),
      });
    });
  });
}

async function freePort(): Promise<number> {
  const s = createNetServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

interface Proxy {
  url: string;
  port: number;
  log: () => string;
}

/** A real tinyproxy on a free port; `auth` makes it ask for Basic credentials. */
async function tinyproxy(name: string, auth = false): Promise<Proxy> {
  const port = await freePort();
  const conf = join(dir, `${name}.conf`);
  const lines = [`Port ${port}`, 'Listen 127.0.0.1', 'Timeout 30', 'LogLevel Info', 'MaxClients 64'];
  if (process.getuid?.() === 0) lines.push('User nobody');
  if (auth) lines.push(`BasicAuth ${PROXY_USER} ${PROXY_PASSWORD}`);
  writeFileSync(conf, lines.join('\n') + '\n');
  // In its own mount namespace, where /etc/hosts maps bookdist.test (the machine's stays as it is).
  const [command, args] = withHosts(join(dir, 'hosts'), 'tinyproxy', ['-d', '-c', conf]);
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let log = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (log += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (log += d));
  // Ready when it accepts connections.
  for (let i = 0; i < 100; i++) {
    const up = await new Promise<boolean>((r) => {
      const s = netConnect(port, '127.0.0.1');
      s.once('connect', () => (s.destroy(), r(true)));
      s.once('error', () => r(false));
    });
    if (up) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url: `http://127.0.0.1:${port}`, port, log: () => log };
}

let sb: Served;
let caFile: string;
let creds: any;
let proxy: Proxy;
let authProxy: Proxy;
/** A port where nothing listens: a proxy that refuses connections. */
let deadPort: number;

/** The environment of a partner CI job: credentials, the CA, the proxy. */
function env(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    BOOKDIST_CONFIG_DIR: join(dir, 'config'),
    BOOKDIST_DATA_DIR: join(dir, 'data'),
    BOOKDIST_BASE_URL: sb.url,
    BOOKDIST_USERNAME: creds.partner.username,
    BOOKDIST_KEY_FILE: creds.partner.key_file,
    BOOKDIST_TOKEN: creds.operator_token,
    BOOKDIST_CA_FILE: caFile,
    BOOKDIST_RESOLVE: ports.map((p) => `${HOST}:${p}:127.0.0.1`).join(','),
    HTTPS_PROXY: proxy.url,
    ...extra,
  };
}
const cli = (args: string[], extra: Record<string, string | undefined> = {}, input?: string): Promise<CliResult> =>
  runCli(args, { env: env(extra), input, timeoutMs: 60_000 });
const connects = (p: Proxy, port = sb.port) =>
  p
    .log()
    .split('\n')
    .filter((l) => l.includes(`CONNECT ${HOST}:${port}`)).length;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bookdist-network-'));
  sb = await serve(join(dir, 'sb.db'));
  const c = await runCli(['sandbox', 'credentials', '--db', join(dir, 'sb.db'), '--json'], {
    env: { BOOKDIST_DATA_DIR: join(dir, 'data') },
  });
  creds = JSON.parse(c.stdout);
  caFile = creds.tls_ca_file;
  if (cannot) return;
  writeHosts(join(dir, 'hosts'), [HOST]);
  proxy = await tinyproxy('proxy');
  authProxy = await tinyproxy('auth-proxy', true);
  deadPort = await freePort();
}, 60_000);

beforeEach((ctx) => {
  if (cannot) ctx.skip(`the network tests need tinyproxy with its own hosts file: ${cannot}`);
});

afterAll(async () => {
  for (const c of children) c.kill('SIGTERM');
  await Promise.all(
    children.map((c) =>
      c.exitCode !== null || c.signalCode !== null ? undefined : new Promise((r) => c.once('exit', r)),
    ),
  );
  rmSync(dir, { recursive: true, force: true });
});

describe('sandbox serve --tls', () => {
  it('serves HTTPS with a certificate of its own CA, kept beside the database and printed by sandbox credentials', () => {
    expect(caFile).toBe(join(dir, 'sb-tls-ca.pem'));
    expect(readFileSync(caFile, 'utf8')).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(sb.log.join('\n')).toContain(`TLS: clients trust ${caFile}`);
  });
});

describe('over HTTPS through a real proxy, one command of each group', () => {
  it('status, whoami, api, book get, book search, user create, order free, codes summary, import search, offers get, access allow, profile check', async () => {
    const before = connects(proxy);
    const H = WELL_KNOWN.readme.hash_id;
    const run = async (args: string[]) => {
      const r = await cli([...args, '--json']);
      expect(r.code, `${args.join(' ')}\n${r.stderr}`).toBe(0);
      return JSON.parse(r.stdout);
    };
    await run(['status']);
    expect((await run(['whoami'])).profile).toBeTruthy();
    await run(['api', 'GET', '/profile/']);
    expect(JSON.stringify(await run(['book', 'get', '--isbn', WELL_KNOWN.readme.isbn13]))).toContain(H);
    await run(['book', 'search', '--title', 'Lighthouse']);
    const user = (await run(['user', 'create', '--email', `net-${Date.now()}@example.com`])).username;
    await run(['order', 'free', '--username', user, '--hash-id', H]);
    await run(['codes', 'summary']);
    await run(['import', 'search', '--title', 'a']);
    await run(['offers', 'get', '--isbn', WELL_KNOWN.readme.isbn13]);
    const other = (await run(['user', 'create', '--email', `net2-${Date.now()}@example.com`])).username;
    await run(['access', 'allow', '--hash-id', H, '--username', other, '--price', '1.00']);
    const check = await cli(['profile', 'check', '--json']);
    expect(check.code, check.stderr).toBe(0);
    // profile check diagnoses the way to the service: proxy, CA bundle, TLS, certificate, clock.
    const n = JSON.parse(check.stdout).network;
    expect(n.proxy).toEqual({ used: proxy.url, why: 'HTTPS_PROXY', fix: 'To go direct, name the host in NO_PROXY.' });
    expect(n.resolve).toContainEqual({
      host: HOST,
      port: sb.port,
      address: '127.0.0.1',
      from: 'environment variable BOOKDIST_RESOLVE',
    });
    expect(n.ca.file).toBe(caFile);
    expect(n.tls.protocol).toBe('TLSv1.3');
    expect(n.tls.issuer).toContain('CN=bookdist sandbox CA');
    expect(n.tls.days_left).toBeGreaterThan(300);
    expect(n.clock.offset_seconds).toBe(0);
    const direct = await cli(['profile', 'check', '--json'], { NO_PROXY: HOST });
    expect(direct.code, direct.stderr).toBe(0);
    expect(JSON.parse(direct.stdout).network.proxy).toEqual({
      used: null,
      why: 'NO_PROXY entry "bookdist.test" names bookdist.test',
    });
    // Every command went through the proxy (keep-alive may carry several requests per tunnel).
    expect(connects(proxy) - before).toBeGreaterThanOrEqual(12);
  }, 120_000);

  it("profile check measures this machine's clock against the service's Date: set 10 minutes ahead (libfaketime), it says so and what to do", async () => {
    const lib = [
      '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1',
      '/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1',
      '/usr/lib/faketime/libfaketime.so.1',
    ].find(existsSync);
    expect(lib, 'libfaketime (Debian package faketime; .ci/run installs it)').toBeTruthy();
    const r = await cli(['profile', 'check', '--json'], { LD_PRELOAD: lib, FAKETIME: '+600s' });
    expect(r.code, r.stderr).toBe(0);
    const clock = JSON.parse(r.stdout).network.clock;
    // The Date header has whole seconds; the request takes a moment.
    expect(clock.offset_seconds).toBeGreaterThanOrEqual(-603);
    expect(clock.offset_seconds).toBeLessThanOrEqual(-598);
    expect(clock.fix).toMatch(/^This machine's clock is 60\d s ahead of the service's: .*set the clock \(NTP\)\.$/);
    const card = await cli(['profile', 'check'], { LD_PRELOAD: lib, FAKETIME: '+600s' });
    expect(card.code, card.stderr).toBe(0);
    expect(card.stdout).toMatch(/ahead of the service's/);
  });

  it('book process --wait', async () => {
    const before = connects(proxy);
    const r = await cli(['book', 'process', WELL_KNOWN.unprocessed.hash_id, '--wait', '--interval', '100ms', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(connects(proxy)).toBeGreaterThan(before);
  }, 60_000);

  it('a bulk job interrupted by Ctrl-C, then --resume, ends with exactly --count codes', async () => {
    const out = join(dir, 'codes.csv');
    const args = [
      'codes',
      'generate',
      '--hash-id',
      WELL_KNOWN.readme.hash_id,
      '--org',
      'net',
      '--count',
      '3000',
      '--batch-size',
      '10',
      '--concurrency',
      '1',
      '--out',
      out,
    ];
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', ...env() } as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<NodeJS.Signals | null>((r) => child.once('exit', (_code, signal) => r(signal)));
    for (let i = 0; i < 400 && !(existsSync(out) && readFileSync(out, 'utf8').split('\n').length > 30); i++)
      await new Promise((r) => setTimeout(r, 25));
    child.kill('SIGINT');
    expect(await exited, stderr).toBe('SIGINT');
    expect(stderr).toMatch(/--resume/);
    const rows = () => readFileSync(out, 'utf8').trim().split('\n').length - 1;
    expect(rows()).toBeLessThan(3000);
    const resumed = await cli([...args, '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(rows()).toBe(3000);
    expect(
      new Set(
        readFileSync(out, 'utf8')
          .trim()
          .split('\n')
          .slice(1)
          .map((l) => l.split(',')[0]),
      ).size,
    ).toBe(3000);
  }, 120_000);
});

describe('which requests go through the proxy', () => {
  it('a localhost base URL goes direct although a proxy is set (loopback is never proxied)', async () => {
    const r = await cli(['whoami', '--json'], {
      BOOKDIST_BASE_URL: `https://localhost:${sb.port}`,
      HTTPS_PROXY: `http://127.0.0.1:${deadPort}`,
    });
    expect(r.code, r.stderr).toBe(0);
    const ip = await cli(['whoami', '--json', '--debug'], {
      BOOKDIST_BASE_URL: `https://127.0.0.1:${sb.port}`,
      HTTPS_PROXY: `http://127.0.0.1:${deadPort}`,
    });
    expect(ip.code, ip.stderr).toBe(0);
    expect(ip.stderr).toContain('proxy: none, direct (127.0.0.1 is loopback, never proxied (HTTPS_PROXY ignored))');
  });

  it('NO_PROXY as curl reads it: a domain suffix, a host:port, *; another name still goes through the proxy', async () => {
    const dead = `http://127.0.0.1:${deadPort}`;
    for (const noProxy of ['.test', 'bookdist.test', `bookdist.test:${sb.port}`, '*', 'example.com, test']) {
      const r = await cli(['status', '--json'], { HTTPS_PROXY: dead, NO_PROXY: noProxy });
      expect(r.code, `${noProxy}: ${r.stderr}`).toBe(0);
    }
    for (const noProxy of ['example.com', 'bookdist.test:1', 'other.test']) {
      const r = await cli(['status', '--json', '--retries', '0'], { HTTPS_PROXY: dead, no_proxy: noProxy });
      expect(r.code, `${noProxy}: ${r.stderr}`).toBe(9);
    }
  });

  it('--resolve HOST:PORT:ADDR (over BOOKDIST_RESOLVE) is where bookdist connects for that name and port; the certificate is still checked for the name', async () => {
    const direct = { NO_PROXY: HOST };
    // env() pins bookdist.test to 127.0.0.1 for every sandbox port: a direct request reaches the
    // sandbox under its name (the sandbox's certificate names bookdist.test, and it verified).
    const ok = await cli(['whoami', '--json', '--debug'], direct);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toContain(`${HOST}:${sb.port} connects to 127.0.0.1 (environment variable BOOKDIST_RESOLVE)`);
    // The flag wins over the variable: an address where nothing listens is refused.
    const flag = await cli(['whoami', '--retries', '0', '--resolve', `${HOST}:${sb.port}:127.0.0.3`], direct);
    expect(flag.code, flag.stderr).toBe(7);
    expect(flag.stderr).toContain(
      `GET https://${HOST}:${sb.port}/profile/: could not reach the service (ECONNREFUSED)`,
    );
    // Repeated flags and commas add entries; profile check lists them with where they came from.
    const check = await cli(
      [
        'profile',
        'check',
        '--json',
        '--resolve',
        `other.test:1:10.0.0.1,${HOST}:${sb.port}:127.0.0.1`,
        '--resolve',
        `${HOST}:1:[::1]`,
      ],
      direct,
    );
    expect(check.code, check.stderr).toBe(0);
    expect(JSON.parse(check.stdout).network.resolve).toEqual([
      { host: 'other.test', port: 1, address: '10.0.0.1', from: '--resolve' },
      { host: HOST, port: sb.port, address: '127.0.0.1', from: '--resolve' },
      { host: HOST, port: 1, address: '::1', from: '--resolve' },
    ]);
    // Through the proxy the proxy resolves the name (as with curl): a pin for it changes nothing there.
    const proxied = await cli(['whoami', '--json', '--resolve', `${HOST}:${sb.port}:127.0.0.3`]);
    expect(proxied.code, proxied.stderr).toBe(0);
  });

  it('plain http goes to the proxy in absolute form (HTTP_PROXY), HTTPS_PROXY is not used for it', async () => {
    const plain = await serve(join(dir, 'sb.db'), [], false);
    const r = await cli(['whoami', '--json'], {
      BOOKDIST_BASE_URL: plain.url,
      HTTP_PROXY: proxy.url,
      HTTPS_PROXY: `http://127.0.0.1:${deadPort}`,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(proxy.log()).toContain(`GET http://${HOST}:${plain.port}/profile/`);
  });

  it('a proxy that refuses connections: exit 9 naming the proxy, never its credentials; not retried', async () => {
    const r = await cli(['whoami'], { HTTPS_PROXY: `http://bob:pr0xy-s3cret@127.0.0.1:${deadPort}` });
    expect(r.code).toBe(9);
    expect(r.stderr).toContain(`Proxy problem: the proxy http://127.0.0.1:${deadPort} `);
    expect(r.stderr).toMatch(/could not be reached \(ECONNREFUSED\)/);
    expect(r.stderr).not.toContain('pr0xy-s3cret');
    expect(r.stderr).not.toContain('bob');
  });

  it('a proxy that asks for credentials: wrong ones exit 9 (never shown, not in --debug), the right ones (Basic) work', async () => {
    const wrong = await cli(['whoami', '--debug'], {
      HTTPS_PROXY: `http://${PROXY_USER}:not-the-password@127.0.0.1:${authProxy.port}`,
    });
    expect(wrong.code, wrong.stderr).toBe(9);
    expect(wrong.stderr).toMatch(
      new RegExp(`the proxy http://127\\.0\\.0\\.1:${authProxy.port} .*refused the credentials`),
    );
    expect(wrong.stderr).not.toContain('not-the-password');
    expect(wrong.stderr).toContain(`proxy: http://127.0.0.1:${authProxy.port} (HTTPS_PROXY)`);
    const right = await cli(['whoami', '--json', '--debug'], {
      HTTPS_PROXY: `http://${PROXY_USER}:${PROXY_PASSWORD}@127.0.0.1:${authProxy.port}`,
    });
    expect(right.code, right.stderr).toBe(0);
    expect(right.stderr).not.toContain(PROXY_PASSWORD);
    expect(connects(authProxy)).toBeGreaterThanOrEqual(2);
  });
});

describe('certificates', () => {
  let wrongHost: TlsServer;
  let wrongPort: number;
  let connections = 0;
  beforeAll(async () => {
    // A TLS server whose certificate (from the same kind of private CA) names another host.
    const files = ensureTlsFiles(join(dir, 'other', 'x.db').replace('/other/', '/'), ['only.example']);
    wrongHost = createTlsServer({ cert: files.cert, key: files.key }, (_q, res) => res.end('{}'));
    wrongHost.on('connection', () => connections++);
    await new Promise<void>((r) => wrongHost.listen(0, '127.0.0.1', () => r()));
    wrongPort = (wrongHost.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => wrongHost.close(() => r())));

  it('a private CA not trusted: exit 8, one connection, the message names the host, the reason and --ca-file', async () => {
    const before = sb.requests().length;
    const r = await cli(['whoami'], { BOOKDIST_CA_FILE: undefined });
    expect(r.code).toBe(8);
    expect(r.stderr).toContain(
      `Certificate problem: the certificate of ${HOST}:${sb.port} did not verify: its issuer is not a trusted certificate authority`,
    );
    expect(r.stderr).toMatch(/--ca-file FILE, BOOKDIST_CA_FILE/);
    expect(sb.requests().length).toBe(before);
    const d = await cli(['whoami', '--ca-file', caFile, '--json'], { BOOKDIST_CA_FILE: undefined });
    expect(d.code, d.stderr).toBe(0);
  });

  it('a certificate for another host name: exit 8 after exactly one connection (never retried)', async () => {
    const other = join(dir, 'x-tls-ca.pem');
    connections = 0;
    const r = await cli(['status', '--retries', '3'], {
      BOOKDIST_BASE_URL: `https://localhost:${wrongPort}`,
      BOOKDIST_CA_FILE: other,
    });
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(/certificate of localhost:\d+ did not verify: it does not name this host/);
    expect(r.stderr).toContain(`The CA certificates of ${other}`);
    expect(connections).toBe(1);
  });

  it('in a bulk job too: the job stops at the first certificate failure (exit 8) after one connection, never retried, with its summary and how to continue', async () => {
    const isbns = join(dir, 'two-isbns.txt');
    writeFileSync(isbns, `${WELL_KNOWN.readme.isbn13}\n${WELL_KNOWN.unprocessed.isbn13}\n`);
    connections = 0;
    const r = await cli(['book', 'get', '--isbn-file', isbns, '--retries', '3', '-o', 'ndjson'], {
      BOOKDIST_BASE_URL: `https://localhost:${wrongPort}`,
      BOOKDIST_CA_FILE: join(dir, 'x-tls-ca.pem'),
    });
    expect(r.code, r.stderr).toBe(8);
    expect(r.stdout).toBe('');
    const { error } = JSON.parse(r.stderr.trim().split('\n').pop()!);
    expect(error.exit_code).toBe(8);
    expect(error.message).toMatch(
      /^book get: Certificate problem: the certificate of localhost:\d+ did not verify: it does not name this host/,
    );
    expect(error.message).toMatch(
      /\nbook get: 0 looked up: 0 found, 0 not found in \S+\. Once that is fixed, continue with:\n {2}bookdist book get --isbn-file \S+two-isbns\.txt --output ndjson --retries 3$/,
    );
    expect(connections).toBe(1);
    // With a file, the job is continued with --resume once the certificate is trusted.
    const out = join(dir, 'codes-cert.csv');
    const codes = [
      'codes',
      'generate',
      '--hash-id',
      WELL_KNOWN.readme.hash_id,
      '--org',
      'net',
      '--count',
      '20',
      '--batch-size',
      '10',
      '--concurrency',
      '1',
      '--out',
      out,
    ];
    const stopped = await cli(codes, { BOOKDIST_CA_FILE: undefined });
    expect(stopped.code, stopped.stderr).toBe(8);
    expect(stopped.stderr).toMatch(
      /codes generate: Certificate problem: .*its issuer is not a trusted certificate authority/,
    );
    expect(stopped.stderr).toContain(`→ ${out}. Once that is fixed, continue with:\n  bookdist codes generate`);
    const resumed = await cli([...codes, '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(new Set(readFileSync(out, 'utf8').trim().split('\n').slice(1)).size).toBe(20);
  });

  it('an expired certificate: exit 8 after one connection, naming the host, the reason and --ca-file/BOOKDIST_CA_FILE', async () => {
    const ca = ensureTlsFiles(join(dir, 'expired.db'), ['localhost']);
    const day = 86_400_000;
    const old = serverCertificate(
      { cert: readFileSync(ca.caFile, 'utf8'), key: readFileSync(ca.caKeyFile, 'utf8') },
      ['localhost'],
      { from: new Date(Date.now() - 30 * day), to: new Date(Date.now() - day) },
    );
    let opened = 0;
    const server = createTlsServer({ cert: old.cert, key: old.key }, (_q, res) => res.end('{}'));
    server.on('connection', () => opened++);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const port = (server.address() as AddressInfo).port;
      const r = await cli(['whoami', '--retries', '3'], {
        BOOKDIST_BASE_URL: `https://localhost:${port}`,
        BOOKDIST_CA_FILE: ca.caFile,
      });
      expect(r.code, r.stderr).toBe(8);
      expect(r.stderr).toContain(
        `Certificate problem: the certificate of localhost:${port} did not verify: it has expired (CERT_HAS_EXPIRED). Nothing was sent.`,
      );
      expect(r.stderr).toMatch(/--ca-file or BOOKDIST_CA_FILE/);
      expect(opened).toBe(1);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it("--ca-file adds to Node's roots (NODE_EXTRA_CA_CERTS included), it does not replace them", async () => {
    const other = join(dir, 'x-tls-ca.pem');
    const r = await cli(['whoami', '--json'], { BOOKDIST_CA_FILE: other, NODE_EXTRA_CA_CERTS: caFile });
    expect(r.code, r.stderr).toBe(0);
  });

  it('a profile keeps its CA file: profile add --ca-file verifies through the proxy with it, and the profile works without BOOKDIST_CA_FILE', async () => {
    const stored = {
      BOOKDIST_CONFIG_DIR: join(dir, 'config-ca'),
      BOOKDIST_BASE_URL: undefined,
      BOOKDIST_USERNAME: undefined,
      BOOKDIST_KEY_FILE: undefined,
      BOOKDIST_TOKEN: undefined,
      BOOKDIST_CA_FILE: undefined,
    };
    const add = await cli(
      [
        'profile',
        'add',
        '--name',
        'tls',
        '--base-url',
        sb.url,
        '--username',
        creds.partner.username,
        '--key-file',
        creds.partner.key_file,
        '--ca-file',
        caFile,
        '--json',
      ],
      stored,
    );
    expect(add.code, add.stderr).toBe(0);
    expect(add.stderr).toMatch(/Verified: /);
    const r = await cli(['whoami', '--profile', 'tls', '--json'], stored);
    expect(r.code, r.stderr).toBe(0);
    const show = await cli(['profile', 'show', 'tls', '--json'], stored);
    expect(JSON.parse(show.stdout).ca_file).toEqual({ value: caFile, source: 'profile tls' });
    expect(JSON.parse(show.stdout).proxy).toEqual({ value: proxy.url, source: 'env HTTPS_PROXY' });
  });

  it('profile add verifies with BOOKDIST_CA_FILE, as every later command trusts it (the profile stores no CA of its own)', async () => {
    const env = {
      BOOKDIST_CONFIG_DIR: join(dir, 'config-env-ca'),
      BOOKDIST_BASE_URL: undefined,
      BOOKDIST_USERNAME: undefined,
      BOOKDIST_KEY_FILE: undefined,
      BOOKDIST_TOKEN: undefined,
      BOOKDIST_CA_FILE: caFile,
    };
    const add = await cli(
      [
        'profile',
        'add',
        '--name',
        'envca',
        '--base-url',
        sb.url,
        '--username',
        creds.partner.username,
        '--key-file',
        creds.partner.key_file,
        '--json',
      ],
      env,
    );
    expect(add.code, add.stderr).toBe(0);
    expect(add.stderr).toMatch(/Verified: /);
    const show = await cli(['profile', 'show', 'envca', '--json'], env);
    expect(JSON.parse(show.stdout).ca_file).toEqual({ value: caFile, source: 'env BOOKDIST_CA_FILE' });
    expect((await cli(['whoami', '--profile', 'envca'], { ...env, BOOKDIST_CA_FILE: undefined })).code).toBe(8);
  });

  it('a CA file that does not exist is exit 2 naming it and where it came from', async () => {
    const r = await cli(['whoami'], { BOOKDIST_CA_FILE: join(dir, 'nope.pem') });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `Cannot read the CA file ${join(dir, 'nope.pem')} (from environment variable BOOKDIST_CA_FILE): no such file`,
    );
  });
});

describe('one retry policy: requests the sandbox received', () => {
  const faulty: Record<string, Served> = {};
  beforeAll(async () => {
    for (const kind of ['429', '503', 'reset'])
      faulty[kind] = await serve(join(dir, 'sb.db'), ['--fault-rate', '1', '--fault', kind]);
  }, 60_000);
  const at = (kind: string, extra: Record<string, string | undefined> = {}) => ({
    BOOKDIST_BASE_URL: faulty[kind].url,
    ...extra,
  });
  const counted = async (kind: string, args: string[], extra: Record<string, string | undefined> = {}) => {
    const before = faulty[kind].requests().length;
    const r = await cli(args, at(kind, extra));
    return { r, sent: faulty[kind].requests().length - before };
  };
  const codesArgs = [
    'codes',
    'generate',
    '--hash-id',
    WELL_KNOWN.readme.hash_id,
    '--org',
    'x',
    '--count',
    '5',
    '--retries',
    '2',
  ];

  it('a GET answered 429: --retries 2 is 3 requests, honouring Retry-After, then exit 7', async () => {
    const { r, sent } = await counted('429', ['whoami', '--retries', '2']);
    expect(r.code).toBe(7);
    expect(sent).toBe(3);
  }, 30_000);

  it('a bulk lookup answered 429: the same 3 requests per item, not nested retries', async () => {
    const isbns = join(dir, 'one-isbn.txt');
    writeFileSync(isbns, `${WELL_KNOWN.readme.isbn13}\n`);
    const before = faulty['429'].requests().length;
    const b = await cli(['book', 'get', '--isbn-file', isbns, '--retries', '2', '-o', 'ndjson'], at('429'));
    expect(b.code, b.stderr).toBe(7);
    expect(faulty['429'].requests().length - before).toBe(3);
  }, 30_000);

  it('a POST answered 503 without an Idempotency-Key honoured: one request', async () => {
    const { r, sent } = await counted('503', ['user', 'create', '--email', 'n503@example.com', '--retries', '2']);
    expect(r.code).toBe(7);
    expect(sent).toBe(1);
  });

  it('a POST with an Idempotency-Key (codes generate): retried only where the service honours keys', async () => {
    const plain = await counted('503', [...codesArgs, '--out', join(dir, 'c503a.csv')]);
    expect(plain.sent).toBe(1);
    const honoured = await counted('503', [...codesArgs, '--out', join(dir, 'c503b.csv')], {
      BOOKDIST_IDEMPOTENCY_KEYS: '1',
    });
    expect(honoured.sent).toBe(3);
  }, 30_000);

  it('a connection reset in a bulk job: a keyed batch is sent once where keys are not honoured, retried where they are', async () => {
    const plain = await counted('reset', [...codesArgs, '--out', join(dir, 'creset-a.csv')]);
    expect(plain.r.code).not.toBe(0);
    expect(plain.sent).toBe(1);
    expect(plain.r.stderr).toMatch(/outcome is unknown/);
    const honoured = await counted('reset', [...codesArgs, '--out', join(dir, 'creset-b.csv')], {
      BOOKDIST_IDEMPOTENCY_KEYS: '1',
    });
    expect(honoured.sent).toBe(3);
  }, 30_000);

  it('a connection reset: a GET is retried (3 requests); a POST is one request, reported as outcome unknown', async () => {
    const get = await counted('reset', ['whoami', '--retries', '2']);
    expect(get.r.code).toBe(7);
    expect(get.sent).toBe(3);
    const post = await counted('reset', ['user', 'create', '--email', 'reset@example.com', '--retries', '2']);
    expect(post.sent).toBe(1);
    expect(post.r.code).toBe(1);
    expect(post.r.stderr).toMatch(/the outcome is unknown/);
  }, 30_000);
});
