// bin/bookdist end to end against a small recording HTTP server: the exact bytes it sends and
// what it prints. (Build first: `npm test` does.)
import { createVerify } from 'node:crypto';
import { spawn } from 'node:child_process';
import { BIN } from '../helpers/cli.js';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { json, rsaKeys, startRecorder, tempDir, text, type Recorded, type Responder } from './helpers.js';

const USER = '0d72df20f23558620646fb3ea030f5';
const keys = rsaKeys();
const t = tempDir();
const keyFiles = { pkcs1: t.file('k1.pem', keys.pkcs1), pkcs8: t.file('k8.pem', keys.pkcs8) };
const SHARED = 'shared-key-e2e-secret';
const TOKEN = 'operator-token-e2e-secret';

const verify = (message: string, sig: string) =>
  createVerify('RSA-SHA256').update(Buffer.from(message, 'utf8')).verify(keys.publicKey, sig, 'base64');
/** The `request` field of a form body, decoded (quote_plus reversed). */
const requestField = (body: Buffer) => {
  const s = body.toString('latin1');
  expect(s.startsWith('request=')).toBe(true);
  return decodeURIComponent(s.slice('request='.length).replace(/\+/g, ' '));
};
const names = (r: Recorded) => r.rawHeaders.map(([k]) => k);
const h = (r: Recorded, name: string) => r.rawHeaders.find(([k]) => k === name)?.[1];

const INDEX = {
  api: {
    admin: 'ops@example.com',
    available_versions: [
      {
        version: 'v1',
        version_date: '2015-01-21',
        version_help: '/v1/describe/',
        version_major: 1,
        version_string: '1.0.3',
        version_url: '/v1/',
      },
    ],
    current_version: 'v1',
    host: 'api.example.com',
  },
  code: 200,
  success: true,
  test_mode: false,
};
const DESCRIBE = {
  endpoints: [
    { name: 'index', methods: ['GET'], path: '/', scope: null, fields: [] },
    {
      name: 'book.search',
      methods: ['POST'],
      path: '/v1/book/search/',
      scope: 'book_metadata',
      fields: [{ name: 'title', type: 'string', required: false, description: 'words' }],
    },
  ],
  code: 200,
  success: true,
  test_mode: true,
};
const XML_400 =
  '<?xml version="1.0" encoding="UTF-8"?>\n<response><error>The following errors were detected:</error><message>The price field was supplied an invalid value</message></response>';

let srv: Awaited<ReturnType<typeof startRecorder>>;
let hits: Record<string, number> = {};
const route: Responder = (q, res) => {
  const n = (hits[q.url] = (hits[q.url] ?? 0) + 1);
  switch (q.url) {
    case '/':
      return json(res, 200, INDEX);
    case '/profile/':
      return json(res, 200, {
        code: 200,
        success: true,
        test_mode: true,
        profile: { nickname: 'Partner Co', city: 'Lyon', country: 'FR' },
        scopes: ['book_metadata', 'invite_user'],
      });
    case '/v1/describe/':
      return json(res, 200, DESCRIBE);
    case '/flaky/':
      return n === 1
        ? json(res, 503, { code: 503, error: true, message: 'Service unavailable' })
        : json(res, 200, { code: 200, success: true, attempt: n });
    case '/limited/':
      return n === 1
        ? json(res, 429, { code: 429, error: true, message: 'Too many requests' }, { 'retry-after': '1' })
        : json(res, 200, { code: 200, success: true, attempt: n });
    case '/v1/access/allow/':
      return text(res, 400, XML_400, 'application/xml');
    case '/gateway/':
      return text(res, 502, 'Bad gateway', 'text/html');
    case '/hang/':
      return; // never answers
    case '/v1/book/index/':
      return json(res, 200, {
        code: 200,
        success: true,
        count: 5000,
        results: Array.from({ length: 5000 }, (_, i) => ({ id: i, title: `Book ${i}`.padEnd(200, '.') })),
      });
    default:
      return json(res, 200, { code: 200, success: true, test_mode: false, echo: q.url });
  }
};
beforeAll(async () => {
  srv = await startRecorder(route);
});
afterAll(async () => {
  await srv.close();
  t.cleanup();
});
beforeEach(() => {
  hits = {};
  srv.requests.length = 0;
});

const envFor = (key: 'pkcs1' | 'pkcs8' | 'shared' = 'pkcs8', extra: Record<string, string> = {}) => ({
  BOOKDIST_CONFIG_DIR: join(t.dir, 'config'),
  BOOKDIST_BASE_URL: srv.url,
  BOOKDIST_USERNAME: USER,
  ...(key === 'shared' ? { BOOKDIST_SHARED_KEY: SHARED } : { BOOKDIST_KEY_FILE: keyFiles[key] }),
  ...extra,
});
const cli = (args: string[], env = envFor(), input?: string) => runCli(args, { env, input });

describe('bytes on the wire', () => {
  for (const key of ['pkcs1', 'pkcs8'] as const) {
    it(`GET with a ${key} key: CryptoAuth headers, signature over the username`, async () => {
      const r = await cli(['whoami', '--json'], envFor(key));
      expect(r.code).toBe(0);
      expect(srv.requests).toHaveLength(1);
      const q = srv.requests[0];
      expect([q.method, q.url, q.body.length]).toEqual(['GET', '/profile/', 0]);
      expect(names(q)).toEqual(expect.arrayContaining(['signature', 'api-user', 'user', 'version', 'authorization']));
      expect(names(q)).not.toContain('api-key');
      expect([h(q, 'api-user'), h(q, 'user'), h(q, 'version'), h(q, 'authorization')]).toEqual([
        USER,
        USER,
        'v1',
        'CryptoAuth',
      ]);
      expect(h(q, 'signature')).toMatch(/^[A-Za-z0-9+/]{342}==$/);
      expect(verify(USER, h(q, 'signature')!)).toBe(true);
    });

    it(`POST with a ${key} key: one form field, Python-style JSON, signature over its exact text`, async () => {
      const r = await cli(
        ['api', 'POST', '/v1/book/search/', '-f', 'title=Café', '-F', 'isbn=["9780321558237"]', '-F', 'limit=5'],
        envFor(key),
      );
      expect(r.code).toBe(0);
      const q = srv.requests[0];
      expect([q.method, q.url]).toEqual(['POST', '/v1/book/search/']);
      expect(h(q, 'content-type')).toBe('application/x-www-form-urlencoded');
      expect(q.body.toString('latin1')).toBe(
        'request=%7B%22title%22%3A+%22Caf%5Cu00e9%22%2C+%22isbn%22%3A+%5B%229780321558237%22%5D%2C+%22limit%22%3A+5%7D',
      );
      expect(h(q, 'content-length')).toBe(String(q.body.length));
      const field = requestField(q.body);
      expect(field).toBe('{"title": "Caf\\u00e9", "isbn": ["9780321558237"], "limit": 5}');
      expect(verify(field, h(q, 'signature')!)).toBe(true);
      expect(JSON.parse(r.stdout)).toMatchObject({ code: 200, echo: '/v1/book/search/' });
    });
  }

  it('SharedKeyAuth: the shared key as api-key, no signature', async () => {
    const r = await cli(['api', 'GET', '/v1/codes/summary/'], envFor('shared'));
    expect(r.code).toBe(0);
    const q = srv.requests[0];
    expect([h(q, 'authorization'), h(q, 'api-key'), h(q, 'api-user'), h(q, 'user'), h(q, 'version')]).toEqual([
      'SharedKeyAuth',
      SHARED,
      USER,
      USER,
      'v1',
    ]);
    expect(names(q)).not.toContain('signature');
  });

  it('access endpoints send the operator token as a shared key', async () => {
    await cli(
      ['api', 'POST', '/v1/access/allow/', '-f', 'hash_id=h', '-f', 'price=1.005'],
      envFor('pkcs8', { BOOKDIST_TOKEN: TOKEN }),
    );
    const q = srv.requests[0];
    expect([h(q, 'authorization'), h(q, 'api-key')]).toEqual(['SharedKeyAuth', TOKEN]);
    expect(names(q)).not.toContain('signature');
  });

  it('--input is sent verbatim and signed as it stands', async () => {
    const file = t.file('payload.json', '{"hash_id":"fb02","username":"0d72"}\n');
    const r = await cli(['api', 'POST', '/v1/book/viewer/', '--input', file]);
    expect(r.code).toBe(0);
    const q = srv.requests[0];
    expect(q.body.toString('latin1')).toBe('request=%7B%22hash_id%22%3A%22fb02%22%2C%22username%22%3A%220d72%22%7D');
    expect(verify('{"hash_id":"fb02","username":"0d72"}', h(q, 'signature')!)).toBe(true);
    const piped = await cli(['api', 'POST', '/v1/book/viewer/', '--input', '-'], envFor(), '{"request": {"a": 1}}');
    expect(piped.code).toBe(0);
    expect(requestField(srv.requests[1].body)).toBe('{"a": 1}');
  });

  it('paths keep their encoding and trailing slash; GET / carries no credentials', async () => {
    await cli(['api', 'GET', '/v1/user/email/a%2Fb%40example.com/']);
    expect(srv.requests[0].url).toBe('/v1/user/email/a%2Fb%40example.com/');
    await cli(['api', 'GET', '/v1/book/index/?offset=0&limit=0']);
    expect(srv.requests[1].url).toBe('/v1/book/index/?offset=0&limit=0');
    const s = await cli(['status', '--json']);
    expect(s.code).toBe(0);
    const q = srv.requests[2];
    expect([q.method, q.url]).toEqual(['GET', '/']);
    for (const n of ['signature', 'api-key', 'api-user', 'user', 'authorization']) expect(names(q)).not.toContain(n);
    expect(JSON.parse(s.stdout)).toEqual(INDEX);
  });
});

describe('what is printed', () => {
  it('status piped is TSV; whoami shows TEST MODE on stderr; describe lists endpoints', async () => {
    // --fields paths are relative to the record: for status, the service index (`api`).
    const s = await cli(['status', '--fields', 'host,current_version']);
    expect(s.stdout).toBe('host\tcurrent_version\napi.example.com\tv1\n');
    const w = await cli(['whoami', '--fields', 'profile.nickname,scopes']);
    expect(w.stdout).toBe('profile.nickname\tscopes\nPartner Co\tbook_metadata;invite_user\n');
    expect(w.stderr).toBe('TEST MODE\n');
    const d = await cli(['describe', '-o', 'csv', '--fields', 'name,path,scope']);
    expect(d.stdout).toBe('name,path,scope\nindex,/,\nbook.search,/v1/book/search/,book_metadata\n');
    const nd = await cli(['describe', '-o', 'ndjson', '--fields', 'name', '-q']);
    expect(nd.stdout).toBe('{"name":"index"}\n{"name":"book.search"}\n');
    expect(nd.stderr).toBe('');
  });

  it('--dry-run prints a curl line with secrets redacted and sends nothing', async () => {
    const r = await cli(
      ['--dry-run', 'api', 'POST', '/v1/user/', '-f', 'email=a@example.com', '-f', 'passwd=pw-secret-1'],
      envFor('pkcs8'),
    );
    expect(r.code).toBe(0);
    expect(srv.requests).toHaveLength(0);
    expect(r.stdout).toBe(
      `curl -X POST '${srv.url}/v1/user/' -H 'accept: application/json' -H 'signature: <redacted>' -H 'api-user: ${USER}' -H 'user: ${USER}' -H 'version: v1' -H 'authorization: CryptoAuth' --data-urlencode 'request={"email": "a@example.com", "passwd": "[REDACTED]"}'\n`,
    );
    const exact = await cli(['--dry-run', 'api', 'POST', '/v1/book/search/', '-f', 'title=Café'], envFor('shared'));
    expect(exact.stdout).toContain(`-H 'api-key: <redacted>' --data-urlencode 'request={"title": "Caf\\u00e9"}'`);
    expect(exact.stdout + exact.stderr).not.toContain(SHARED);
  });

  it('--debug traces on stderr without keys, signatures or shared keys', async () => {
    const r = await cli(
      ['--debug', 'api', 'POST', '/v1/book/search/', '-f', 'title=x'],
      envFor('shared', { BOOKDIST_TOKEN: TOKEN }),
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`[debug] → POST ${srv.url}/v1/book/search/`);
    expect(r.stderr).toContain('[debug]   api-key: [REDACTED]');
    expect(r.stderr).toMatch(/\[debug\] ← 200 \(\d+ ms\)/);
    expect(r.stderr + r.stdout).not.toContain(SHARED);
    const c = await cli(['--debug', 'whoami', '--json'], envFor('pkcs1'));
    const sig = h(srv.requests[1], 'signature')!;
    expect(c.stderr).toContain('[debug]   signature: [REDACTED]');
    expect(c.stderr + c.stdout).not.toContain(sig);
    expect(c.stderr + c.stdout).not.toContain('PRIVATE KEY');
  });
});

describe('resilience and errors', () => {
  it('retries a GET after 503', async () => {
    const r = await cli(['api', 'GET', '/flaky/']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).attempt).toBe(2);
    expect(srv.requests.map((q) => q.url)).toEqual(['/flaky/', '/flaky/']);
  });

  it('honours Retry-After on 429', async () => {
    const started = Date.now();
    const r = await cli(['api', 'GET', '/limited/']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).attempt).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  });

  it('--retries 0 gives up at once: exit 7', async () => {
    const r = await cli(['--retries', '0', 'api', 'GET', '/flaky/']);
    expect(r.code).toBe(7);
    expect(srv.requests).toHaveLength(1);
    expect(r.stderr).toBe('bookdist: HTTP 503: Service unavailable\n');
  });

  it("the access API's XML error becomes the one error shape", async () => {
    const r = await cli(
      ['api', 'POST', '/v1/access/allow/', '-f', 'price=1.005'],
      envFor('pkcs8', { BOOKDIST_TOKEN: TOKEN }),
    );
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({
      code: 400,
      error: true,
      message: 'The price field was supplied an invalid value',
      text: XML_400,
    });
    expect(r.stderr).toBe('bookdist: HTTP 400: The price field was supplied an invalid value\n');
  });

  it('a text body becomes the error message; under --json the error is JSON on stderr', async () => {
    srv.respond((q, res) => (q.url === '/profile/' ? text(res, 502, 'Bad gateway', 'text/html') : json(res, 200, {})));
    try {
      const r = await cli(['whoami']);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe('bookdist: Bad gateway (HTTP 502, GET /profile/)\n');
      const j = await cli(['whoami', '--json']);
      expect(JSON.parse(j.stderr)).toEqual({
        error: {
          status: 502,
          message: 'Bad gateway (HTTP 502, GET /profile/)',
          exit_code: 1,
          details: { text: 'Bad gateway' },
        },
      });
      srv.respond((q, res) =>
        q.url === '/profile/'
          ? text(
              res,
              403,
              XML_400.replace('price field was supplied an invalid value', 'caller lacks authorization'),
              'application/xml',
            )
          : json(res, 200, {}),
      );
      const x = await cli(['whoami']);
      expect(x.code).toBe(4);
      expect(x.stderr).toBe('bookdist: The caller lacks authorization (HTTP 403, GET /profile/)\n');
    } finally {
      srv.respond(route);
    }
  });

  it('--timeout 300ms against a server that never answers: exit 7 with a clear message, the one deadline spent by the first attempt', async () => {
    const started = Date.now();
    const r = await cli(['--timeout', '300ms', '--retries', '1', 'api', 'GET', '/hang/']);
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(
      new RegExp(`^bookdist: GET ${srv.url}/hang/: no answer within 300ms \\(timed out; raise --timeout\\)\\n$`),
    );
    expect(srv.requests).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('a reader that goes away (| head) ends the command quietly', async () => {
    const child = spawn(process.execPath, [BIN, 'api', 'GET', '/v1/book/index/'], {
      env: { PATH: process.env.PATH, ...envFor() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise((r) => child.on('close', r));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it('a service that is not there: exit 7 naming the cause', async () => {
    const r = await cli(['--retries', '0', 'status'], envFor('pkcs8', { BOOKDIST_BASE_URL: 'http://127.0.0.1:9' }));
    expect(r.code).toBe(7);
    expect(r.stderr).toBe('bookdist: GET http://127.0.0.1:9/: could not reach the service (ECONNREFUSED)\n');
  });
});
