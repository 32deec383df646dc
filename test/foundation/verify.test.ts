// The answer check of issue 28 (src/api/verify.ts): what counts as the answer the interface
// promises for an endpoint, checked without a schema library.
import { describe, expect, it } from 'vitest';
import { answerProblem, isWrite, USED } from '../../src/api/verify.js';
import { endpoint, ENDPOINTS } from '../../src/spec/endpoints.js';
import { SCHEMAS } from '../../src/spec/schemas.js';

const ENV = { code: 200, success: true, test_mode: true };
const check = (name: string, body: unknown, format = 'json') => answerProblem(endpoint(name), format, body);
const BOOK = { id: 1, hash_id: 'fb02181f26270f72e261de20f8aadb9096f40802', title: 'A Book' };

describe('answerProblem', () => {
  it('accepts the documented answer, with extra members of another deployment', () => {
    expect(check('book.get', { ...ENV, book: { ...BOOK, shelf: 'B2' }, served_by: 'eu-1' })).toBeUndefined();
    expect(check('order.refund', { ...ENV, refunds: [{ purchase_id: 3, success: true }] })).toBeUndefined();
    expect(check('access.revoke', { ...ENV })).toBeUndefined();
    expect(
      check('codes.summary', { ...ENV, codes_generated: 3, codes_redeemed: 1, redemption_percentage: 0.33 }),
    ).toBeUndefined();
  });
  it('accepts any object for shapes the interface leaves "not shown" (pricing, describe), with success true', () => {
    expect(check('book.pricing', { ...ENV, prices: 'elsewhere' })).toBeUndefined();
    expect(check('describe', { ...ENV, anything: [1] })).toBeUndefined();
    expect(check('book.pricing', { code: 200 })).toMatch(/no "success": true/);
  });
  it('refuses what is not the promised answer, saying why', () => {
    expect(check('access.revoke', { code: 200 }, 'empty')).toBe('the body is empty');
    expect(check('access.revoke', { code: 200, text: '<html>' }, 'text')).toBe('the body is not JSON');
    expect(check('access.revoke', [1, 2])).toMatch(/an array, not a JSON object/);
    expect(check('access.revoke', { ...ENV, success: false })).toBe('it says "success": false');
    expect(check('access.revoke', { code: 200, error: true })).toBe('it says "error": true');
    expect(check('access.revoke', { code: 200, test_mode: true })).toBe('it has no "success": true');
    expect(check('book.process', { ...ENV, success: 'yes' })).toMatch(/"success" is a string, not true/);
    expect(check('book.get', { ...ENV })).toBe('book: missing');
    expect(check('book.get', { ...ENV, book: 'x' })).toBe('book: a string, not an object');
    expect(check('book.get', { ...ENV, book: { id: 1, title: 'T' } })).toBe('book.hash_id: missing');
    expect(check('order.refund', { ...ENV, refunds: [{ purchase_id: '3', success: true }] })).toBe(
      'refunds[0].purchase_id: a string, not integer',
    );
    expect(check('order.external', { ...ENV, message: 'Order created.', order: { id: null, items: [] } })).toBe(
      'order.id: null, not integer',
    );
    // A batch of codes is checked code by code by codes generate (it keeps the good ones): the client checks the array.
    expect(check('codes.generate', { ...ENV, codes: [null, { code: 7 }] })).toBeUndefined();
    expect(check('codes.generate', { ...ENV, codes: 'none' })).toBe('codes: a string, not array');
    expect(check('book.pricing', { ...ENV, success: false })).toBe('it says "success": false');
  });
  it('order free: the interface promises a message; an order the service adds is checked when given', () => {
    expect(check('order.free', { ...ENV, message: 'Free order created.' })).toBeUndefined();
    expect(check('order.free', { ...ENV, message: 'Free order created.', order: { id: 'x', items: [] } })).toBe(
      'order.id: a string, not integer',
    );
  });
  it("the envelope's message is checked when given, never required", () => {
    expect(check('book.process', { ...ENV })).toBeUndefined();
    expect(check('book.process', { ...ENV, message: 7 })).toBe('message: a number, not string');
  });
  it('writes are the endpoints that change something', () => {
    expect(
      ENDPOINTS.filter((e) => isWrite(e.name))
        .map((e) => e.name)
        .sort(),
    ).toEqual([
      'access.allow',
      'access.revoke',
      'book.process',
      'codes.generate',
      'order.external',
      'order.free',
      'order.refund',
      'user.create',
      'user.invite',
    ]);
    for (const e of ENDPOINTS) if (isWrite(e.name)) expect(e.clientMethod).toBe('POST');
  });
});

describe('the members the check requires', () => {
  it("are members of the interface's resources (src/spec/schemas.ts), with the same types", () => {
    for (const [name, members] of Object.entries(USED)) {
      const schema = (SCHEMAS as Record<string, unknown>)[name] as {
        properties: Record<string, Record<string, unknown>>;
      };
      expect(schema, name).toBeDefined();
      for (const [member, want] of Object.entries(members)) {
        const have = schema.properties[member];
        expect(have, `${name}.${member}`).toBeDefined();
        if (want.$ref) expect(have.$ref, `${name}.${member}`).toBe(want.$ref);
        else expect(have.type, `${name}.${member}`).toBe(want.type);
      }
    }
  });
  it('cover every resource an endpoint answers with', () => {
    const refs = new Set<string>();
    const walk = (s: unknown) => {
      if (!s || typeof s !== 'object') return;
      const o = s as Record<string, unknown>;
      if (typeof o.$ref === 'string') refs.add(o.$ref);
      for (const v of Object.values(o)) walk(v);
    };
    for (const e of ENDPOINTS) walk(e.response.body);
    const known = new Set([...Object.keys(USED), 'Decimal', 'ApiIndex', 'AccountProfile', 'Code']);
    expect([...refs].filter((r) => !known.has(r))).toEqual([]);
  });
});
