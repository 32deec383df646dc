// What the service answered, in one shape (src/api/answer.ts), and what a user is told of a
// refusal (src/api/errors.ts): the message that is shown, the exit code of each status and body
// (`bookdist help exit-codes`), and the names of statuses that messages use. Through the client
// end to end: client-pipeline.test.ts and the commands' stub tests.
import { describe, expect, it } from 'vitest';
import { isAnswer, parseResponse } from '../../src/api/answer.js';
import {
  ApiError,
  DryRun,
  exitCodeForStatus,
  isConflict,
  statusText,
  toApiError,
  UnverifiedAnswer,
} from '../../src/api/errors.js';
import { ExitCode } from '../../src/errors.js';

const info = { method: 'GET', url: 'http://api.bookdist.test/v1/x/' };
const parse = (text: string, ctype?: string, status = 400) =>
  parseResponse(status, ctype === undefined ? {} : { 'content-type': ctype }, text, info);

describe('parseResponse: any body in one shape', () => {
  it('an empty or blank body is `empty`, with the status as its code', () => {
    for (const text of ['', '  \n\t'])
      expect(parse(text, 'application/json', 204)).toEqual({
        status: 204,
        headers: { 'content-type': 'application/json' },
        body: { code: 204 },
        format: 'empty',
        request: info,
      });
  });

  it('JSON by its content type, or by its first character without one; around it blanks are fine', () => {
    expect(parse(' {"a":1} ', 'application/json')).toMatchObject({ format: 'json', body: { a: 1 } });
    expect(parse('[1,2]')).toMatchObject({ format: 'json', body: [1, 2] });
    expect(parse('\n{"a":1}', 'text/plain')).toMatchObject({ format: 'json', body: { a: 1 } });
    expect(parse('"a string"', 'application/problem+json')).toMatchObject({ format: 'json', body: 'a string' });
    // Text that merely holds a bracket is text, even when it is a JSON value.
    expect(parse('"a{b"', 'text/plain')).toMatchObject({ format: 'text', body: { code: 400, text: '"a{b"' } });
    expect(parse('12', 'text/plain')).toMatchObject({ format: 'text', body: { text: '12' } });
  });

  it('a body that says JSON but is not is kept as text, exactly as it came', () => {
    expect(parse(' {"cut": ', 'application/json', 502)).toEqual({
      status: 502,
      headers: { 'content-type': 'application/json' },
      body: { code: 502, text: ' {"cut": ' },
      format: 'text',
      request: info,
    });
  });

  it("the access API's XML error: by content type, declaration or root element; message, else error", () => {
    const xml = (inner: string) => `<response>${inner}</response>`;
    expect(parse(xml('<message>Price invalid</message>'), 'application/xml').body).toEqual({
      code: 400,
      error: true,
      message: 'Price invalid',
      text: '<response><message>Price invalid</message></response>',
    });
    expect(parse(xml('<error>Only the error</error>'), 'text/xml').body.message).toBe('Only the error');
    expect(parse('<?xml version="1.0"?><x><message>Declared</message></x>').format).toBe('xml');
    for (const root of ['error', 'response', 'errors', 'ERRORS'])
      expect(parse(`<${root}><message>m</message></${root}>`, 'text/plain'), root).toMatchObject({
        format: 'xml',
        body: { message: 'm' },
      });
    // A root of another name is not recognised without a type or declaration.
    expect(parse('<html><message>m</message></html>', 'text/html').format).toBe('text');
    expect(parse('<errorpage><message>m</message></errorpage>', 'text/plain').format).toBe('text');
    expect(parse('<html><body><error>Sign in</error></body></html>', 'text/html').format).toBe('text');
    // XML with neither element is text.
    expect(parse(xml('<other>x</other>'), 'application/xml')).toMatchObject({ format: 'text' });
  });

  it("an element's text: attributes allowed, inner tags as spaces, entities decoded once, blanks folded", () => {
    const m = (inner: string) => parse(`<response><message lang="en">${inner}</message></response>`, 'application/xml');
    expect(m('  A <b>bold</b>\n\n  word  ').body.message).toBe('A bold word');
    expect(m('1 &lt; 2 &gt; 0 &quot;q&quot; &apos;s&apos; &amp;').body.message).toBe(`1 < 2 > 0 "q" 's' &`);
    expect(m('&amp;lt;').body.message).toBe('&lt;');
    expect(m('one<br/>two').body.message).toBe('one two');
    expect(parse('<response><MESSAGE>Upper</MESSAGE></response>', 'application/xml').body.message).toBe('Upper');
    // The first element of that name; `<messages>` is another element.
    expect(
      parse('<response><messages>no</messages><message>one</message><message>two</message></response>', 'text/xml').body
        .message,
    ).toBe('one');
  });

  it('isAnswer: below 400 is the answer, 400 and up an error', () => {
    expect(isAnswer(parse('{}', 'application/json', 399))).toBe(true);
    expect(isAnswer(parse('{}', 'application/json', 400))).toBe(false);
  });
});

describe('toApiError: the message a user reads of a refusal', () => {
  const err = (status: number, body: unknown) =>
    toApiError({ status, headers: {}, body, format: 'json', request: info });

  it("the service's message, else its detail, else its text (trimmed, cut at 300), else the status's name", () => {
    expect(err(400, { message: 'm', detail: 'd', text: 't' }).message).toBe('m');
    expect(err(400, { message: '', detail: 'd', text: 't' }).message).toBe('d');
    expect(err(400, { message: 1, detail: 'd' }).message).toBe('d');
    expect(err(400, { detail: '', text: '  t  ' }).message).toBe('t');
    expect(err(400, { detail: 2, text: 'x'.repeat(301) }).message).toBe(`${'x'.repeat(300)}…`);
    expect(err(404, { text: 3 }).message).toBe('Not found');
    expect(err(418, {}).message).toBe('The service answered without a message');
    expect(err(418, null).message).toBe('The service answered without a message');
  });

  it('carries the status, the body and the request; named ApiError; its exit code from the status and body', () => {
    const e = err(409, { message: 'Taken' });
    expect(e).toBeInstanceOf(ApiError);
    expect([e.name, e.status, e.body, e.request, e.exitCode]).toEqual([
      'ApiError',
      409,
      { message: 'Taken' },
      info,
      ExitCode.CONFLICT,
    ]);
    expect(err(400, undefined).body).toEqual({});
  });

  it('a 401 "authentication failed" names the command that shows the credentials; another 401 does not', () => {
    expect(err(401, { message: 'Authentication Failed.' }).message).toBe(
      "Authentication Failed. (check the profile's username and key: `bookdist profile show`)",
    );
    expect(err(403, { message: 'Authentication failed' }).message).toBe('Authentication failed');
    expect(err(401, { message: 'Expired' }).message).toBe('Expired');
  });

  it('each status bookdist names has its name', () => {
    expect(
      [400, 401, 403, 404, 405, 409, 410, 413, 422, 429, 500, 502, 503, 504].map((s) => `${s} ${statusText(s)}`),
    ).toEqual([
      '400 Bad request',
      '401 Unauthorized',
      '403 Forbidden',
      '404 Not found',
      '405 Method not allowed',
      '409 Conflict',
      '410 Gone',
      '413 Request too large',
      '422 Unprocessable request',
      '429 Too many requests',
      '500 Internal server error',
      '502 Bad gateway',
      '503 Service unavailable',
      '504 Gateway timeout',
    ]);
    expect(statusText(418)).toBeUndefined();
  });
});

describe('exit codes of answers (bookdist help exit-codes)', () => {
  it('3 for every not-found: 404, and a 400 that says "does not exist" or "not found"', () => {
    expect(exitCodeForStatus(404)).toBe(3);
    expect(exitCodeForStatus(400, { message: 'The requested book does not exist' })).toBe(3);
    expect(exitCodeForStatus(400, { text: 'Book NOT FOUND' })).toBe(3);
    expect(exitCodeForStatus(400, { message: 'Bad isbn' })).toBe(1);
    expect(exitCodeForStatus(422, { message: 'not found' })).toBe(1);
  });

  it('4 for a 401, and a 403 that refuses credentials or scopes (or says nothing); another 403 is a rule (1)', () => {
    expect(exitCodeForStatus(401, { message: 'anything' })).toBe(4);
    expect(exitCodeForStatus(403)).toBe(4);
    expect(exitCodeForStatus(403, { message: '' })).toBe(4);
    expect(exitCodeForStatus(403, {})).toBe(4);
    expect(exitCodeForStatus(403, { text: 5 })).toBe(4);
    expect(exitCodeForStatus(403, null)).toBe(4);
    expect(exitCodeForStatus(403, 'Forbidden')).toBe(4);
    for (const m of [
      'Authentication required',
      'Not authorised',
      'not authorized',
      'missing SCOPE codes',
      'bad credentials',
      'invalid signature',
      'api-key refused',
      'API key refused',
      'token expired',
      'Forbidden',
      'no permission',
    ])
      expect(exitCodeForStatus(403, { message: m }), m).toBe(4);
    expect(exitCodeForStatus(403, { text: 'The book has been printed too often' })).toBe(1);
    expect(exitCodeForStatus(403, { message: 'The refund window has closed' })).toBe(1);
  });

  it('5 for a conflict: 409, `conflict: true`, or "already has access / exists / used / registered"', () => {
    expect(exitCodeForStatus(409)).toBe(5);
    expect(exitCodeForStatus(400, { conflict: true })).toBe(5);
    for (const m of ['already has access', 'Already exists', 'code already used', 'email already registered'])
      expect(exitCodeForStatus(400, { message: m }), m).toBe(5);
    expect(exitCodeForStatus(400, { message: 'already paid' })).toBe(1);
    expect(exitCodeForStatus(400, { conflict: 'yes' })).toBe(1);
  });

  it('7 for 429 and 503; 1 for any other status', () => {
    expect([429, 503, 500, 502, 504, 410].map((s) => exitCodeForStatus(s))).toEqual([7, 7, 1, 1, 1, 1]);
  });

  it('isConflict: only of a refusal; a success that mentions a conflict is none', () => {
    expect(isConflict(200, { conflict: true })).toBe(false);
    expect(isConflict(399, { message: 'User already exists' })).toBe(false);
    expect(isConflict(400, { message: 'User already exists' })).toBe(true);
    expect(isConflict(400, 'already exists')).toBe(false);
    expect(isConflict(400, null)).toBe(false);
    expect(isConflict(400, { message: 5, text: 'Already registered' })).toBe(true);
  });
});

describe('the errors that are not refusals', () => {
  it("an unverified answer is exit 1 with its outcome in the details; a dry run is named so (the report's exit 0)", () => {
    const u = new UnverifiedAnswer('not the answer', 'unknown', { status: 302 }, 302);
    expect([u.name, u.exitCode, u.details, u.status, u.verdict]).toEqual([
      'UnverifiedAnswer',
      1,
      { status: 302, outcome: 'unknown' },
      302,
      'unknown',
    ]);
    const d = new DryRun();
    expect([d.name, d.message]).toEqual(['DryRun', 'dry run']);
  });
});
