// What an intent row keeps for a repeat (`resend`, rows.ts): the payload as sent when its JSON is
// at most 8,192 characters, nothing when longer, whatever its characters become in JSON; and the
// operation a path names (opOf) the same on every call, its answers kept by endpoint and path;
// a code batch's outcome keeps its count and digest, never a code.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { intentOf, outcomeOf } from '../../src/ledger/rows.js';
import { opOf } from '../../src/ledger/ops.js';
import type { WriteRequest } from '../../src/api/write-hook.js';

const meta = { profile: 'p', host: 'h' };

const orderWith = (payload: Record<string, unknown>): WriteRequest => ({
  endpoint: 'order.external',
  method: 'POST',
  path: '/v1/order/external/',
  payload: { order_number: 'R-1', username: 'ada', ...payload },
  headers: {},
});

/** An order payload whose JSON is exactly `len` characters, its filler made of `char`. */
function ofLength(len: number, char: string): WriteRequest {
  const base = orderWith({ note: '', pad: '' });
  const per = JSON.stringify(char).length - 2;
  const room = len - JSON.stringify(base.payload).length;
  return orderWith({ note: char.repeat(Math.floor(room / per)), pad: 'a'.repeat(room % per) });
}

const resendOf = (req: WriteRequest, text?: string) => intentOf(req, opOf(req)!, meta, text).resend;

describe('an intent keeps the payload for a repeat', () => {
  it('up to 8,192 characters of JSON, counted as written (escapes included), and not beyond', () => {
    for (const char of ['a', '"', '\n', '\u0001', 'é', '😀']) {
      const at = ofLength(8192, char);
      expect(JSON.stringify(at.payload)).toHaveLength(8192);
      expect(resendOf(at), `8,192 characters of ${JSON.stringify(char)}`).toEqual(at.payload);
      const over = ofLength(8192 + JSON.stringify(char).length - 2, char);
      expect(resendOf(over), `over 8,192 characters of ${JSON.stringify(char)}`).toBeUndefined();
    }
  });

  it('nested values, lists and numbers are counted as their JSON is; the JSON a caller made is used as given', () => {
    const nested = orderWith({
      billing_address: { full_name: 'Ada Byron', lines: ['1 Main St', 'Flat 2'] },
      digital_pricing: [1, 2.5, -3e21],
      send_email: false,
      label: null,
      gone: undefined,
    });
    expect(resendOf(nested)).toBe(nested.payload);
    const big = orderWith({ digital_pricing: Array.from({ length: 2000 }, (_, i) => 1e6 + i) });
    expect(JSON.stringify(big.payload).length).toBeGreaterThan(8192);
    expect(resendOf(big)).toBeUndefined();
    // A caller's JSON decides (before: the request's payload as JSON, made already).
    expect(resendOf(nested, 'x'.repeat(8193))).toBeUndefined();
    expect(resendOf(big, '{}')).toBe(big.payload);
    // Not plain data (a Date's JSON is its toJSON): counted by JSON.stringify itself.
    const dated = orderWith({ when: new Date(0), many: Array.from({ length: 400 }, () => new Date(0)) });
    expect(JSON.stringify(dated.payload).length).toBeGreaterThan(8192);
    expect(resendOf(dated)).toBeUndefined();
    const oneDate = orderWith({ when: new Date(0) });
    expect(resendOf(oneDate)).toBe(oneDate.payload);
  });
});

describe('opOf', () => {
  it('names the same operation and path parameters on every call, for each path', () => {
    const proc = (hash: string): WriteRequest => ({ method: 'POST', path: `/v1/book/${hash}/process/`, headers: {} });
    for (let round = 0; round < 2; round++) {
      expect(opOf(orderWith({}))).toEqual({ op: 'order create' });
      expect(opOf({ method: 'POST', path: '/v1/unknown/', headers: {} })).toEqual({ op: 'api' });
      expect(opOf({ method: 'GET', path: '/v1/order/external/', headers: {} })).toBeUndefined();
    }
    expect(opOf(proc('aaa'))).toEqual({ op: 'book process', params: { hash_id: 'aaa' } });
    expect(opOf(proc('bbb'))).toEqual({ op: 'book process', params: { hash_id: 'bbb' } });
    expect(opOf(proc('aaa'))).toEqual({ op: 'book process', params: { hash_id: 'aaa' } });
  });

  it('still answers right once more paths were asked for than it keeps', () => {
    for (let i = 0; i < 600; i++) opOf({ method: 'POST', path: `/v1/unknown/${i}/`, headers: {} });
    expect(opOf(orderWith({}))).toEqual({ op: 'order create' });
    expect(opOf({ method: 'POST', path: '/v1/unknown/3/', headers: {} })).toEqual({ op: 'api' });
  });
});

describe("a code batch's outcome", () => {
  const sha = (text: string) => createHash('sha256').update(text).digest('hex');
  const outcome = (codes: unknown[]) =>
    outcomeOf(7, 'codes generate', { status: 'done', http: 200, body: { codes } }, new Date(0), codes.length);

  it('is the count and the SHA-256 of the codes joined by line ends, whatever shape each code came in', () => {
    expect(outcome(['AAAA-1', 'BBBB-2', 'CCCC-3']).ids).toEqual({
      codes: 3,
      codes_sha256: sha('AAAA-1\nBBBB-2\nCCCC-3'),
    });
    // An entry that is not a string anywhere in the batch: an object's code, else its JSON.
    expect(outcome(['AAAA-1', { code: 'BBBB-2' }, 5]).ids).toEqual({
      codes: 3,
      codes_sha256: sha('AAAA-1\nBBBB-2\n5'),
    });
    expect(outcome([{ code: 'BBBB-2' }, 'AAAA-1', null, { id: 1 }]).ids).toEqual({
      codes: 4,
      codes_sha256: sha('BBBB-2\nAAAA-1\nnull\n{"id":1}'),
    });
    expect(outcome([]).ids).toEqual({ codes: 0, codes_sha256: sha('') });
    expect(JSON.stringify(outcome(['AAAA-1', { code: 'BBBB-2' }]))).not.toMatch(/AAAA-1|BBBB-2/);
  });
});
