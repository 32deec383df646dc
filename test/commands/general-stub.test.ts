// status, whoami, describe, api and profile check in-process through the stub registry: the
// request each sends (endpoint, method, headers, form fields), its output as a table and as JSON,
// and its main error (the service's refusal and the documented exit code).
import { describe, expect, it } from 'vitest';
import { ok, refusal, sentOnce, stdoutJson, stubCli, StubRegistry } from './_stubs.js';

const cli = stubCli();

const INDEX = {
  test_mode: false,
  api: {
    admin: 'ops@bookdist.test',
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
    host: 'api.bookdist.test',
  },
};

const PROFILE = {
  test_mode: true,
  profile: { nickname: 'stubpress', address_1: '1 Pier Road', city: 'Bath', country: 'GB', zip: 'BA1 1AA' },
  scopes: ['book_metadata', 'codes'],
};

const DESCRIBED = {
  endpoints: [
    {
      name: 'codes.generate',
      methods: ['POST'],
      path: '/v1/codes/generate/',
      aliases: [],
      scope: 'codes',
      auth: 'partner',
      summary: 'Generate redemption codes for a book',
      fields: [
        { name: 'hash_id', type: 'string', required: true, description: 'book' },
        { name: 'count', type: 'integer', required: true, description: 'how many codes' },
      ],
    },
    {
      name: 'codes.summary',
      methods: ['GET'],
      path: '/v1/codes/summary/',
      aliases: [],
      scope: 'codes',
      auth: 'partner',
      summary: 'Codes generated and redeemed',
      fields: [],
    },
  ],
};

describe('status', () => {
  it('sends GET / without credentials; shows host and versions as a card and the answer as JSON', async () => {
    const http = new StubRegistry().on('GET', '/', ok(INDEX), 2);
    const card = await cli(http, ['status', '-o', 'table']);
    expect(card.code, card.stderr).toBe(0);
    expect(card.stdout).toMatch(/^Host +api\.bookdist\.test$/m);
    expect(card.stdout).toMatch(/^Current version +v1$/m);
    expect(card.stdout).toMatch(/^Admin +ops@bookdist\.test$/m);
    expect(card.stdout).toMatch(/^Test mode +no$/m);
    expect(card.stdout).toMatch(/v1 +1\.0\.3 +\(2015-01-21\) +\/v1\/ +help: \/v1\/describe\//);
    const j = await cli(http, ['status', '--json']);
    expect(stdoutJson(j).api).toEqual(INDEX.api);
    for (const req of http.sent('/', 'GET')) {
      expect(req.headers['api-user']).toBeUndefined();
      expect(req.headers['api-key']).toBeUndefined();
      expect(req.headers.authorization).toBeUndefined();
    }
  });

  it('a 503 is "unavailable": exit 7 with the service message, after the retries asked for', async () => {
    const http = new StubRegistry().on('GET', '/', refusal(503, 'Down for maintenance'), 2);
    const r = await cli(http, ['status', '--retries', '1']);
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/Down for maintenance/);
    expect(r.stdout).toBe('');
  });

  it('a 200 that is not the documented envelope is not a success (exit 1)', async () => {
    const http = new StubRegistry().on('GET', '/', ok({ test_mode: false }));
    const r = await cli(http, ['status', '--json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/not what the interface promises/);
  });
});

describe('whoami', () => {
  it('sends a signed GET /profile/; shows account, scopes and test mode as a card and as JSON', async () => {
    const http = new StubRegistry().on('GET', '/profile/', ok(PROFILE), 2);
    const card = await cli(http, ['whoami', '-o', 'table']);
    expect(card.code, card.stderr).toBe(0);
    expect(card.stdout).toMatch(/^Username +stubpartner$/m);
    expect(card.stdout).toMatch(/^Nickname +stubpress$/m);
    expect(card.stdout).toMatch(/^Scopes +book_metadata, codes$/m);
    expect(card.stdout).toMatch(/^Test mode +yes$/m);
    expect(card.stderr).toMatch(/TEST MODE/);
    const j = stdoutJson(await cli(http, ['whoami', '--json']));
    expect(j.scopes).toEqual(['book_metadata', 'codes']);
    expect(j.profile.nickname).toBe('stubpress');
    const [req] = http.sent('/profile/', 'GET');
    expect(req!.headers).toMatchObject({
      'api-user': 'stubpartner',
      authorization: 'SharedKeyAuth',
      'api-key': 'stub-shared-key',
      version: 'v1',
    });
  });

  it('refused credentials: exit 4 with the service message and what to check', async () => {
    const http = new StubRegistry().on('GET', '/profile/', refusal(401, 'Authentication failed.'));
    const r = await cli(http, ['whoami']);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/Authentication failed/);
    expect(r.stderr).toMatch(/profile show/);
    expect(r.stderr).not.toContain('stub-shared-key');
  });
});

describe('describe', () => {
  it('sends GET /v1/describe/; lists endpoints as a table, one with --endpoint, all as JSON', async () => {
    const http = new StubRegistry().on('GET', '/v1/describe/', ok(DESCRIBED), 3);
    const table = await cli(http, ['describe', '-o', 'table']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^NAME +METHODS +PATH +SCOPE +FIELDS/m);
    expect(table.stdout).toMatch(
      /^codes\.generate +POST +\/v1\/codes\/generate\/ +codes +hash_id\*:string count\*:integer$/m,
    );
    expect(table.stdout).toMatch(/^codes\.summary +GET +\/v1\/codes\/summary\/ +codes/m);
    const one = await cli(http, ['describe', '--endpoint', 'codes.summary', '--json']);
    expect(one.code, one.stderr).toBe(0);
    expect(JSON.stringify(stdoutJson(one))).not.toContain('codes.generate');
    expect(JSON.stringify(stdoutJson(one))).toContain('codes.summary');
    const all = stdoutJson(await cli(http, ['describe', '--json']));
    expect(JSON.stringify(all)).toContain('codes.generate');
    expect(http.sent('/v1/describe/', 'GET')).toHaveLength(3);
  });

  it('an endpoint the service does not describe: exit 3 naming it', async () => {
    const http = new StubRegistry().on('GET', '/v1/describe/', ok(DESCRIBED));
    const r = await cli(http, ['describe', '--endpoint', 'book.nothing']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/book\.nothing/);
  });

  it('a scope refusal: exit 4', async () => {
    const http = new StubRegistry().on('GET', '/v1/describe/', refusal(403, 'Not authorized for this scope.'));
    expect((await cli(http, ['describe'])).code).toBe(4);
  });
});

describe('api', () => {
  it('POST sends -f and -F fields as the form field `request`; prints the answer body as JSON', async () => {
    const http = new StubRegistry().on('POST', '/v1/book/search/', ok({ count: 0, results: [] }));
    const r = await cli(http, [
      'api',
      'POST',
      '/v1/book/search/',
      '-f',
      'title=Winter',
      '-F',
      'isbn=["9781614001379"]',
      '-F',
      'limit=5',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(stdoutJson(r)).toEqual({ code: 200, success: true, count: 0, results: [] });
    const req = sentOnce(http, 'POST', '/v1/book/search/');
    expect(req.headers['content-type']).toMatch(/application\/x-www-form-urlencoded/);
    expect([...new URLSearchParams(req.body).keys()]).toEqual(['request']);
    expect(req.payload).toEqual({ title: 'Winter', isbn: ['9781614001379'], limit: 5 });
  });

  it('a service error: its body is printed, then exit 3 for a 404', async () => {
    const http = new StubRegistry().on('GET', '/v1/book/isbn/9781614001379/', refusal(404, 'Book not found'));
    const r = await cli(http, ['api', 'GET', '/v1/book/isbn/9781614001379/']);
    expect(r.code).toBe(3);
    expect(stdoutJson(r)).toMatchObject({ code: 404, message: 'Book not found' });
  });

  it('a write answered with something that is not the envelope: outcome unknown (exit 1), in the ledger', async () => {
    const http = new StubRegistry().on('POST', '/v1/order/free/', {
      status: 200,
      headers: { 'content-type': 'text/html' },
      text: '<html>Sign in to the Wi-Fi</html>',
    });
    const r = await cli(http, ['api', 'POST', '/v1/order/free/', '-f', 'username=' + 'a'.repeat(30)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/the outcome is unknown/);
    const ledger = stdoutJson(await cli(new StubRegistry(), ['ledger', 'list', '--json']));
    expect(ledger.at(-1)).toMatchObject({ op: 'order free', status: 'unknown', http: 200 });
  });
});

describe('profile check', () => {
  it('sends GET /profile/ with the settings in use; reports account, scopes and test mode as a card and JSON', async () => {
    const http = new StubRegistry().on('GET', '/profile/', ok(PROFILE), 2);
    const card = await cli(http, ['profile', 'check', '-o', 'table']);
    expect(card.code, card.stderr).toBe(0);
    expect(card.stdout).toMatch(/stubpartner/);
    expect(card.stdout).toMatch(/book_metadata, codes/);
    const j = stdoutJson(await cli(http, ['profile', 'check', '--json']));
    expect(j).toMatchObject({ username: 'stubpartner', scopes: ['book_metadata', 'codes'], test_mode: true });
    expect(http.sent('/profile/', 'GET')[0]!.headers['api-user']).toBe('stubpartner');
  });

  it('refused credentials: exit 4', async () => {
    const http = new StubRegistry().on('GET', '/profile/', refusal(401, 'Authentication failed.'));
    const r = await cli(http, ['profile', 'check']);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/Authentication failed/);
  });
});
