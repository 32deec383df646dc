// codes generate and codes summary in-process through the stub registry: the request each sends,
// its output as a table and as JSON, its main error with its exit code, and (generate, a write) an
// answer the verified-answers check refuses. The job engine's fault matrix (resume, full disk,
// short and long batches) is in test/bulk/engine.test.ts and verified-codes.test.ts.
import { describe, expect, it } from 'vitest';
import { json, ok, refusal, stdoutJson, stubCli, StubRegistry } from './_stubs.js';

const cli = stubCli();

const HASH = 'cee313141a0ce9a22774b32f87855d677d864cfb';
const codes = (...list: string[]) =>
  ok({ codes: list.map((code) => ({ code, deactivation_date: null, limit_days: 30 })) });

describe('codes generate', () => {
  it('POST /v1/codes/generate/ per batch, each with its Idempotency-Key; the codes as a table and as JSON', async () => {
    const http = new StubRegistry()
      .on('POST', '/v1/codes/generate/', codes('AAAA-BBBB-CCCC', 'DDDD-EEEE-FFFF'))
      .on('POST', '/v1/codes/generate/', codes('GGGG-HHHH-JJJJ'))
      .on('POST', '/v1/codes/generate/', codes('KKKK-LLLL-MMMM', 'NNNN-PPPP-QQQQ', 'RRRR-SSSS-TTTT'));
    const args = ['codes', 'generate', '--hash-id', HASH, '--org', 'harborlane', '--limit-days', '30'];
    const t = await cli(http, [...args, '--count', '3', '--batch-size', '2', '--concurrency', '1', '-o', 'table']);
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout).toMatch(/^CODE +LIMIT +EXPIRES +BATCH$/m);
    expect(t.stdout).toMatch(/^AAAA-BBBB-CCCC +30 days +never +1$/m);
    expect(t.stdout).toMatch(/^GGGG-HHHH-JJJJ +30 days +never +2$/m);
    expect(t.stderr).toMatch(new RegExp(`codes generate: 3 of 3 codes generated for ${HASH}`));
    const [first, second] = http.requests;
    expect(first!.payload).toEqual({ hash_id: HASH, org: 'harborlane', count: 2, limit_days: 30 });
    expect(second!.payload).toEqual({ hash_id: HASH, org: 'harborlane', count: 1, limit_days: 30 });
    const keys = http.requests.map((q) => q.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f]+-1$/);
    expect(keys[1]).toBe(keys[0]!.replace(/-1$/, '-2'));
    const j = await cli(http, [...args, '--count', '3', '--expires', '2027-01-31', '--json']);
    expect(j.code, j.stderr).toBe(0);
    expect(stdoutJson(j)).toEqual(
      ['KKKK-LLLL-MMMM', 'NNNN-PPPP-QQQQ', 'RRRR-SSSS-TTTT'].map((code) => ({
        code,
        deactivation_date: null,
        limit_days: 30,
        hash_id: HASH,
        batch: 1,
      })),
    );
    expect(http.requests[2]!.payload).toMatchObject({ count: 3, expiration_date: '2027-01-31 00:00:00' });
  });

  it('an unknown book: exit 3 with the service message and how many codes were made', async () => {
    const http = new StubRegistry().on('POST', '/v1/codes/generate/', refusal(404, 'Book not found.'));
    const r = await cli(http, ['codes', 'generate', '--hash-id', HASH, '--org', 'harborlane', '--count', '3']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(new RegExp(`Book not found\\. \\(0 of 3 codes generated for ${HASH}\\)`));
    expect(r.stdout).toBe('');
  });

  it('a batch answered with something that is not the envelope: no code written, exit 6 naming what is missing', async () => {
    const http = new StubRegistry().on('POST', '/v1/codes/generate/', json(200, { codes: 'soon' }));
    const r = await cli(http, [
      'codes',
      'generate',
      '--hash-id',
      HASH,
      '--org',
      'harborlane',
      '--count',
      '2',
      '--retries',
      '0',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(6);
    expect(stdoutJson(r)).toEqual([]);
    expect(r.stderr).toMatch(/0 of 2 codes/);
  });
});

describe('codes summary', () => {
  const SUMMARY = { codes_generated: 40, codes_redeemed: 10, redemption_percentage: 0.25 };

  it('GET /v1/codes/summary/; a card with the rate as a percentage, and the fraction in JSON', async () => {
    const http = new StubRegistry().on('GET', '/v1/codes/summary/', ok(SUMMARY), 2);
    const card = await cli(http, ['codes', 'summary', '-o', 'table']);
    expect(card.code, card.stderr).toBe(0);
    expect(card.stdout).toMatch(/^Codes generated +40$/m);
    expect(card.stdout).toMatch(/^Codes redeemed +10$/m);
    expect(card.stdout).toMatch(/^Redemption rate +25% of the codes generated$/m);
    const j = stdoutJson(await cli(http, ['codes', 'summary', '--json']));
    expect(j).toMatchObject(SUMMARY);
  });

  it('a scope refusal: exit 4', async () => {
    const http = new StubRegistry().on(
      'GET',
      '/v1/codes/summary/',
      refusal(403, 'Your account is not authorized for the scope codes.'),
    );
    const r = await cli(http, ['codes', 'summary']);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/scope codes/);
  });

  it('a rate that is not a number is not believed: exit 1 naming the field', async () => {
    const http = new StubRegistry().on('GET', '/v1/codes/summary/', ok({ ...SUMMARY, redemption_percentage: '25%' }));
    const r = await cli(http, ['codes', 'summary']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/redemption_percentage/);
    expect(r.stdout).toBe('');
  });
});
