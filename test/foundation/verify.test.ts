// The answer check of issue 28 (src/api/verify.ts): what counts as the answer the interface
// promises for an endpoint, checked without a schema library.
import { describe, expect, it } from 'vitest';
import { UnverifiedAnswer } from '../../src/api/errors.js';
import type { AnswerFacts } from '../../src/api/verify.js';
import { answerProblem, bodyTooLarge, isWrite, USED, verifyAnswer, verifyRaw } from '../../src/api/verify.js';
import { endpoint, endpoints } from '../../src/spec/endpoints.js';
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
      endpoints()
        .filter((e) => isWrite(e.name))
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
    for (const e of endpoints()) if (isWrite(e.name)) expect(e.clientMethod).toBe('POST');
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
    for (const e of endpoints()) walk(e.response.body);
    const known = new Set([...Object.keys(USED), 'Decimal', 'ApiIndex', 'AccountProfile', 'Code']);
    expect([...refs].filter((r) => !known.has(r))).toEqual([]);
  });
});

describe('answerProblem: the types, forms and members of a resource', () => {
  const PURCHASE = {
    ...ENV,
    id: 5,
    book: { hash_id: 'h' },
    digital_pricing: { description: 'ebook', id: 3 },
    expiration_date: null,
    is_active: true,
    is_digital: true,
    is_print: false,
    is_refunded: false,
    purchase_date: '2026-01-01T00:00:00Z',
    purchase_price: '9.99',
    quantity: 1,
    refund_available: true,
    user: { username: 'u' },
  };
  it('a purchase as documented, with a null or whole-number id and an expiry or none', () => {
    expect(check('user.purchase', PURCHASE)).toBeUndefined();
    expect(check('user.purchase', { ...PURCHASE, digital_pricing: { description: 'x', id: null } })).toBeUndefined();
    expect(check('user.purchase', { ...PURCHASE, expiration_date: '2027-01-01T00:00:00Z' })).toBeUndefined();
  });
  it('each wrong type is named with the types the interface allows', () => {
    expect(check('user.purchase', { ...PURCHASE, digital_pricing: { description: 'x', id: 'x' } })).toBe(
      'digital_pricing.id: a string, not integer or null',
    );
    expect(check('user.purchase', { ...PURCHASE, digital_pricing: { description: 'x', id: 1.5 } })).toBe(
      'digital_pricing.id: a number, not integer or null',
    );
    expect(check('user.purchase', { ...PURCHASE, digital_pricing: { id: 1 } })).toBe(
      'digital_pricing.description: missing',
    );
    expect(check('user.purchase', { ...PURCHASE, expiration_date: 7 })).toBe(
      'expiration_date: a number, not string or null',
    );
    expect(check('user.purchase', { ...PURCHASE, is_active: 'yes' })).toBe('is_active: a string, not boolean');
    expect(check('user.purchase', { ...PURCHASE, is_active: null })).toBe('is_active: null, not boolean');
    expect(check('user.purchase', { ...PURCHASE, quantity: true })).toBe('quantity: a boolean, not integer');
    expect(check('user.purchase', { ...PURCHASE, book: { hash_id: {} } })).toBe('book.hash_id: an object, not string');
    expect(check('user.purchase', { ...PURCHASE, book: [] })).toBe('book: an array, not an object');
    expect(check('codes.summary', { ...ENV, codes_generated: 3, codes_redeemed: 1, redemption_percentage: '1' })).toBe(
      'redemption_percentage: a string, not number',
    );
  });
  it('a price is a decimal text: digits, an optional sign and fraction', () => {
    const offers = (Price: unknown) => check('offers', { ...ENV, Status: 'ok', Isbn: 'x', Offers: [{ Id: 1, Price }] });
    expect(offers('12.50')).toBeUndefined();
    expect(offers('-3')).toBeUndefined();
    expect(offers('12,50')).toBe('Offers[0].Price: "12,50" is not of the documented form');
    expect(offers('12.50 EUR')).toBe('Offers[0].Price: "12.50 EUR" is not of the documented form');
    expect(offers('x12')).toBe('Offers[0].Price: "x12" is not of the documented form');
    expect(offers(12.5)).toBe('Offers[0].Price: a number, not string');
    expect(check('user.purchase', { ...PURCHASE, purchase_price: `1${'0'.repeat(60)},` })).toBe(
      `purchase_price: ${JSON.stringify(`1${'0'.repeat(39)}`)} is not of the documented form`,
    );
  });
  it('every entry of a list is checked, not only the first', () => {
    const orders = (results: unknown[]) => check('user.orders', { ...ENV, count: results.length, results });
    expect(
      orders([
        { id: 1, items: [] },
        { id: 2, items: [] },
      ]),
    ).toBeUndefined();
    expect(orders([{ id: 1, items: [] }, { id: 2 }])).toBe('results[1].items: missing');
    expect(orders([{ id: 1, items: [] }, 'x'])).toBe('results[1]: a string, not an object');
  });
  it('a constant member must have its value; an optional member given as null says "none"', () => {
    const created = { ...ENV, message: 'exists', username: 'u' };
    expect(check('user.create', { ...created, conflict: true, field: 'email' })).toBeUndefined();
    expect(check('user.create', { ...created, conflict: false })).toBe('conflict: false, not true');
    expect(check('user.create', { ...created, field: 'username' })).toBe('field: "username", not "email"');
    expect(check('user.create', { ...created, email: null, passwd: null })).toBeUndefined();
    expect(check('user.create', { ...created, email: 7 })).toBe('email: a number, not string');
  });
  it('without "success", only documented members that are required can say it succeeded', () => {
    expect(check('user.create', { code: 200, message: 'Created.', username: 'u' })).toBeUndefined();
    expect(check('user.create', { code: 200, message: 'Created.' })).toBe('username: missing');
    expect(check('access.revoke', { code: 200, message: 'Revoked.' })).toBe('it has no "success": true');
  });
  it('a raw document (openapi) is checked by its own members, not by the envelope', () => {
    const doc = { openapi: '3.1.0', info: { title: 'x' }, paths: {} };
    expect(check('openapi', doc)).toBeUndefined();
    expect(check('openapi', { ...doc, success: false, error: true })).toBeUndefined();
    expect(check('openapi', { ...doc, openapi: '3.0.3' })).toBe('openapi: "3.0.3", not "3.1.0"');
    expect(check('openapi', { ...doc, paths: [] })).toBe('paths: an array, not object');
    expect(check('openapi', { info: {}, paths: {} })).toBe('openapi: missing');
  });
  it('a body that is not JSON says what it is', () => {
    expect(check('book.get', '<x/>', 'xml')).toBe('the body is XML, not JSON');
    expect(check('book.get', 'hello', 'text')).toBe('the body is not JSON');
    expect(check('book.get', null)).toBe('the body is null, not a JSON object');
  });
});

const FACTS = (over: Partial<AnswerFacts> = {}): AnswerFacts => ({
  status: 200,
  headers: { 'content-type': 'application/json' },
  format: 'json',
  body: { ...ENV },
  head: '{"code":200}',
  request: { method: 'GET', url: 'http://api.example.test/v1/book/x/' },
  ...over,
});
const BASE = 'http://api.example.test/v1/';
/** The error `f` throws, as the user reads it: message, outcome and details. */
function thrown(f: () => unknown): { message: string; outcome: unknown; details: Record<string, unknown> } {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(UnverifiedAnswer);
    const u = e as UnverifiedAnswer;
    return { message: u.message, outcome: u.verdict, details: u.details ?? {} };
  }
  throw new Error('nothing thrown');
}

describe('verifyAnswer: the verdict on an answer of the table', () => {
  const get = endpoint('book.get');
  const revoke = endpoint('access.revoke');
  it('a refusal (4xx, 5xx) is "failed" for the caller to read; the promised answer is "done"', () => {
    expect(verifyAnswer(get, FACTS({ status: 400 }), BASE)).toBe('failed');
    expect(verifyAnswer(get, FACTS({ status: 503 }), BASE)).toBe('failed');
    expect(verifyAnswer(revoke, FACTS({ status: 200, body: { ...ENV } }), BASE)).toBe('done');
    expect(verifyAnswer(revoke, FACTS({ status: 299, body: { ...ENV } }), BASE)).toBe('done');
  });
  it('a status that is neither success, redirect nor refusal is not the answer', () => {
    const r = thrown(() => verifyAnswer(revoke, FACTS({ status: 199, body: { ...ENV } }), BASE));
    expect(r.message).toContain(': status 199 is not a success. ');
    expect(r.outcome).toBe('unknown');
  });
  it("a read's wrong answer fails, naming the request, the facts and the problem, and how to check the base URL", () => {
    const r = thrown(() => verifyAnswer(get, FACTS({ body: { ...ENV } }), BASE));
    expect(r.message).toBe(
      "GET http://api.example.test/v1/book/x/: the service's answer was not what the interface promises " +
        '(HTTP 200, application/json; it begins: {"code":200}): book: missing. ' +
        "Check that the base URL is the service's (`bookdist profile show`); another deployment that answers this way does not follow the interface.",
    );
    expect(r.outcome).toBe('failed');
    expect(r.details).toEqual({
      status: 200,
      content_type: 'application/json',
      begins: '{"code":200}',
      problem: 'book: missing',
      outcome: 'failed',
    });
  });
  it("a write's wrong answer leaves its outcome unknown and says to check before sending it again", () => {
    const post = { method: 'POST', url: 'http://api.example.test/v1/access/revoke/' };
    const r = thrown(() => verifyAnswer(revoke, FACTS({ body: { ...ENV, success: false }, request: post }), BASE));
    expect(r.message).toMatch(
      /^POST http:\/\/api\.example\.test\/v1\/access\/revoke\/: the outcome is unknown: the service's answer/,
    );
    expect(r.message).toContain('The request may have taken effect: check before sending it again');
    expect(r.message).not.toContain('A web page answered');
    expect(r.outcome).toBe('unknown');
  });
  it('a web page (HTML by its type or its first bytes) is named as one; no type and blank first bytes are said so', () => {
    const page = (headers: Record<string, string>, head: string) =>
      thrown(() => verifyAnswer(get, FACTS({ headers, head, format: 'text', body: head }), BASE)).message;
    expect(page({ 'content-type': 'TEXT/HTML; charset=utf-8' }, 'hello')).toContain(
      'A web page answered instead of the service',
    );
    expect(page({}, '  \n <!DOCTYPE html>')).toContain('A web page answered instead of the service');
    expect(page({}, '  \n <!DOCTYPE html>')).toContain('(HTTP 200, no content type; it begins: <!DOCTYPE html>)');
    expect(page({ 'content-type': 'text/plain' }, 'a < b')).not.toContain('A web page answered');
    expect(page({ 'content-type': 'text/plain' }, ' \n ')).toContain('(HTTP 200, text/plain): the body is not JSON.');
    const write = thrown(() =>
      verifyAnswer(revoke, FACTS({ headers: { 'content-type': 'text/html' }, format: 'text', body: 'x' }), BASE),
    ).message;
    expect(write).toContain(
      'not retried, as repeating it could do it twice. A web page answered instead of the service',
    );
  });
  it('the first bytes shown: on one line, at most 120 characters, then the length', () => {
    const head = 'abcd  \n'.repeat(40);
    const r = thrown(() => verifyAnswer(get, FACTS({ format: 'text', body: head, head }), BASE));
    const shown = 'abcd '.repeat(24).slice(0, 120);
    expect(r.details.begins).toBe(`${shown}… (280 characters)`);
    expect(r.message).toContain(`it begins: ${shown}… (280 characters))`);
    const short = thrown(() => verifyAnswer(get, FACTS({ format: 'text', body: 'x', head: ' ab\t\tcd ' }), BASE));
    expect(short.details.begins).toBe('ab cd');
    const exact = 'x'.repeat(120);
    expect(
      thrown(() => verifyAnswer(get, FACTS({ format: 'text', body: 'x', head: exact }), BASE)).details.begins,
    ).toBe(exact);
  });
});

describe('verifyAnswer and verifyRaw: a redirect is never followed', () => {
  const get = endpoint('book.get');
  const checkout = endpoint('checkout');
  const at = (status: number, location?: string, url = 'http://api.example.test/v1/book/x/') =>
    FACTS({ status, headers: location ? { location } : {}, request: { method: 'GET', url } });
  it("only the table's documented redirect (checkout's 302 with a Location) is the answer", () => {
    expect(verifyAnswer(checkout, at(302, 'https://store.example.test/cart'), BASE)).toBe('done');
    expect(verifyAnswer(checkout, at(300, 'https://store.example.test/cart'), BASE)).toBe('done');
    expect(verifyAnswer(checkout, at(200), BASE)).toBe('done');
    expect(verifyRaw(at(302, '/cart'), checkout, 'GET', BASE)).toBe('done');
    expect(verifyRaw(at(200), checkout, 'GET', BASE)).toBe('done');
    expect(thrown(() => verifyAnswer(checkout, at(302), BASE)).message).toContain('a redirect with no Location');
    expect(thrown(() => verifyRaw(at(302), checkout, 'GET', BASE)).message).toContain('a redirect with no Location');
  });
  it('a 3xx elsewhere: never followed, even at the edges of the range (300, 399)', () => {
    for (const status of [300, 301, 399]) {
      const r = thrown(() => verifyAnswer(get, at(status, 'http://api.example.test/v2/book/x/'), BASE));
      expect(r.message).toContain(`the service answered ${status} and redirects to http://api.example.test/v2/book/x/`);
      expect(r.message).toContain(
        "If the service has moved, use its new address as the base URL (--base-url, BOOKDIST_BASE_URL or the profile's).",
      );
      expect(r.outcome).toBe('failed');
      expect(thrown(() => verifyRaw(at(status, '/x'), undefined, 'GET', BASE)).message).toContain(
        `the service answered ${status} and redirects to /x`,
      );
    }
  });
  it('without a Location: said so, with the status and what the details give', () => {
    const r = thrown(() => verifyAnswer(get, FACTS({ status: 302, headers: { 'content-type': 'text/html' } }), BASE));
    expect(r.message).toBe(
      'GET http://api.example.test/v1/book/x/: the service answered 302, a redirect with no Location, which is not what the interface promises here. ' +
        "A web page answered instead of the service: a sign-in page of the network (a captive portal) or a proxy, or a base URL that is not the service's. Check the network and the base URL (`bookdist profile show`).",
    );
    expect(r.details).toEqual({ status: 302, location: null, content_type: 'text/html', outcome: 'failed' });
  });
  it('to https on the same host: the fix is the https base URL; to another origin: the new origin or a captive portal', () => {
    const https = thrown(() => verifyAnswer(get, at(301, 'https://api.example.test:8443/v1/book/x/'), BASE));
    expect(https.message).toContain(
      'The service wants https: use https://api.example.test:8443/v1 as the base URL (--base-url, BOOKDIST_BASE_URL or `bookdist profile add --force`).',
    );
    expect(https.details).toEqual({
      status: 301,
      location: 'https://api.example.test:8443/v1/book/x/',
      content_type: null,
      outcome: 'failed',
    });
    const other = thrown(() => verifyAnswer(get, at(302, 'http://login.example.test/portal'), BASE));
    expect(other.message).toContain(
      "If the service has moved to http://login.example.test, use it as the base URL (--base-url, BOOKDIST_BASE_URL or the profile's); a sign-in page of the network (a captive portal) redirects like this too.",
    );
    const hostChange = thrown(() => verifyAnswer(get, at(301, 'https://other.example.test/v1/'), BASE));
    expect(hostChange.message).toContain('If the service has moved to https://other.example.test,');
    const fromHttps = thrown(() =>
      verifyAnswer(get, at(301, 'https://api.example.test/v1/', 'https://api.example.test/v1/book/x/'), BASE),
    );
    expect(fromHttps.message).toContain('If the service has moved, use its new address');
    const notUrl = thrown(() => verifyAnswer(get, at(301, 'http://[bad'), BASE));
    expect(notUrl.message).toContain('redirects to http://[bad,');
    expect(notUrl.message).toContain('If the service has moved, use its new address');
  });
  it("a write's redirect: outcome unknown, with the advice to check first", () => {
    const post = FACTS({
      status: 307,
      headers: { location: 'https://api.example.test/v1/access/revoke/' },
      request: { method: 'POST', url: 'http://api.example.test/v1/access/revoke/' },
    });
    const r = thrown(() => verifyAnswer(endpoint('access.revoke'), post, BASE));
    expect(r.message).toMatch(
      /^POST http:\/\/api\.example\.test\/v1\/access\/revoke\/: the outcome is unknown: the service answered 307/,
    );
    expect(r.message).toMatch(/`bookdist profile add --force`\)\. The request may have taken effect/);
    expect(r.outcome).toBe('unknown');
    expect(thrown(() => verifyAnswer(endpoint('access.revoke'), { ...post, headers: {} }, BASE)).outcome).toBe(
      'unknown',
    );
  });
});

describe('verifyRaw: the answer to `bookdist api`', () => {
  const raw = (over: Partial<AnswerFacts>, method = 'GET', ep?: string) =>
    verifyRaw(FACTS(over), ep ? endpoint(ep) : undefined, method, BASE);
  it('a JSON object whose flags do not say otherwise is done; a refusal is failed', () => {
    expect(raw({ body: { anything: 1 } })).toBe('done');
    expect(raw({ status: 400 })).toBe('failed');
    expect(raw({ status: 500 }, 'POST')).toBe('failed');
    expect(raw({ status: 299, body: {} })).toBe('done');
  });
  it('a GET to a path the table does not list fails; any other method there has an unknown outcome', () => {
    const bad = { format: 'empty', body: undefined };
    expect(thrown(() => raw(bad, 'GET')).outcome).toBe('failed');
    expect(thrown(() => raw(bad, 'DELETE')).outcome).toBe('unknown');
    expect(thrown(() => raw(bad, 'POST')).message).toContain('the outcome is unknown: ');
    // An endpoint of the table decides by what it does, not by the method used.
    expect(thrown(() => raw(bad, 'POST', 'book.search')).outcome).toBe('failed');
    expect(thrown(() => raw(bad, 'GET', 'access.revoke')).outcome).toBe('unknown');
  });
  it('the envelope flags, not the members, decide; 1xx is not a success', () => {
    expect(thrown(() => raw({ body: { error: true } })).details.problem).toBe('it says "error": true');
    expect(thrown(() => raw({ body: { success: 'yes' } })).details.problem).toBe('"success" is a string, not true');
    expect(thrown(() => raw({ status: 199, body: {} })).details.problem).toBe('status 199 is not a success');
    expect(raw({ body: { success: true } }, 'GET', 'book.get')).toBe('done');
  });
});

describe('bodyTooLarge', () => {
  const req = { method: 'GET', url: 'http://api.example.test/v1/book/x/' };
  it('a read: failed, with the limit, status and type, and the base URL to check', () => {
    const e = bodyTooLarge(req, false, '16 MiB', 200, 'application/json') as UnverifiedAnswer;
    expect(e.message).toBe(
      "GET http://api.example.test/v1/book/x/: the answer's body is larger than 16 MiB, the most bookdist reads (HTTP 200, application/json): " +
        "no answer of the interface is that large, so it was not read further. Check that the base URL is the service's (`bookdist profile show`).",
    );
    expect(e.verdict).toBe('failed');
    expect(e.details).toEqual({
      status: 200,
      content_type: 'application/json',
      problem: 'body over 16 MiB',
      outcome: 'failed',
    });
    expect(e.status).toBe(200);
  });
  it('a write: outcome unknown; no status or type known is said so', () => {
    const e = bodyTooLarge({ method: 'POST', url: 'http://x.test/' }, true, '1 MiB') as UnverifiedAnswer;
    expect(e.message).toContain('POST http://x.test/: the outcome is unknown: ');
    expect(e.message).toContain('(HTTP ?, no content type)');
    expect(e.message).toContain('The request may have taken effect');
    expect(e.verdict).toBe('unknown');
    expect(e.details).toEqual({ status: null, content_type: null, problem: 'body over 1 MiB', outcome: 'unknown' });
  });
});

describe('verifyAnswer and verifyRaw: the rest of what a user reads', () => {
  const get = endpoint('book.get');
  it('an answer whose first bytes were not kept: no "it begins", nothing shown as its start', () => {
    const r = thrown(() => verifyAnswer(get, FACTS({ head: undefined, body: { ...ENV } }), BASE));
    expect(r.message).toContain('(HTTP 200, application/json): book: missing.');
    expect(r.message).not.toContain('A web page answered');
    expect(r.details.begins).toBe('');
  });
  it("a read's redirect ends with the fix; the https base URL loses every trailing slash", () => {
    const r = thrown(() =>
      verifyAnswer(
        get,
        FACTS({ status: 301, headers: { location: 'https://api.example.test/v1/book/x/' } }),
        'http://api.example.test/v1//',
      ),
    );
    expect(
      r.message.endsWith(
        'The service wants https: use https://api.example.test/v1 as the base URL (--base-url, BOOKDIST_BASE_URL or `bookdist profile add --force`).',
      ),
    ).toBe(true);
  });
  it("checkout's answer other than a redirect is taken as it is: its body is not read", () => {
    const empty = FACTS({ status: 200, format: 'empty', body: undefined, head: '' });
    expect(verifyAnswer(endpoint('checkout'), empty, BASE)).toBe('done');
    expect(verifyRaw(empty, endpoint('checkout'), 'GET', BASE)).toBe('done');
  });
});
