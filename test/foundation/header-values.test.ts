// Every header the client sends is checked before anything is sent (issue 28, item 3): a value
// with a control character (CR LF would end the header and start another, a tab or NUL is never
// meant) or a character HTTP cannot carry is a usage error (exit 2) naming the header, never a
// request sent, never Node's ERR_INVALID_CHAR mid-send (which a write reported as an unknown
// outcome), and a secret header's value is never shown. Usernames, keys and tokens from the
// settings were already refused by connect(); this holds for any header, from any source.
import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { CliError, ExitCode } from '../../src/errors.js';
import type { Credentials } from '../../src/api/wire.js';
import { json, StubRegistry } from '../helpers/stub-http.js';
import { STUB_URL } from '../helpers/run.js';

const SUMMARY = { code: 200, success: true, codes_generated: 0, codes_redeemed: 0, redemption_percentage: 0 };

function client(
  credentials: Credentials = { kind: 'shared', username: 'partner', sharedKey: 'k' },
  extra: Partial<ConstructorParameters<typeof ApiClient>[0]> = {},
) {
  const stub = new StubRegistry()
    .on('GET', '/v1/codes/summary/', json(200, SUMMARY), Infinity)
    .on('POST', '/v1/codes/generate/', json(200, { code: 200, success: true, codes: [] }), Infinity);
  const announced: string[] = [];
  const api = new ApiClient({
    baseUrl: STUB_URL,
    credentials,
    timeout: 5000,
    retries: 0,
    handler: stub,
    writeHook: { before: (r) => void announced.push(r.path) },
    ...extra,
  });
  return { api, stub, announced };
}

async function refusal(p: Promise<unknown>): Promise<CliError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(CliError);
  return e as CliError;
}

describe('a header value the client would send', () => {
  for (const [what, value, shown] of [
    ['CR LF (a second header)', 'job-1\r\nX-Injected: 1', String.raw`control character (\r)`],
    ['a line feed', 'job-1\n', String.raw`control character (\n)`],
    ['a tab', 'job\t1', String.raw`control character (\t)`],
    ['NUL', 'job\u00001', String.raw`control character (\u0000)`],
    ['DEL', 'job\u007f', String.raw`control character (\u007f)`],
    ['a character beyond Latin-1', 'job\u20281', String.raw`character a header cannot carry (\u2028)`],
  ] as const) {
    it(`holding ${what}: exit 2 naming the header, nothing sent, nothing announced to the ledger`, async () => {
      const { api, stub, announced } = client();
      const e = await refusal(
        api.call('codes.generate', {
          payload: { hash_id: 'a'.repeat(40), org: 'o', count: 1 },
          headers: { 'Idempotency-Key': value },
        }),
      );
      expect(e.exitCode).toBe(ExitCode.USAGE);
      expect(e.message).toContain('The idempotency-key header of POST /v1/codes/generate/ would hold a ' + shown);
      expect(e.message).toContain('Nothing was sent');
      expect(stub.requests).toHaveLength(0);
      expect(announced).toEqual([]);
    });
  }

  it('a Latin-1 value is sent as it is (HTTP carries it)', async () => {
    const { api, stub } = client();
    await api.call('codes.summary', { headers: { 'x-note': 'café' } });
    expect(stub.requests).toHaveLength(1);
    expect(stub.requests[0]!.headers['x-note']).toBe('café');
  });

  it('a secret header (a token that reached the client unchecked): refused without showing its value', async () => {
    const { api, stub } = client({ kind: 'token', token: 'tok-secret-123\r\nX-Injected: 1', username: 'partner' });
    const e = await refusal(api.call('codes.summary'));
    expect(e.exitCode).toBe(ExitCode.USAGE);
    expect(e.message).toMatch(
      /^The api-key header of GET \/v1\/codes\/summary\/ would hold a control character \(\\r\)\. Nothing was sent/,
    );
    expect(e.message).not.toContain('tok-secret');
    expect(stub.requests).toHaveLength(0);
  });

  it('under --dry-run too: no curl line with the broken header is printed', async () => {
    const printed: string[] = [];
    const { api } = client(undefined, { dryRun: (l) => void printed.push(l) });
    const e = await refusal(api.call('codes.summary', { headers: { 'x-note': 'a\nb' } }));
    expect(e.exitCode).toBe(ExitCode.USAGE);
    expect(e.message).toContain(
      'The x-note header of GET /v1/codes/summary/ would hold a control character (\\n): "a\\nb"',
    );
    expect(printed).toEqual([]);
  });
});
