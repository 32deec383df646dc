// What the ledger records of a write's end (src/api/write-hook.ts): `done` only for the answer the
// interface promises, `failed` for a refusal or a request that never left, `unknown` for anything
// that may have reached the service; an unknown write's error names its ledger row and
// `bookdist ledger reconcile`. Pure functions, tested with a ticket that keeps what it is told.
import { describe, expect, it } from 'vitest';
import { CliError, ExitCode } from '../../src/errors.js';
import type { ApiResponse } from '../../src/api/answer.js';
import { settleThrown, verdictOf, type WriteTicket, type WriteVerdict } from '../../src/api/write-hook.js';

const answer = (status: number, format: ApiResponse['format'], body: unknown, headers = {}): ApiResponse =>
  ({ status, format, body, headers, request: { method: 'POST', url: 'http://x/v1/order/free/' } }) as ApiResponse;

function ticket(): WriteTicket & { told: WriteVerdict[] } {
  const told: WriteVerdict[] = [];
  return { id: '42', told, after: (v) => told.push(v) };
}

describe('verdictOf: the answer decides done, failed or unknown', () => {
  it('a 2xx JSON answer is done, with its body; success:false or a body that is not an object is unknown', () => {
    for (const status of [200, 201, 299])
      expect(verdictOf(answer(status, 'json', { success: true, id: 1 }))).toEqual({
        status: 'done',
        http: status,
        body: { success: true, id: 1 },
      });
    expect(verdictOf(answer(200, 'json', { success: false }))).toEqual({
      status: 'unknown',
      http: 200,
      reason: "the answer was not the interface's (success: false)",
    });
    expect(verdictOf(answer(200, 'json', null)).status).toBe('unknown');
    expect(verdictOf(answer(200, 'json', 'text')).status).toBe('unknown');
  });

  it('a 2xx that is not JSON (a sign-in page) is unknown and says what came', () => {
    expect(verdictOf(answer(200, 'text', { code: 200, text: '<html>' }, { 'content-type': 'text/html' }))).toEqual({
      status: 'unknown',
      http: 200,
      reason: "the answer was not the interface's (text body, text/html)",
    });
    expect(verdictOf(answer(204, 'empty', { code: 204 })).reason).toBe(
      "the answer was not the interface's (empty body, no content type)",
    );
  });

  it('a 4xx or a 503 is a refusal (failed, with the body); 3xx, 500, 502 and 504 leave it unknown', () => {
    for (const status of [400, 404, 429, 499, 503])
      expect(verdictOf(answer(status, 'json', { message: 'no' }))).toEqual({
        status: 'failed',
        http: status,
        body: { message: 'no' },
      });
    expect(verdictOf(answer(302, 'text', {}, { location: 'https://login.example/' }))).toEqual({
      status: 'unknown',
      http: 302,
      reason: 'redirected (https://login.example/)',
    });
    expect(verdictOf(answer(301, 'empty', {})).reason).toBe('redirected (no Location)');
    for (const status of [199, 300, 399, 500, 502, 504]) {
      const v = verdictOf(answer(status, 'json', { message: 'x' }));
      expect(v.status, `HTTP ${status}`).toBe('unknown');
    }
    expect(verdictOf(answer(500, 'json', {})).reason).toBe('HTTP 500');
    // The edges of the redirects: 300 is one, 199 is not.
    expect(verdictOf(answer(300, 'empty', {})).reason).toBe('redirected (no Location)');
    expect(verdictOf(answer(199, 'empty', {})).reason).toBe('HTTP 199');
    expect(verdictOf(answer(400, 'json', {})).status).toBe('failed');
    expect(verdictOf(answer(500, 'json', {})).status).toBe('unknown');
  });
});

describe('settleThrown: an error ends the write as failed or unknown', () => {
  it('a request that never left (refused connection) is failed, and its error is returned unchanged', () => {
    const t = ticket();
    const e = new CliError('connection refused\nsecond line', ExitCode.UNAVAILABLE, { code: 'ECONNREFUSED' }, 0);
    expect(settleThrown(t, e)).toBe(e);
    expect(t.told).toEqual([{ status: 'failed', http: 0, reason: 'connection refused' }]);
  });

  it('a connection lost after sending, a timeout, an interrupt or a said unknown is unknown, and the error names the row', () => {
    const cases: Array<[string, CliError]> = [
      ['lost', new CliError('socket hang up', ExitCode.UNAVAILABLE, { code: 'ECONNRESET' })],
      ['lost, no code', new CliError('socket hang up', ExitCode.UNAVAILABLE)],
      ['said', new CliError('the outcome is unknown: gone', ExitCode.ERROR, { outcome: 'unknown' })],
    ];
    for (const [name, e] of cases) {
      const t = ticket();
      const out = settleThrown(t, e) as CliError;
      expect(
        t.told.map((v) => v.status),
        name,
      ).toEqual(['unknown']);
      expect(out, name).toBeInstanceOf(CliError);
      expect(out.exitCode, name).toBe(e.exitCode);
      expect(out.details, name).toMatchObject({ outcome: 'unknown', ledger_id: '42' });
      expect(out.message, name).toContain(
        'It is write 42 in the ledger: `bookdist ledger reconcile` settles it (`bookdist ledger show 42`).',
      );
      // Said once: an error that already says the outcome is unknown is not told so again.
      expect(out.message.includes('its outcome is unknown'), name).toBe(!/outcome is unknown/.test(e.message));
      if (/outcome is unknown/.test(e.message))
        expect(out.message, name).toBe(
          `${/[.!?]$/.test(e.message) ? e.message : `${e.message}.`} It is write 42 in the ledger: \`bookdist ledger reconcile\` settles it (\`bookdist ledger show 42\`).`,
        );
    }
    // A message that ends its sentence already gets no second full stop.
    const ended = settleThrown(ticket(), new CliError('socket hang up.', ExitCode.UNAVAILABLE)) as CliError;
    expect(ended.message).toMatch(/^socket hang up\. The request may have reached/);
    for (const name of ['AbortError', 'TimeoutError']) {
      const e = Object.assign(new CliError('stopped'), { name });
      const t = ticket();
      const out = settleThrown(t, e) as CliError;
      expect(t.told[0].status, name).toBe('unknown');
      expect(out.message, name).toContain('stopped. The request may have reached the service: its outcome is unknown.');
    }
  });

  it('another error is failed; an unknown outcome that is not a CliError is returned as it is', () => {
    const t = ticket();
    const e = new CliError('bad input', ExitCode.USAGE);
    expect(settleThrown(t, e)).toBe(e);
    expect(t.told).toEqual([{ status: 'failed', reason: 'bad input' }]);
    const plain = Object.assign(new Error('timed out'), { name: 'TimeoutError', status: 0 });
    const t2 = ticket();
    expect(settleThrown(t2, plain)).toBe(plain);
    expect(t2.told).toEqual([{ status: 'unknown', http: 0, reason: 'timed out' }]);
    const t3 = ticket();
    expect(settleThrown(t3, 'a string')).toBe('a string');
    expect(t3.told).toEqual([{ status: 'failed', reason: 'a string' }]);
    // Even a thrown undefined is settled, and given back as it was.
    const t4 = ticket();
    expect(settleThrown(t4, undefined)).toBeUndefined();
    expect(t4.told).toEqual([{ status: 'failed', reason: 'undefined' }]);
  });

  it("an answer that was not the interface's says what came: the problem, or where it redirected", () => {
    const web = Object.assign(new CliError('not JSON', ExitCode.ERROR, { outcome: 'unknown', problem: 'HTML page' }), {
      name: 'UnverifiedAnswer',
    });
    const t = ticket();
    settleThrown(t, web);
    expect(t.told[0]).toEqual({ status: 'unknown', reason: "the answer was not the interface's (HTML page)" });
    const moved = Object.assign(new CliError('moved', ExitCode.ERROR, { location: 'https://elsewhere/' }), {
      name: 'UnverifiedAnswer',
    });
    const t2 = ticket();
    settleThrown(t2, moved);
    expect(t2.told[0].reason).toBe("the answer was not the interface's (redirected to https://elsewhere/)");
    const t3 = ticket();
    settleThrown(t3, Object.assign(new CliError('moved'), { name: 'UnverifiedAnswer' }));
    expect(t3.told[0].reason).toBe("the answer was not the interface's (redirected to no Location)");
  });

  it('a reason is one line of at most 200 characters', () => {
    const t = ticket();
    settleThrown(t, new CliError(`${'x'.repeat(300)}\nmore`, ExitCode.USAGE));
    expect(t.told[0].reason).toBe('x'.repeat(200));
  });
});
